// DialogReplyPacket (type 15, 21 … 1200 bytes, client → server): the player
// pressed a button of a dialog (or dismissed it, return code 0); carries the
// value of every text input of the dialog, in element order. The client
// re-sends it until a DialogClose for the dialog arrives; the dialog id makes
// the copies idempotent (docs/protocol.md § Dialogs).
import { readU16, readU32, readU64, writeU16, writeU32, writeU64 } from "./bytes.js";
import { type DecodeResult, EncodeError, checkRoom, checkU16, checkU32, checkU64, failure } from "./errors.js";
import { HEADER_BYTES, MAX_DATAGRAM_BYTES, PACKET_DIALOG_REPLY, encodeHeader, readClientType } from "./header.js";
import { DIALOG_INPUT_RULE } from "./dialog.js";
import { STRING_LENGTH_BYTES, count, int, layout, token, variable } from "./layout.js";
import { checkText, readUtf8, textProblem, writeUtf8 } from "./text.js";

/** Header, auth_token, dialog_id, return_code, value_count: where the values start. */
export const DIALOG_REPLY_HEADER_BYTES = 21;
/** docs/protocol.md § DialogReplyPacket: value_count strings, each a u8 length and its UTF-8. */
export const DIALOG_REPLY_LAYOUT = layout("dialog_reply", HEADER_BYTES, DIALOG_REPLY_HEADER_BYTES, [
  token("auth_token"),
  int("dialog_id", "u32", "dialogId"),
  int("return_code", "u16", "returnCode"),
  count("value_count", 1, "values"),
  variable("values", "strings", "values"),
]);
const TOKEN_AT = DIALOG_REPLY_LAYOUT.offset.auth_token;
const DIALOG_ID_AT = DIALOG_REPLY_LAYOUT.offset.dialog_id;
const RETURN_CODE_AT = DIALOG_REPLY_LAYOUT.offset.return_code;
const VALUE_COUNT_AT = DIALOG_REPLY_LAYOUT.offset.value_count;

export interface DialogReplyPacket {
  type: "dialog_reply";
  clientType: number;
  authToken: bigint;
  dialogId: number;
  /** The pressed button's return code; 0 = dismissed without a button. */
  returnCode: number;
  /** The text inputs' values, in element order (each 0 … 200 bytes of UTF-8 on one line). */
  values: string[];
}

/** Writes a DialogReplyPacket at `offset`; returns its length. Throws EncodeError on bad input. */
export function encodeDialogReply(packet: DialogReplyPacket, out: Uint8Array, offset = 0): number {
  checkU64("auth_token", packet.authToken);
  checkU32("dialog_id", packet.dialogId);
  if (packet.dialogId === 0) throw new EncodeError("out_of_range", "dialog_id must be at least 1");
  checkU16("return_code", packet.returnCode);
  const count = Array.isArray(packet.values) ? packet.values.length : -1;
  if (count < 0 || count > 255) throw new EncodeError("out_of_range", "values must be an array of at most 255 strings");
  let size = DIALOG_REPLY_HEADER_BYTES;
  for (let index = 0; index < count; index++) {
    size += STRING_LENGTH_BYTES + checkText(`values[${index}]`, packet.values[index], DIALOG_INPUT_RULE);
  }
  if (size > MAX_DATAGRAM_BYTES)
    throw new EncodeError("oversize", `reply is ${size} bytes, limit ${MAX_DATAGRAM_BYTES}`);
  checkRoom(out, offset, size);
  encodeHeader(PACKET_DIALOG_REPLY, packet.clientType, out, offset);
  writeU64(out, offset + TOKEN_AT, packet.authToken);
  writeU32(out, offset + DIALOG_ID_AT, packet.dialogId);
  writeU16(out, offset + RETURN_CODE_AT, packet.returnCode);
  out[offset + VALUE_COUNT_AT] = count;
  let at = offset + DIALOG_REPLY_HEADER_BYTES;
  for (let index = 0; index < count; index++) {
    const length = writeUtf8(packet.values[index], out, at + STRING_LENGTH_BYTES);
    out[at] = length;
    at += STRING_LENGTH_BYTES + length;
  }
  return size;
}

/** Decodes the body of a datagram whose header checkHeader accepted with type 15. */
export function decodeDialogReplyBody(bytes: Uint8Array): DecodeResult<DialogReplyPacket> {
  if (bytes.length < DIALOG_REPLY_HEADER_BYTES) {
    return failure("truncated", bytes.length, `DialogReplyPacket needs at least ${DIALOG_REPLY_HEADER_BYTES} bytes`);
  }
  const dialogId = readU32(bytes, DIALOG_ID_AT);
  if (dialogId === 0) return failure("bad_dialog_id", DIALOG_ID_AT, "dialog_id 0 names no dialog");
  const count = bytes[VALUE_COUNT_AT];
  const values: string[] = [];
  let at = DIALOG_REPLY_HEADER_BYTES;
  for (let index = 0; index < count; index++) {
    if (at >= bytes.length) return failure("truncated", bytes.length, `value ${index} of ${count} is cut off`);
    const length = bytes[at];
    if (length > DIALOG_INPUT_RULE.maxBytes) {
      return failure("text_too_long", at, `value ${index} of ${length} bytes exceeds ${DIALOG_INPUT_RULE.maxBytes}`);
    }
    const start = at + STRING_LENGTH_BYTES;
    const end = start + length;
    if (end > bytes.length) return failure("length_overrun", at, `value ${index} runs past the datagram`);
    const problem = textProblem(bytes, start, end, false);
    if (problem !== null) return failure("bad_text", start, problem);
    values.push(readUtf8(bytes, start, end));
    at = end;
  }
  if (at < bytes.length) return failure("trailing_bytes", at, `${bytes.length - at} bytes after ${count} values`);
  return {
    ok: true,
    packet: {
      type: "dialog_reply",
      clientType: readClientType(bytes),
      authToken: readU64(bytes, TOKEN_AT),
      dialogId,
      returnCode: readU16(bytes, RETURN_CODE_AT),
      values,
    },
  };
}
