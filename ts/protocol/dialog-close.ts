// DialogClosePacket (type 16, 10 bytes, server → client): the dialog is
// closed. It answers a DialogReply (the reply arrived: stop re-sending it) or
// closes a dialog on the server's initiative (the client answers with a
// DialogAck, state closed) (docs/protocol.md § Dialogs).
import { readU32, writeU32 } from "./bytes.js";
import { type DecodeResult, EncodeError, checkRoom, checkU32, failure } from "./errors.js";
import { HEADER_BYTES, PACKET_DIALOG_CLOSE, encodeHeader, readClientType } from "./header.js";
import { int, layout } from "./layout.js";

export const DIALOG_CLOSE_BYTES = 10;
/** docs/protocol.md § DialogClosePacket. */
export const DIALOG_CLOSE_LAYOUT = layout("dialog_close", HEADER_BYTES, DIALOG_CLOSE_BYTES, [
  int("dialog_id", "u32", "dialogId"),
]);
const DIALOG_ID_AT = DIALOG_CLOSE_LAYOUT.offset.dialog_id;

export interface DialogClosePacket {
  type: "dialog_close";
  clientType: number;
  dialogId: number;
}

/** Writes a DialogClosePacket at `offset`; returns DIALOG_CLOSE_BYTES. Throws EncodeError on bad input. */
export function encodeDialogClose(packet: DialogClosePacket, out: Uint8Array, offset = 0): number {
  checkU32("dialog_id", packet.dialogId);
  if (packet.dialogId === 0) throw new EncodeError("out_of_range", "dialog_id must be at least 1");
  checkRoom(out, offset, DIALOG_CLOSE_BYTES);
  encodeHeader(PACKET_DIALOG_CLOSE, packet.clientType, out, offset);
  writeU32(out, offset + DIALOG_ID_AT, packet.dialogId);
  return DIALOG_CLOSE_BYTES;
}

/** Decodes the body of a datagram whose header checkHeader accepted with type 16. */
export function decodeDialogCloseBody(bytes: Uint8Array): DecodeResult<DialogClosePacket> {
  if (bytes.length < DIALOG_CLOSE_BYTES) {
    return failure("truncated", bytes.length, `DialogClosePacket needs ${DIALOG_CLOSE_BYTES} bytes`);
  }
  if (bytes.length > DIALOG_CLOSE_BYTES) {
    return failure("trailing_bytes", DIALOG_CLOSE_BYTES, `DialogClosePacket is ${DIALOG_CLOSE_BYTES} bytes`);
  }
  const dialogId = readU32(bytes, DIALOG_ID_AT);
  if (dialogId === 0) return failure("bad_dialog_id", DIALOG_ID_AT, "dialog_id 0 names no dialog");
  return { ok: true, packet: { type: "dialog_close", clientType: readClientType(bytes), dialogId } };
}
