// ChatAckPacket (type 11, 18 bytes, client → server): the client has every
// chat message of the session up to `seq`; the server stops re-sending them
// (docs/protocol.md § Chat).
import { readU32, readU64, writeU32, writeU64 } from "./bytes.js";
import { type DecodeResult, checkRoom, checkU32, checkU64, failure } from "./errors.js";
import { HEADER_BYTES, PACKET_CHAT_ACK, encodeHeader, readClientType } from "./header.js";
import { int, layout, token } from "./layout.js";

export const CHAT_ACK_BYTES = 18;
/** docs/protocol.md § ChatAckPacket. */
export const CHAT_ACK_LAYOUT = layout("chat_ack", HEADER_BYTES, CHAT_ACK_BYTES, [
  token("auth_token"),
  int("seq", "u32", "seq"),
]);
const TOKEN_AT = CHAT_ACK_LAYOUT.offset.auth_token;
const SEQ_AT = CHAT_ACK_LAYOUT.offset.seq;

export interface ChatAckPacket {
  type: "chat_ack";
  clientType: number;
  authToken: bigint;
  /** Highest server message number received in order (0: none yet). */
  seq: number;
}

/** Writes a ChatAckPacket at `offset`; returns CHAT_ACK_BYTES. Throws EncodeError on bad input. */
export function encodeChatAck(packet: ChatAckPacket, out: Uint8Array, offset = 0): number {
  checkU64("auth_token", packet.authToken);
  checkU32("seq", packet.seq);
  checkRoom(out, offset, CHAT_ACK_BYTES);
  encodeHeader(PACKET_CHAT_ACK, packet.clientType, out, offset);
  writeU64(out, offset + TOKEN_AT, packet.authToken);
  writeU32(out, offset + SEQ_AT, packet.seq);
  return CHAT_ACK_BYTES;
}

/** Decodes the body of a datagram whose header checkHeader accepted with type 11. */
export function decodeChatAckBody(bytes: Uint8Array): DecodeResult<ChatAckPacket> {
  if (bytes.length < CHAT_ACK_BYTES)
    return failure("truncated", bytes.length, `ChatAckPacket needs ${CHAT_ACK_BYTES} bytes`);
  if (bytes.length > CHAT_ACK_BYTES) {
    return failure("trailing_bytes", CHAT_ACK_BYTES, `ChatAckPacket is ${CHAT_ACK_BYTES} bytes`);
  }
  return {
    ok: true,
    packet: {
      type: "chat_ack",
      clientType: readClientType(bytes),
      authToken: readU64(bytes, TOKEN_AT),
      seq: readU32(bytes, SEQ_AT),
    },
  };
}
