// ChatAckPacket (type 11, 18 bytes, client → server): the client has every
// chat message of the session up to `seq`; the server stops re-sending them
// (docs/protocol.md § Chat).
import { readU16, readU32, readU64, writeU32, writeU64 } from "./bytes.js";
import { type DecodeResult, checkRoom, checkU32, checkU64, failure } from "./errors.js";
import { PACKET_CHAT_ACK, encodeHeader } from "./header.js";

export const CHAT_ACK_BYTES = 18;

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
  writeU64(out, offset + 6, packet.authToken);
  writeU32(out, offset + 14, packet.seq);
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
    packet: { type: "chat_ack", clientType: readU16(bytes, 4), authToken: readU64(bytes, 6), seq: readU32(bytes, 14) },
  };
}
