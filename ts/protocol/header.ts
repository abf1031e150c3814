// The 6-byte header every datagram starts with, and the sizes that bound the
// wire format (docs/protocol.md § Header, § Packet types).
import { readU16, writeU16 } from "./bytes.js";
import { type DecodeError, checkRoom, checkU16, decodeError } from "./errors.js";
import { enumField, int, layout } from "./layout.js";

/** "RL" read as a little-endian u16: bytes 0x4C 0x52. */
export const MAGIC = 0x524c;
/** Bumped on every incompatible wire change (decision 7). */
export const PROTOCOL_VERSION = 1;
export const HEADER_BYTES = 6;
/** Hard datagram limit: fits a safe internet MTU without IP fragmentation. */
export const MAX_DATAGRAM_BYTES = 1200;
/** client_type of the official client; other values are registered bots and forks. */
export const CLIENT_TYPE_OFFICIAL = 0;

export const PACKET_STATE = 0;
export const PACKET_ACTION = 1;
export const PACKET_CHUNK = 2;
export const PACKET_ENTITY = 3;
export const PACKET_ENTITY_QUERY = 4;
export const PACKET_ENTITY_DETAIL = 5;
export const PACKET_PING = 6;
export const PACKET_PONG = 7;
export const PACKET_CHAT_POST = 8;
export const PACKET_CHAT_POST_ACK = 9;
export const PACKET_CHAT = 10;
export const PACKET_CHAT_ACK = 11;
export const PACKET_TILE_UPDATE = 12;
export const PACKET_DIALOG = 13;
export const PACKET_DIALOG_ACK = 14;
export const PACKET_DIALOG_REPLY = 15;
export const PACKET_DIALOG_CLOSE = 16;
export const PACKET_CUSTOM_TO_SERVER = 17;
export const PACKET_CUSTOM_TO_CLIENT = 18;
export const PACKET_COMBAT = 19;
export const PACKET_CHUNK_WIDE = 20;
export const PACKET_ITEM_REQUEST = 21;
export const PACKET_ITEM_RESULT = 22;
export const PACKET_WORLD_CLOCK = 23;
export const PACKET_ENTITY_ACK = 24;
export const PACKET_STATE_DELTA = 25;
export const PACKET_COMPACT_ACK = 26;
export const PACKET_STATE_DELTA_COMPACT = 27;
export const PACKET_LEAVE = 28;
export const PACKET_CAMERA = 29;

/** Packet type names as used in decoded objects and the packet tool, indexed by wire id. */
export const PACKET_TYPE_NAMES = [
  "state",
  "action",
  "chunk",
  "entity",
  "entity_query",
  "entity_detail",
  "ping",
  "pong",
  "chat_post",
  "chat_post_ack",
  "chat",
  "chat_ack",
  "tile_update",
  "dialog",
  "dialog_ack",
  "dialog_reply",
  "dialog_close",
  "custom_to_server",
  "custom_to_client",
  "combat",
  "chunk_wide",
  "item_request",
  "item_result",
  "world_clock",
  "entity_ack",
  "state_delta",
  "compact_ack",
  "state_delta_compact",
  "leave",
  "camera",
] as const;
export type PacketTypeName = (typeof PACKET_TYPE_NAMES)[number];

/** docs/protocol.md § Header. Every packet layout starts after these HEADER_BYTES. */
export const HEADER_LAYOUT = layout("header", 0, HEADER_BYTES, [
  int("magic", "u16", ""),
  int("version", "u8", ""),
  enumField("packet_type", 1, "type", PACKET_TYPE_NAMES),
  int("client_type", "u16", "clientType"),
]);
const MAGIC_AT = HEADER_LAYOUT.offset.magic;
const VERSION_AT = HEADER_LAYOUT.offset.version;
const TYPE_AT = HEADER_LAYOUT.offset.packet_type;
const CLIENT_TYPE_AT = HEADER_LAYOUT.offset.client_type;

export interface Header {
  /** Wire id, PACKET_STATE .. PACKET_CAMERA. */
  readonly packetType: number;
  readonly clientType: number;
}

/** Writes magic, version, type and client type; returns HEADER_BYTES. */
export function encodeHeader(packetType: number, clientType: number, out: Uint8Array, offset: number): number {
  checkU16("client_type", clientType);
  checkRoom(out, offset, HEADER_BYTES);
  writeU16(out, offset + MAGIC_AT, MAGIC);
  out[offset + VERSION_AT] = PROTOCOL_VERSION;
  out[offset + TYPE_AT] = packetType;
  writeU16(out, offset + CLIENT_TYPE_AT, clientType);
  return HEADER_BYTES;
}

/** packet_type of a datagram at least HEADER_BYTES long (read without checking the header). */
export function readPacketType(bytes: Uint8Array): number {
  return bytes[TYPE_AT];
}

/** client_type of a datagram at least HEADER_BYTES long. */
export function readClientType(bytes: Uint8Array): number {
  return readU16(bytes, CLIENT_TYPE_AT);
}

/**
 * True when the datagram (at least HEADER_BYTES long) starts with this
 * build's magic and version and has type `packetType`: the header part of
 * checkHeader, for fast paths that have already checked the length.
 */
export function hasHeader(bytes: Uint8Array, packetType: number): boolean {
  return readU16(bytes, MAGIC_AT) === MAGIC && bytes[VERSION_AT] === PROTOCOL_VERSION && bytes[TYPE_AT] === packetType;
}

/**
 * Checks what every datagram must satisfy before its type-specific body is
 * read: size limit, magic, version, known type. Returns null when it passes.
 */
export function checkHeader(bytes: Uint8Array): DecodeError | null {
  if (bytes.length > MAX_DATAGRAM_BYTES) {
    return decodeError(
      "oversize",
      MAX_DATAGRAM_BYTES,
      `datagram is ${bytes.length} bytes, limit ${MAX_DATAGRAM_BYTES}`,
    );
  }
  if (bytes.length < HEADER_BYTES) {
    return decodeError("short_header", bytes.length, `datagram is ${bytes.length} bytes, header needs ${HEADER_BYTES}`);
  }
  const magic = readU16(bytes, MAGIC_AT);
  if (magic !== MAGIC) {
    return decodeError("bad_magic", MAGIC_AT, `magic is 0x${hex16(magic)}, expected 0x${hex16(MAGIC)}`);
  }
  const version = bytes[VERSION_AT];
  if (version !== PROTOCOL_VERSION) {
    return decodeError("bad_version", VERSION_AT, `protocol version ${version}, this build speaks ${PROTOCOL_VERSION}`);
  }
  if (bytes[TYPE_AT] >= PACKET_TYPE_NAMES.length) {
    return decodeError("unknown_type", TYPE_AT, `packet_type ${bytes[TYPE_AT]} is not defined`);
  }
  return null;
}

/** Header fields of a datagram, or the reason it has no valid header. */
export function decodeHeader(bytes: Uint8Array): { ok: true; header: Header } | { ok: false; error: DecodeError } {
  const error = checkHeader(bytes);
  if (error !== null) return { ok: false, error };
  return { ok: true, header: { packetType: bytes[TYPE_AT], clientType: readClientType(bytes) } };
}

function hex16(value: number): string {
  return value.toString(16).toUpperCase().padStart(4, "0");
}
