// One entry point per direction over all packet types: decodePacket checks
// the header and dispatches on packet_type; encodePacket dispatches on `type`.
import { type ActionPacket, decodeActionBody, encodeAction } from "./action.js";
import { type ChunkPacket, type ChunkView, chunkViewToPacket, decodeChunkBody, encodeChunk } from "./chunk.js";
import {
  type EntityDetailPacket,
  type EntityDetailView,
  decodeEntityDetailBody,
  encodeEntityDetail,
  entityDetailViewToPacket,
} from "./entity-detail.js";
import { type EntityQueryPacket, decodeEntityQueryBody, encodeEntityQuery } from "./entity-query.js";
import { type EntityPacket, type EntityView, decodeEntityBody, encodeEntity, entityViewToPacket } from "./entity.js";
import { type DecodeResult, EncodeError } from "./errors.js";
import {
  MAX_DATAGRAM_BYTES,
  PACKET_ACTION,
  PACKET_CHUNK,
  PACKET_ENTITY,
  PACKET_ENTITY_DETAIL,
  PACKET_ENTITY_QUERY,
  PACKET_STATE,
  checkHeader,
} from "./header.js";
import { type PingPacket, decodePingBody, encodePing } from "./ping.js";
import { type StatePacket, decodeStateBody, encodeState } from "./state.js";

/** Plain packets: what encodePacket takes and decodePacketPlain returns. */
export type Packet =
  StatePacket | ActionPacket | ChunkPacket | EntityPacket | EntityQueryPacket | EntityDetailPacket | PingPacket;

/** Decoded packets; chunk, entity and entity_detail hold views into the datagram. */
export type PacketView =
  StatePacket | ActionPacket | ChunkView | EntityView | EntityQueryPacket | EntityDetailView | PingPacket;

/**
 * Decodes one datagram. Never throws and never reads outside `bytes` (which
 * may be a subarray of a larger buffer). Views in the result alias `bytes`:
 * copy what you keep before the buffer is reused.
 */
export function decodePacket(bytes: Uint8Array): DecodeResult<PacketView> {
  const error = checkHeader(bytes);
  if (error !== null) return { ok: false, error };
  switch (bytes[3]) {
    case PACKET_STATE:
      return decodeStateBody(bytes);
    case PACKET_ACTION:
      return decodeActionBody(bytes);
    case PACKET_CHUNK:
      return decodeChunkBody(bytes);
    case PACKET_ENTITY:
      return decodeEntityBody(bytes);
    case PACKET_ENTITY_QUERY:
      return decodeEntityQueryBody(bytes);
    case PACKET_ENTITY_DETAIL:
      return decodeEntityDetailBody(bytes);
    default: // checkHeader admitted only 6 and 7 beyond this point
      return decodePingBody(bytes);
  }
}

/** Plain copy of a decoded packet, independent of the datagram's buffer. */
export function viewToPacket(view: PacketView): Packet {
  switch (view.type) {
    case "chunk":
      return chunkViewToPacket(view);
    case "entity":
      return entityViewToPacket(view);
    case "entity_detail":
      return entityDetailViewToPacket(view);
    default:
      return view;
  }
}

/** decodePacket followed by viewToPacket: for tools and tests. */
export function decodePacketPlain(bytes: Uint8Array): DecodeResult<Packet> {
  const result = decodePacket(bytes);
  return result.ok ? { ok: true, packet: viewToPacket(result.packet) } : result;
}

/** Writes any packet at `offset`; returns bytes written (never more than 1200). Throws EncodeError. */
export function encodePacket(packet: Packet, out: Uint8Array, offset = 0): number {
  switch (packet.type) {
    case "state":
      return encodeState(packet, out, offset);
    case "action":
      return encodeAction(packet, out, offset);
    case "chunk":
      return encodeChunk(packet, out, offset);
    case "entity":
      return encodeEntity(packet, out, offset);
    case "entity_query":
      return encodeEntityQuery(packet, out, offset);
    case "entity_detail":
      return encodeEntityDetail(packet, out, offset);
    case "ping":
    case "pong":
      return encodePing(packet, out, offset);
    default:
      throw new EncodeError("out_of_range", `unknown packet type ${String((packet as { type: unknown }).type)}`);
  }
}

/** encodePacket into a fresh array of exactly the packet's length. */
export function encodePacketToBytes(packet: Packet): Uint8Array {
  const buffer = new Uint8Array(MAX_DATAGRAM_BYTES);
  return buffer.slice(0, encodePacket(packet, buffer, 0));
}
