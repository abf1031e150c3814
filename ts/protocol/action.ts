// ActionPacket (type 1, 74 bytes, client → server): session token, the tick
// the action is scheduled for, the client's chunk cache and one action code
// (docs/protocol.md § ActionPacket).
import { readU16, readU32, readU64, writeU16, writeU32, writeU64 } from "./bytes.js";
import {
  type ChunkEntry,
  CHUNK_ENTRY_BYTES,
  CHUNK_ENTRY_ID_OFFSET,
  CHUNK_ENTRY_LAYOUT,
  CHUNK_ENTRY_VERSION_OFFSET,
  checkChunkEntry,
  readChunkEntry,
  writeChunkEntry,
} from "./chunk-id.js";
import { type DecodeResult, EncodeError, checkRoom, checkU32, checkU64, failure, isIntegerIn } from "./errors.js";
import { HEADER_BYTES, PACKET_ACTION, encodeHeader, hasHeader, readClientType } from "./header.js";
import { chunkEntries, enumField, int, layout, token } from "./layout.js";
import { MANIFEST_ENTRIES } from "./state.js";

/** Every action code defined so far carries no action_data, so the packet is exactly this long. */
export const ACTION_BYTES = 74;

export const ACTION_NOOP = 0;
export const ACTION_N = 1;
export const ACTION_E = 2;
export const ACTION_S = 3;
export const ACTION_W = 4;
export const ACTION_NE = 5;
export const ACTION_SE = 6;
export const ACTION_SW = 7;
export const ACTION_NW = 8;
export const ACTION_MAX = 8;
/** Names indexed by action code. */
export const ACTION_NAMES = ["NOOP", "N", "E", "S", "W", "NE", "SE", "SW", "NW"] as const;
export type ActionName = (typeof ACTION_NAMES)[number];
/** Tile step of each action code; north is y - 1. */
export const ACTION_DX: readonly number[] = [0, 0, 1, 0, -1, 1, 1, -1, -1];
export const ACTION_DY: readonly number[] = [0, -1, 0, 1, 0, -1, 1, 1, -1];

/** Action code for a step (dx, dy), each component's sign taken (-1..1); (0, 0) is NOOP. The inverse of ACTION_DX/DY. */
export function actionFromDelta(dx: number, dy: number): number {
  // Indexed by (dy + 1) * 3 + (dx + 1): rows north, level, south; columns west, none, east.
  return ACTION_OF_DELTA[(Math.sign(dy) + 1) * 3 + Math.sign(dx) + 1];
}
const ACTION_OF_DELTA: readonly number[] = [
  ACTION_NW,
  ACTION_N,
  ACTION_NE,
  ACTION_W,
  ACTION_NOOP,
  ACTION_E,
  ACTION_SW,
  ACTION_S,
  ACTION_SE,
];

/** docs/protocol.md § ActionPacket. */
export const ACTION_LAYOUT = layout("action", HEADER_BYTES, ACTION_BYTES, [
  token("auth_token"),
  int("target_tick", "u32", "targetTick"),
  chunkEntries("cache", "cache", MANIFEST_ENTRIES, CHUNK_ENTRY_LAYOUT),
  enumField("player_action", 2, "action", ACTION_NAMES),
]);
const TOKEN_AT = ACTION_LAYOUT.offset.auth_token;
const TARGET_TICK_AT = ACTION_LAYOUT.offset.target_tick;
const CACHE_AT = ACTION_LAYOUT.offset.cache;
const ACTION_AT = ACTION_LAYOUT.offset.player_action;
/** auth_token is a little-endian u64: its high u32 word follows the low one. */
const TOKEN_HIGH_AT = TOKEN_AT + ACTION_LAYOUT.size.auth_token / 2;

export interface ActionPacket {
  type: "action";
  clientType: number;
  authToken: bigint;
  /** Tick whose movement window the action is for; 0 = keep-alive / cache ack only. */
  targetTick: number;
  /** The nine chunks the client holds, version 0 = not held; any order. */
  cache: ChunkEntry[];
  /** ACTION_NOOP .. ACTION_NW. */
  action: number;
}

/** An ActionPacket with nine zeroed cache entries, for reuse. */
export function createActionPacket(): ActionPacket {
  const cache: ChunkEntry[] = [];
  for (let index = 0; index < MANIFEST_ENTRIES; index++) cache.push({ chunkId: 0, version: 0 });
  return { type: "action", clientType: 0, authToken: 0n, targetTick: 0, cache, action: ACTION_NOOP };
}

/** Writes an ActionPacket at `offset`; returns ACTION_BYTES. Throws EncodeError on bad input. */
export function encodeAction(packet: ActionPacket, out: Uint8Array, offset = 0): number {
  checkU64("auth_token", packet.authToken);
  checkU32("target_tick", packet.targetTick);
  if (!isIntegerIn(packet.action, 0, ACTION_MAX)) {
    throw new EncodeError("out_of_range", `player_action must be 0..${ACTION_MAX}, got ${String(packet.action)}`);
  }
  if (!Array.isArray(packet.cache) || packet.cache.length !== MANIFEST_ENTRIES) {
    throw new EncodeError("out_of_range", `cache must hold ${MANIFEST_ENTRIES} entries`);
  }
  for (let index = 0; index < MANIFEST_ENTRIES; index++) checkChunkEntry(packet.cache[index], "cache", index);
  checkRoom(out, offset, ACTION_BYTES);
  encodeHeader(PACKET_ACTION, packet.clientType, out, offset);
  writeU64(out, offset + TOKEN_AT, packet.authToken);
  writeU32(out, offset + TARGET_TICK_AT, packet.targetTick);
  for (let index = 0; index < MANIFEST_ENTRIES; index++) {
    writeChunkEntry(packet.cache[index], out, offset + CACHE_AT + index * CHUNK_ENTRY_BYTES);
  }
  writeU16(out, offset + ACTION_AT, packet.action);
  return ACTION_BYTES;
}

/** Decodes the body of a datagram whose header checkHeader accepted with type 1. */
export function decodeActionBody(bytes: Uint8Array): DecodeResult<ActionPacket> {
  if (bytes.length < ACTION_BYTES)
    return failure("truncated", bytes.length, `ActionPacket needs ${ACTION_BYTES} bytes`);
  const action = readU16(bytes, ACTION_AT);
  if (action > ACTION_MAX)
    return failure("bad_action", ACTION_AT, `player_action ${action} is not defined (0..${ACTION_MAX})`);
  if (bytes.length > ACTION_BYTES) {
    return failure("trailing_bytes", ACTION_BYTES, `action ${ACTION_NAMES[action]} carries no action_data`);
  }
  const packet = createActionPacket();
  packet.clientType = readClientType(bytes);
  packet.authToken = readU64(bytes, TOKEN_AT);
  packet.targetTick = readU32(bytes, TARGET_TICK_AT);
  for (let index = 0; index < MANIFEST_ENTRIES; index++) {
    readChunkEntry(bytes, CACHE_AT + index * CHUNK_ENTRY_BYTES, packet.cache[index]);
  }
  packet.action = action;
  return { ok: true, packet };
}

// In-place access for the server's inbound fast path, which reads an
// ActionPacket's fields straight from the datagram instead of decoding it.
// isValidAction accepts exactly the datagrams decodePacket decodes as an
// action (test/protocol-validators.test.ts); the readers assume it passed.

/** True when `bytes` is a well-formed ActionPacket: the same verdict as decodePacket, without allocating. */
export function isValidAction(bytes: Uint8Array): boolean {
  return bytes.length === ACTION_BYTES && hasHeader(bytes, PACKET_ACTION) && readU16(bytes, ACTION_AT) <= ACTION_MAX;
}

/** Low 32 bits of auth_token (u32), so a session lookup needs no bigint. */
export function readActionTokenLow(bytes: Uint8Array): number {
  return readU32(bytes, TOKEN_AT);
}

/** High 32 bits of auth_token (u32). */
export function readActionTokenHigh(bytes: Uint8Array): number {
  return readU32(bytes, TOKEN_HIGH_AT);
}

/** target_tick (u32). */
export function readActionTargetTick(bytes: Uint8Array): number {
  return readU32(bytes, TARGET_TICK_AT);
}

/** chunk_id of cache entry `index` (0 .. MANIFEST_ENTRIES - 1). */
export function readActionCacheChunkId(bytes: Uint8Array, index: number): number {
  return readU32(bytes, CACHE_AT + index * CHUNK_ENTRY_BYTES + CHUNK_ENTRY_ID_OFFSET);
}

/** version of cache entry `index` (0 .. MANIFEST_ENTRIES - 1). */
export function readActionCacheVersion(bytes: Uint8Array, index: number): number {
  return readU16(bytes, CACHE_AT + index * CHUNK_ENTRY_BYTES + CHUNK_ENTRY_VERSION_OFFSET);
}

/** player_action (ACTION_NOOP .. ACTION_MAX once isValidAction passed). */
export function readActionCode(bytes: Uint8Array): number {
  return readU16(bytes, ACTION_AT);
}
