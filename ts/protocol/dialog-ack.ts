// DialogAckPacket (type 14, 19 bytes, client → server): the client shows the
// dialog (state 0), or no longer shows it (state 1: it acknowledges a
// DialogClose, or it discarded the dialog) (docs/protocol.md § Dialogs).
import { readU32, readU64, writeU32, writeU64 } from "./bytes.js";
import { type DecodeResult, EncodeError, checkRoom, checkU32, checkU64, failure, isIntegerIn } from "./errors.js";
import { HEADER_BYTES, PACKET_DIALOG_ACK, encodeHeader, readClientType } from "./header.js";
import { enumField, int, layout, token } from "./layout.js";

export const DIALOG_ACK_BYTES = 19;

/** The dialog arrived and is shown: stop re-sending it. */
export const DIALOG_STATE_SHOWN = 0;
/** The dialog is not shown (any more): stop re-sending it or its close. */
export const DIALOG_STATE_CLOSED = 1;
export const DIALOG_STATE_NAMES = ["shown", "closed"] as const;

/** docs/protocol.md § DialogAckPacket. */
export const DIALOG_ACK_LAYOUT = layout("dialog_ack", HEADER_BYTES, DIALOG_ACK_BYTES, [
  token("auth_token"),
  int("dialog_id", "u32", "dialogId"),
  enumField("state", 1, "state", DIALOG_STATE_NAMES),
]);
const TOKEN_AT = DIALOG_ACK_LAYOUT.offset.auth_token;
const DIALOG_ID_AT = DIALOG_ACK_LAYOUT.offset.dialog_id;
const STATE_AT = DIALOG_ACK_LAYOUT.offset.state;

export interface DialogAckPacket {
  type: "dialog_ack";
  clientType: number;
  authToken: bigint;
  dialogId: number;
  /** DIALOG_STATE_SHOWN or DIALOG_STATE_CLOSED. */
  state: number;
}

/** Writes a DialogAckPacket at `offset`; returns DIALOG_ACK_BYTES. Throws EncodeError on bad input. */
export function encodeDialogAck(packet: DialogAckPacket, out: Uint8Array, offset = 0): number {
  checkU64("auth_token", packet.authToken);
  checkU32("dialog_id", packet.dialogId);
  if (packet.dialogId === 0) throw new EncodeError("out_of_range", "dialog_id must be at least 1");
  if (!isIntegerIn(packet.state, 0, DIALOG_STATE_NAMES.length - 1)) {
    throw new EncodeError("out_of_range", `state must be 0 (shown) or 1 (closed), got ${packet.state}`);
  }
  checkRoom(out, offset, DIALOG_ACK_BYTES);
  encodeHeader(PACKET_DIALOG_ACK, packet.clientType, out, offset);
  writeU64(out, offset + TOKEN_AT, packet.authToken);
  writeU32(out, offset + DIALOG_ID_AT, packet.dialogId);
  out[offset + STATE_AT] = packet.state;
  return DIALOG_ACK_BYTES;
}

/** Decodes the body of a datagram whose header checkHeader accepted with type 14. */
export function decodeDialogAckBody(bytes: Uint8Array): DecodeResult<DialogAckPacket> {
  if (bytes.length < DIALOG_ACK_BYTES) {
    return failure("truncated", bytes.length, `DialogAckPacket needs ${DIALOG_ACK_BYTES} bytes`);
  }
  if (bytes.length > DIALOG_ACK_BYTES) {
    return failure("trailing_bytes", DIALOG_ACK_BYTES, `DialogAckPacket is ${DIALOG_ACK_BYTES} bytes`);
  }
  const dialogId = readU32(bytes, DIALOG_ID_AT);
  if (dialogId === 0) return failure("bad_dialog_id", DIALOG_ID_AT, "dialog_id 0 names no dialog");
  const state = bytes[STATE_AT];
  if (state >= DIALOG_STATE_NAMES.length) {
    return failure("bad_status", STATE_AT, `dialog state ${state} is not defined`);
  }
  return {
    ok: true,
    packet: {
      type: "dialog_ack",
      clientType: readClientType(bytes),
      authToken: readU64(bytes, TOKEN_AT),
      dialogId,
      state,
    },
  };
}
