// PingPacket (type 6, client → server) and PongPacket (type 7, server →
// client), 14 bytes each: the server echoes the ping's timestamp_ms unchanged
// (docs/protocol.md § Ping / Pong).
import { readU64, writeU64 } from "./bytes.js";
import { type DecodeResult, checkRoom, checkU64, failure } from "./errors.js";
import {
  HEADER_BYTES,
  PACKET_PING,
  PACKET_PONG,
  encodeHeader,
  hasHeader,
  readClientType,
  readPacketType,
} from "./header.js";
import { layout, u64 } from "./layout.js";

export const PING_BYTES = 14;
/** docs/protocol.md § Ping / Pong: the same layout for both types. */
export const PING_LAYOUT = layout("ping", HEADER_BYTES, PING_BYTES, [u64("timestamp_ms", "timestampMs")]);
/** Offset of timestamp_ms, which a Pong echoes byte for byte. */
export const PING_TIMESTAMP_OFFSET = PING_LAYOUT.offset.timestamp_ms;

export interface PingPacket {
  type: "ping" | "pong";
  clientType: number;
  /** Echoed verbatim; the official client sends 0 and times the round trip locally. */
  timestampMs: bigint;
}

/** Writes a Ping or Pong at `offset`; returns PING_BYTES. Throws EncodeError on bad input. */
export function encodePing(packet: PingPacket, out: Uint8Array, offset = 0): number {
  checkU64("timestamp_ms", packet.timestampMs);
  checkRoom(out, offset, PING_BYTES);
  encodeHeader(packet.type === "pong" ? PACKET_PONG : PACKET_PING, packet.clientType, out, offset);
  writeU64(out, offset + PING_TIMESTAMP_OFFSET, packet.timestampMs);
  return PING_BYTES;
}

/** Decodes the body of a datagram whose header checkHeader accepted with type 6 or 7. */
export function decodePingBody(bytes: Uint8Array): DecodeResult<PingPacket> {
  const name = readPacketType(bytes) === PACKET_PONG ? "pong" : "ping";
  if (bytes.length < PING_BYTES) return failure("truncated", bytes.length, `${name} needs ${PING_BYTES} bytes`);
  if (bytes.length > PING_BYTES) return failure("trailing_bytes", PING_BYTES, `${name} is ${PING_BYTES} bytes`);
  return {
    ok: true,
    packet: { type: name, clientType: readClientType(bytes), timestampMs: readU64(bytes, PING_TIMESTAMP_OFFSET) },
  };
}

/** True when `bytes` is a well-formed PingPacket (not a Pong): the same verdict as decodePacket. */
export function isValidPing(bytes: Uint8Array): boolean {
  return bytes.length === PING_BYTES && hasHeader(bytes, PACKET_PING);
}
