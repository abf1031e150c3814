// EntityAckPacket (type 24, 18 bytes, client → server, P-21): "I hold the
// entity list of tick `tick`, verified by its checksum; send me deltas
// against it." The first one a session sends turns entity deltas on for it
// (StateDeltaPacket, state-delta.ts); `tick` 0 names the empty list. A
// client that never sends one gets exactly the seed's packets
// (docs/protocol.md § 8.4).
import { readU32, readU64, writeU32, writeU64 } from "./bytes.js";
import { type DecodeResult, checkRoom, checkU32, checkU64, failure } from "./errors.js";
import { HEADER_BYTES, PACKET_ENTITY_ACK, encodeHeader, hasHeader, readClientType } from "./header.js";
import { int, layout, token } from "./layout.js";

export const ENTITY_ACK_BYTES = 18;
/** docs/protocol.md § EntityAckPacket. */
export const ENTITY_ACK_LAYOUT = layout("entity_ack", HEADER_BYTES, ENTITY_ACK_BYTES, [
  token("auth_token"),
  int("tick", "u32", "tick"),
]);
const TOKEN_AT = ENTITY_ACK_LAYOUT.offset.auth_token;
const TICK_AT = ENTITY_ACK_LAYOUT.offset.tick;

export interface EntityAckPacket {
  type: "entity_ack";
  clientType: number;
  authToken: bigint;
  /** The newest tick whose full entity list the client holds (0: none, the empty list). */
  tick: number;
}

/** Writes an EntityAckPacket at `offset`; returns ENTITY_ACK_BYTES. Throws EncodeError on bad input. */
export function encodeEntityAck(packet: EntityAckPacket, out: Uint8Array, offset = 0): number {
  checkU64("auth_token", packet.authToken);
  checkU32("tick", packet.tick);
  checkRoom(out, offset, ENTITY_ACK_BYTES);
  encodeHeader(PACKET_ENTITY_ACK, packet.clientType, out, offset);
  writeU64(out, offset + TOKEN_AT, packet.authToken);
  writeU32(out, offset + TICK_AT, packet.tick);
  return ENTITY_ACK_BYTES;
}

/** Decodes the body of a datagram whose header checkHeader accepted with type 24. */
export function decodeEntityAckBody(bytes: Uint8Array): DecodeResult<EntityAckPacket> {
  if (bytes.length < ENTITY_ACK_BYTES) {
    return failure("truncated", bytes.length, `EntityAckPacket needs ${ENTITY_ACK_BYTES} bytes`);
  }
  if (bytes.length > ENTITY_ACK_BYTES) {
    return failure("trailing_bytes", ENTITY_ACK_BYTES, `EntityAckPacket is ${ENTITY_ACK_BYTES} bytes`);
  }
  return {
    ok: true,
    packet: {
      type: "entity_ack",
      clientType: readClientType(bytes),
      authToken: readU64(bytes, TOKEN_AT),
      tick: readU32(bytes, TICK_AT),
    },
  };
}

/** Whether `bytes` is an EntityAckPacket decodePacket would accept (every 18-byte body is valid): the server's fast path. */
export function isValidEntityAck(bytes: Uint8Array): boolean {
  return bytes.length === ENTITY_ACK_BYTES && hasHeader(bytes, PACKET_ENTITY_ACK);
}

/** The low and high 32-bit words of an EntityAckPacket's token, and its tick, read without a bigint. */
export function entityAckTokenLow(bytes: Uint8Array): number {
  return readU32(bytes, TOKEN_AT) | 0;
}
export function entityAckTokenHigh(bytes: Uint8Array): number {
  return readU32(bytes, TOKEN_AT + 4) | 0;
}
export function entityAckTick(bytes: Uint8Array): number {
  return readU32(bytes, TICK_AT);
}
