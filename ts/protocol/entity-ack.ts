// EntityAckPacket (type 24, 18 bytes, client → server, P-21) and its twin the
// CompactAckPacket (type 26, P-25): "I hold the entity list of tick `tick`,
// verified by its checksum; send me deltas against it." The first one a
// session sends turns entity deltas on for it and chooses their form: after an
// EntityAck, StateDeltaPackets (state-delta.ts); after a CompactAck, the
// compact StateDeltaCompactPackets (state-delta-compact.ts). Later acks of
// either type only acknowledge. `tick` 0 names the empty list. A client that
// never sends one gets exactly the seed's packets (docs/protocol.md § 8.4, § 8.5).
import { readU32, readU64, writeU32, writeU64 } from "./bytes.js";
import { type DecodeResult, checkRoom, checkU32, checkU64, failure } from "./errors.js";
import {
  HEADER_BYTES,
  PACKET_COMPACT_ACK,
  PACKET_ENTITY_ACK,
  encodeHeader,
  hasHeader,
  readClientType,
  readPacketType,
} from "./header.js";
import { int, layout, token } from "./layout.js";

export const ENTITY_ACK_BYTES = 18;
/** docs/protocol.md § EntityAckPacket. */
export const ENTITY_ACK_LAYOUT = layout("entity_ack", HEADER_BYTES, ENTITY_ACK_BYTES, [
  token("auth_token"),
  int("tick", "u32", "tick"),
]);
/** docs/protocol.md § CompactAckPacket: the EntityAck's fields under another type. */
export const COMPACT_ACK_LAYOUT = layout("compact_ack", HEADER_BYTES, ENTITY_ACK_BYTES, [
  token("auth_token"),
  int("tick", "u32", "tick"),
]);
const TOKEN_AT = ENTITY_ACK_LAYOUT.offset.auth_token;
const TICK_AT = ENTITY_ACK_LAYOUT.offset.tick;
if (COMPACT_ACK_LAYOUT.offset.auth_token !== TOKEN_AT || COMPACT_ACK_LAYOUT.offset.tick !== TICK_AT) {
  throw new Error("compact_ack must lay out its fields as entity_ack does");
}

export interface EntityAckPacket {
  type: "entity_ack";
  clientType: number;
  authToken: bigint;
  /** The newest tick whose full entity list the client holds (0: none, the empty list). */
  tick: number;
}

/** The same acknowledgement; as a session's first, it asks for compact deltas (P-25). */
export interface CompactAckPacket extends Omit<EntityAckPacket, "type"> {
  type: "compact_ack";
}

/** Writes an EntityAckPacket or CompactAckPacket at `offset`; returns ENTITY_ACK_BYTES. Throws EncodeError on bad input. */
export function encodeEntityAck(packet: EntityAckPacket | CompactAckPacket, out: Uint8Array, offset = 0): number {
  checkU64("auth_token", packet.authToken);
  checkU32("tick", packet.tick);
  checkRoom(out, offset, ENTITY_ACK_BYTES);
  encodeHeader(packet.type === "compact_ack" ? PACKET_COMPACT_ACK : PACKET_ENTITY_ACK, packet.clientType, out, offset);
  writeU64(out, offset + TOKEN_AT, packet.authToken);
  writeU32(out, offset + TICK_AT, packet.tick);
  return ENTITY_ACK_BYTES;
}

/** Decodes the body of a datagram whose header checkHeader accepted with type 24 or 26. */
export function decodeEntityAckBody(bytes: Uint8Array): DecodeResult<EntityAckPacket | CompactAckPacket> {
  const name = readPacketType(bytes) === PACKET_COMPACT_ACK ? "CompactAckPacket" : "EntityAckPacket";
  if (bytes.length < ENTITY_ACK_BYTES) {
    return failure("truncated", bytes.length, `${name} needs ${ENTITY_ACK_BYTES} bytes`);
  }
  if (bytes.length > ENTITY_ACK_BYTES) {
    return failure("trailing_bytes", ENTITY_ACK_BYTES, `${name} is ${ENTITY_ACK_BYTES} bytes`);
  }
  return {
    ok: true,
    packet: {
      type: readPacketType(bytes) === PACKET_COMPACT_ACK ? "compact_ack" : "entity_ack",
      clientType: readClientType(bytes),
      authToken: readU64(bytes, TOKEN_AT),
      tick: readU32(bytes, TICK_AT),
    },
  };
}

/**
 * Whether `bytes` is an EntityAckPacket or CompactAckPacket decodePacket would
 * accept (every 18-byte body is valid): the server's fast path.
 */
export function isValidEntityAck(bytes: Uint8Array): boolean {
  return (
    bytes.length === ENTITY_ACK_BYTES && (hasHeader(bytes, PACKET_ENTITY_ACK) || hasHeader(bytes, PACKET_COMPACT_ACK))
  );
}

/** Whether an acknowledgement `isValidEntityAck` accepted is a CompactAck (asks for compact deltas). */
export function isCompactAck(bytes: Uint8Array): boolean {
  return readPacketType(bytes) === PACKET_COMPACT_ACK;
}

/** The low and high 32-bit words of an acknowledgement's token, and its tick, read without a bigint. */
export function entityAckTokenLow(bytes: Uint8Array): number {
  return readU32(bytes, TOKEN_AT) | 0;
}
export function entityAckTokenHigh(bytes: Uint8Array): number {
  return readU32(bytes, TOKEN_AT + 4) | 0;
}
export function entityAckTick(bytes: Uint8Array): number {
  return readU32(bytes, TICK_AT);
}
