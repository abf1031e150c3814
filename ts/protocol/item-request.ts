// ItemRequestPacket (type 21, 27 bytes, client → server): the player asks to
// change an inventory — take from a chest or a pile, put into a chest, drop,
// equip, unequip, use, move between slots (docs/protocol.md § Items). Every
// request has an id, so the server executes each at most once and answers a
// re-sent copy with the same ItemResult: a lost or duplicated datagram never
// duplicates or loses an item.
import { readU16, readU32, readU64, writeU16, writeU32, writeU64 } from "./bytes.js";
import { type DecodeResult, EncodeError, checkRoom, checkU32, checkU64, failure, isIntegerIn } from "./errors.js";
import { HEADER_BYTES, PACKET_ITEM_REQUEST, encodeHeader, readClientType } from "./header.js";
import { enumField, int, layout, token } from "./layout.js";

export const ITEM_REQUEST_BYTES = 27;

/**
 * What a request does, by wire code. `container` names the chest or pile (an entity id) for take,
 * take_all and put, and is 0 otherwise; `slot` is the bag slot (or SLOT_WEAPON / SLOT_ARMOR for
 * unequip and move); `to_slot` only matters for move; `count` 0 means the whole stack.
 */
export const ITEM_OPS = ["take", "take_all", "put", "drop", "equip", "unequip", "use", "move"] as const;
export type ItemOp = (typeof ITEM_OPS)[number];

/** docs/protocol.md § ItemRequestPacket. */
export const ITEM_REQUEST_LAYOUT = layout("item_request", HEADER_BYTES, ITEM_REQUEST_BYTES, [
  token("auth_token"),
  int("request_id", "u32", "requestId"),
  enumField("op", 1, "op", ITEM_OPS),
  int("container", "u32", "container"),
  int("slot", "u8", "slot"),
  int("to_slot", "u8", "toSlot"),
  int("count", "u16", "count"),
]);
const TOKEN_AT = ITEM_REQUEST_LAYOUT.offset.auth_token;
const REQUEST_ID_AT = ITEM_REQUEST_LAYOUT.offset.request_id;
const OP_AT = ITEM_REQUEST_LAYOUT.offset.op;
const CONTAINER_AT = ITEM_REQUEST_LAYOUT.offset.container;
const SLOT_AT = ITEM_REQUEST_LAYOUT.offset.slot;
const TO_SLOT_AT = ITEM_REQUEST_LAYOUT.offset.to_slot;
const COUNT_AT = ITEM_REQUEST_LAYOUT.offset.count;

export interface ItemRequestPacket {
  type: "item_request";
  clientType: number;
  authToken: bigint;
  /** ≥ 1, new for every request of a session (1, 2, 3, …); a re-send keeps its id. */
  requestId: number;
  /** Index into ITEM_OPS. */
  op: number;
  container: number;
  slot: number;
  toSlot: number;
  count: number;
}

/** Writes an ItemRequestPacket at `offset`; returns ITEM_REQUEST_BYTES. Throws EncodeError on bad input. */
export function encodeItemRequest(packet: ItemRequestPacket, out: Uint8Array, offset = 0): number {
  checkU64("auth_token", packet.authToken);
  checkU32("request_id", packet.requestId);
  if (packet.requestId === 0) throw new EncodeError("out_of_range", "request_id must be at least 1");
  if (!isIntegerIn(packet.op, 0, ITEM_OPS.length - 1)) {
    throw new EncodeError("out_of_range", `op must be 0..${ITEM_OPS.length - 1}, got ${packet.op}`);
  }
  checkU32("container", packet.container);
  if (!isIntegerIn(packet.slot, 0, 0xff) || !isIntegerIn(packet.toSlot, 0, 0xff)) {
    throw new EncodeError("out_of_range", "slot and to_slot must be u8s");
  }
  if (!isIntegerIn(packet.count, 0, 0xffff)) throw new EncodeError("out_of_range", "count must be a u16");
  checkRoom(out, offset, ITEM_REQUEST_BYTES);
  encodeHeader(PACKET_ITEM_REQUEST, packet.clientType, out, offset);
  writeU64(out, offset + TOKEN_AT, packet.authToken);
  writeU32(out, offset + REQUEST_ID_AT, packet.requestId);
  out[offset + OP_AT] = packet.op;
  writeU32(out, offset + CONTAINER_AT, packet.container);
  out[offset + SLOT_AT] = packet.slot;
  out[offset + TO_SLOT_AT] = packet.toSlot;
  writeU16(out, offset + COUNT_AT, packet.count);
  return ITEM_REQUEST_BYTES;
}

/** Decodes the body of a datagram whose header checkHeader accepted with type 21. */
export function decodeItemRequestBody(bytes: Uint8Array): DecodeResult<ItemRequestPacket> {
  if (bytes.length < ITEM_REQUEST_BYTES) {
    return failure("truncated", bytes.length, `ItemRequestPacket needs ${ITEM_REQUEST_BYTES} bytes`);
  }
  if (bytes.length > ITEM_REQUEST_BYTES) {
    return failure("trailing_bytes", ITEM_REQUEST_BYTES, `ItemRequestPacket is ${ITEM_REQUEST_BYTES} bytes`);
  }
  const requestId = readU32(bytes, REQUEST_ID_AT);
  if (requestId === 0) return failure("bad_request", REQUEST_ID_AT, "request_id 0 names no request");
  const op = bytes[OP_AT];
  if (op >= ITEM_OPS.length) return failure("bad_request", OP_AT, `item op ${op} is not defined`);
  return {
    ok: true,
    packet: {
      type: "item_request",
      clientType: readClientType(bytes),
      authToken: readU64(bytes, TOKEN_AT),
      requestId,
      op,
      container: readU32(bytes, CONTAINER_AT),
      slot: bytes[SLOT_AT],
      toSlot: bytes[TO_SLOT_AT],
      count: readU16(bytes, COUNT_AT),
    },
  };
}
