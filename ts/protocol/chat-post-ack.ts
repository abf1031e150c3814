// ChatPostAckPacket (type 9, 11 bytes, server → client): acknowledges every
// chat line of the session up to `seq` and says what became of line `seq`
// (docs/protocol.md § Chat).
import { readU16, readU32, writeU32 } from "./bytes.js";
import { type DecodeResult, EncodeError, checkRoom, checkU32, failure, isIntegerIn } from "./errors.js";
import { PACKET_CHAT_POST_ACK, encodeHeader } from "./header.js";

export const CHAT_POST_ACK_BYTES = 11;

/** The line was posted to the chat. */
export const CHAT_STATUS_POSTED = 0;
/** The line was refused: the session sent too many lines too fast. */
export const CHAT_STATUS_RATE_LIMITED = 1;
/** The line was refused by server policy (blank after trimming, muted, …). */
export const CHAT_STATUS_REFUSED = 2;
export const CHAT_STATUS_NAMES = ["posted", "rate_limited", "refused"] as const;

export interface ChatPostAckPacket {
  type: "chat_post_ack";
  clientType: number;
  /** Highest message number the server has handled; every lower one is handled too. */
  seq: number;
  /** CHAT_STATUS_* of message `seq`. */
  status: number;
}

/** Writes a ChatPostAckPacket at `offset`; returns CHAT_POST_ACK_BYTES. Throws EncodeError on bad input. */
export function encodeChatPostAck(packet: ChatPostAckPacket, out: Uint8Array, offset = 0): number {
  checkU32("seq", packet.seq);
  if (packet.seq === 0) throw new EncodeError("out_of_range", "seq must be at least 1");
  if (!isIntegerIn(packet.status, 0, CHAT_STATUS_NAMES.length - 1)) {
    throw new EncodeError("out_of_range", `status must be 0..${CHAT_STATUS_NAMES.length - 1}, got ${packet.status}`);
  }
  checkRoom(out, offset, CHAT_POST_ACK_BYTES);
  encodeHeader(PACKET_CHAT_POST_ACK, packet.clientType, out, offset);
  writeU32(out, offset + 6, packet.seq);
  out[offset + 10] = packet.status;
  return CHAT_POST_ACK_BYTES;
}

/** Decodes the body of a datagram whose header checkHeader accepted with type 9. */
export function decodeChatPostAckBody(bytes: Uint8Array): DecodeResult<ChatPostAckPacket> {
  if (bytes.length < CHAT_POST_ACK_BYTES) {
    return failure("truncated", bytes.length, `ChatPostAckPacket needs ${CHAT_POST_ACK_BYTES} bytes`);
  }
  if (bytes.length > CHAT_POST_ACK_BYTES) {
    return failure("trailing_bytes", CHAT_POST_ACK_BYTES, `ChatPostAckPacket is ${CHAT_POST_ACK_BYTES} bytes`);
  }
  const seq = readU32(bytes, 6);
  if (seq === 0) return failure("bad_sequence", 6, "seq 0 acknowledges nothing");
  const status = bytes[10];
  if (status >= CHAT_STATUS_NAMES.length) return failure("bad_status", 10, `chat status ${status} is not defined`);
  return { ok: true, packet: { type: "chat_post_ack", clientType: readU16(bytes, 4), seq, status } };
}
