// CombatPacket (type 19, 24 … 1194 bytes, server → client): the blows a
// client took part in — who hit whom for how much, misses, kills — which the
// hp in EntityPackets cannot say. Cosmetic: a lost one is never re-sent. The
// truth (hp, death) is in the EntityPackets: a dead entity's hp is 0 there
// until it is gone (docs/protocol.md § CombatPacket).
import { readU16, readU32, writeU16, writeU32 } from "./bytes.js";
import { type DecodeResult, EncodeError, checkRoom, checkU32, failure, isIntegerIn } from "./errors.js";
import { HEADER_BYTES, MAX_DATAGRAM_BYTES, PACKET_COMBAT, encodeHeader, readClientType } from "./header.js";
import { count, enumField, int, items, layout } from "./layout.js";

/** Header, tick, count: where the events start. */
export const COMBAT_HEADER_BYTES = 11;
export const COMBAT_EVENT_BYTES = 13;
/** ⌊(1200 − 11) / 13⌋: events per datagram. */
export const COMBAT_EVENTS_MAX = Math.floor((MAX_DATAGRAM_BYTES - COMBAT_HEADER_BYTES) / COMBAT_EVENT_BYTES);

/** What happened: index = wire value. */
export const COMBAT_EVENT_KINDS = ["hit", "miss", "kill"] as const;
export type CombatEventKind = (typeof COMBAT_EVENT_KINDS)[number];
export const COMBAT_HIT = 0;
export const COMBAT_MISS = 1;
export const COMBAT_KILL = 2;

/** One event; offsets are relative to it. */
export const COMBAT_EVENT_LAYOUT = layout("combat_event", 0, COMBAT_EVENT_BYTES, [
  enumField("kind", 1, "kind", COMBAT_EVENT_KINDS),
  int("attacker_id", "u32", "attackerId"),
  int("target_id", "u32", "targetId"),
  int("amount", "u16", "amount"),
  int("target_hp", "u16", "targetHp"),
]);
/** docs/protocol.md § CombatPacket. */
export const COMBAT_LAYOUT = layout("combat", HEADER_BYTES, COMBAT_HEADER_BYTES, [
  int("tick", "u32", "tick"),
  count("count", 1, "events"),
  items("events", "events", COMBAT_EVENT_LAYOUT),
]);
const TICK_AT = COMBAT_LAYOUT.offset.tick;
const COUNT_AT = COMBAT_LAYOUT.offset.count;
const KIND_AT = COMBAT_EVENT_LAYOUT.offset.kind;
const ATTACKER_AT = COMBAT_EVENT_LAYOUT.offset.attacker_id;
const TARGET_AT = COMBAT_EVENT_LAYOUT.offset.target_id;
const AMOUNT_AT = COMBAT_EVENT_LAYOUT.offset.amount;
const TARGET_HP_AT = COMBAT_EVENT_LAYOUT.offset.target_hp;

export interface CombatEvent {
  /** COMBAT_HIT, COMBAT_MISS or COMBAT_KILL (names: COMBAT_EVENT_KINDS), a number like every enum field. */
  kind: number;
  attackerId: number;
  targetId: number;
  /** hit: the damage dealt; miss: 0; kill: the rating the killer gained. */
  amount: number;
  /** The target's hp after the event (0 for a kill). */
  targetHp: number;
}

export interface CombatPacket {
  type: "combat";
  clientType: number;
  /** The server tick the events happened in. */
  tick: number;
  /** 1 … COMBAT_EVENTS_MAX events, in the order they happened. */
  events: CombatEvent[];
}

/** Writes a CombatPacket at `offset`; returns its length. Throws EncodeError on bad input. */
export function encodeCombat(packet: CombatPacket, out: Uint8Array, offset = 0): number {
  checkU32("tick", packet.tick);
  const events = Array.isArray(packet.events) ? packet.events : [];
  if (events.length < 1 || events.length > COMBAT_EVENTS_MAX) {
    throw new EncodeError(
      "out_of_range",
      `a combat packet carries 1..${COMBAT_EVENTS_MAX} events, got ${events.length}`,
    );
  }
  const size = COMBAT_HEADER_BYTES + events.length * COMBAT_EVENT_BYTES;
  checkRoom(out, offset, size);
  encodeHeader(PACKET_COMBAT, packet.clientType, out, offset);
  writeU32(out, offset + TICK_AT, packet.tick);
  out[offset + COUNT_AT] = events.length;
  let at = offset + COMBAT_HEADER_BYTES;
  for (let index = 0; index < events.length; index++, at += COMBAT_EVENT_BYTES) {
    const event = events[index];
    writeCombatEventFields(out, at, event.kind, event.attackerId, event.targetId, event.amount, event.targetHp, index);
  }
  return size;
}

/** Writes one event's fields at `at`: from plain numbers, so the combat room writes into the outbound slab without objects. */
export function writeCombatEventFields(
  out: Uint8Array,
  at: number,
  kind: number,
  attackerId: number,
  targetId: number,
  amount: number,
  targetHp: number,
  index = 0,
): void {
  if (!isIntegerIn(kind, 0, COMBAT_EVENT_KINDS.length - 1)) {
    throw new EncodeError("out_of_range", `events[${index}].kind ${kind} is not defined`);
  }
  checkU32("attacker_id", attackerId);
  checkU32("target_id", targetId);
  if (!isIntegerIn(amount, 0, 0xffff) || !isIntegerIn(targetHp, 0, 0xffff)) {
    throw new EncodeError("out_of_range", `events[${index}]: amount and target_hp must be 0..65535`);
  }
  out[at + KIND_AT] = kind;
  writeU32(out, at + ATTACKER_AT, attackerId);
  writeU32(out, at + TARGET_AT, targetId);
  writeU16(out, at + AMOUNT_AT, amount);
  writeU16(out, at + TARGET_HP_AT, targetHp);
}

/** Writes the header, tick and count of a packet whose `count` events follow at COMBAT_HEADER_BYTES. */
export function writeCombatHeader(
  out: Uint8Array,
  offset: number,
  clientType: number,
  tick: number,
  count: number,
): number {
  checkU32("tick", tick);
  if (!isIntegerIn(count, 1, COMBAT_EVENTS_MAX)) {
    throw new EncodeError("out_of_range", `a combat packet carries 1..${COMBAT_EVENTS_MAX} events, got ${count}`);
  }
  encodeHeader(PACKET_COMBAT, clientType, out, offset);
  writeU32(out, offset + TICK_AT, tick);
  out[offset + COUNT_AT] = count;
  return COMBAT_HEADER_BYTES + count * COMBAT_EVENT_BYTES;
}

/** Decodes the body of a datagram whose header checkHeader accepted with type 19. */
export function decodeCombatBody(bytes: Uint8Array): DecodeResult<CombatPacket> {
  if (bytes.length < COMBAT_HEADER_BYTES) {
    return failure("truncated", bytes.length, `CombatPacket needs at least ${COMBAT_HEADER_BYTES} bytes`);
  }
  const eventCount = bytes[COUNT_AT];
  if (eventCount === 0 || eventCount > COMBAT_EVENTS_MAX) {
    return failure("bad_count", COUNT_AT, `a combat packet carries 1..${COMBAT_EVENTS_MAX} events, got ${eventCount}`);
  }
  const end = COMBAT_HEADER_BYTES + eventCount * COMBAT_EVENT_BYTES;
  if (end > bytes.length) return failure("truncated", bytes.length, `${eventCount} events need ${end} bytes`);
  if (end < bytes.length)
    return failure("trailing_bytes", end, `${bytes.length - end} bytes after ${eventCount} events`);
  const events: CombatEvent[] = [];
  for (let at = COMBAT_HEADER_BYTES; at < end; at += COMBAT_EVENT_BYTES) {
    const kind = bytes[at + KIND_AT];
    if (kind >= COMBAT_EVENT_KINDS.length) {
      return failure("bad_element", at + KIND_AT, `combat event kind ${kind} is not defined`);
    }
    events.push({
      kind,
      attackerId: readU32(bytes, at + ATTACKER_AT),
      targetId: readU32(bytes, at + TARGET_AT),
      amount: readU16(bytes, at + AMOUNT_AT),
      targetHp: readU16(bytes, at + TARGET_HP_AT),
    });
  }
  return {
    ok: true,
    packet: { type: "combat", clientType: readClientType(bytes), tick: readU32(bytes, TICK_AT), events },
  };
}
