// ItemResultPacket (type 22, 15 bytes, server → client): the answer to an
// ItemRequest — done, or why not — and the version the player's inventory has
// after it (docs/protocol.md § Items). A re-sent request gets the same answer,
// so the client re-sends until it has one. The contents themselves come in the
// player's own EntityDetail (the `inventory` TLV), which the server sends after
// every change and the client can ask for at any time.
import { readU32, writeU32 } from "./bytes.js";
import { type DecodeResult, EncodeError, checkRoom, checkU32, failure, isIntegerIn } from "./errors.js";
import { HEADER_BYTES, PACKET_ITEM_RESULT, encodeHeader, readClientType } from "./header.js";
import { enumField, int, layout } from "./layout.js";

export const ITEM_RESULT_BYTES = 15;

/**
 * How a request ended, by wire code: `ok` — done (durable before this was sent); `stale` — an id the
 * server no longer remembers (older than the last 64 it answered): nothing was done now; the others
 * say why nothing was done.
 */
export const ITEM_STATUSES = [
  "ok",
  "stale",
  "no_item",
  "too_far",
  "full",
  "wrong_kind",
  "no_container",
  "dead",
  "locked",
  // The change could not be written (the world's store unreachable, or a row changed meanwhile): nothing changed.
  "not_written",
] as const;
export type ItemStatus = (typeof ITEM_STATUSES)[number];

/** docs/protocol.md § ItemResultPacket. */
export const ITEM_RESULT_LAYOUT = layout("item_result", HEADER_BYTES, ITEM_RESULT_BYTES, [
  int("request_id", "u32", "requestId"),
  enumField("status", 1, "status", ITEM_STATUSES),
  int("version", "u32", "version"),
]);
const REQUEST_ID_AT = ITEM_RESULT_LAYOUT.offset.request_id;
const STATUS_AT = ITEM_RESULT_LAYOUT.offset.status;
const VERSION_AT = ITEM_RESULT_LAYOUT.offset.version;

export interface ItemResultPacket {
  type: "item_result";
  clientType: number;
  requestId: number;
  /** Index into ITEM_STATUSES. */
  status: number;
  /** The player's inventory version after the request. */
  version: number;
}

/** Writes an ItemResultPacket at `offset`; returns ITEM_RESULT_BYTES. Throws EncodeError on bad input. */
export function encodeItemResult(packet: ItemResultPacket, out: Uint8Array, offset = 0): number {
  checkU32("request_id", packet.requestId);
  if (packet.requestId === 0) throw new EncodeError("out_of_range", "request_id must be at least 1");
  if (!isIntegerIn(packet.status, 0, ITEM_STATUSES.length - 1)) {
    throw new EncodeError("out_of_range", `status must be 0..${ITEM_STATUSES.length - 1}, got ${packet.status}`);
  }
  checkU32("version", packet.version);
  checkRoom(out, offset, ITEM_RESULT_BYTES);
  encodeHeader(PACKET_ITEM_RESULT, packet.clientType, out, offset);
  writeU32(out, offset + REQUEST_ID_AT, packet.requestId);
  out[offset + STATUS_AT] = packet.status;
  writeU32(out, offset + VERSION_AT, packet.version);
  return ITEM_RESULT_BYTES;
}

/** Decodes the body of a datagram whose header checkHeader accepted with type 22. */
export function decodeItemResultBody(bytes: Uint8Array): DecodeResult<ItemResultPacket> {
  if (bytes.length < ITEM_RESULT_BYTES) {
    return failure("truncated", bytes.length, `ItemResultPacket needs ${ITEM_RESULT_BYTES} bytes`);
  }
  if (bytes.length > ITEM_RESULT_BYTES) {
    return failure("trailing_bytes", ITEM_RESULT_BYTES, `ItemResultPacket is ${ITEM_RESULT_BYTES} bytes`);
  }
  const requestId = readU32(bytes, REQUEST_ID_AT);
  if (requestId === 0) return failure("bad_request", REQUEST_ID_AT, "request_id 0 names no request");
  const status = bytes[STATUS_AT];
  if (status >= ITEM_STATUSES.length) return failure("bad_status", STATUS_AT, `item status ${status} is not defined`);
  return {
    ok: true,
    packet: {
      type: "item_result",
      clientType: readClientType(bytes),
      requestId,
      status,
      version: readU32(bytes, VERSION_AT),
    },
  };
}
