// The blows this client took part in, from CombatPackets (type 19): who hit
// whom for how much, misses, kills. Cosmetic by the protocol's loss model — a
// lost packet is never re-sent — so nothing here is state: hp and death are
// read from the entity table (a dead entity's hp is 0 there until it is gone).
// The UI listens for floating numbers, hit flashes and the combat log.
import { COMBAT_EVENT_KINDS, type CombatEventKind, type CombatPacket } from "../../protocol/combat.js";

export interface CombatNotice {
  readonly kind: CombatEventKind;
  readonly attackerId: number;
  readonly targetId: number;
  /** hit: damage; miss: 0; kill: the rating the killer gained (and the victim lost). */
  readonly amount: number;
  readonly targetHp: number;
  /** The server tick of the blow. */
  readonly tick: number;
  /** When it arrived (the client's clock). */
  readonly atMs: number;
}

export class CombatFeed {
  private readonly listeners = new Set<(notice: CombatNotice) => void>();
  readonly counters = { packets: 0, events: 0 };

  /** Calls `listener` for every blow from now on; returns a function that stops it. */
  listen(listener: (notice: CombatNotice) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  receive(packet: CombatPacket, nowMs: number): void {
    this.counters.packets++;
    for (const event of packet.events) {
      this.counters.events++;
      const notice: CombatNotice = {
        kind: COMBAT_EVENT_KINDS[event.kind],
        attackerId: event.attackerId,
        targetId: event.targetId,
        amount: event.amount,
        targetHp: event.targetHp,
        tick: packet.tick,
        atMs: nowMs,
      };
      for (const listener of this.listeners) listener(notice);
    }
  }
}
