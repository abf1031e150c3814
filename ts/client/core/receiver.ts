// The receive switch: decodes each arriving datagram and hands it to the part
// it concerns. Arriving datagrams only change state — every sending decision
// waits for the next update() — so this module sends nothing. It also keeps
// what the latest StatePacket said: the 3×3 manifest and the own entity id.
import { lastWindowConsumedAt } from "../../window.js";
import { chunkX, chunkY } from "../../protocol/chunk-id.js";
import type { EntityDetailView } from "../../protocol/entity-detail.js";
import { decodePacket, type PacketView } from "../../protocol/packet.js";
import { MANIFEST_CENTRE, type StatePacket } from "../../protocol/state.js";
import { expandStateDeltaCompact } from "../../protocol/state-delta-compact.js";
import { readTlvName } from "../../protocol/tlv.js";
import type { ManifestSource } from "./action-sender.js";
import { isNpcType } from "./kinds.js";
import type { ClientParts } from "./parts.js";

type ReceiverParts = Pick<
  ClientParts,
  | "now"
  | "outbox"
  | "traffic"
  | "connection"
  | "serverClock"
  | "rtt"
  | "pinger"
  | "chunks"
  | "grid"
  | "entityTable"
  | "prediction"
  | "nameDirectory"
  | "features"
  | "counters"
>;

export class PacketReceiver implements ManifestSource {
  /** The current 3×3 manifest (chunk ids and current versions), or null before the first StatePacket. */
  manifest: StatePacket["chunks"] | null = null;
  private latestStateTick = -1;
  private ownIdValue: number;

  /**
   * `onOtherPacket` receives every decoded packet neither this core nor its features handle.
   * Views alias the datagram: copy what you keep.
   */
  constructor(
    private readonly parts: ReceiverParts,
    ownEntityId: number,
    private readonly onOtherPacket: ((packet: PacketView) => void) | undefined,
  ) {
    this.ownIdValue = ownEntityId;
  }

  /** The own entity's id: the session's, then what each newer StatePacket names. */
  get ownEntityId(): number {
    return this.ownIdValue;
  }

  /** A new session began (reconnect): its entity, and any StatePacket tick is new again. The manifest stays. */
  reset(ownEntityId: number): void {
    this.ownIdValue = ownEntityId;
    this.latestStateTick = -1;
  }

  receive(datagram: Uint8Array): void {
    const parts = this.parts;
    const nowMs = parts.now();
    parts.traffic.received(datagram.length);
    const result = decodePacket(datagram);
    if (!result.ok) {
      parts.counters.decodeErrors++;
      return;
    }
    const packet = result.packet;
    switch (packet.type) {
      case "state":
        return this.onState(packet, nowMs);
      case "entity":
        if (parts.entityTable.onEntityDatagram(packet)) this.onAck();
        return;
      case "state_delta":
        parts.traffic.deltasArrive();
        this.observeState(packet, nowMs);
        if (parts.entityTable.onStateDelta(packet)) this.onAck();
        return;
      case "state_delta_compact": {
        // The compact form (P-25) says the same in fewer bytes: one path for both.
        const delta = expandStateDeltaCompact(packet);
        parts.traffic.deltasArrive();
        this.observeState(delta, nowMs);
        if (parts.entityTable.onStateDelta(delta)) this.onAck();
        return;
      }
      case "chunk": {
        const chunk = parts.chunks.store(packet);
        if (chunk) parts.grid.put(chunk);
        return;
      }
      case "chunk_wide": {
        const chunk = parts.chunks.storeWide(packet);
        if (chunk) parts.grid.put(chunk);
        return;
      }
      case "tile_update": {
        const chunk = parts.chunks.applyTileUpdate(packet);
        if (chunk) parts.grid.put(chunk);
        return;
      }
      case "pong": {
        // A challenge (docs/protocol.md § 12.1): the outbox echoes its cookie, the next update() at once.
        if (packet.challenge !== undefined) return parts.outbox.challenged(packet.challenge);
        const sample = parts.pinger.receive(packet.timestampMs, nowMs);
        if (sample !== null) parts.rtt.addSample(sample);
        return;
      }
      case "entity_detail":
        return this.onEntityDetail(packet);
      default:
        if (!parts.features.receive(packet, nowMs)) this.onOtherPacket?.(packet);
    }
  }

  private onState(packet: StatePacket, nowMs: number): void {
    this.observeState(packet, nowMs);
    if (this.parts.entityTable.onState(packet.tick, packet.entityChecksum)) this.onAck();
  }

  /** What a StatePacket (or a StateDeltaPacket's State part) says of the clock, the link, the manifest and the own id. */
  private observeState(packet: Omit<StatePacket, "type">, nowMs: number): void {
    const parts = this.parts;
    parts.traffic.stateTick(packet.tick);
    parts.serverClock.observe(packet.tick, nowMs);
    parts.connection.stateReceived(nowMs);
    if (packet.tick > this.latestStateTick) {
      this.latestStateTick = packet.tick;
      this.ownIdValue = packet.playerEntityId;
      this.manifest = packet.chunks; // decodePacket made a fresh packet: ours to keep
      const centre = packet.chunks[MANIFEST_CENTRE].chunkId;
      parts.grid.recentre(chunkX(centre), chunkY(centre));
      parts.chunks.evictFar(chunkX(centre), chunkY(centre));
    }
  }

  private onEntityDetail(view: EntityDetailView): void {
    const features = this.parts.features;
    this.parts.nameDirectory.receive(view.entityId, readTlvName(view.bytes, view.metaStart, view.metaEnd));
    // Before the trigger forgets it: a chest's detail answering the player's own use opens it.
    features.items.receiveDetail(view, features.interaction.pendingEntityId);
    if (view.entityId === this.ownIdValue) {
      features.quests.receiveOwnDetail(view);
      features.party.receiveOwnDetail(view);
      features.progress.receiveOwnDetail(view);
    }
    features.interaction.detailArrived(view.entityId);
  }

  /** The entity cursor advanced: confirm the own position and expire consumed steps. */
  private onAck(): void {
    const { entityTable, prediction, nameDirectory } = this.parts;
    const entries = entityTable.entries;
    const own = entries.get(this.ownIdValue);
    if (own) {
      prediction.acknowledge(lastWindowConsumedAt(entityTable.ackTick), own.x, own.y);
      this.parts.features.progress.observeOwnEntry(own.meta);
    }
    // Players and NPCs have names (EntityDetail, as a player's nick); built-in things are asked only on hover.
    for (const entry of entries.values()) {
      if (entry.typeId === 0 || isNpcType(entry.typeId)) nameDirectory.want(entry.id);
    }
  }
}
