// ActionPacket (type 1, 74 bytes, client → server): session token, the tick
// the action is scheduled for, the client's chunk cache and one action code
// (docs/protocol.md § ActionPacket), optionally followed by the 28-byte
// authentication trailer (§ 6.1: sequence, challenge echo, tag) that a UDP
// client needs to move its session to a new address.
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
import { bytesField, chunkEntries, enumField, int, layout, token, u64 } from "./layout.js";
import { MANIFEST_ENTRIES } from "./state.js";

/** Every action code defined so far carries no action_data, so the packet is exactly this long. */
export const ACTION_BYTES = 74;
/** An ActionPacket with the authentication trailer (docs/protocol.md § 6.1). */
export const ACTION_AUTH_BYTES = 102;
/** The truncated HMAC-SHA256 at the end of the trailer. */
export const ACTION_TAG_BYTES = 16;

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
/**
 * docs/protocol.md § 6.1: the trailer after the spec's 74 bytes. `sequence`
 * counts the session's authenticated packets (the replay window's key);
 * `challenge` echoes the server's return-routability cookie (0: none held);
 * `tag` is HMAC-SHA256 under the session key over every byte before it,
 * truncated to 16 bytes.
 */
export const ACTION_AUTH_LAYOUT = layout("action_auth", ACTION_BYTES, ACTION_AUTH_BYTES, [
  int("sequence", "u32", "sequence"),
  u64("challenge", "challenge"),
  bytesField("tag", "tag", ACTION_TAG_BYTES),
]);
const SEQUENCE_AT = ACTION_AUTH_LAYOUT.offset.sequence;
const CHALLENGE_AT = ACTION_AUTH_LAYOUT.offset.challenge;
/** Where the tag starts: the tag covers bytes [0, ACTION_TAG_AT). */
export const ACTION_TAG_AT = ACTION_AUTH_LAYOUT.offset.tag;
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
  /** The authentication trailer (§ 6.1), absent on a spec-only packet. */
  auth?: ActionAuth;
}

/** docs/protocol.md § 6.1. */
export interface ActionAuth {
  /** u32, 1 upwards per authenticated packet of the session. */
  sequence: number;
  /** The server's latest challenge cookie to this address, or 0n. */
  challenge: bigint;
  /** ACTION_TAG_BYTES bytes. */
  tag: Uint8Array;
}

/**
 * Computes the tag of `message` (HMAC-SHA256 under the session key, first
 * ACTION_TAG_BYTES bytes) into `out` at `at`. The shared core names the
 * function only; Node hosts get it from action-mac-node.ts.
 */
export type ActionMac = (message: Uint8Array, out: Uint8Array, at: number) => void;

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
  const auth = packet.auth;
  if (auth === undefined) return ACTION_BYTES;
  checkU32("sequence", auth.sequence);
  checkU64("challenge", auth.challenge);
  if (!(auth.tag instanceof Uint8Array) || auth.tag.length !== ACTION_TAG_BYTES) {
    throw new EncodeError("out_of_range", `tag must be ${ACTION_TAG_BYTES} bytes`);
  }
  checkRoom(out, offset, ACTION_AUTH_BYTES);
  writeU32(out, offset + SEQUENCE_AT, auth.sequence);
  writeU64(out, offset + CHALLENGE_AT, auth.challenge);
  out.set(auth.tag, offset + ACTION_TAG_AT);
  return ACTION_AUTH_BYTES;
}

/**
 * Writes the trailer after the 74-byte ActionPacket at `out[offset]` and
 * signs it: `sequence`, the challenge echo as two u32 words (0, 0: none) and
 * the tag `mac` computes over everything before it. Returns ACTION_AUTH_BYTES.
 */
export function sealAction(
  out: Uint8Array,
  offset: number,
  sequence: number,
  challengeLow: number,
  challengeHigh: number,
  mac: ActionMac,
): number {
  checkU32("sequence", sequence);
  checkRoom(out, offset, ACTION_AUTH_BYTES);
  writeU32(out, offset + SEQUENCE_AT, sequence);
  writeU32(out, offset + CHALLENGE_AT, challengeLow >>> 0);
  writeU32(out, offset + CHALLENGE_AT + 4, challengeHigh >>> 0);
  mac(out.subarray(offset, offset + ACTION_TAG_AT), out, offset + ACTION_TAG_AT);
  return ACTION_AUTH_BYTES;
}

/** Decodes the body of a datagram whose header checkHeader accepted with type 1. */
export function decodeActionBody(bytes: Uint8Array): DecodeResult<ActionPacket> {
  if (bytes.length < ACTION_BYTES)
    return failure("truncated", bytes.length, `ActionPacket needs ${ACTION_BYTES} bytes`);
  const action = readU16(bytes, ACTION_AT);
  if (action > ACTION_MAX)
    return failure("bad_action", ACTION_AT, `player_action ${action} is not defined (0..${ACTION_MAX})`);
  // The only bytes allowed after the spec's 74 are exactly one authentication trailer.
  if (bytes.length > ACTION_BYTES && bytes.length !== ACTION_AUTH_BYTES) {
    return failure(
      "trailing_bytes",
      ACTION_BYTES,
      `action ${ACTION_NAMES[action]} carries no action_data (the only trailer is 28 bytes, § 6.1)`,
    );
  }
  const packet = createActionPacket();
  packet.clientType = readClientType(bytes);
  packet.authToken = readU64(bytes, TOKEN_AT);
  packet.targetTick = readU32(bytes, TARGET_TICK_AT);
  for (let index = 0; index < MANIFEST_ENTRIES; index++) {
    readChunkEntry(bytes, CACHE_AT + index * CHUNK_ENTRY_BYTES, packet.cache[index]);
  }
  packet.action = action;
  if (bytes.length === ACTION_AUTH_BYTES) {
    packet.auth = {
      sequence: readU32(bytes, SEQUENCE_AT),
      challenge: readU64(bytes, CHALLENGE_AT),
      tag: bytes.slice(ACTION_TAG_AT, ACTION_AUTH_BYTES),
    };
  }
  return { ok: true, packet };
}

// In-place access for the server's inbound fast path, which reads an
// ActionPacket's fields straight from the datagram instead of decoding it.
// isValidAction accepts exactly the datagrams decodePacket decodes as an
// action (test/protocol-validators.test.ts); the readers assume it passed.

/** True when `bytes` is a well-formed ActionPacket: the same verdict as decodePacket, without allocating. */
export function isValidAction(bytes: Uint8Array): boolean {
  const length = bytes.length;
  return (
    (length === ACTION_BYTES || length === ACTION_AUTH_BYTES) &&
    hasHeader(bytes, PACKET_ACTION) &&
    readU16(bytes, ACTION_AT) <= ACTION_MAX
  );
}

/** Whether a valid ActionPacket carries the authentication trailer. */
export function hasActionAuth(bytes: Uint8Array): boolean {
  return bytes.length === ACTION_AUTH_BYTES;
}

/** The trailer's sequence (u32); only when hasActionAuth. */
export function readActionSequence(bytes: Uint8Array): number {
  return readU32(bytes, SEQUENCE_AT);
}

/** Low 32 bits of the trailer's challenge echo (u32); only when hasActionAuth. */
export function readActionChallengeLow(bytes: Uint8Array): number {
  return readU32(bytes, CHALLENGE_AT);
}

/** High 32 bits of the trailer's challenge echo (u32). */
export function readActionChallengeHigh(bytes: Uint8Array): number {
  return readU32(bytes, CHALLENGE_AT + 4);
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
