// What the host reads from a GameClient: the connection, the own position
// (confirmed, predicted, in flight, planned), the entities and names in view,
// timing, and the stats snapshot. Read-only over the parts; GameClient extends
// it, so the host reads client.predicted while the wiring and the commands stay
// in game-client.ts.
import type { ChunkEntry } from "../../protocol/chunk-id.js";
import type { WasmSim } from "../../wasm/sim.js";
import type { CombatFeed } from "./combat.js";
import type { WorldClockView } from "./world-clock.js";
import type { ChatDelivery } from "./chat.js";
import type { ChunkCache } from "./chunk-cache.js";
import type { ConnectionState } from "./connection.js";

/** What the page says during an outage is made of this (GameClient.outage). */
export interface Outage {
  /** Since the last StatePacket (or the link's start). */
  readonly silentMs: number;
  /** Silence after which the link counts as lost and the client rejoins. */
  readonly disconnectAfterMs: number;
  /** While disconnected, until the next rejoin (0: now); NaN otherwise. */
  readonly retryInMs: number;
  /** Rejoins tried since the link last played. */
  readonly attempts: number;
  readonly lastLoss: string;
}
import type { DialogState } from "./dialogs.js";
import { type ItemDef, itemsById } from "./item-catalogue.js";
import type { ItemState } from "./items.js";
import type { ProgressView } from "./progress.js";
import type { QuestLog } from "./quests.js";
import type { PartyView } from "./party.js";
import type { EntityInfo } from "./entity-table.js";
import type { GameClientOptions } from "./options.js";
import type { ClientParts } from "./parts.js";
import type { PendingStep, TilePoint } from "./prediction.js";
import type { PacketReceiver } from "./receiver.js";
import type { GuestSession, WorldInfo } from "./session-api.js";
import type { SessionLink } from "./session-link.js";
import type { ClientStats } from "./stats.js";
import type { Steering } from "./steering.js";

/** The parts the readout reads; game-client.ts builds them. */
export interface ReadoutSources {
  world: WorldInfo;
  parts: ClientParts;
  link: SessionLink;
  receiver: PacketReceiver;
  steering: Steering;
}

export class ClientReadout {
  readonly options: GameClientOptions;
  readonly world: WorldInfo;
  /** The wasm grid the cache is loaded into: the renderer draws tiles from it (sim.getTile / sim.tiles). */
  readonly sim: WasmSim;
  /** Chunks held, by chunk id. */
  readonly chunks: ChunkCache;
  protected readonly parts: ClientParts;
  protected readonly link: SessionLink;
  protected readonly receiver: PacketReceiver;
  protected readonly steering: Steering;
  /** The item catalogue by id (GET /api/world `items`). */
  readonly itemCatalogue: ReadonlyMap<number, ItemDef>;

  protected constructor(sources: ReadoutSources) {
    this.parts = sources.parts;
    this.options = sources.parts.options;
    this.world = sources.world;
    this.sim = sources.parts.sim;
    this.chunks = sources.parts.chunks;
    this.link = sources.link;
    this.receiver = sources.receiver;
    this.steering = sources.steering;
    this.itemCatalogue = itemsById(sources.world.items);
  }

  get state(): ConnectionState {
    return this.parts.connection.state;
  }

  /** Why the link was last considered lost ("" if never). */
  get lastLoss(): string {
    return this.parts.connection.lastLoss;
  }

  /** The outage as of `nowMs`, in the words' inputs: silence, the next rejoin, attempts (connection.ts). */
  outage(nowMs: number): Outage {
    const connection = this.parts.connection;
    return {
      silentMs: connection.silentMs(nowMs),
      disconnectAfterMs: connection.disconnectAfterMs,
      retryInMs: connection.retryInMs(nowMs),
      attempts: connection.attempts,
      lastLoss: connection.lastLoss,
    };
  }

  get session(): GuestSession {
    return this.link.session;
  }

  get transportName(): string {
    return this.link.transport.name;
  }

  /** The server's tick rate (WorldInfo.tickHz) that the clock, the scheduler and the host's glides run on. */
  get tickHz(): number {
    return this.parts.tickHz;
  }

  get ownEntityId(): number {
    return this.receiver.ownEntityId;
  }

  /** The server's position of the own entity at the acknowledged tick. */
  get confirmed(): TilePoint | null {
    return this.parts.prediction.confirmed;
  }

  /** Confirmed position with every pending step replayed through the rule. */
  get predicted(): TilePoint | null {
    return this.parts.prediction.predicted();
  }

  /** Steps sent and not yet acknowledged (draw bright blue). */
  get pending(): readonly PendingStep[] {
    return this.parts.prediction.pending;
  }

  /** The predicted tile after each pending step. */
  get inFlight(): TilePoint[] {
    return this.parts.prediction.inFlightTiles();
  }

  /** Planned tiles not yet sent, ending at the goal (draw dim blue). */
  get route(): readonly TilePoint[] {
    return this.parts.planner.route;
  }

  get goal(): TilePoint | null {
    return this.parts.planner.goal;
  }

  get heldAction(): number {
    return this.steering.heldAction;
  }

  /** Entities in view as of the acknowledged tick, by id (the own entity included). */
  get entities(): ReadonlyMap<number, EntityInfo> {
    return this.parts.entityTable.entries;
  }

  /** Display names by entity id, as far as learnt. */
  get names(): ReadonlyMap<number, string> {
    return this.parts.nameDirectory.names;
  }

  get rttMs(): number {
    return this.parts.rtt.smoothedMs;
  }

  /** Estimated server tick now (fractional); NaN before the first StatePacket. */
  get serverTick(): number {
    return this.parts.serverClock.tickAt(this.parts.now(), this.parts.rtt.smoothedMs);
  }

  get ackTick(): number {
    return this.parts.entityTable.ackTick;
  }

  /** The current 3×3 manifest (chunk ids and current versions), or null before the first StatePacket. */
  get neighbourhood(): readonly ChunkEntry[] | null {
    return this.receiver.manifest;
  }

  /** Chat delivery: listen() for lines and refusals, unacknowledged, counters. */
  get chat(): ChatDelivery {
    return this.parts.features.chat;
  }

  /** Dialogs on screen (shown), listen() for opened and closed ones. */
  get dialogs(): DialogState {
    return this.parts.features.dialogs;
  }

  /** The blows this client took part in: listen() for hits, misses and kills (cosmetic; hp is in `entities`). */
  get combat(): CombatFeed {
    return this.parts.features.combat;
  }

  /** The time of day and the weather: `timeOfDay(client.serverTick)`, `weather`. */
  get worldClock(): WorldClockView {
    return this.parts.features.worldClock;
  }

  /**
   * Items: the own `inventory` (bag and equipment), the open `chest`, requests `pending`, and
   * listen() for results, refusals and changes. The requests are GameClient.take, equip, … .
   */
  /** The quest log and the marks over creatures (quests.ts), from the own EntityDetail. */
  get quests(): QuestLog {
    return this.parts.features.quests;
  }

  /** The player's party (party.ts), from the own EntityDetail. */
  get party(): PartyView {
    return this.parts.features.party;
  }

  /** The player's level (its own entries) and experience (its own EntityDetail), and its level-ups (progress.ts). */
  get progress(): ProgressView {
    return this.parts.features.progress;
  }

  get items(): ItemState {
    return this.parts.features.items;
  }

  /** Every counter of the client, as a fresh object. */
  get stats(): ClientStats {
    const { traffic, rtt, entityTable, prediction, counters, chunkRequests, pinger } = this.parts;
    return {
      state: this.parts.connection.state,
      transport: this.link.transport.name,
      datagramsIn: traffic.datagramsIn,
      datagramsOut: traffic.datagramsOut,
      bytesIn: traffic.bytesIn,
      bytesOut: traffic.bytesOut,
      datagramsInPerSecond: traffic.datagramsInPerSecond,
      datagramsOutPerSecond: traffic.datagramsOutPerSecond,
      bytesInPerSecond: traffic.bytesInPerSecond,
      bytesOutPerSecond: traffic.bytesOutPerSecond,
      lossPercent: traffic.onDeltas ? this.parts.pinger.lossPercent(this.parts.now()) : traffic.lossPercent,
      lossFrom: traffic.onDeltas ? "pings" : "states",
      stateLossPercent: traffic.lossPercent,
      statesReceived: traffic.statesReceived,
      statesMissed: traffic.statesMissed,
      rttMs: rtt.smoothedMs,
      rttVarianceMs: rtt.varianceMs,
      serverTick: this.serverTick,
      serverTickHz: this.parts.serverClock.estimatedHz,
      ackTick: entityTable.ackTick,
      confirmed: prediction.confirmed,
      predicted: prediction.predicted(),
      pendingSteps: prediction.pending.length,
      stepsSent: counters.stepsSent,
      retractions: counters.retractions,
      chunksCached: this.parts.chunks.size,
      chunkRequests: chunkRequests.requests,
      chunkRetransmits: chunkRequests.retransmits,
      keepAlives: counters.keepAlives,
      corrections: prediction.corrections,
      replans: this.parts.planner.replans,
      pingsSent: pinger.sent,
      pongsReceived: pinger.answered,
      queriesSent: this.parts.nameDirectory.sent,
      decodeErrors: counters.decodeErrors,
      reconnects: counters.reconnects,
      gatewayMoves: counters.gatewayMoves,
    };
  }
}
