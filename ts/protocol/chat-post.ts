// ChatPostPacket (type 8, 20 … 219 bytes, client → server): one chat line the
// player typed, numbered per session so the server can acknowledge it and
// drop retransmitted copies (docs/protocol.md § Chat).
import { readU16, readU32, readU64, writeU32, writeU64 } from "./bytes.js";
import { type DecodeResult, EncodeError, checkRoom, checkU32, checkU64, failure } from "./errors.js";
import { PACKET_CHAT_POST, encodeHeader } from "./header.js";
import { type TextRule, checkText, readUtf8, textProblem, writeUtf8 } from "./text.js";

/** Header, auth_token, seq, text_len: where the text starts. */
export const CHAT_POST_HEADER_BYTES = 19;
/** Longest chat line in bytes of UTF-8, both directions. */
export const CHAT_TEXT_MAX_BYTES = 200;
/** Chat text: 1 … 200 bytes of clean UTF-8 on one line. */
export const CHAT_TEXT_RULE: TextRule = { minBytes: 1, maxBytes: CHAT_TEXT_MAX_BYTES, allowNewline: false };

export interface ChatPostPacket {
  type: "chat_post";
  clientType: number;
  authToken: bigint;
  /** The client's message number in this session: 1, 2, 3, … */
  seq: number;
  text: string;
}

/** Writes a ChatPostPacket at `offset`; returns its length. Throws EncodeError on bad input. */
export function encodeChatPost(packet: ChatPostPacket, out: Uint8Array, offset = 0): number {
  checkU64("auth_token", packet.authToken);
  checkU32("seq", packet.seq);
  if (packet.seq === 0) throw new EncodeError("out_of_range", "seq must be at least 1");
  const textBytes = checkText("text", packet.text, CHAT_TEXT_RULE);
  const size = CHAT_POST_HEADER_BYTES + textBytes;
  checkRoom(out, offset, size);
  encodeHeader(PACKET_CHAT_POST, packet.clientType, out, offset);
  writeU64(out, offset + 6, packet.authToken);
  writeU32(out, offset + 14, packet.seq);
  out[offset + 18] = textBytes;
  writeUtf8(packet.text, out, offset + CHAT_POST_HEADER_BYTES);
  return size;
}

/** Decodes the body of a datagram whose header checkHeader accepted with type 8. */
export function decodeChatPostBody(bytes: Uint8Array): DecodeResult<ChatPostPacket> {
  if (bytes.length < CHAT_POST_HEADER_BYTES) {
    return failure("truncated", bytes.length, `ChatPostPacket needs at least ${CHAT_POST_HEADER_BYTES} bytes`);
  }
  const seq = readU32(bytes, 14);
  if (seq === 0) return failure("bad_sequence", 14, "seq 0 is not a message number");
  const textBytes = bytes[18];
  if (textBytes === 0) return failure("bad_text", 18, "chat text must not be empty");
  if (textBytes > CHAT_TEXT_MAX_BYTES) {
    return failure("text_too_long", 18, `text_len ${textBytes} exceeds ${CHAT_TEXT_MAX_BYTES}`);
  }
  const end = CHAT_POST_HEADER_BYTES + textBytes;
  if (end > bytes.length) return failure("length_overrun", 18, `text_len ${textBytes} runs past the datagram`);
  if (end < bytes.length) return failure("trailing_bytes", end, `${bytes.length - end} bytes after the text`);
  const problem = textProblem(bytes, CHAT_POST_HEADER_BYTES, end, false);
  if (problem !== null) return failure("bad_text", CHAT_POST_HEADER_BYTES, problem);
  return {
    ok: true,
    packet: {
      type: "chat_post",
      clientType: readU16(bytes, 4),
      authToken: readU64(bytes, 6),
      seq,
      text: readUtf8(bytes, CHAT_POST_HEADER_BYTES, end),
    },
  };
}
