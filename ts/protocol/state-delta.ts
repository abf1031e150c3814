// StateDeltaPacket (type 25, 84 … 1200 bytes, server → client, P-21): one
// broadcast in one datagram for a session that asked for entity deltas
// (EntityAckPacket, entity-ack.ts). It begins with the StatePacket's fields at
// the StatePacket's offsets (tick, manifest, player id, entity_checksum), then
// names the baseline it was computed against and carries the delta body
// (entity-delta.ts): applied to the client's list of `baseline_tick`, it gives
// the entries of `tick`, whose checksum is `entity_checksum` (docs/protocol.md
// § 8.4).
import { readU16, readU32, writeU16, writeU32 } from "./bytes.js";
import {
  createStatePacket,
  readStateFields,
  STATE_BYTES,
  STATE_LAYOUT,
  encodeState,
  type StatePacket,
} from "./state.js";
import { type DecodeResult, EncodeError, checkRoom, checkU16, checkU32, failure } from "./errors.js";
import { validateEntityDelta } from "./entity-delta.js";
import { HEADER_BYTES, MAX_DATAGRAM_BYTES, PACKET_STATE_DELTA, encodeHeader } from "./header.js";
import { chunkEntries, count, int, layout, variable } from "./layout.js";
import { CHUNK_ENTRY_LAYOUT } from "./chunk-id.js";
import { MANIFEST_ENTRIES } from "./state.js";

/** The fixed part: the StatePacket's 72 bytes, baseline_tick, the two counts and delta_len. */
export const STATE_DELTA_FIXED_BYTES = 82;

/** docs/protocol.md § StateDeltaPacket. */
export const STATE_DELTA_LAYOUT = layout("state_delta", HEADER_BYTES, STATE_DELTA_FIXED_BYTES, [
  int("tick", "u32", "tick"),
  chunkEntries("chunks", "chunks", MANIFEST_ENTRIES, CHUNK_ENTRY_LAYOUT),
  int("player_entity_id", "u32", "playerEntityId"),
  int("entity_checksum", "u32", "entityChecksum"),
  int("baseline_tick", "u32", "baselineTick"),
  int("removed_count", "u16", "removedCount"),
  int("changed_count", "u16", "changedCount"),
  count("delta_len", 2, "delta"),
  variable("delta", "payload", "delta"),
]);
const BASELINE_AT = STATE_DELTA_LAYOUT.offset.baseline_tick;
const REMOVED_AT = STATE_DELTA_LAYOUT.offset.removed_count;
const CHANGED_AT = STATE_DELTA_LAYOUT.offset.changed_count;
const DELTA_LEN_AT = STATE_DELTA_LAYOUT.offset.delta_len;
/** Offset of the delta body. */
export const STATE_DELTA_BODY_OFFSET = STATE_DELTA_FIXED_BYTES;
/** The most delta bytes one datagram carries. */
export const STATE_DELTA_BODY_MAX = MAX_DATAGRAM_BYTES - STATE_DELTA_FIXED_BYTES;

// The shared prefix is what lets the server write it with the StatePacket's writer.
for (const name of ["tick", "chunks", "player_entity_id", "entity_checksum"] as const) {
  if (STATE_DELTA_LAYOUT.offset[name] !== STATE_LAYOUT.offset[name]) {
    throw new Error(`state_delta.${name} must sit where state.${name} does`);
  }
}
if (BASELINE_AT !== STATE_BYTES) throw new Error("state_delta's own fields must follow the StatePacket's");

/** Plain form (tools, tests). The delta body is kept as bytes; entity-delta.ts reads and applies it. */
export interface StateDeltaPacket extends Omit<StatePacket, "type"> {
  type: "state_delta";
  /** The tick of the client's list this delta applies to; 0: the empty list. */
  baselineTick: number;
  removedCount: number;
  changedCount: number;
  delta: Uint8Array;
}

/** Decoded form: the fields, with `delta` a view into the datagram (copy what you keep). */
export type StateDeltaView = StateDeltaPacket;

/** Writes a StateDeltaPacket at `offset`; returns its size. Throws EncodeError on bad input or a malformed delta. */
export function encodeStateDelta(packet: StateDeltaPacket, out: Uint8Array, offset = 0): number {
  checkU32("baseline_tick", packet.baselineTick);
  checkU16("removed_count", packet.removedCount);
  checkU16("changed_count", packet.changedCount);
  const size = STATE_DELTA_FIXED_BYTES + packet.delta.length;
  if (size > MAX_DATAGRAM_BYTES) {
    throw new EncodeError("oversize", `StateDeltaPacket would be ${size} bytes, limit ${MAX_DATAGRAM_BYTES}`);
  }
  const problem = validateEntityDelta(packet.delta, 0, packet.delta.length, packet.removedCount, packet.changedCount);
  if (problem !== null) throw new EncodeError("out_of_range", `delta: ${problem.message}`);
  checkRoom(out, offset, size);
  // The StatePacket's checks and writer for the shared prefix; then this packet's type in the header.
  encodeState({ ...packet, type: "state" }, out, offset);
  encodeHeader(PACKET_STATE_DELTA, packet.clientType, out, offset);
  writeStateDeltaTail(packet.baselineTick, packet.removedCount, packet.changedCount, packet.delta.length, out, offset);
  out.set(packet.delta, offset + STATE_DELTA_BODY_OFFSET);
  return size;
}

/** Writes baseline_tick, the counts and delta_len of a StateDeltaPacket at `offset` (after its State prefix). */
export function writeStateDeltaTail(
  baselineTick: number,
  removed: number,
  changed: number,
  deltaBytes: number,
  out: Uint8Array,
  offset: number,
): void {
  writeU32(out, offset + BASELINE_AT, baselineTick);
  writeU16(out, offset + REMOVED_AT, removed);
  writeU16(out, offset + CHANGED_AT, changed);
  writeU16(out, offset + DELTA_LEN_AT, deltaBytes);
}

/** Decodes the body of a datagram whose header checkHeader accepted with type 25. */
export function decodeStateDeltaBody(bytes: Uint8Array): DecodeResult<StateDeltaView> {
  if (bytes.length < STATE_DELTA_FIXED_BYTES) {
    return failure("truncated", bytes.length, `StateDeltaPacket needs at least ${STATE_DELTA_FIXED_BYTES} bytes`);
  }
  const state = createStatePacket();
  const error = readStateFields(bytes, state);
  if (error !== null) return { ok: false, error };
  const deltaBytes = readU16(bytes, DELTA_LEN_AT);
  const end = STATE_DELTA_BODY_OFFSET + deltaBytes;
  if (end > bytes.length)
    return failure("length_overrun", DELTA_LEN_AT, `delta_len ${deltaBytes} runs past the datagram`);
  if (end < bytes.length) return failure("trailing_bytes", end, `${bytes.length - end} bytes after the delta`);
  const removedCount = readU16(bytes, REMOVED_AT);
  const changedCount = readU16(bytes, CHANGED_AT);
  const problem = validateEntityDelta(bytes, STATE_DELTA_BODY_OFFSET, end, removedCount, changedCount);
  if (problem !== null) return { ok: false, error: problem };
  return {
    ok: true,
    packet: {
      type: "state_delta",
      clientType: state.clientType,
      tick: state.tick,
      chunks: state.chunks,
      playerEntityId: state.playerEntityId,
      entityChecksum: state.entityChecksum,
      baselineTick: readU32(bytes, BASELINE_AT),
      removedCount,
      changedCount,
      delta: bytes.subarray(STATE_DELTA_BODY_OFFSET, end),
    },
  };
}
