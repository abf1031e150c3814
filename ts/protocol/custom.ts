// Custom messages (docs/protocol.md § Custom messages): an opaque payload with
// a u16 subtype, so game code has a channel of its own without changes to this
// library. CustomToServer (type 17, 18 … 1200 bytes) carries the session
// token; CustomToClient (type 18, 10 … 1200 bytes) does not. Delivery is that
// of a datagram: game code that needs more adds it inside the payload.
import { readU16, readU64, writeU16, writeU64 } from "./bytes.js";
import { type DecodeResult, EncodeError, checkRoom, checkU16, checkU64, failure } from "./errors.js";
import {
  HEADER_BYTES,
  MAX_DATAGRAM_BYTES,
  PACKET_CUSTOM_TO_CLIENT,
  PACKET_CUSTOM_TO_SERVER,
  encodeHeader,
  readClientType,
} from "./header.js";
import { count, int, layout, token, variable } from "./layout.js";

/** Header, auth_token, subtype, payload_len. */
export const CUSTOM_TO_SERVER_HEADER_BYTES = 18;
/** Header, subtype, payload_len. */
export const CUSTOM_TO_CLIENT_HEADER_BYTES = 10;
/** docs/protocol.md § Custom messages. */
export const CUSTOM_TO_SERVER_LAYOUT = layout("custom_to_server", HEADER_BYTES, CUSTOM_TO_SERVER_HEADER_BYTES, [
  token("auth_token"),
  int("subtype", "u16", "subtype"),
  count("payload_len", 2, "payload"),
  variable("payload", "payload", "payload"),
]);
export const CUSTOM_TO_CLIENT_LAYOUT = layout("custom_to_client", HEADER_BYTES, CUSTOM_TO_CLIENT_HEADER_BYTES, [
  int("subtype", "u16", "subtype"),
  count("payload_len", 2, "payload"),
  variable("payload", "payload", "payload"),
]);
const TO_SERVER_TOKEN_AT = CUSTOM_TO_SERVER_LAYOUT.offset.auth_token;
const TO_SERVER_SUBTYPE_AT = CUSTOM_TO_SERVER_LAYOUT.offset.subtype;
const TO_SERVER_LENGTH_AT = CUSTOM_TO_SERVER_LAYOUT.offset.payload_len;
const TO_CLIENT_SUBTYPE_AT = CUSTOM_TO_CLIENT_LAYOUT.offset.subtype;
const TO_CLIENT_LENGTH_AT = CUSTOM_TO_CLIENT_LAYOUT.offset.payload_len;
/** payload_len is a u16 in both directions. */
const LENGTH_BYTES = CUSTOM_TO_SERVER_LAYOUT.size.payload_len;
export const CUSTOM_TO_SERVER_PAYLOAD_MAX_BYTES = MAX_DATAGRAM_BYTES - CUSTOM_TO_SERVER_HEADER_BYTES;
export const CUSTOM_TO_CLIENT_PAYLOAD_MAX_BYTES = MAX_DATAGRAM_BYTES - CUSTOM_TO_CLIENT_HEADER_BYTES;

export interface CustomToServerPacket {
  type: "custom_to_server";
  clientType: number;
  authToken: bigint;
  subtype: number;
  /** Decoded packets alias the datagram here: copy what you keep. */
  payload: Uint8Array;
}

export interface CustomToClientPacket {
  type: "custom_to_client";
  clientType: number;
  subtype: number;
  /** Decoded packets alias the datagram here: copy what you keep. */
  payload: Uint8Array;
}

function checkPayload(payload: Uint8Array, maxBytes: number): void {
  if (!(payload instanceof Uint8Array)) throw new EncodeError("out_of_range", "payload must be a Uint8Array");
  if (payload.length > maxBytes)
    throw new EncodeError("oversize", `payload of ${payload.length} bytes exceeds ${maxBytes}`);
}

/** Writes a CustomToServerPacket at `offset`; returns its length. Throws EncodeError on bad input. */
export function encodeCustomToServer(packet: CustomToServerPacket, out: Uint8Array, offset = 0): number {
  checkU64("auth_token", packet.authToken);
  checkU16("subtype", packet.subtype);
  checkPayload(packet.payload, CUSTOM_TO_SERVER_PAYLOAD_MAX_BYTES);
  const size = CUSTOM_TO_SERVER_HEADER_BYTES + packet.payload.length;
  checkRoom(out, offset, size);
  encodeHeader(PACKET_CUSTOM_TO_SERVER, packet.clientType, out, offset);
  writeU64(out, offset + TO_SERVER_TOKEN_AT, packet.authToken);
  writeU16(out, offset + TO_SERVER_SUBTYPE_AT, packet.subtype);
  writeU16(out, offset + TO_SERVER_LENGTH_AT, packet.payload.length);
  out.set(packet.payload, offset + CUSTOM_TO_SERVER_HEADER_BYTES);
  return size;
}

/** Writes a CustomToClientPacket at `offset`; returns its length. Throws EncodeError on bad input. */
export function encodeCustomToClient(packet: CustomToClientPacket, out: Uint8Array, offset = 0): number {
  checkU16("subtype", packet.subtype);
  checkPayload(packet.payload, CUSTOM_TO_CLIENT_PAYLOAD_MAX_BYTES);
  const size = CUSTOM_TO_CLIENT_HEADER_BYTES + packet.payload.length;
  checkRoom(out, offset, size);
  encodeHeader(PACKET_CUSTOM_TO_CLIENT, packet.clientType, out, offset);
  writeU16(out, offset + TO_CLIENT_SUBTYPE_AT, packet.subtype);
  writeU16(out, offset + TO_CLIENT_LENGTH_AT, packet.payload.length);
  out.set(packet.payload, offset + CUSTOM_TO_CLIENT_HEADER_BYTES);
  return size;
}

/** The payload range after a payload_len at `lengthAt`, or the failure. */
function payloadEnd(bytes: Uint8Array, lengthAt: number): DecodeResult<number> {
  const length = readU16(bytes, lengthAt);
  const end = lengthAt + LENGTH_BYTES + length;
  if (end > bytes.length) return failure("length_overrun", lengthAt, `payload_len ${length} runs past the datagram`);
  if (end < bytes.length) return failure("trailing_bytes", end, `${bytes.length - end} bytes after the payload`);
  return { ok: true, packet: end };
}

/** Decodes the body of a datagram whose header checkHeader accepted with type 17. */
export function decodeCustomToServerBody(bytes: Uint8Array): DecodeResult<CustomToServerPacket> {
  if (bytes.length < CUSTOM_TO_SERVER_HEADER_BYTES) {
    return failure(
      "truncated",
      bytes.length,
      `CustomToServerPacket needs at least ${CUSTOM_TO_SERVER_HEADER_BYTES} bytes`,
    );
  }
  const end = payloadEnd(bytes, TO_SERVER_LENGTH_AT);
  if (!end.ok) return end;
  return {
    ok: true,
    packet: {
      type: "custom_to_server",
      clientType: readClientType(bytes),
      authToken: readU64(bytes, TO_SERVER_TOKEN_AT),
      subtype: readU16(bytes, TO_SERVER_SUBTYPE_AT),
      payload: bytes.subarray(CUSTOM_TO_SERVER_HEADER_BYTES, end.packet),
    },
  };
}

/** Decodes the body of a datagram whose header checkHeader accepted with type 18. */
export function decodeCustomToClientBody(bytes: Uint8Array): DecodeResult<CustomToClientPacket> {
  if (bytes.length < CUSTOM_TO_CLIENT_HEADER_BYTES) {
    return failure(
      "truncated",
      bytes.length,
      `CustomToClientPacket needs at least ${CUSTOM_TO_CLIENT_HEADER_BYTES} bytes`,
    );
  }
  const end = payloadEnd(bytes, TO_CLIENT_LENGTH_AT);
  if (!end.ok) return end;
  return {
    ok: true,
    packet: {
      type: "custom_to_client",
      clientType: readClientType(bytes),
      subtype: readU16(bytes, TO_CLIENT_SUBTYPE_AT),
      payload: bytes.subarray(CUSTOM_TO_CLIENT_HEADER_BYTES, end.packet),
    },
  };
}
