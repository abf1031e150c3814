// The bot driver: joins N guests and drives every one of them from ONE timer
// loop — each round updates every client and then lets its behaviour act — so
// hundreds of bots cost one timer, not hundreds, and a round's duration says
// directly whether the process keeps up. Each bot is a GameClient from the
// shared core with a wasm Core of its own (the core's grid is the client's map).
import {
  connectAccount,
  connectGuest,
  type FetchFn,
  GameClient,
  gatewayBaseUrl,
  type GuestSession,
  impairTransport,
  type Transport,
} from "../client/core/index.js";
import { UdpNodeTransport } from "../client/transport/udp-node.js";
import { deriveSeed, type DuplexProfile } from "../netsim/index.js";
import type { HostPort } from "../netsim/udp-proxy.js";
import type { Core } from "../wasm/core.js";
import {
  type Behaviour,
  BotMind,
  farthestReachable,
  Fight,
  GoTo,
  Hunt,
  Delve,
  Keyboard,
  type Point,
  Talk,
  Wander,
} from "./behaviours.js";
import type { BehaviourName } from "./cli-args.js";
import { DurationHistogram, type JoinProgress, type LiveFigures, percentiles, type Summary } from "./figures.js";

export interface SwarmConfig {
  count: number;
  http: string;
  /** Send UDP here instead of the HTTP host at the session's udpPort. */
  server: HostPort | null;
  behaviour: BehaviourName;
  goal: Point | null;
  netsim: DuplexProfile | null;
  seed: number;
  nickPrefix: string;
  joinParallel: number;
  updateMs: number;
  loadCore: () => Promise<Core>;
  fetch?: FetchFn;
  /** Wraps each bot's link (after any netsim), e.g. to copy what it sends (the soak's captured packets). */
  wrapTransport?: (transport: Transport, index: number) => Transport;
  /** Told whenever the join count changes. */
  onProgress?: (progress: JoinProgress) => void;
  /** Told once, when goto picked its goal by itself. */
  onGoalChosen?: (goal: Point, by: string) => void;
  /**
   * Each bot registers an account named after its nick with this password (its reconnect logs in again)
   * instead of joining as a guest: its character and bag are kept in the world's store.
   */
  accountPassword?: string;
  /** A behaviour of the caller's own (the chaos run's), instead of the one `behaviour` names. */
  custom?: Behaviour;
}

export interface Bot {
  readonly index: number;
  readonly nick: string;
  readonly client: GameClient;
  readonly core: Core;
  readonly mind: BotMind;
  /** The session the mind's intent belongs to; a reconnect makes a new one. */
  session: GuestSession;
}

/** Whether every chunk of the client's manifest that exists is held at its version. */
function holdsNeighbourhood(client: GameClient): boolean {
  const manifest = client.neighbourhood;
  return (
    manifest !== null &&
    manifest.every((entry) => entry.version === 0 || client.chunks.version(entry.chunkId) === entry.version)
  );
}

export class Swarm {
  readonly bots: Bot[] = [];
  joinFailures = 0;
  lastJoinError = "";
  /** Process RSS before the first join and once every join has settled: the memory the bots took. */
  private rssBeforeJoinBytes = 0;
  private rssAfterJoinBytes = 0;
  private behaviour: Behaviour | null;
  private stopping = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private dueMs = 0;
  private startMs = performance.now();
  private roundSamples: number[] = [];
  private lateSamples: number[] = [];
  private lastRound = { roundMs: percentiles([]), lateMs: percentiles([]) };
  private readonly runRounds = new DurationHistogram();
  private readonly runLate = new DurationHistogram();
  /** (time, total replans) once per figures() call, for the per-minute rate. */
  private replanHistory: { atMs: number; replans: number }[] = [];

  constructor(readonly config: SwarmConfig) {
    this.behaviour =
      config.custom ??
      (config.behaviour === "wander"
        ? new Wander()
        : config.behaviour === "keyboard"
          ? new Keyboard()
          : config.behaviour === "hunt"
            ? new Hunt()
            : config.behaviour === "fight"
              ? new Fight()
              : config.behaviour === "delve"
                ? new Delve()
                : config.behaviour === "talk"
                  ? new Talk()
                  : config.goal
                    ? new GoTo(config.goal)
                    : null); // goto without a goal: chosen once the first bot has seen its neighbourhood
  }

  /** Starts the one driving loop (bots joined later are driven from their first round on). */
  start(): void {
    this.startMs = performance.now();
    this.dueMs = this.startMs;
    this.schedule();
  }

  /**
   * Joins `count` bots, at most joinParallel at once. Resolves when all have
   * joined or failed (or stop() was called). Throws the first error when the
   * very first joins all fail to reach the server at all.
   */
  async joinAll(): Promise<void> {
    const config = this.config;
    this.rssBeforeJoinBytes = process.memoryUsage().rss;
    let next = 0;
    let reached = false;
    const worker = async () => {
      while (!this.stopping && next < config.count) {
        const index = next++;
        try {
          this.bots.push(await this.joinOne(index));
          reached = true;
        } catch (error) {
          this.joinFailures++;
          this.lastJoinError = error instanceof Error ? error.message : String(error);
          if (!reached && this.joinFailures >= Math.min(config.count, config.joinParallel)) {
            this.stopping = true;
            throw error;
          }
        }
        config.onProgress?.({
          joined: this.bots.length,
          failed: this.joinFailures,
          wanted: config.count,
          lastError: this.lastJoinError,
        });
      }
    };
    const workers = Array.from({ length: Math.min(config.joinParallel, config.count) }, worker);
    const results = await Promise.allSettled(workers);
    this.rssAfterJoinBytes = process.memoryUsage().rss;
    const failure = results.find((result) => result.status === "rejected");
    if (failure && this.bots.length === 0) throw (failure as PromiseRejectedResult).reason;
  }

  private async joinOne(index: number): Promise<Bot> {
    const config = this.config;
    const nick = `${config.nickPrefix}${index + 1}`;
    let links = 0;
    /** `base`: where the session's gateway answers HTTP (the host its UDP port is on). */
    const makeTransport = async (session: GuestSession, base = config.http): Promise<Transport> => {
      const host = config.server?.host ?? new URL(base).hostname;
      const port = config.server?.port ?? session.udpPort;
      // Signed with the session key, as every UDP client should: its session can then follow an address change.
      const udp = await UdpNodeTransport.connect(host, port, session.key);
      const link = config.netsim
        ? impairTransport(udp, config.netsim, deriveSeed(config.seed, "link", index, links++))
        : udp;
      return config.wrapTransport ? config.wrapTransport(link, index) : link;
    };
    const [connection, core] = await Promise.all([
      config.accountPassword === undefined
        ? connectGuest(config.http, nick, makeTransport, config.fetch)
        : connectAccount(
            config.http,
            { kind: "register", name: nick, password: config.accountPassword, nick },
            makeTransport,
            config.fetch,
          ),
      config.loadCore(),
    ]);
    // Chat, dialogs and the rest are the core's too: it acknowledges every chat line, as the server needs.
    // A cluster's gateway that stops answering: the same session goes on through the next one it named.
    const client = GameClient.create({
      core,
      ...connection,
      moveTo: (session, gateway) =>
        makeTransport({ ...session, udpPort: gateway.udpPort }, gatewayBaseUrl(config.http, gateway)),
    });
    if (this.stopping) client.close();
    return {
      index,
      nick,
      client,
      core,
      mind: new BotMind(client, deriveSeed(config.seed, "bot", index)),
      session: connection.session,
    };
  }

  /** Stops the loop and closes every bot; joins still in flight are closed as they finish. */
  stop(): void {
    this.stopping = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    for (const bot of this.bots) bot.client.close();
  }

  get stopped(): boolean {
    return this.stopping;
  }

  private schedule(): void {
    if (this.stopping) return;
    this.timer = setTimeout(() => this.round(), Math.max(0, this.dueMs - performance.now()));
  }

  /** One round: every bot's update, then its behaviour; deadline-paced so rounds do not drift. */
  private round(): void {
    const startMs = performance.now();
    const lateMs = Math.max(0, startMs - this.dueMs);
    this.lateSamples.push(lateMs);
    this.runLate.add(lateMs);
    this.chooseGoalIfDue();
    const behaviour = this.behaviour;
    for (const bot of this.bots) {
      const client = bot.client;
      client.update(startMs);
      if (client.state !== "playing") continue;
      if (bot.session !== client.session) {
        bot.session = client.session; // reconnected: the old click died with the old session
        bot.mind.forget();
      }
      behaviour?.act(bot.mind, startMs);
    }
    const endMs = performance.now();
    this.roundSamples.push(endMs - startMs);
    this.runRounds.add(endMs - startMs);
    this.dueMs += this.config.updateMs;
    if (this.dueMs < endMs) this.dueMs = endMs + this.config.updateMs; // fell behind: do not burst to catch up
    this.schedule();
  }

  private chooseGoalIfDue(): void {
    if (this.behaviour || this.config.behaviour !== "goto") return;
    const first = this.bots.find((bot) => bot.client.state === "playing" && bot.client.confirmed !== null);
    if (!first || !holdsNeighbourhood(first.client)) return;
    const goal = farthestReachable(first.client, first.client.confirmed!);
    this.behaviour = new GoTo(goal);
    this.config.onGoalChosen?.(goal, first.nick);
  }

  /** Live figures; also closes the loop-timing sample period (call about once a second). */
  figures(nowMs = performance.now()): LiveFigures {
    if (this.roundSamples.length > 0) {
      this.lastRound = { roundMs: percentiles(this.roundSamples), lateMs: percentiles(this.lateSamples) };
      this.roundSamples = [];
      this.lateSamples = [];
    }
    let playing = 0;
    let moving = 0;
    let corrections = 0;
    let replans = 0;
    let chunkRetransmits = 0;
    let reconnects = 0;
    let goalsReached = 0;
    let datagramsIn = 0;
    let datagramsOut = 0;
    const rtts: number[] = [];
    for (const bot of this.bots) {
      const stats = bot.client.stats;
      if (stats.state === "playing") {
        playing++;
        if (stats.pongsReceived > 0) rtts.push(stats.rttMs);
      }
      if (stats.pendingSteps > 0) moving++;
      corrections += stats.corrections;
      replans += stats.replans;
      chunkRetransmits += stats.chunkRetransmits;
      reconnects += stats.reconnects;
      goalsReached += bot.mind.goalsReached;
      datagramsIn += stats.datagramsInPerSecond;
      datagramsOut += stats.datagramsOutPerSecond;
    }
    const history = this.replanHistory;
    history.push({ atMs: nowMs, replans });
    while (history.length > 1 && nowMs - history[0].atMs > 60_000) history.shift();
    const spanMs = nowMs - history[0].atMs;
    return {
      elapsedS: (nowMs - this.startMs) / 1000,
      joined: this.bots.length,
      wanted: this.config.count,
      joinFailures: this.joinFailures,
      playing,
      moving,
      rttMs: percentiles(rtts),
      corrections,
      replans,
      replansPerMinute: spanMs > 0 ? ((replans - history[0].replans) * 60_000) / spanMs : 0,
      chunkRetransmits,
      reconnects,
      goalsReached,
      datagramsInPerSecond: datagramsIn,
      datagramsOutPerSecond: datagramsOut,
      roundMs: this.lastRound.roundMs,
      lateMs: this.lastRound.lateMs,
    };
  }

  /** Totals for the end of a run. */
  summary(nowMs = performance.now()): Summary {
    const live = this.figures(nowMs);
    let stepsSent = 0;
    let datagramsOut = 0;
    let pingsSent = 0;
    let queriesSent = 0;
    let chatAcksSent = 0;
    let retractions = 0;
    let goalsSet = 0;
    let goalsAbandoned = 0;
    let maxReplansPerGoal = 0;
    let disconnects = 0;
    let decodeErrors = 0;
    let wasmBytes = 0;
    for (const bot of this.bots) {
      const client = bot.client;
      const stats = client.stats;
      stepsSent += stats.stepsSent;
      datagramsOut += stats.datagramsOut;
      pingsSent += stats.pingsSent;
      queriesSent += stats.queriesSent;
      retractions += stats.retractions;
      // The core answers every ChatPacket — shown, duplicate or beyond a gap — with one ChatAck.
      chatAcksSent += client.chat.counters.received + client.chat.counters.ignored;
      decodeErrors += stats.decodeErrors;
      if (stats.state === "disconnected" || stats.state === "reconnecting") disconnects++;
      goalsSet += bot.mind.goalsSet;
      goalsAbandoned += bot.mind.goalsAbandoned;
      maxReplansPerGoal = Math.max(maxReplansPerGoal, bot.mind.maxReplansPerGoal);
      wasmBytes += bot.core.memory.buffer.byteLength;
    }
    const joined = Math.max(1, this.bots.length);
    return {
      live,
      datagramsOut,
      pingsSent,
      queriesSent,
      chatAcksSent,
      retractions,
      stepsSent,
      goalsSet,
      goalsAbandoned,
      maxReplansPerGoal,
      disconnects,
      decodeErrors,
      wasmMiBPerBot: wasmBytes / joined / 2 ** 20,
      rssMiBPerBot: Math.max(0, this.rssAfterJoinBytes - this.rssBeforeJoinBytes) / joined / 2 ** 20,
      rssMiB: process.memoryUsage().rss / 2 ** 20,
      runRoundMs: this.runRounds.percentiles(),
      runLateMs: this.runLate.percentiles(),
    };
  }
}
