// PingPacket (type 6, client → server) and PongPacket (type 7, server →
// client), 14 bytes each: the server echoes the ping's timestamp_ms unchanged
// (docs/protocol.md § Ping / Pong).
import { readU16, readU64, writeU64 } from "./bytes.js";
import { type DecodeResult, checkRoom, checkU64, failure } from "./errors.js";
import { PACKET_PING, PACKET_PONG, encodeHeader } from "./header.js";

export const PING_BYTES = 14;

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
  writeU64(out, offset + 6, packet.timestampMs);
  return PING_BYTES;
}

/** Decodes the body of a datagram whose header checkHeader accepted with type 6 or 7. */
export function decodePingBody(bytes: Uint8Array): DecodeResult<PingPacket> {
  const name = bytes[3] === PACKET_PONG ? "pong" : "ping";
  if (bytes.length < PING_BYTES) return failure("truncated", bytes.length, `${name} needs ${PING_BYTES} bytes`);
  if (bytes.length > PING_BYTES) return failure("trailing_bytes", PING_BYTES, `${name} is ${PING_BYTES} bytes`);
  return { ok: true, packet: { type: name, clientType: readU16(bytes, 4), timestampMs: readU64(bytes, 6) } };
}
