// StateDeltaCompactPacket (type 27, 33 … 1200 bytes, server → client, P-25):
// the StateDelta of a session whose first acknowledgement was a CompactAck
// (entity-ack.ts). It says what a StateDeltaPacket says in a third of its head:
// the manifest as its centre chunk and nine varint versions (the nine chunk ids
// follow from the centre, decision 8), the player's id, the baseline as a
// distance back from `tick`, and the counts as varints — 33 bytes for a quiet
// broadcast instead of 82. The delta body is the same (entity-delta.ts).
// docs/protocol.md § 8.5.
import { readI16, readU16, readU32, writeU16, writeU32 } from "./bytes.js";
import { type DecodeResult, EncodeError, checkI16, checkRoom, checkU16, checkU32, failure } from "./errors.js";
import { validateEntityDelta } from "./entity-delta.js";
import {
  HEADER_BYTES,
  MAX_DATAGRAM_BYTES,
  PACKET_STATE_DELTA_COMPACT,
  encodeHeader,
  readClientType,
} from "./header.js";
import { count, int, layout, variable, varint, varints } from "./layout.js";
import { MANIFEST_ENTRIES, manifestChunkId } from "./state.js";
import type { StateDeltaView } from "./state-delta.js";
import { VARINT_MAX_BYTES, readVarint, writeVarint } from "./varint.js";

/** The fixed part: header, tick, entity_checksum and the centre chunk. */
export const STATE_DELTA_COMPACT_FIXED_BYTES = 18;
/** The shortest packet: the fixed part, nine one-byte versions, four one-byte varints and delta_len. */
export const STATE_DELTA_COMPACT_MIN_BYTES = STATE_DELTA_COMPACT_FIXED_BYTES + MANIFEST_ENTRIES + 4 + 2;
/** The longest head (a u16 version takes 3 varint bytes, a u32 5): where the server writes the body before the head. */
export const STATE_DELTA_COMPACT_HEAD_MAX =
  STATE_DELTA_COMPACT_FIXED_BYTES + MANIFEST_ENTRIES * 3 + 4 * VARINT_MAX_BYTES + 2;

/** docs/protocol.md § StateDeltaCompactPacket. */
export const STATE_DELTA_COMPACT_LAYOUT = layout("state_delta_compact", HEADER_BYTES, STATE_DELTA_COMPACT_FIXED_BYTES, [
  int("tick", "u32", "tick"),
  int("entity_checksum", "u32", "entityChecksum"),
  int("centre_cx", "i16", "centreX"),
  int("centre_cy", "i16", "centreY"),
  varints("versions", "versions", MANIFEST_ENTRIES),
  varint("player_entity_id", "playerEntityId"),
  varint("baseline_back", "baselineBack"),
  varint("removed_count", "removedCount"),
  varint("changed_count", "changedCount"),
  count("delta_len", 2, "delta"),
  variable("delta", "payload", "delta"),
]);
const TICK_AT = STATE_DELTA_COMPACT_LAYOUT.offset.tick;
const CHECKSUM_AT = STATE_DELTA_COMPACT_LAYOUT.offset.entity_checksum;
const CX_AT = STATE_DELTA_COMPACT_LAYOUT.offset.centre_cx;
const CY_AT = STATE_DELTA_COMPACT_LAYOUT.offset.centre_cy;
const VERSIONS_AT = STATE_DELTA_COMPACT_LAYOUT.offset.versions;

/** Plain form (tools, tests): the wire's fields. `expandStateDeltaCompact` gives the StateDelta they mean. */
export interface StateDeltaCompactPacket {
  type: "state_delta_compact";
  clientType: number;
  tick: number;
  entityChecksum: number;
  /** The chunk the player stands in (manifest entry 4); the other eight are its neighbours in manifest order. */
  centreX: number;
  centreY: number;
  /** The nine manifest versions in manifest order (row by row from the north-west). */
  versions: number[];
  playerEntityId: number;
  /** tick − the baseline's tick; 0: the empty list. */
  baselineBack: number;
  removedCount: number;
  changedCount: number;
  delta: Uint8Array;
}

/** Decoded form: `delta` is a view into the datagram (copy what you keep). */
export type StateDeltaCompactView = StateDeltaCompactPacket;

/** Writes a StateDeltaCompactPacket at `offset`; returns its size. Throws EncodeError on bad input or a malformed delta. */
export function encodeStateDeltaCompact(packet: StateDeltaCompactPacket, out: Uint8Array, offset = 0): number {
  if (!Array.isArray(packet.versions) || packet.versions.length !== MANIFEST_ENTRIES) {
    throw new EncodeError("out_of_range", `versions must hold ${MANIFEST_ENTRIES} entries`);
  }
  checkI16("centre_cx", packet.centreX);
  checkI16("centre_cy", packet.centreY);
  checkU32("baseline_back", packet.baselineBack);
  checkU16("removed_count", packet.removedCount);
  checkU16("changed_count", packet.changedCount);
  if (packet.baselineBack > packet.tick) {
    throw new EncodeError("out_of_range", `baseline_back ${packet.baselineBack} reaches before tick 0`);
  }
  const problem = validateEntityDelta(packet.delta, 0, packet.delta.length, packet.removedCount, packet.changedCount);
  if (problem !== null) throw new EncodeError("out_of_range", `delta: ${problem.message}`);
  const scratch = new Uint8Array(STATE_DELTA_COMPACT_HEAD_MAX);
  const head = writeStateDeltaCompactHead(
    packet.clientType,
    packet.tick,
    packet.entityChecksum,
    packet.centreX,
    packet.centreY,
    packet.versions,
    packet.playerEntityId,
    packet.baselineBack,
    packet.removedCount,
    packet.changedCount,
    packet.delta.length,
    scratch,
    0,
  );
  const size = head + packet.delta.length;
  if (size > MAX_DATAGRAM_BYTES) {
    throw new EncodeError("oversize", `StateDeltaCompactPacket would be ${size} bytes, limit ${MAX_DATAGRAM_BYTES}`);
  }
  checkRoom(out, offset, size);
  out.set(scratch.subarray(0, head), offset);
  out.set(packet.delta, offset + head);
  return size;
}

/**
 * Writes everything before the delta body at `offset` and returns its length
 * (at most STATE_DELTA_COMPACT_HEAD_MAX): the server's writer, which puts the
 * body after it. Checks the integers as encodeStateDeltaCompact does.
 */
export function writeStateDeltaCompactHead(
  clientType: number,
  tick: number,
  entityChecksum: number,
  centreX: number,
  centreY: number,
  versions: ArrayLike<number>,
  playerEntityId: number,
  baselineBack: number,
  removed: number,
  changed: number,
  deltaBytes: number,
  out: Uint8Array,
  offset: number,
): number {
  checkU32("tick", tick);
  checkU32("entity_checksum", entityChecksum);
  checkI16("centre_cx", centreX);
  checkI16("centre_cy", centreY);
  checkU32("player_entity_id", playerEntityId);
  checkU32("baseline_back", baselineBack);
  checkU16("removed_count", removed);
  checkU16("changed_count", changed);
  checkU16("delta_len", deltaBytes);
  for (let index = 0; index < MANIFEST_ENTRIES; index++) checkU16("versions", versions[index]);
  checkRoom(out, offset, STATE_DELTA_COMPACT_HEAD_MAX);
  encodeHeader(PACKET_STATE_DELTA_COMPACT, clientType, out, offset);
  writeU32(out, offset + TICK_AT, tick);
  writeU32(out, offset + CHECKSUM_AT, entityChecksum);
  writeU16(out, offset + CX_AT, centreX & 0xffff);
  writeU16(out, offset + CY_AT, centreY & 0xffff);
  let at = offset + VERSIONS_AT;
  for (let index = 0; index < MANIFEST_ENTRIES; index++) at = writeVarint(out, at, versions[index]);
  at = writeVarint(out, at, playerEntityId);
  at = writeVarint(out, at, baselineBack);
  at = writeVarint(out, at, removed);
  at = writeVarint(out, at, changed);
  writeU16(out, at, deltaBytes);
  return at + 2 - offset;
}

/** Decodes the body of a datagram whose header checkHeader accepted with type 27. */
export function decodeStateDeltaCompactBody(bytes: Uint8Array): DecodeResult<StateDeltaCompactView> {
  const end = bytes.length;
  if (end < STATE_DELTA_COMPACT_MIN_BYTES) {
    return failure("truncated", end, `StateDeltaCompactPacket needs at least ${STATE_DELTA_COMPACT_MIN_BYTES} bytes`);
  }
  const tick = readU32(bytes, TICK_AT);
  let at = VERSIONS_AT;
  const versions: number[] = [];
  for (let index = 0; index < MANIFEST_ENTRIES; index++) {
    const read = readVarint(bytes, at, end);
    if (read.next < 0) return failure("bad_delta", at, `versions[${index}] is not a well-formed varint`);
    if (read.value > 0xffff) return failure("bad_delta", at, `versions[${index}] ${read.value} is above u16`);
    versions.push(read.value);
    at = read.next;
  }
  const fields = ["player_entity_id", "baseline_back", "removed_count", "changed_count"];
  const values: number[] = [];
  const offsets: number[] = [];
  for (const name of fields) {
    const read = readVarint(bytes, at, end);
    if (read.next < 0) return failure("bad_delta", at, `${name} is not a well-formed varint`);
    values.push(read.value);
    offsets.push(at);
    at = read.next;
  }
  const [playerEntityId, baselineBack, removedCount, changedCount] = values;
  if (baselineBack > tick) {
    return failure("bad_delta", offsets[1], `baseline_back ${baselineBack} reaches before tick 0 (tick ${tick})`);
  }
  if (removedCount > 0xffff) return failure("bad_delta", offsets[2], `removed_count ${removedCount} is above u16`);
  if (changedCount > 0xffff) return failure("bad_delta", offsets[3], `changed_count ${changedCount} is above u16`);
  if (at + 2 > end) return failure("truncated", end, "StateDeltaCompactPacket ends before delta_len");
  const deltaBytes = readU16(bytes, at);
  const bodyAt = at + 2;
  if (bodyAt + deltaBytes > end) return failure("length_overrun", at, `delta_len ${deltaBytes} runs past the datagram`);
  if (bodyAt + deltaBytes < end) {
    return failure("trailing_bytes", bodyAt + deltaBytes, `${end - bodyAt - deltaBytes} bytes after the delta`);
  }
  const problem = validateEntityDelta(bytes, bodyAt, end, removedCount, changedCount);
  if (problem !== null) return { ok: false, error: problem };
  return {
    ok: true,
    packet: {
      type: "state_delta_compact",
      clientType: readClientType(bytes),
      tick,
      entityChecksum: readU32(bytes, CHECKSUM_AT),
      centreX: readI16(bytes, CX_AT),
      centreY: readI16(bytes, CY_AT),
      versions,
      playerEntityId,
      baselineBack,
      removedCount,
      changedCount,
      delta: bytes.subarray(bodyAt, end),
    },
  };
}

/**
 * What a StateDeltaCompactPacket means, as the StateDelta it abbreviates: the
 * manifest's nine entries around the centre, the baseline's tick. Receivers
 * handle both forms with one path.
 */
export function expandStateDeltaCompact(packet: StateDeltaCompactPacket): StateDeltaView {
  const centreId = ((packet.centreX & 0xffff) | ((packet.centreY & 0xffff) << 16)) >>> 0;
  const chunks = packet.versions.map((version, index) => ({ chunkId: manifestChunkId(centreId, index), version }));
  return {
    type: "state_delta",
    clientType: packet.clientType,
    tick: packet.tick,
    chunks,
    playerEntityId: packet.playerEntityId,
    entityChecksum: packet.entityChecksum,
    baselineTick: packet.baselineBack === 0 ? 0 : packet.tick - packet.baselineBack,
    removedCount: packet.removedCount,
    changedCount: packet.changedCount,
    delta: packet.delta,
  };
}
