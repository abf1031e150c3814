// LeavePacket (type 28, 14 bytes, client → server, P-26): "this session is
// over." A UDP link has no close, so without it a client that quits stays in the
// world — visible to everyone, holding its account — until the 10 s timeout; a
// WebSocket or WebRTC close already ends its session at once (linkClosed). Only
// the session's own link may say it, like every packet but an Action
// (docs/protocol.md § 12.3).
import { readU64, writeU64 } from "./bytes.js";
import { type DecodeResult, checkRoom, checkU64, failure } from "./errors.js";
import { HEADER_BYTES, PACKET_LEAVE, encodeHeader, readClientType } from "./header.js";
import { layout, token } from "./layout.js";

export const LEAVE_BYTES = 14;
/** docs/protocol.md § LeavePacket. */
export const LEAVE_LAYOUT = layout("leave", HEADER_BYTES, LEAVE_BYTES, [token("auth_token")]);
const TOKEN_AT = LEAVE_LAYOUT.offset.auth_token;

export interface LeavePacket {
  type: "leave";
  clientType: number;
  authToken: bigint;
}

/** Writes a LeavePacket at `offset`; returns LEAVE_BYTES. Throws EncodeError on bad input. */
export function encodeLeave(packet: LeavePacket, out: Uint8Array, offset = 0): number {
  checkU64("auth_token", packet.authToken);
  checkRoom(out, offset, LEAVE_BYTES);
  encodeHeader(PACKET_LEAVE, packet.clientType, out, offset);
  writeU64(out, offset + TOKEN_AT, packet.authToken);
  return LEAVE_BYTES;
}

/** Decodes the body of a datagram whose header checkHeader accepted with type 28. */
export function decodeLeaveBody(bytes: Uint8Array): DecodeResult<LeavePacket> {
  if (bytes.length < LEAVE_BYTES) return failure("truncated", bytes.length, `LeavePacket needs ${LEAVE_BYTES} bytes`);
  if (bytes.length > LEAVE_BYTES) {
    return failure("trailing_bytes", LEAVE_BYTES, `LeavePacket is ${LEAVE_BYTES} bytes`);
  }
  return {
    ok: true,
    packet: { type: "leave", clientType: readClientType(bytes), authToken: readU64(bytes, TOKEN_AT) },
  };
}
