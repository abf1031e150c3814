// The networking core's public entry: one GameClient per connection, shared by
// the browser client and the headless bots (docs/netcode.md). It composes the
// pieces of this folder and owns no policy of its own beyond the order in
// which they run.
//
// The host drives it: it calls update(nowMs) regularly (every animation frame
// in the browser, every ~10 ms in a bot) and feeds it input (setHeldAction,
// setGoal, clearGoal). Every sending decision happens in update(); arriving
// datagrams only change state. There are no free-running timers, so a test
// can drive a client on a virtual clock.
import { TICK_HZ } from "../../constants.js";
import { ACTION_MAX, ACTION_NOOP } from "../../protocol/action.js";
import type { ChunkView } from "../../protocol/chunk.js";
import { type ChunkEntry, chunkX, chunkY } from "../../protocol/chunk-id.js";
import type { EntityDetailView } from "../../protocol/entity-detail.js";
import { decodePacket, type PacketView } from "../../protocol/packet.js";
import { createStatePacket, MANIFEST_CENTRE, type StatePacket } from "../../protocol/state.js";
import { readTlvName } from "../../protocol/tlv.js";
import type { Core } from "../../wasm/core.js";
import { WasmCodec } from "../../wasm/codec.js";
import { WasmSim } from "../../wasm/sim.js";
import { lastWindowConsumedAt, tickOfWindow } from "../../window.js";
import { type CachedChunk, ChunkCache } from "./chunk-cache.js";
import { CHUNK_RETRANSMIT_MS, ChunkRequester } from "./chunk-requests.js";
import { type ConnectionState, ConnectionMonitor, DISCONNECT_AFTER_MS } from "./connection.js";
import type { ChatDelivery, PostResult } from "./chat.js";
import type { CustomMessageHandler } from "./custom.js";
import type { DialogState } from "./dialogs.js";
import { type EntityInfo, EntityTable } from "./entity-table.js";
import { ClientFeatures } from "./features.js";
import { GridWindow } from "./grid-window.js";
import {
  chebyshev,
  INTERACT_REACH_TILES,
  interactRefusal,
  type InteractRefusal,
  isInteractable,
} from "./interaction.js";
import { NameDirectory, QUERY_MAX_TRIES, QUERY_RETRANSMIT_MS } from "./names.js";
import { Outbox } from "./outbox.js";
import { ASTAR_NODE_BUDGET, type GoalResult, Planner } from "./planner.js";
import { type PendingStep, Prediction, type TilePoint } from "./prediction.js";
import { INITIAL_RTT_MS, Pinger, RttEstimator } from "./rtt.js";
import { earliestWindow, LEAD_MARGIN_MS, leadMs, MAX_PENDING_STEPS, nextStepWindow } from "./scheduler.js";
import { ServerClock } from "./server-clock.js";
import {
  fetchWorld,
  type FetchFn,
  type GuestSession,
  joinGuest,
  tileFlagsTable,
  type WorldInfo,
} from "./session-api.js";
import { type ClientStats, TrafficMeter } from "./stats.js";
import type { Transport } from "./transport.js";

export interface GameClientOptions {
  /** No StatePacket for this long: the link is considered lost. */
  disconnectAfterMs: number;
  /** Keep-alives that bind the session, sent until the first StatePacket. */
  helloIntervalMs: number;
  pingIntervalMs: number;
  initialRttMs: number;
  chunkRetransmitMs: number;
  /** Minimum gap between keep-alives that ask for lost entity updates. */
  keepAliveIntervalMs: number;
  queryRetransmitMs: number;
  queryMaxTries: number;
  /** Fixed part of the scheduling lead (scheduler.ts). */
  leadMarginMs: number;
  maxPendingSteps: number;
  astarNodeBudget: number;
  /** The wasm grid spans (2r+1)² chunks around the player's chunk. */
  gridRadiusChunks: number;
  /** Chunks farther than this (Chebyshev, in chunks) from the player's are evicted. */
  cacheRadiusChunks: number;
  clientType: number;
}

export const DEFAULT_GAME_CLIENT_OPTIONS: GameClientOptions = {
  disconnectAfterMs: DISCONNECT_AFTER_MS,
  helloIntervalMs: 250,
  pingIntervalMs: 1000,
  initialRttMs: INITIAL_RTT_MS,
  chunkRetransmitMs: CHUNK_RETRANSMIT_MS,
  keepAliveIntervalMs: 250,
  queryRetransmitMs: QUERY_RETRANSMIT_MS,
  queryMaxTries: QUERY_MAX_TRIES,
  leadMarginMs: LEAD_MARGIN_MS,
  maxPendingSteps: MAX_PENDING_STEPS,
  astarNodeBudget: ASTAR_NODE_BUDGET,
  gridRadiusChunks: 2,
  cacheRadiusChunks: 3,
  clientType: 0,
};

/** A fresh session and link, from the host (rejoin over HTTP with the same nick, new transport). */
export type ReconnectFn = () => Promise<{ session: GuestSession; transport: Transport }>;

export interface GameClientConfig {
  /** A core instance of this client's own: its grid is the client's map. */
  core: Core;
  transport: Transport;
  session: GuestSession;
  world: WorldInfo;
  /** Monotonic clock in ms; must be the clock update() is called with. Default performance.now(). */
  now?: () => number;
  reconnect?: ReconnectFn;
  /**
   * Receives every decoded server packet this core does not handle itself (features layered on top:
   * chat, dialogs, custom messages). Views alias the datagram: copy what you keep.
   */
  onOtherPacket?: (packet: PacketView) => void;
  options?: Partial<GameClientOptions>;
}

export interface SetGoalOptions {
  /** Click-and-hold steering: an unreachable tile keeps the current route instead of releasing the goal. */
  steering?: boolean;
}

export class GameClient {
  readonly options: GameClientOptions;
  readonly world: WorldInfo;
  /** The wasm grid the cache is loaded into: the renderer draws tiles from it (sim.getTile / sim.tiles). */
  readonly sim: WasmSim;
  /** Chunks held, by chunk id. */
  readonly chunks: ChunkCache;
  private readonly now: () => number;
  private readonly reconnectFn: ReconnectFn | undefined;
  private readonly onOtherPacket: ((packet: PacketView) => void) | undefined;
  private readonly tickHz: number;
  private sessionValue: GuestSession;
  private transport: Transport;
  private linkId = 0;
  private readonly traffic = new TrafficMeter();
  private readonly outbox: Outbox;
  private readonly connection: ConnectionMonitor;
  private readonly serverClock: ServerClock;
  private readonly rtt: RttEstimator;
  private readonly pinger: Pinger;
  private readonly grid: GridWindow;
  private readonly chunkRequests: ChunkRequester;
  private readonly entityTable = new EntityTable();
  private readonly prediction: Prediction;
  private readonly planner: Planner;
  private readonly nameDirectory: NameDirectory;
  /** Chat, dialogs, custom messages and the interaction trigger, layered on sendDatagram. */
  private readonly features: ClientFeatures;
  private manifest: StatePacket["chunks"] | null = null;
  private readonly cacheList: ChunkEntry[] = createStatePacket().chunks;
  private latestStateTick = -1;
  private ownId: number;
  private held = ACTION_NOOP;
  private planChanged = false;
  private lastHelloMs = -Infinity;
  private lastKeepAliveMs = -Infinity;
  private counters = {
    stepsSent: 0,
    retractions: 0,
    keepAlives: 0,
    decodeErrors: 0,
    reconnects: 0,
  };

  private constructor(config: GameClientConfig) {
    this.options = { ...DEFAULT_GAME_CLIENT_OPTIONS, ...config.options };
    const options = this.options;
    this.world = config.world;
    this.now = config.now ?? (() => performance.now());
    this.reconnectFn = config.reconnect;
    this.onOtherPacket = config.onOtherPacket;
    this.tickHz = config.world.tickHz > 0 ? config.world.tickHz : TICK_HZ;
    this.sessionValue = config.session;
    this.ownId = config.session.entityId;
    this.transport = config.transport;
    this.sim = new WasmSim(config.core);
    this.sim.setFlags(tileFlagsTable(config.world));
    this.chunks = new ChunkCache(new WasmCodec(config.core), options.cacheRadiusChunks);
    this.grid = new GridWindow(this.sim, this.chunks, options.gridRadiusChunks);
    this.outbox = new Outbox(config.transport, config.session.token, this.traffic, options.clientType);
    this.connection = new ConnectionMonitor(this.now(), options.disconnectAfterMs);
    this.serverClock = new ServerClock(this.tickHz);
    this.rtt = new RttEstimator(options.initialRttMs);
    this.pinger = new Pinger(options.pingIntervalMs);
    this.chunkRequests = new ChunkRequester(options.chunkRetransmitMs);
    this.prediction = new Prediction(this.sim);
    this.planner = new Planner(this.sim, options.astarNodeBudget);
    this.nameDirectory = new NameDirectory(options.queryRetransmitMs, options.queryMaxTries);
    this.features = new ClientFeatures({
      send: (datagram) => this.sendDatagram(datagram),
      token: () => this.sessionValue.token,
      clientType: options.clientType,
    });
    this.listen(config.transport);
  }

  /** A client on an established session and link; nothing is sent until the first update(). */
  static create(config: GameClientConfig): GameClient {
    return new GameClient(config);
  }

  // ── driving ────────────────────────────────────────────────────────────────

  /** Runs every sending decision due at `nowMs` (the clock given as `now`). */
  update(nowMs: number = this.now()): void {
    const connection = this.connection;
    if (connection.state === "closed") return;
    this.traffic.roll(nowMs);
    if (connection.checkTimeout(nowMs)) this.dropLink();
    if (connection.reconnectDue(nowMs) && this.reconnectFn) this.startReconnect();
    if (connection.state === "connecting") {
      // The server answers only a bound link; any ActionPacket with the token binds it.
      if (nowMs - this.lastHelloMs >= this.options.helloIntervalMs) {
        this.lastHelloMs = nowMs;
        this.sendCacheAck(nowMs);
      }
      return;
    }
    if (connection.state !== "playing") return;

    if (this.pinger.due(nowMs)) this.outbox.sendPing(this.pinger.send(nowMs));
    const missing = this.manifest ? this.chunks.missingCount(this.manifest) : 0;
    let ackSent = false;
    if (this.chunkRequests.due(missing, nowMs)) {
      this.sendCacheAck(nowMs);
      ackSent = true;
    }
    if (this.entityTable.needsResend && nowMs - this.lastKeepAliveMs >= this.options.keepAliveIntervalMs) {
      // Any target_tick-0 ActionPacket makes the server re-send the entries, so one packet serves both.
      if (!ackSent) this.sendCacheAck(nowMs);
      this.lastKeepAliveMs = nowMs;
      this.counters.keepAlives++;
    }
    for (const id of this.nameDirectory.due(nowMs)) {
      if (!this.queryWouldInteract(id)) this.outbox.sendEntityQuery(id);
    }
    this.features.update(nowMs);
    this.steer(nowMs);
  }

  /** Held movement key: 1..8 walks one step per window while held, 0 stops. Cancels any click-to-move goal. */
  setHeldAction(action: number): void {
    if (!Number.isInteger(action) || action < 0 || action > ACTION_MAX) {
      throw new RangeError(`action must be 0..${ACTION_MAX}, got ${action}`);
    }
    if (action === this.held) return;
    this.held = action;
    this.planChanged = true;
    if (action !== ACTION_NOOP) this.planner.release("cleared");
  }

  /**
   * Click-to-move toward world tile (x, y), routed from the predicted position.
   * Calling it again with the same tile changes nothing (click-and-hold calls it
   * every frame). "not-ready" before the own position is known.
   */
  setGoal(x: number, y: number, options: SetGoalOptions = {}): GoalResult | "not-ready" {
    if (!this.prediction.confirmed || this.connection.state !== "playing") return "not-ready";
    // A new route starts where the server will be after the steps too late to withdraw: the
    // still-cancellable ones are retracted by the plan change, so planning past them would
    // hand the route a first tile the next update cannot step to.
    const from = this.prediction.predictedBefore(this.earliestWindowAt(this.now()))!;
    const hadGoal = this.planner.goal !== null;
    const result = this.planner.setGoal({ x, y }, from, options.steering === true);
    if (result === "planned" || (hadGoal && this.planner.goal === null)) this.planChanged = true;
    return result;
  }

  /** Drops the goal and its route; scheduled steps that can still be cancelled are. */
  clearGoal(): void {
    if (!this.planner.goal) return;
    this.planner.release("cleared");
    this.planChanged = true;
  }

  /**
   * Sends a datagram the host encoded itself, for packet types this core does not speak (chat, dialogs),
   * over the current link and counted in the stats. Dropped while no link is up.
   */
  sendDatagram(datagram: Uint8Array): void {
    const state = this.connection.state;
    if (state !== "playing" && state !== "connecting") return;
    this.traffic.sent(datagram.length);
    this.transport.send(datagram);
  }

  // ── chat, dialogs, custom messages, interaction (features.ts) ──────────────

  /** Chat delivery: listen() for lines and refusals, unacknowledged, counters. */
  get chat(): ChatDelivery {
    return this.features.chat;
  }

  /** Posts a chat line; it is re-sent until the server acknowledges it. */
  postChat(text: string): PostResult {
    return this.features.chat.post(text, this.now());
  }

  /** Dialogs on screen (shown), listen() for opened and closed ones. */
  get dialogs(): DialogState {
    return this.features.dialogs;
  }

  /** Presses a button of a shown dialog, with one value per text input; false if it is not shown. */
  replyDialog(dialogId: number, returnCode: number, values: readonly string[] = []): boolean {
    return this.features.dialogs.reply(dialogId, returnCode, values, this.now());
  }

  /** Closes a shown dialog without a button (return code 0); false if it is not shown. */
  dismissDialog(dialogId: number): boolean {
    return this.features.dialogs.dismiss(dialogId, this.now());
  }

  /** Routes custom messages of `subtype` from the server to `handler` (replacing an earlier one). */
  onCustom(subtype: number, handler: CustomMessageHandler): void {
    this.features.custom.on(subtype, handler);
  }

  offCustom(subtype: number): void {
    this.features.custom.off(subtype);
  }

  /** Sends a custom message (a plain datagram: it may be lost). Throws EncodeError above 1182 bytes. */
  sendCustom(subtype: number, payload: Uint8Array): void {
    this.features.custom.send(subtype, payload);
  }

  /**
   * Uses the interactable entity `entityId` (a sign, a notice board): sends the
   * query the server takes as an interaction, re-sent until answered. Returns
   * null when sent, else why not: the entity is no interactable in view, the
   * player stands more than one tile from it, or steps are still in flight.
   */
  interact(entityId: number): InteractRefusal | null {
    const refusal = interactRefusal(
      this.entityTable.entries.get(entityId),
      this.prediction.confirmed,
      this.pending.length,
    );
    if (refusal === null) this.features.interaction.start(entityId, this.now());
    return refusal;
  }

  /** Asks for `entityId`'s name (hover) unless it is known or asked already; it appears in names. */
  lookUpName(entityId: number): void {
    this.nameDirectory.want(entityId);
  }

  /** Closes the link for good; the client sends nothing afterwards. */
  close(): void {
    if (this.connection.state === "closed") return;
    this.connection.close();
    this.linkId++;
    this.transport.close();
  }

  // ── what the host reads ────────────────────────────────────────────────────

  get state(): ConnectionState {
    return this.connection.state;
  }

  /** Why the link was last considered lost ("" if never). */
  get lastLoss(): string {
    return this.connection.lastLoss;
  }

  get session(): GuestSession {
    return this.sessionValue;
  }

  get transportName(): string {
    return this.transport.name;
  }

  get ownEntityId(): number {
    return this.ownId;
  }

  /** The server's position of the own entity at the acknowledged tick. */
  get confirmed(): TilePoint | null {
    return this.prediction.confirmed;
  }

  /** Confirmed position with every pending step replayed through the rule. */
  get predicted(): TilePoint | null {
    return this.prediction.predicted();
  }

  /** Steps sent and not yet acknowledged (draw bright blue). */
  get pending(): readonly PendingStep[] {
    return this.prediction.pending;
  }

  /** The predicted tile after each pending step. */
  get inFlight(): TilePoint[] {
    return this.prediction.inFlightTiles();
  }

  /** Planned tiles not yet sent, ending at the goal (draw dim blue). */
  get route(): readonly TilePoint[] {
    return this.planner.route;
  }

  get goal(): TilePoint | null {
    return this.planner.goal;
  }

  get heldAction(): number {
    return this.held;
  }

  /** Entities in view as of the acknowledged tick, by id (the own entity included). */
  get entities(): ReadonlyMap<number, EntityInfo> {
    return this.entityTable.entries;
  }

  /** Display names by entity id, as far as learnt. */
  get names(): ReadonlyMap<number, string> {
    return this.nameDirectory.names;
  }

  get rttMs(): number {
    return this.rtt.smoothedMs;
  }

  /** Estimated server tick now (fractional); NaN before the first StatePacket. */
  get serverTick(): number {
    return this.serverClock.tickAt(this.now(), this.rtt.smoothedMs);
  }

  get ackTick(): number {
    return this.entityTable.ackTick;
  }

  /** The current 3×3 manifest (chunk ids and current versions), or null before the first StatePacket. */
  get neighbourhood(): readonly ChunkEntry[] | null {
    return this.manifest;
  }

  get stats(): ClientStats {
    const traffic = this.traffic;
    return {
      state: this.connection.state,
      transport: this.transport.name,
      datagramsIn: traffic.datagramsIn,
      datagramsOut: traffic.datagramsOut,
      bytesIn: traffic.bytesIn,
      bytesOut: traffic.bytesOut,
      datagramsInPerSecond: traffic.datagramsInPerSecond,
      datagramsOutPerSecond: traffic.datagramsOutPerSecond,
      bytesInPerSecond: traffic.bytesInPerSecond,
      bytesOutPerSecond: traffic.bytesOutPerSecond,
      lossPercent: traffic.lossPercent,
      statesReceived: traffic.statesReceived,
      statesMissed: traffic.statesMissed,
      rttMs: this.rtt.smoothedMs,
      rttVarianceMs: this.rtt.varianceMs,
      serverTick: this.serverTick,
      ackTick: this.entityTable.ackTick,
      confirmed: this.prediction.confirmed,
      predicted: this.prediction.predicted(),
      pendingSteps: this.prediction.pending.length,
      stepsSent: this.counters.stepsSent,
      retractions: this.counters.retractions,
      chunksCached: this.chunks.size,
      chunkRequests: this.chunkRequests.requests,
      chunkRetransmits: this.chunkRequests.retransmits,
      keepAlives: this.counters.keepAlives,
      corrections: this.prediction.corrections,
      replans: this.planner.replans,
      pingsSent: this.pinger.sent,
      pongsReceived: this.pinger.answered,
      queriesSent: this.nameDirectory.sent,
      decodeErrors: this.counters.decodeErrors,
      reconnects: this.counters.reconnects,
    };
  }

  // ── movement ───────────────────────────────────────────────────────────────

  /** Retraction, then at most one new step into the first reachable window. */
  private steer(nowMs: number): void {
    const prediction = this.prediction;
    if (!prediction.confirmed) return;
    const earliest = this.earliestWindowAt(nowMs);

    // A changed plan withdraws every step the server can still be told about in time; the
    // rest ("zombies") will execute and stay pending, so the prediction just shifts.
    let retracted: number[] = [];
    if (this.planChanged) {
      this.planChanged = false;
      retracted = prediction.removeFrom(earliest).map((step) => step.window);
    }

    const window = nextStepWindow(
      earliest,
      prediction.lastWindow,
      prediction.pending.length,
      this.options.maxPendingSteps,
    );
    if (window >= 0) {
      const from = prediction.predicted()!;
      const action = this.held !== ACTION_NOOP ? this.heldStep(from) : this.planner.nextAction(from);
      if (action !== ACTION_NOOP) {
        prediction.add(window, action);
        this.sendAction(tickOfWindow(window), action, nowMs);
        this.counters.stepsSent++;
        // The new step replaces the withdrawn one in that window; no NOOP needed there.
        retracted = retracted.filter((withdrawn) => withdrawn !== window);
      }
    }
    for (const withdrawn of retracted) {
      this.sendAction(tickOfWindow(withdrawn), ACTION_NOOP, nowMs);
      this.counters.retractions++;
    }

    const goal = this.planner.goal;
    const confirmed = prediction.confirmed;
    if (goal && prediction.pending.length === 0 && confirmed.x === goal.x && confirmed.y === goal.y) {
      this.planner.release("arrived");
    }
  }

  /** The first window a datagram sent at `nowMs` reaches in time (scheduler.ts). */
  private earliestWindowAt(nowMs: number): number {
    const serverTick = this.serverClock.tickAt(nowMs, this.rtt.smoothedMs);
    return earliestWindow(serverTick, leadMs(this.rtt, this.options.leadMarginMs), this.tickHz);
  }

  /** The held action if THE rule allows it from the predicted position (send-time validation), else NOOP. */
  private heldStep(from: TilePoint): number {
    return this.sim.stepAllowed(from.x, from.y, this.held) ? this.held : ACTION_NOOP;
  }

  // ── sending ────────────────────────────────────────────────────────────────

  private sendAction(targetTick: number, action: number, nowMs: number): void {
    this.chunks.fillCacheList(this.manifest, this.cacheList);
    this.outbox.sendAction(targetTick, action, this.cacheList);
    this.chunkRequests.noteListSent(nowMs);
  }

  /** target_tick 0, NOOP: binds the link, acks the cache (the server sends what is missing), asks for entities. */
  private sendCacheAck(nowMs: number): void {
    this.sendAction(0, ACTION_NOOP, nowMs);
  }

  // ── receiving ──────────────────────────────────────────────────────────────

  private listen(transport: Transport): void {
    const id = ++this.linkId;
    transport.onDatagram((datagram) => {
      if (id === this.linkId) this.receive(datagram);
    });
    transport.onClose?.((reason) => {
      if (id !== this.linkId) return;
      this.connection.lose(this.now(), `transport closed: ${reason}`);
      this.dropLink();
    });
  }

  private receive(datagram: Uint8Array): void {
    const nowMs = this.now();
    this.traffic.received(datagram.length);
    const result = decodePacket(datagram);
    if (!result.ok) {
      this.counters.decodeErrors++;
      return;
    }
    const packet = result.packet;
    switch (packet.type) {
      case "state":
        return this.onState(packet, nowMs);
      case "entity":
        if (this.entityTable.onEntityDatagram(packet)) this.onAck();
        return;
      case "chunk":
        return this.onChunk(packet);
      case "tile_update": {
        const chunk = this.chunks.applyTileUpdate(packet);
        if (chunk) this.grid.put(chunk);
        return;
      }
      case "pong": {
        const sample = this.pinger.receive(packet.timestampMs, nowMs);
        if (sample !== null) this.rtt.addSample(sample);
        return;
      }
      case "entity_detail":
        return this.onEntityDetail(packet);
      default:
        if (!this.features.receive(packet, nowMs)) this.onOtherPacket?.(packet);
    }
  }

  private onState(packet: StatePacket, nowMs: number): void {
    this.traffic.stateTick(packet.tick);
    this.serverClock.observe(packet.tick, nowMs);
    this.connection.stateReceived(nowMs);
    if (packet.tick > this.latestStateTick) {
      this.latestStateTick = packet.tick;
      this.ownId = packet.playerEntityId;
      this.manifest = packet.chunks; // decodePacket made a fresh packet: ours to keep
      const centre = packet.chunks[MANIFEST_CENTRE].chunkId;
      this.grid.recentre(chunkX(centre), chunkY(centre));
      this.chunks.evictFar(chunkX(centre), chunkY(centre));
    }
    if (this.entityTable.onState(packet.tick, packet.entityChecksum)) this.onAck();
  }

  private onChunk(view: ChunkView): void {
    const chunk: CachedChunk | null = this.chunks.store(view);
    if (chunk) this.grid.put(chunk);
  }

  private onEntityDetail(view: EntityDetailView): void {
    this.nameDirectory.receive(view.entityId, readTlvName(view.bytes, view.metaStart, view.metaEnd));
    this.features.interaction.detailArrived(view.entityId);
  }

  /**
   * An EntityQuery for an interactable within reach of where the server may have
   * the player (the confirmed tile or any tile a pending step leads to) would
   * use it (protocol § 18): a name lookup must not open a sign's dialog.
   */
  private queryWouldInteract(entityId: number): boolean {
    const entity = this.entityTable.entries.get(entityId);
    if (!entity || !isInteractable(entity)) return false;
    const confirmed = this.prediction.confirmed;
    const near = (tile: TilePoint) => chebyshev(tile, entity) <= INTERACT_REACH_TILES;
    return (confirmed !== null && near(confirmed)) || this.prediction.inFlightTiles().some(near);
  }

  /** The entity cursor advanced: confirm the own position and expire consumed steps. */
  private onAck(): void {
    const entries = this.entityTable.entries;
    const own = entries.get(this.ownId);
    if (own) this.prediction.acknowledge(lastWindowConsumedAt(this.entityTable.ackTick), own.x, own.y);
    for (const entry of entries.values()) if (entry.typeId === 0) this.nameDirectory.want(entry.id);
  }

  // ── reconnecting ───────────────────────────────────────────────────────────

  /** Stops listening to the current link and closes it. */
  private dropLink(): void {
    this.linkId++;
    this.transport.close();
  }

  private startReconnect(): void {
    this.connection.reconnectStarted();
    this.reconnectFn!().then(
      ({ session, transport }) => {
        if (this.connection.state !== "reconnecting") {
          transport.close(); // closed meanwhile
          return;
        }
        this.attach(session, transport);
      },
      (error: unknown) => this.connection.reconnectFailed(this.now(), String(error)),
    );
  }

  /** Switches to a new session and link; everything tied to the old session starts over. The chunk cache stays. */
  private attach(session: GuestSession, transport: Transport): void {
    this.sessionValue = session;
    this.ownId = session.entityId;
    this.transport = transport;
    this.outbox.rebind(transport, session.token);
    this.listen(transport);
    this.entityTable.reset();
    this.prediction.reset();
    this.serverClock.reset();
    this.pinger.reset();
    this.chunkRequests.reset();
    this.nameDirectory.resetQueries();
    this.features.reset();
    this.traffic.resetSequence();
    this.planner.release("cleared");
    this.planChanged = false;
    this.latestStateTick = -1;
    this.lastHelloMs = -Infinity;
    this.lastKeepAliveMs = -Infinity;
    this.counters.reconnects++;
    this.connection.linkStarted(this.now());
  }
}

/** Creates the link for a session (e.g. UDP to the server's udpPort, or a WebRTC data channel). */
export type MakeTransport = (session: GuestSession) => Transport | Promise<Transport>;

export interface GuestConnection {
  session: GuestSession;
  world: WorldInfo;
  transport: Transport;
  /** Rejoins with the same nick over a fresh link: pass as GameClientConfig.reconnect. */
  reconnect: ReconnectFn;
}

/** Joins as a guest and fetches the world (HTTP), then opens the link: everything GameClient.create needs but a core. */
export async function connectGuest(
  baseUrl: string,
  nick: string,
  makeTransport: MakeTransport,
  fetchFn: FetchFn = fetch,
): Promise<GuestConnection> {
  const [session, world] = await Promise.all([joinGuest(baseUrl, nick, fetchFn), fetchWorld(baseUrl, fetchFn)]);
  const transport = await makeTransport(session);
  let current = session;
  const reconnect: ReconnectFn = async () => {
    const next = await joinGuest(baseUrl, nick, fetchFn, current.token);
    current = next;
    return { session: next, transport: await makeTransport(next) };
  };
  return { session, world, transport, reconnect };
}
