// ChatPostPacket (type 8, 20 … 219 bytes, client → server): one chat line the
// player typed, numbered per session so the server can acknowledge it and
// drop retransmitted copies (docs/protocol.md § Chat).
import { readU32, readU64, writeU32, writeU64 } from "./bytes.js";
import { type DecodeResult, EncodeError, checkRoom, checkU32, checkU64, failure } from "./errors.js";
import { HEADER_BYTES, PACKET_CHAT_POST, encodeHeader, readClientType } from "./header.js";
import { count, int, layout, token, variable } from "./layout.js";
import { type TextRule, checkText, readUtf8, textProblem, writeUtf8 } from "./text.js";

/** Header, auth_token, seq, text_len: where the text starts. */
export const CHAT_POST_HEADER_BYTES = 19;
/** docs/protocol.md § ChatPostPacket. */
export const CHAT_POST_LAYOUT = layout("chat_post", HEADER_BYTES, CHAT_POST_HEADER_BYTES, [
  token("auth_token"),
  int("seq", "u32", "seq"),
  count("text_len", 1, "text"),
  variable("text", "text", "text"),
]);
const TOKEN_AT = CHAT_POST_LAYOUT.offset.auth_token;
const SEQ_AT = CHAT_POST_LAYOUT.offset.seq;
const TEXT_LEN_AT = CHAT_POST_LAYOUT.offset.text_len;
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
  writeU64(out, offset + TOKEN_AT, packet.authToken);
  writeU32(out, offset + SEQ_AT, packet.seq);
  out[offset + TEXT_LEN_AT] = textBytes;
  writeUtf8(packet.text, out, offset + CHAT_POST_HEADER_BYTES);
  return size;
}

/** Decodes the body of a datagram whose header checkHeader accepted with type 8. */
export function decodeChatPostBody(bytes: Uint8Array): DecodeResult<ChatPostPacket> {
  if (bytes.length < CHAT_POST_HEADER_BYTES) {
    return failure("truncated", bytes.length, `ChatPostPacket needs at least ${CHAT_POST_HEADER_BYTES} bytes`);
  }
  const seq = readU32(bytes, SEQ_AT);
  if (seq === 0) return failure("bad_sequence", SEQ_AT, "seq 0 is not a message number");
  const textBytes = bytes[TEXT_LEN_AT];
  if (textBytes === 0) return failure("bad_text", TEXT_LEN_AT, "chat text must not be empty");
  if (textBytes > CHAT_TEXT_MAX_BYTES) {
    return failure("text_too_long", TEXT_LEN_AT, `text_len ${textBytes} exceeds ${CHAT_TEXT_MAX_BYTES}`);
  }
  const end = CHAT_POST_HEADER_BYTES + textBytes;
  if (end > bytes.length) {
    return failure("length_overrun", TEXT_LEN_AT, `text_len ${textBytes} runs past the datagram`);
  }
  if (end < bytes.length) return failure("trailing_bytes", end, `${bytes.length - end} bytes after the text`);
  const problem = textProblem(bytes, CHAT_POST_HEADER_BYTES, end, false);
  if (problem !== null) return failure("bad_text", CHAT_POST_HEADER_BYTES, problem);
  return {
    ok: true,
    packet: {
      type: "chat_post",
      clientType: readClientType(bytes),
      authToken: readU64(bytes, TOKEN_AT),
      seq,
      text: readUtf8(bytes, CHAT_POST_HEADER_BYTES, end),
    },
  };
}
