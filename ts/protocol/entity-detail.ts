// EntityDetailPacket (type 5, at most 1200 bytes, server → client): the full
// TLV metadata of one entity, in reply to an EntityQueryPacket
// (docs/protocol.md § EntityDetailPacket).
import { readU16, readU32, writeU16, writeU32 } from "./bytes.js";
import { type DecodeResult, EncodeError, checkRoom, checkU32, failure } from "./errors.js";
import { HEADER_BYTES, MAX_DATAGRAM_BYTES, PACKET_ENTITY_DETAIL, encodeHeader, readClientType } from "./header.js";
import { count, int, layout, variable } from "./layout.js";
import { type Tlv, decodeTlvs, tlvsByteLength, validateTlvs, writeTlvs } from "./tlv.js";

/** Header, tick, entity_id, meta_len: where the metadata starts. */
export const ENTITY_DETAIL_HEADER_BYTES = 16;
/** docs/protocol.md § EntityDetailPacket. */
export const ENTITY_DETAIL_LAYOUT = layout("entity_detail", HEADER_BYTES, ENTITY_DETAIL_HEADER_BYTES, [
  int("tick", "u32", "tick"),
  int("entity_id", "u32", "entityId"),
  count("meta_len", 2, "meta"),
  variable("meta", "tlvs", "meta"),
]);
const TICK_AT = ENTITY_DETAIL_LAYOUT.offset.tick;
const ENTITY_ID_AT = ENTITY_DETAIL_LAYOUT.offset.entity_id;
const META_LEN_AT = ENTITY_DETAIL_LAYOUT.offset.meta_len;
/** 1200 − 16. */
export const ENTITY_DETAIL_META_MAX_BYTES = MAX_DATAGRAM_BYTES - ENTITY_DETAIL_HEADER_BYTES;

/** Plain form: what encoders take and decodePacketPlain returns. */
export interface EntityDetailPacket {
  type: "entity_detail";
  clientType: number;
  tick: number;
  entityId: number;
  meta: Tlv[];
}

/** Zero-copy form returned by decodePacket: meta is bytes[metaStart..metaEnd). */
export interface EntityDetailView {
  type: "entity_detail";
  clientType: number;
  tick: number;
  entityId: number;
  bytes: Uint8Array;
  metaStart: number;
  metaEnd: number;
}

/** Writes an EntityDetailPacket at `offset`; returns its length. Throws EncodeError on bad input. */
export function encodeEntityDetail(packet: EntityDetailPacket, out: Uint8Array, offset = 0): number {
  checkU32("tick", packet.tick);
  checkU32("entity_id", packet.entityId);
  const metaBytes = tlvsByteLength(packet.meta);
  if (metaBytes > ENTITY_DETAIL_META_MAX_BYTES) {
    throw new EncodeError("oversize", `${metaBytes} bytes of meta exceed ${ENTITY_DETAIL_META_MAX_BYTES}`);
  }
  const size = ENTITY_DETAIL_HEADER_BYTES + metaBytes;
  checkRoom(out, offset, size);
  encodeHeader(PACKET_ENTITY_DETAIL, packet.clientType, out, offset);
  writeU32(out, offset + TICK_AT, packet.tick);
  writeU32(out, offset + ENTITY_ID_AT, packet.entityId);
  writeU16(out, offset + META_LEN_AT, metaBytes);
  writeTlvs(packet.meta, out, offset + ENTITY_DETAIL_HEADER_BYTES);
  return size;
}

/** Decodes the body of a datagram whose header checkHeader accepted with type 5. */
export function decodeEntityDetailBody(bytes: Uint8Array): DecodeResult<EntityDetailView> {
  if (bytes.length < ENTITY_DETAIL_HEADER_BYTES) {
    return failure("truncated", bytes.length, `EntityDetailPacket needs at least ${ENTITY_DETAIL_HEADER_BYTES} bytes`);
  }
  const metaLength = readU16(bytes, META_LEN_AT);
  const metaEnd = ENTITY_DETAIL_HEADER_BYTES + metaLength;
  if (metaEnd > bytes.length) {
    return failure("length_overrun", META_LEN_AT, `meta_len ${metaLength} runs past the datagram`);
  }
  if (metaEnd < bytes.length) return failure("trailing_bytes", metaEnd, `${bytes.length - metaEnd} bytes after meta`);
  const error = validateTlvs(bytes, ENTITY_DETAIL_HEADER_BYTES, metaEnd);
  if (error !== null) return { ok: false, error };
  return {
    ok: true,
    packet: {
      type: "entity_detail",
      clientType: readClientType(bytes),
      tick: readU32(bytes, TICK_AT),
      entityId: readU32(bytes, ENTITY_ID_AT),
      bytes,
      metaStart: ENTITY_DETAIL_HEADER_BYTES,
      metaEnd,
    },
  };
}

/** Plain form of a decoded EntityDetailPacket (TLVs copied out). */
export function entityDetailViewToPacket(view: EntityDetailView): EntityDetailPacket {
  return {
    type: "entity_detail",
    clientType: view.clientType,
    tick: view.tick,
    entityId: view.entityId,
    meta: decodeTlvs(view.bytes, view.metaStart, view.metaEnd),
  };
}
