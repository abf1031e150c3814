// `npm run -s soak -- --minutes N`: a real server process under honest play
// and every attack of issue 17 at once, with the figures docs/security.md
// quotes. The honest bots run here (their timings must not suffer from the
// attacker's sending); the attacker is a process of its own
// (soak/attacker.ts); the server is a third. Exit status: 0 passed, 1 the
// server crashed, an account was lost, a defence gave way or the run could
// not start, 2 bad command line.
import { type ChildProcess, fork } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, setPriority, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Swarm } from "../bots/swarm.js";
import { randomSeed } from "../netsim/index.js";
import { loadCore } from "../wasm/node.js";
import {
  type Account,
  failedLogins,
  missingFromDatabase,
  registerAccounts,
  registrationSource,
} from "./soak/accounts.js";
import type { AttackConfig, AttackCounters, FromAttacker, ToAttacker } from "./soak/attacker.js";
import { PacketCapture } from "./soak/capture.js";
import { runProgram } from "../cli/command-line.js";
import { parseSoakArgs, type SoakOptions, USAGE } from "./soak/options.js";
import { failures, formatProgress, formatReport, type SoakFigures } from "./soak/report.js";
import { BotSamples, ServerSamples, TIMELINE_HEADER } from "./soak/samples.js";
import { kernelReceiveDrops, ServerProcess, type ServerStatus } from "./soak/server-process.js";

const ATTACKER = fileURLToPath(new URL("./soak/attacker.ts", import.meta.url));
/** Accounts the brute force guesses at (kept apart from the ones that must log in after: see soak/accounts.ts). */
const BRUTE_FORCE_TARGETS = 4;
/** The newest ticks each status read covers: one second at 24 Hz, the sampling period. */
const TICKS_PER_SAMPLE = 24;
const SAMPLE_MS = 1000;
const ATTACKER_TIMEOUT_MS = 30_000;

const MiB = 2 ** 20;
/** Set by SIGINT / SIGTERM: the attack ends early and the report is printed for the time it ran. */
let stopRequested = false;
const load = () =>
  `load average ${loadavg()
    .map((value) => value.toFixed(2))
    .join(", ")}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The attacker process and its IPC: start, feed, read counters, stop. */
class AttackerProcess {
  private child: ChildProcess;
  private latest: AttackCounters | null = null;
  private final: Promise<AttackCounters | null>;

  constructor(nice: number) {
    this.child = fork(ATTACKER, [], {
      execArgv: ["--import", "tsx"],
      serialization: "advanced",
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    if (nice > 0) setPriority(this.child.pid!, nice);
    this.final = new Promise((resolve) => {
      this.child.on("message", (message: FromAttacker) => {
        if (message.type === "counters") {
          this.latest = message.counters;
          if (message.final) resolve(message.counters);
        }
      });
      this.child.on("exit", () => resolve(this.latest));
    });
  }

  private send(message: ToAttacker): void {
    if (this.child.connected) this.child.send(message);
  }

  async start(config: AttackConfig): Promise<void> {
    this.send({ type: "start", config });
    const [message] = (await Promise.race([
      once(this.child, "message"),
      sleep(ATTACKER_TIMEOUT_MS).then(() => [{ type: "failed", message: "no answer" }]),
    ])) as [FromAttacker];
    if (message.type !== "started") {
      throw new Error(`the attacker did not start: ${message.type === "failed" ? message.message : message.type}`);
    }
  }

  feed(captured: Uint8Array[], tokens: bigint[] | null): void {
    if (captured.length > 0) this.send({ type: "capture", datagrams: captured });
    if (tokens) this.send({ type: "steal", tokens });
    this.send({ type: "report" });
  }

  get counters(): AttackCounters | null {
    return this.latest;
  }

  /** Stops the attack; its final counters (or the last ones it sent). */
  async stop(): Promise<AttackCounters | null> {
    this.send({ type: "stop" });
    const timer = setTimeout(() => this.child.kill("SIGKILL"), ATTACKER_TIMEOUT_MS);
    const counters = await this.final;
    clearTimeout(timer);
    if (this.child.exitCode === null) this.child.kill("SIGTERM");
    return counters;
  }
}

function makeAccounts(prefix: string, count: number): Account[] {
  return Array.from({ length: count }, (_, index) => ({
    name: `${prefix}${index + 1}`,
    password: randomBytes(12).toString("hex"),
  }));
}

async function soak(options: SoakOptions, seed: number, say: (line: string) => void): Promise<SoakFigures> {
  const dir = mkdtempSync(join(tmpdir(), "caves-soak-"));
  const dbPath = join(dir, "soak.sqlite");
  const loadBefore = load();
  const server = await ServerProcess.start(dbPath, options.serverArgs, options.serverNodeArgs, options.serverLog);
  say(
    `soak: server pid ${server.pid}, http 127.0.0.1:${server.httpPort}, udp 127.0.0.1:${server.udpPort}, db ${dbPath}`,
  );
  let attacker: AttackerProcess | null = null;
  let swarm: Swarm | null = null;
  try {
    const kept = makeAccounts("keeper", options.accounts);
    const targets = makeAccounts("target", BRUTE_FORCE_TARGETS);
    await registerAccounts(server.httpPort, kept);
    await registerAccounts(server.httpPort, targets, kept.length);
    say(`soak: registered ${kept.length} accounts to log in after, ${targets.length} for the brute force`);

    const capture = new PacketCapture();
    swarm = new Swarm({
      count: options.bots,
      http: `http://127.0.0.1:${server.httpPort}`,
      server: null,
      behaviour: "wander",
      goal: null,
      netsim: null,
      seed,
      nickPrefix: "honest",
      joinParallel: 4,
      updateMs: 10,
      loadCore: () => loadCore(),
      wrapTransport: (transport) => capture.wrap(transport),
    });
    swarm.start();
    await swarm.joinAll();
    say(`soak: ${swarm.bots.length}/${options.bots} honest bots joined`);

    const rssStartMiB = server.rssBytes() / MiB;
    attacker = new AttackerProcess(options.attackerNice);
    await attacker.start({
      httpPort: server.httpPort,
      udpPort: server.udpPort,
      seed,
      floodRate: options.floodRate,
      floodSources: options.floodSources,
      socketsPerSource: options.socketsPerSource,
      attackerSessions: options.attackerSessions,
      idleConnections: options.idleConnections,
      httpRate: options.httpRate,
      loginRate: options.loginRate,
      bruteForceTargets: targets.map((account) => account.name),
    });
    say(`soak: attack started for ${options.durationS} s`);
    const first = (await server.status(TICKS_PER_SAMPLE)).status;
    const firstAtMs = performance.now();
    const kernelDropsFirst = kernelReceiveDrops();

    // Sample once a second; print every 10 s (more often in short runs).
    const startMs = performance.now();
    const endMs = startMs + options.durationS * 1000;
    const progressEveryS = Math.max(1, Math.min(10, Math.floor(options.durationS / 3)));
    const samples = new ServerSamples(first, firstAtMs, server.cpuMs(), rssStartMiB);
    const botSamples = new BotSamples(swarm.bots.length);
    const timeline = options.timeline;
    if (timeline !== null) writeFileSync(timeline, `${TIMELINE_HEADER}\n`);
    let lastProgressS = 0;
    while (!stopRequested && performance.now() < endMs && server.alive) {
      await sleep(Math.min(SAMPLE_MS, Math.max(0, endMs - performance.now())));
      if (!server.alive) break;
      const bots = swarm.bots;
      attacker.feed(
        capture.take(),
        bots.map((bot) => bot.client.session.token),
      );
      let answered = false;
      try {
        const { status, ms } = await server.status(TICKS_PER_SAMPLE);
        samples.add(status, performance.now(), ms, server.cpuMs(), server.rssBytes() / MiB);
        answered = true;
      } catch {
        samples.unanswered(server.rssBytes() / MiB);
      }
      botSamples.add(bots);
      if (timeline !== null && answered) appendFileSync(timeline, `${samples.row},${botSamples.playing}\n`);
      const elapsedS = (performance.now() - startMs) / 1000;
      if (elapsedS - lastProgressS >= progressEveryS - 0.01) {
        lastProgressS = elapsedS;
        const counters = attacker.counters;
        const last = samples.last;
        say(
          formatProgress({
            elapsedS,
            floodSent: counters?.flood.datagramsSent ?? 0,
            serverUp: server.alive,
            rssMiB: server.rssBytes() / MiB,
            tickLateP99Ms: last.tickLateMs.p99,
            loopP99Ms: last.eventLoopDelayMs.p99,
            lostTicks: samples.lostTicks(),
            playing: botSamples.playing,
            bots: bots.length,
            rttP99Ms: botSamples.rtt.percentile(99),
            statusMs: samples.statusMs[samples.statusMs.length - 1],
            idleOpen: counters?.http.idle.open ?? 0,
            guesses: counters?.bruteForce.guesses ?? 0,
            heldBack: counters?.bruteForce.answers["429"] ?? 0,
          }),
        );
      }
    }
    const elapsedS = (performance.now() - startMs) / 1000;
    const attack = await attacker.stop();
    attacker = null;
    const summary = swarm.summary();
    swarm.stop();
    swarm = null;
    const crashedEarly = server.crash;
    const kernelDrops = kernelReceiveDrops() - kernelDropsFirst;
    let final: ServerStatus = samples.last;
    if (server.alive) {
      try {
        final = (await server.status(TICKS_PER_SAMPLE)).status;
      } catch {
        // the last sample stands
      }
    }
    const rssEndMiB = server.alive ? server.rssBytes() / MiB : Number.NaN;
    // Logins after the attack: the flood and the guesses have stopped, the server is the one that took them.
    const failed = server.alive ? await failedLogins(server.httpPort, kept) : kept.map((a) => `${a.name} (no server)`);
    // The brute force's targets, from the addresses they registered from: the guesses must not have locked them out.
    const ownersFailed = server.alive
      ? await failedLogins(server.httpPort, targets, (index) => registrationSource(kept.length + index))
      : targets.map((a) => `${a.name} (no server)`);
    await server.stop();
    const crash = crashedEarly ?? server.crash;
    const missing = missingFromDatabase(dbPath, [...kept, ...targets]);
    return {
      elapsedS,
      seed,
      loadBefore,
      loadAfter: load(),
      crashed: crash
        ? `exit ${String(crash.code)}${crash.signal ? ` (${crash.signal})` : ""}: ${server.stderr.slice(-2000)}`
        : null,
      rssStartMiB,
      rssEndMiB,
      rssMaxMiB: samples.rssMaxMiB,
      attack,
      serverDatagramsIn: final.datagramsIn,
      serverCpu: samples.cpu(kernelDrops),
      bytesToUnproven: final.addressProof.bytesToUnproven,
      bytesFromUnproven: final.addressProof.bytesFromUnproven,
      challengesSent: final.addressProof.challengesSent,
      ticks: samples.ticks(),
      bots: {
        wanted: options.bots,
        joined: summary.live.joined,
        playingEnd: summary.live.playing,
        playingMin: botSamples.playingMin,
        reconnects: summary.live.reconnects,
        disconnects: summary.disconnects,
        rttMs: botSamples.rtt.percentiles(),
        rttMaxMs: botSamples.rttMaxMs,
        botLoopLateP99Ms: summary.runLateMs.p99,
      },
      statusMs: samples.statusFigures(),
      refusedConnections: final.http?.refusedConnections ?? 0,
      drops: final.drops,
      accounts: {
        kept: kept.length,
        loggedIn: kept.length - failed.length,
        failedLogins: failed,
        targets: targets.length,
        ownersFailed,
        missing,
      },
    };
  } finally {
    swarm?.stop();
    await attacker?.stop();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function run(options: SoakOptions): Promise<number> {
  const seed = options.seed ?? randomSeed();
  const say = (line: string) => process.stdout.write(`${line}\n`);
  const onSignal = () => {
    if (stopRequested) process.exit(1); // a second signal: now (the server is killed on exit)
    stopRequested = true;
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  say(
    `soak: ${options.durationS} s, ${options.bots} bots, flood ${options.floodRate}/s from ${options.floodSources} ` +
      `addresses × ${options.socketsPerSource} sockets, ${options.idleConnections} idle connections, ` +
      `${options.httpRate} bad requests/s, ${options.loginRate} guesses/s, seed ${seed}`,
  );
  let figures: SoakFigures;
  try {
    figures = await soak(options, seed, say);
  } catch (error) {
    process.stderr.write(`soak: the run could not be completed: ${(error as Error).message}\n`);
    return 1;
  }
  say(formatReport(figures));
  return failures(figures).length === 0 ? 0 : 1;
}

runProgram({ name: "soak", usage: USAGE, parse: parseSoakArgs, run, lingerMs: 200 });
