// The networking core's public entry: one GameClient per connection, shared by
// the browser client and the headless bots (docs/netcode.md). This module is
// the wiring: it builds the parts (parts.ts) and the modules that work on them,
// and update() fixes the order they run in. The policy lives in those modules —
// steering.ts (which step, which window, retraction), upkeep.ts (hellos, pings,
// cache acks, keep-alives, name queries), receiver.ts (the receive switch),
// session-link.ts (the link and reconnecting) — and what the host reads in
// readout.ts, which GameClient extends.
//
// The host drives it: it calls update(nowMs) regularly (every animation frame
// in the browser, every ~10 ms in a bot) and feeds it input (setHeldAction,
// setGoal, clearGoal). Every sending decision happens in update(); arriving
// datagrams only change state. There are no free-running timers, so a test
// can drive a client on a virtual clock.
import { TICK_HZ } from "../../constants.js";
import { ENTITY_TYPE_ITEM } from "../../item-types.js";
import type { PacketView } from "../../protocol/packet.js";
import type { Core } from "../../wasm/core.js";
import { WasmCodec } from "../../wasm/codec.js";
import { WasmSim } from "../../wasm/sim.js";
import { ActionSender } from "./action-sender.js";
import type { PostResult } from "./chat.js";
import { ChunkCache } from "./chunk-cache.js";
import { ChunkRequester } from "./chunk-requests.js";
import { ConnectionMonitor } from "./connection.js";
import type { CustomMessageHandler } from "./custom.js";
import { EntityTable } from "./entity-table.js";
import { ClientFeatures } from "./features.js";
import { GridWindow } from "./grid-window.js";
import { interactRefusal, type InteractRefusal } from "./interaction.js";
import type { ItemOp } from "./items.js";
import { NameDirectory } from "./names.js";
import { DEFAULT_GAME_CLIENT_OPTIONS, type GameClientOptions } from "./options.js";
import { Outbox } from "./outbox.js";
import type { ClientParts } from "./parts.js";
import { type GoalResult, Planner } from "./planner.js";
import { Prediction } from "./prediction.js";
import { ClientReadout, type ReadoutSources } from "./readout.js";
import { PacketReceiver } from "./receiver.js";
import { Pinger, RttEstimator } from "./rtt.js";
import { ServerClock } from "./server-clock.js";
import {
  fetchWorld,
  type FetchFn,
  type GuestSession,
  joinGuest,
  tileFlagsTable,
  type WorldInfo,
} from "./session-api.js";
import { type MoveFn, type ReconnectFn, SessionLink } from "./session-link.js";
import { createClientCounters, TrafficMeter } from "./stats.js";
import { type AttackRefusal, type SetGoalOptions, Steering } from "./steering.js";
import type { Transport } from "./transport.js";
import { LinkUpkeep } from "./upkeep.js";

export { DEFAULT_GAME_CLIENT_OPTIONS, type GameClientOptions } from "./options.js";
export type { MoveFn, ReconnectFn } from "./session-link.js";
export type { AttackRefusal, SetGoalOptions } from "./steering.js";

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
   * Opens a link for the same session through another gateway of a cluster (the session's `gateways`):
   * with it, a link silent for GATEWAY_SILENT_MS (or closed) goes on through the next gateway instead of
   * waiting to rejoin (docs/scaling.md § A gateway lost). Absent: never moves.
   */
  moveTo?: MoveFn;
  /**
   * Receives every decoded server packet this core does not handle itself (features layered on top:
   * chat, dialogs, custom messages). Views alias the datagram: copy what you keep.
   */
  onOtherPacket?: (packet: PacketView) => void;
  options?: Partial<GameClientOptions>;
}

interface Wiring extends ReadoutSources {
  upkeep: LinkUpkeep;
}

/** Builds the parts and the modules over them; the links between them are the constructor arguments. */
function wire(config: GameClientConfig): Wiring {
  const options: GameClientOptions = { ...DEFAULT_GAME_CLIENT_OPTIONS, ...config.options };
  const now = config.now ?? (() => performance.now());
  const tickHz = config.world.tickHz > 0 ? config.world.tickHz : TICK_HZ;
  const sim = new WasmSim(config.core);
  sim.setFlags(tileFlagsTable(config.world));
  const chunks = new ChunkCache(new WasmCodec(config.core), options.cacheRadiusChunks);
  const traffic = new TrafficMeter();
  const entityTable = new EntityTable();
  const prediction = new Prediction(sim);
  const parts: ClientParts = {
    options,
    now,
    tickHz,
    sim,
    chunks,
    grid: new GridWindow(sim, chunks, options.gridRadiusChunks),
    traffic,
    outbox: new Outbox(config.transport, config.session.token, traffic, options.clientType),
    connection: new ConnectionMonitor(now(), options.disconnectAfterMs),
    serverClock: new ServerClock(tickHz),
    rtt: new RttEstimator(options.initialRttMs),
    pinger: new Pinger(options.pingIntervalMs),
    chunkRequests: new ChunkRequester(options.chunkRetransmitMs),
    entityTable,
    prediction,
    planner: new Planner(sim, options.astarNodeBudget),
    nameDirectory: new NameDirectory(options.queryRetransmitMs, options.queryMaxTries),
    // Everything the features send goes over the current link (they start before it exists: bound late).
    features: new ClientFeatures(
      {
        send: (datagram) => link.send(datagram),
        token: () => link.session.token,
        clientType: options.clientType,
      },
      {
        ownEntityId: () => receiver.ownEntityId,
        position: () => prediction.predicted(),
        entity: (entityId) => entityTable.entries.get(entityId),
      },
    ),
    counters: createClientCounters(),
  };
  const receiver = new PacketReceiver(parts, config.session.entityId, config.onOtherPacket);
  const sender = new ActionSender(parts.outbox, chunks, parts.chunkRequests, receiver);
  const steering = new Steering(parts, sender);
  const upkeep = new LinkUpkeep(parts, sender, receiver);
  const link: SessionLink = new SessionLink(parts, {
    session: config.session,
    transport: config.transport,
    reconnect: config.reconnect,
    moveTo: config.moveTo,
    onDatagram: (datagram) => receiver.receive(datagram),
    // Everything tied to the old session starts over; the chunk cache stays.
    onNewSession: (session) => {
      receiver.reset(session.entityId);
      parts.entityTable.reset();
      parts.prediction.reset();
      parts.serverClock.reset();
      parts.pinger.reset();
      parts.chunkRequests.reset();
      parts.nameDirectory.resetQueries();
      parts.features.reset();
      parts.traffic.resetSequence();
      steering.reset();
      upkeep.reset();
    },
  });
  link.start();
  return { world: config.world, parts, link, receiver, steering, upkeep };
}

export class GameClient extends ClientReadout {
  private readonly upkeep: LinkUpkeep;

  private constructor(wiring: Wiring) {
    super(wiring);
    this.upkeep = wiring.upkeep;
  }

  /** A client on an established session and link; nothing is sent until the first update(). */
  static create(config: GameClientConfig): GameClient {
    return new GameClient(wire(config));
  }

  // ── driving ────────────────────────────────────────────────────────────────

  /** Runs every sending decision due at `nowMs` (the clock given as `now`). */
  update(nowMs: number = this.parts.now()): void {
    const connection = this.parts.connection;
    if (connection.state === "closed") return;
    this.parts.traffic.roll(nowMs);
    this.link.check(nowMs);
    this.upkeep.answerChallenge(nowMs);
    if (connection.state === "connecting") {
      this.upkeep.hello(nowMs);
      return;
    }
    if (connection.state !== "playing") return;
    this.upkeep.run(nowMs);
    this.parts.features.update(nowMs);
    this.steering.steer(nowMs);
  }

  /** Held movement key: 1..8 walks one step per window while held, 0 stops. Cancels any click-to-move goal. */
  setHeldAction(action: number): void {
    this.steering.setHeldAction(action);
  }

  /** A movement key went down (1..8): exactly one step of it is sent, however short the press (Steering.pressAction). */
  pressAction(action: number): void {
    this.steering.pressAction(action);
  }

  /**
   * Click-to-move toward world tile (x, y), routed from the predicted position.
   * Calling it again with the same tile changes nothing (click-and-hold calls it
   * every frame). "not-ready" before the own position is known.
   */
  setGoal(x: number, y: number, options: SetGoalOptions = {}): GoalResult | "not-ready" {
    return this.steering.setGoal(x, y, options);
  }

  /** Drops the goal and its route; scheduled steps that can still be cancelled are. */
  clearGoal(): void {
    this.steering.clearGoal();
  }

  /**
   * Click-to-attack: walks to the living creature `entityId` and bumps it once a window until it
   * dies or leaves view (Steering.attack). null when started, else why not. Any other steering ends it.
   */
  attack(entityId: number): AttackRefusal | null {
    return this.steering.attack(entityId);
  }

  /** The creature attack() follows, or 0. */
  get attackTarget(): number {
    return this.steering.attackTarget;
  }

  /**
   * Sends a datagram the host encoded itself, for packet types this core does not speak (chat, dialogs),
   * over the current link and counted in the stats. Dropped while no link is up.
   */
  sendDatagram(datagram: Uint8Array): void {
    this.link.send(datagram);
  }

  // ── chat, dialogs, custom messages, interaction (features.ts) ──────────────

  /** Posts a chat line; it is re-sent until the server acknowledges it. */
  postChat(text: string): PostResult {
    return this.parts.features.chat.post(text, this.parts.now());
  }

  /** Presses a button of a shown dialog, with one value per text input; false if it is not shown. */
  replyDialog(dialogId: number, returnCode: number, values: readonly string[] = []): boolean {
    return this.parts.features.dialogs.reply(dialogId, returnCode, values, this.parts.now());
  }

  /** Closes a shown dialog without a button (return code 0); false if it is not shown. */
  dismissDialog(dialogId: number): boolean {
    return this.parts.features.dialogs.dismiss(dialogId, this.parts.now());
  }

  /** Routes custom messages of `subtype` from the server to `handler` (replacing an earlier one). */
  onCustom(subtype: number, handler: CustomMessageHandler): void {
    this.parts.features.custom.on(subtype, handler);
  }

  offCustom(subtype: number): void {
    this.parts.features.custom.off(subtype);
  }

  /** Sends a custom message (a plain datagram: it may be lost). Throws EncodeError above 1182 bytes. */
  sendCustom(subtype: number, payload: Uint8Array): void {
    this.parts.features.custom.send(subtype, payload);
  }

  /**
   * Uses the interactable entity `entityId` (a sign, a notice board, a chest): sends the
   * query the server takes as an interaction, re-sent until answered; a pile on the
   * ground is taken instead (an ItemRequest). Returns null when sent, else why not:
   * the entity is no interactable in view, the player stands more than one tile from
   * it, steps are still in flight, or too many item requests are.
   */
  interact(entityId: number): InteractRefusal | null {
    const { entityTable, prediction, features } = this.parts;
    const entity = entityTable.entries.get(entityId);
    const refusal = interactRefusal(entity, prediction.confirmed, prediction.pending.length);
    if (refusal !== null) return refusal;
    // Using a pile on the ground (next to the player or under it) picks it up.
    if (entity?.typeId === ENTITY_TYPE_ITEM) return this.take(entityId) === null ? "busy" : null;
    features.interaction.start(entityId, this.parts.now());
    return null;
  }

  // ── items (items.ts): each sends one ItemRequest, re-sent until answered; null when too many are in flight ──

  /** Takes (part of, `count` 0: all of) chest slot `slot`, or the pile `containerId` (slot ignored). */
  take(containerId: number, slot = 0, count = 0): number | null {
    return this.itemRequest("take", { container: containerId, slot, count });
  }

  /** Takes everything from chest `chestId` that fits. */
  takeAll(chestId: number): number | null {
    return this.itemRequest("take_all", { container: chestId });
  }

  /** Puts (part of) bag slot `slot` into chest `chestId`. */
  put(chestId: number, slot: number, count = 0): number | null {
    return this.itemRequest("put", { container: chestId, slot, count });
  }

  /** Drops (part of) bag slot `slot` (or SLOT_WEAPON / SLOT_ARMOR) on the player's tile. */
  drop(slot: number, count = 0): number | null {
    return this.itemRequest("drop", { slot, count });
  }

  /** Wields or wears the weapon or armor in bag slot `slot` (what was equipped goes to that slot). */
  equip(slot: number): number | null {
    return this.itemRequest("equip", { slot });
  }

  /** Puts the equipped SLOT_WEAPON or SLOT_ARMOR back into the first free bag slot. */
  unequip(slot: number): number | null {
    return this.itemRequest("unequip", { slot });
  }

  /** Uses the consumable in bag slot `slot` (a potion heals). */
  use(slot: number): number | null {
    return this.itemRequest("use", { slot });
  }

  /** Moves a stack between bag and equipment slots: onto an empty slot, merging, or swapping. */
  move(fromSlot: number, toSlot: number): number | null {
    return this.itemRequest("move", { slot: fromSlot, toSlot });
  }

  private itemRequest(
    op: ItemOp,
    fields: { container?: number; slot?: number; toSlot?: number; count?: number },
  ): number | null {
    return this.parts.features.items.request(op, fields, this.parts.now());
  }

  /** Asks for `entityId`'s name (hover) unless it is known or asked already; it appears in names. */
  lookUpName(entityId: number): void {
    this.parts.nameDirectory.want(entityId);
  }

  /** Closes the link for good; the client sends nothing afterwards. */
  close(): void {
    this.link.close();
  }

  /**
   * Drops the link and rejoins at once on a fresh session, the chunk cache kept: for a host that knows
   * its session is gone without a word from the server (a replay's world made again: docs/recording.md
   * § Watch). Does nothing without a reconnect factory, or when not connected.
   */
  rejoin(reason: string): void {
    this.link.rejoin(reason);
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
  /** The look chosen on the join card (ts/appearance.ts); absent: the server picks. Kept for rejoins. */
  appearance?: number,
): Promise<GuestConnection> {
  const [session, world] = await Promise.all([
    joinGuest(baseUrl, nick, fetchFn, undefined, appearance),
    fetchWorld(baseUrl, fetchFn),
  ]);
  const transport = await makeTransport(session);
  let current = session;
  const reconnect: ReconnectFn = async () => {
    const next = await joinGuest(baseUrl, nick, fetchFn, current.token, appearance);
    current = next;
    return { session: next, transport: await makeTransport(next) };
  };
  return { session, world, transport, reconnect };
}
