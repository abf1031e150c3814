// ChatPacket (type 10, 21 … 252 bytes, server → client): one chat message —
// a player's line or a system notice (speaker 0) — numbered per session so the
// client can acknowledge it, drop duplicates and keep the order
// (docs/protocol.md § Chat).
import { readU32, writeU32 } from "./bytes.js";
import { type DecodeResult, EncodeError, checkRoom, checkU32, failure } from "./errors.js";
import { HEADER_BYTES, PACKET_CHAT, encodeHeader, readClientType } from "./header.js";
import { CHAT_TEXT_MAX_BYTES, CHAT_TEXT_RULE } from "./chat-post.js";
import { count, int, layout, variable } from "./layout.js";
import { type TextRule, checkText, readUtf8, textProblem, writeUtf8 } from "./text.js";
import { NAME_MAX_BYTES } from "./tlv.js";

/** Header, seq, oldest_seq, speaker_entity_id, name_len: where the name starts. */
export const CHAT_HEADER_BYTES = 19;
/** docs/protocol.md § ChatPacket: the name, then text_len and the text. */
export const CHAT_LAYOUT = layout("chat", HEADER_BYTES, CHAT_HEADER_BYTES, [
  int("seq", "u32", "seq"),
  int("oldest_seq", "u32", "oldestSeq"),
  int("speaker_entity_id", "u32", "speakerEntityId"),
  count("name_len", 1, "speaker_name"),
  variable("speaker_name", "text", "speakerName"),
  count("text_len", 1, "text"),
  variable("text", "text", "text"),
]);
const SEQ_AT = CHAT_LAYOUT.offset.seq;
const OLDEST_SEQ_AT = CHAT_LAYOUT.offset.oldest_seq;
const SPEAKER_AT = CHAT_LAYOUT.offset.speaker_entity_id;
const NAME_LEN_AT = CHAT_LAYOUT.offset.name_len;
/** text_len follows the name, so it has no fixed offset. */
const TEXT_LEN_BYTES = CHAT_LAYOUT.size.text_len;
/** Speaker id of system messages (joins, leaves, server notices). */
export const CHAT_SPEAKER_SYSTEM = 0;
/**
 * The speaker name of the system's "X joined" / "X left" lines (speaker 0): clients file them as
 * presence, apart from the other system lines (docs/protocol.md § 14, issue 18).
 */
export const CHAT_SPEAKER_PRESENCE = "presence";
/** The speaker's display name: empty, or a name as the `name` TLV carries it. */
export const CHAT_NAME_RULE: TextRule = { minBytes: 0, maxBytes: NAME_MAX_BYTES, allowNewline: false };

export interface ChatPacket {
  type: "chat";
  clientType: number;
  /** This message's number in the session: 1, 2, 3, … */
  seq: number;
  /**
   * The oldest message the server still holds for this client (≤ seq). Messages
   * below it that the client has not received were dropped by the server (its
   * queue for this client overflowed) and will never arrive.
   */
  oldestSeq: number;
  /** Entity id of the speaker; 0 for system messages. */
  speakerEntityId: number;
  /** The speaker's name when the message was sent (may be empty). */
  speakerName: string;
  text: string;
}

/** Writes a ChatPacket at `offset`; returns its length. Throws EncodeError on bad input. */
export function encodeChat(packet: ChatPacket, out: Uint8Array, offset = 0): number {
  checkU32("seq", packet.seq);
  checkU32("oldest_seq", packet.oldestSeq);
  if (packet.oldestSeq === 0 || packet.oldestSeq > packet.seq) {
    throw new EncodeError("out_of_range", `need 1 <= oldest_seq <= seq, got ${packet.oldestSeq} and ${packet.seq}`);
  }
  checkU32("speaker_entity_id", packet.speakerEntityId);
  const nameBytes = checkText("speaker_name", packet.speakerName, CHAT_NAME_RULE);
  const textBytes = checkText("text", packet.text, CHAT_TEXT_RULE);
  const size = CHAT_HEADER_BYTES + nameBytes + TEXT_LEN_BYTES + textBytes;
  checkRoom(out, offset, size);
  encodeHeader(PACKET_CHAT, packet.clientType, out, offset);
  writeU32(out, offset + SEQ_AT, packet.seq);
  writeU32(out, offset + OLDEST_SEQ_AT, packet.oldestSeq);
  writeU32(out, offset + SPEAKER_AT, packet.speakerEntityId);
  out[offset + NAME_LEN_AT] = nameBytes;
  writeUtf8(packet.speakerName, out, offset + CHAT_HEADER_BYTES);
  out[offset + CHAT_HEADER_BYTES + nameBytes] = textBytes;
  writeUtf8(packet.text, out, offset + CHAT_HEADER_BYTES + nameBytes + TEXT_LEN_BYTES);
  return size;
}

/** Decodes the body of a datagram whose header checkHeader accepted with type 10. */
export function decodeChatBody(bytes: Uint8Array): DecodeResult<ChatPacket> {
  const minBytes = CHAT_HEADER_BYTES + TEXT_LEN_BYTES;
  if (bytes.length < minBytes) {
    return failure("truncated", bytes.length, `ChatPacket needs at least ${minBytes} bytes`);
  }
  const seq = readU32(bytes, SEQ_AT);
  if (seq === 0) return failure("bad_sequence", SEQ_AT, "seq 0 is not a message number");
  const oldestSeq = readU32(bytes, OLDEST_SEQ_AT);
  if (oldestSeq === 0 || oldestSeq > seq) {
    return failure("bad_sequence", OLDEST_SEQ_AT, `oldest_seq ${oldestSeq} is not in 1..seq (${seq})`);
  }
  const nameBytes = bytes[NAME_LEN_AT];
  if (nameBytes > NAME_MAX_BYTES) {
    return failure("bad_name", NAME_LEN_AT, `name_len ${nameBytes} exceeds ${NAME_MAX_BYTES}`);
  }
  const nameEnd = CHAT_HEADER_BYTES + nameBytes;
  if (nameEnd + TEXT_LEN_BYTES > bytes.length) {
    return failure("length_overrun", NAME_LEN_AT, `name_len ${nameBytes} runs past the datagram`);
  }
  const nameProblem = textProblem(bytes, CHAT_HEADER_BYTES, nameEnd, false);
  if (nameProblem !== null) return failure("bad_name", CHAT_HEADER_BYTES, nameProblem);
  const textBytes = bytes[nameEnd];
  if (textBytes === 0) return failure("bad_text", nameEnd, "chat text must not be empty");
  if (textBytes > CHAT_TEXT_MAX_BYTES) {
    return failure("text_too_long", nameEnd, `text_len ${textBytes} exceeds ${CHAT_TEXT_MAX_BYTES}`);
  }
  const textStart = nameEnd + TEXT_LEN_BYTES;
  const end = textStart + textBytes;
  if (end > bytes.length) return failure("length_overrun", nameEnd, `text_len ${textBytes} runs past the datagram`);
  if (end < bytes.length) return failure("trailing_bytes", end, `${bytes.length - end} bytes after the text`);
  const problem = textProblem(bytes, textStart, end, false);
  if (problem !== null) return failure("bad_text", textStart, problem);
  return {
    ok: true,
    packet: {
      type: "chat",
      clientType: readClientType(bytes),
      seq,
      oldestSeq,
      speakerEntityId: readU32(bytes, SPEAKER_AT),
      speakerName: readUtf8(bytes, CHAT_HEADER_BYTES, nameEnd),
      text: readUtf8(bytes, textStart, end),
    },
  };
}
