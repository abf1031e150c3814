// ChatPacket (type 10, 21 … 252 bytes, server → client): one chat message —
// a player's line or a system notice (speaker 0) — numbered per session so the
// client can acknowledge it, drop duplicates and keep the order
// (docs/protocol.md § Chat).
import { readU16, readU32, writeU32 } from "./bytes.js";
import { type DecodeResult, EncodeError, checkRoom, checkU32, failure } from "./errors.js";
import { PACKET_CHAT, encodeHeader } from "./header.js";
import { CHAT_TEXT_MAX_BYTES, CHAT_TEXT_RULE } from "./chat-post.js";
import { type TextRule, checkText, readUtf8, textProblem, writeUtf8 } from "./text.js";
import { NAME_MAX_BYTES } from "./tlv.js";

/** Header, seq, oldest_seq, speaker_entity_id, name_len: where the name starts. */
export const CHAT_HEADER_BYTES = 19;
/** Speaker id of system messages (joins, leaves, server notices). */
export const CHAT_SPEAKER_SYSTEM = 0;
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
  const size = CHAT_HEADER_BYTES + nameBytes + 1 + textBytes;
  checkRoom(out, offset, size);
  encodeHeader(PACKET_CHAT, packet.clientType, out, offset);
  writeU32(out, offset + 6, packet.seq);
  writeU32(out, offset + 10, packet.oldestSeq);
  writeU32(out, offset + 14, packet.speakerEntityId);
  out[offset + 18] = nameBytes;
  writeUtf8(packet.speakerName, out, offset + CHAT_HEADER_BYTES);
  out[offset + CHAT_HEADER_BYTES + nameBytes] = textBytes;
  writeUtf8(packet.text, out, offset + CHAT_HEADER_BYTES + nameBytes + 1);
  return size;
}

/** Decodes the body of a datagram whose header checkHeader accepted with type 10. */
export function decodeChatBody(bytes: Uint8Array): DecodeResult<ChatPacket> {
  if (bytes.length < CHAT_HEADER_BYTES + 1) {
    return failure("truncated", bytes.length, `ChatPacket needs at least ${CHAT_HEADER_BYTES + 1} bytes`);
  }
  const seq = readU32(bytes, 6);
  if (seq === 0) return failure("bad_sequence", 6, "seq 0 is not a message number");
  const oldestSeq = readU32(bytes, 10);
  if (oldestSeq === 0 || oldestSeq > seq) {
    return failure("bad_sequence", 10, `oldest_seq ${oldestSeq} is not in 1..seq (${seq})`);
  }
  const nameBytes = bytes[18];
  if (nameBytes > NAME_MAX_BYTES) return failure("bad_name", 18, `name_len ${nameBytes} exceeds ${NAME_MAX_BYTES}`);
  const nameEnd = CHAT_HEADER_BYTES + nameBytes;
  if (nameEnd + 1 > bytes.length) return failure("length_overrun", 18, `name_len ${nameBytes} runs past the datagram`);
  const nameProblem = textProblem(bytes, CHAT_HEADER_BYTES, nameEnd, false);
  if (nameProblem !== null) return failure("bad_name", CHAT_HEADER_BYTES, nameProblem);
  const textBytes = bytes[nameEnd];
  if (textBytes === 0) return failure("bad_text", nameEnd, "chat text must not be empty");
  if (textBytes > CHAT_TEXT_MAX_BYTES) {
    return failure("text_too_long", nameEnd, `text_len ${textBytes} exceeds ${CHAT_TEXT_MAX_BYTES}`);
  }
  const textStart = nameEnd + 1;
  const end = textStart + textBytes;
  if (end > bytes.length) return failure("length_overrun", nameEnd, `text_len ${textBytes} runs past the datagram`);
  if (end < bytes.length) return failure("trailing_bytes", end, `${bytes.length - end} bytes after the text`);
  const problem = textProblem(bytes, textStart, end, false);
  if (problem !== null) return failure("bad_text", textStart, problem);
  return {
    ok: true,
    packet: {
      type: "chat",
      clientType: readU16(bytes, 4),
      seq,
      oldestSeq,
      speakerEntityId: readU32(bytes, 14),
      speakerName: readUtf8(bytes, CHAT_HEADER_BYTES, nameEnd),
      text: readUtf8(bytes, textStart, end),
    },
  };
}
