// ChatPostAckPacket (type 9, 11 bytes, server → client): acknowledges every
// chat line of the session up to `seq` and says what became of line `seq`
// (docs/protocol.md § Chat).
import { readU32, writeU32 } from "./bytes.js";
import { type DecodeResult, EncodeError, checkRoom, checkU32, failure, isIntegerIn } from "./errors.js";
import { HEADER_BYTES, PACKET_CHAT_POST_ACK, encodeHeader, readClientType } from "./header.js";
import { enumField, int, layout } from "./layout.js";

export const CHAT_POST_ACK_BYTES = 11;

/** The line was posted to the chat. */
export const CHAT_STATUS_POSTED = 0;
/** The line was refused: the session sent too many lines too fast. */
export const CHAT_STATUS_RATE_LIMITED = 1;
/** The line was refused by server policy (blank after trimming, muted, …). */
export const CHAT_STATUS_REFUSED = 2;
export const CHAT_STATUS_NAMES = ["posted", "rate_limited", "refused"] as const;

/** docs/protocol.md § ChatPostAckPacket. */
export const CHAT_POST_ACK_LAYOUT = layout("chat_post_ack", HEADER_BYTES, CHAT_POST_ACK_BYTES, [
  int("seq", "u32", "seq"),
  enumField("status", 1, "status", CHAT_STATUS_NAMES),
]);
const SEQ_AT = CHAT_POST_ACK_LAYOUT.offset.seq;
const STATUS_AT = CHAT_POST_ACK_LAYOUT.offset.status;

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
  writeU32(out, offset + SEQ_AT, packet.seq);
  out[offset + STATUS_AT] = packet.status;
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
  const seq = readU32(bytes, SEQ_AT);
  if (seq === 0) return failure("bad_sequence", SEQ_AT, "seq 0 acknowledges nothing");
  const status = bytes[STATUS_AT];
  if (status >= CHAT_STATUS_NAMES.length) {
    return failure("bad_status", STATUS_AT, `chat status ${status} is not defined`);
  }
  return { ok: true, packet: { type: "chat_post_ack", clientType: readClientType(bytes), seq, status } };
}
