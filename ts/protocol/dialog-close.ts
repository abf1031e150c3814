// DialogClosePacket (type 16, 10 bytes, server → client): the dialog is
// closed. It answers a DialogReply (the reply arrived: stop re-sending it) or
// closes a dialog on the server's initiative (the client answers with a
// DialogAck, state closed) (docs/protocol.md § Dialogs).
import { readU16, readU32, writeU32 } from "./bytes.js";
import { type DecodeResult, EncodeError, checkRoom, checkU32, failure } from "./errors.js";
import { PACKET_DIALOG_CLOSE, encodeHeader } from "./header.js";

export const DIALOG_CLOSE_BYTES = 10;

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
  writeU32(out, offset + 6, packet.dialogId);
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
  const dialogId = readU32(bytes, 6);
  if (dialogId === 0) return failure("bad_dialog_id", 6, "dialog_id 0 names no dialog");
  return { ok: true, packet: { type: "dialog_close", clientType: readU16(bytes, 4), dialogId } };
}
