// PingPacket (type 6, client → server) and PongPacket (type 7, server →
// client), 14 bytes each: the server echoes the ping's timestamp_ms unchanged
// (docs/protocol.md § Ping / Pong). A 22-byte Pong is a challenge: it carries
// the return-routability cookie an unproven address must echo (§ 12.1). A 22-byte
// Ping is a report: how many pings its client has sent and pongs it has received,
// from which the server sees the loss on its way down (§ 12.4).
import { readU32, readU64, writeU32, writeU64 } from "./bytes.js";
import { type DecodeResult, EncodeError, checkRoom, checkU32, checkU64, failure } from "./errors.js";
import {
  HEADER_BYTES,
  PACKET_PING,
  PACKET_PONG,
  encodeHeader,
  hasHeader,
  readClientType,
  readPacketType,
} from "./header.js";
import { int, layout, u64 } from "./layout.js";

export const PING_BYTES = 14;
/** docs/protocol.md § Ping / Pong: the same layout for both types. */
export const PING_LAYOUT = layout("ping", HEADER_BYTES, PING_BYTES, [u64("timestamp_ms", "timestampMs")]);
/** Offset of timestamp_ms, which a Pong echoes byte for byte. */
export const PING_TIMESTAMP_OFFSET = PING_LAYOUT.offset.timestamp_ms;
/** A challenge Pong: the Pong, then the cookie (docs/protocol.md § 12.1). */
export const CHALLENGE_BYTES = 22;
export const CHALLENGE_LAYOUT = layout("challenge", PING_BYTES, CHALLENGE_BYTES, [u64("challenge", "challenge")]);
const CHALLENGE_AT = CHALLENGE_LAYOUT.offset.challenge;
/** A reporting Ping: the Ping, then its client's counts of pings sent (this one too) and pongs received (§ 12.4). */
export const PING_REPORT_BYTES = 22;
export const PING_REPORT_LAYOUT = layout("ping_report", PING_BYTES, PING_REPORT_BYTES, [
  int("pings_sent", "u32", "pingsSent"),
  int("pongs_received", "u32", "pongsReceived"),
]);
const PINGS_SENT_AT = PING_REPORT_LAYOUT.offset.pings_sent;
const PONGS_RECEIVED_AT = PING_REPORT_LAYOUT.offset.pongs_received;

/** What a reporting Ping says (§ 12.4): counts since its client started, each wrapping at 2^32. */
export interface PingReport {
  pingsSent: number;
  pongsReceived: number;
}

export interface PingPacket {
  type: "ping" | "pong";
  clientType: number;
  /** Echoed verbatim; the official client sends 0 and times the round trip locally. */
  timestampMs: bigint;
  /** Pong only: the return-routability cookie (never 0n) that makes it a challenge (§ 12.1). */
  challenge?: bigint;
  /** Ping only: its client's counts, which make it a reporting Ping (§ 12.4). */
  pingsSent?: number;
  pongsReceived?: number;
}

/** Writes a Ping or Pong (or challenge) at `offset`; returns its length. Throws EncodeError on bad input. */
export function encodePing(packet: PingPacket, out: Uint8Array, offset = 0): number {
  checkU64("timestamp_ms", packet.timestampMs);
  const challenge = packet.challenge;
  if (challenge !== undefined) {
    if (packet.type !== "pong") throw new EncodeError("out_of_range", "only a Pong carries a challenge");
    checkU64("challenge", challenge);
    if (challenge === 0n) throw new EncodeError("out_of_range", "challenge must not be 0");
  }
  const reports = packet.pingsSent !== undefined || packet.pongsReceived !== undefined;
  if (reports) {
    if (packet.type !== "ping") throw new EncodeError("out_of_range", "only a Ping carries a report");
    checkU32("pings_sent", packet.pingsSent ?? Number.NaN);
    checkU32("pongs_received", packet.pongsReceived ?? Number.NaN);
  }
  const size = challenge !== undefined ? CHALLENGE_BYTES : reports ? PING_REPORT_BYTES : PING_BYTES;
  checkRoom(out, offset, size);
  encodeHeader(packet.type === "pong" ? PACKET_PONG : PACKET_PING, packet.clientType, out, offset);
  writeU64(out, offset + PING_TIMESTAMP_OFFSET, packet.timestampMs);
  if (challenge !== undefined) writeU64(out, offset + CHALLENGE_AT, challenge);
  if (reports) {
    writeU32(out, offset + PINGS_SENT_AT, packet.pingsSent!);
    writeU32(out, offset + PONGS_RECEIVED_AT, packet.pongsReceived!);
  }
  return size;
}

/** Writes a challenge Pong (timestamp 0, cookie as two u32 words, not both 0) at `at`; returns CHALLENGE_BYTES. */
export function writeChallenge(out: Uint8Array, at: number, cookieLow: number, cookieHigh: number): number {
  encodeHeader(PACKET_PONG, 0, out, at);
  writeU64(out, at + PING_TIMESTAMP_OFFSET, 0n);
  writeU32(out, at + CHALLENGE_AT, cookieLow >>> 0);
  writeU32(out, at + CHALLENGE_AT + 4, cookieHigh >>> 0);
  return CHALLENGE_BYTES;
}

/** Decodes the body of a datagram whose header checkHeader accepted with type 6 or 7. */
export function decodePingBody(bytes: Uint8Array): DecodeResult<PingPacket> {
  const name = readPacketType(bytes) === PACKET_PONG ? "pong" : "ping";
  if (bytes.length < PING_BYTES) return failure("truncated", bytes.length, `${name} needs ${PING_BYTES} bytes`);
  const isChallenge = name === "pong" && bytes.length === CHALLENGE_BYTES;
  const isReport = name === "ping" && bytes.length === PING_REPORT_BYTES;
  if (bytes.length > PING_BYTES && !isChallenge && !isReport) {
    const sizes =
      name === "pong"
        ? `${PING_BYTES} bytes, or ${CHALLENGE_BYTES} as a challenge`
        : `${PING_BYTES} bytes, or ${PING_REPORT_BYTES} as a report`;
    return failure("trailing_bytes", PING_BYTES, `${name} is ${sizes}`);
  }
  const packet: PingPacket = {
    type: name,
    clientType: readClientType(bytes),
    timestampMs: readU64(bytes, PING_TIMESTAMP_OFFSET),
  };
  if (isChallenge) {
    const challenge = readU64(bytes, CHALLENGE_AT);
    if (challenge === 0n) return failure("bad_challenge", CHALLENGE_AT, "a challenge cookie is never 0");
    packet.challenge = challenge;
  }
  if (isReport) {
    packet.pingsSent = readU32(bytes, PINGS_SENT_AT);
    packet.pongsReceived = readU32(bytes, PONGS_RECEIVED_AT);
  }
  return { ok: true, packet };
}

/** The counts of a reporting Ping that isValidPing accepted, or null for a plain one (§ 12.4). */
export function pingReportOf(bytes: Uint8Array): PingReport | null {
  if (bytes.length !== PING_REPORT_BYTES) return null;
  return { pingsSent: readU32(bytes, PINGS_SENT_AT), pongsReceived: readU32(bytes, PONGS_RECEIVED_AT) };
}

/** True when `bytes` is a well-formed PingPacket (not a Pong), plain or reporting: the same verdict as decodePacket. */
export function isValidPing(bytes: Uint8Array): boolean {
  return (bytes.length === PING_BYTES || bytes.length === PING_REPORT_BYTES) && hasHeader(bytes, PACKET_PING);
}
