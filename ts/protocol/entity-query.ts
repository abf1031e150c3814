// EntityQueryPacket (type 4, 18 bytes, client → server): asks for the full
// metadata of one entity (docs/protocol.md § EntityQueryPacket).
import { readU32, readU64, writeU32, writeU64 } from "./bytes.js";
import { type DecodeResult, checkRoom, checkU32, checkU64, failure } from "./errors.js";
import { HEADER_BYTES, PACKET_ENTITY_QUERY, encodeHeader, readClientType } from "./header.js";
import { int, layout, token } from "./layout.js";

export const ENTITY_QUERY_BYTES = 18;
/** docs/protocol.md § EntityQueryPacket. */
export const ENTITY_QUERY_LAYOUT = layout("entity_query", HEADER_BYTES, ENTITY_QUERY_BYTES, [
  token("auth_token"),
  int("entity_id", "u32", "entityId"),
]);
const TOKEN_AT = ENTITY_QUERY_LAYOUT.offset.auth_token;
const ENTITY_ID_AT = ENTITY_QUERY_LAYOUT.offset.entity_id;

export interface EntityQueryPacket {
  type: "entity_query";
  clientType: number;
  authToken: bigint;
  entityId: number;
}

/** Writes an EntityQueryPacket at `offset`; returns ENTITY_QUERY_BYTES. Throws EncodeError on bad input. */
export function encodeEntityQuery(packet: EntityQueryPacket, out: Uint8Array, offset = 0): number {
  checkU64("auth_token", packet.authToken);
  checkU32("entity_id", packet.entityId);
  checkRoom(out, offset, ENTITY_QUERY_BYTES);
  encodeHeader(PACKET_ENTITY_QUERY, packet.clientType, out, offset);
  writeU64(out, offset + TOKEN_AT, packet.authToken);
  writeU32(out, offset + ENTITY_ID_AT, packet.entityId);
  return ENTITY_QUERY_BYTES;
}

/** Decodes the body of a datagram whose header checkHeader accepted with type 4. */
export function decodeEntityQueryBody(bytes: Uint8Array): DecodeResult<EntityQueryPacket> {
  if (bytes.length < ENTITY_QUERY_BYTES) {
    return failure("truncated", bytes.length, `EntityQueryPacket needs ${ENTITY_QUERY_BYTES} bytes`);
  }
  if (bytes.length > ENTITY_QUERY_BYTES) {
    return failure("trailing_bytes", ENTITY_QUERY_BYTES, `EntityQueryPacket is ${ENTITY_QUERY_BYTES} bytes`);
  }
  return {
    ok: true,
    packet: {
      type: "entity_query",
      clientType: readClientType(bytes),
      authToken: readU64(bytes, TOKEN_AT),
      entityId: readU32(bytes, ENTITY_ID_AT),
    },
  };
}
