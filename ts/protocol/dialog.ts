// DialogPacket (type 13, 29 … 1200 bytes, server → client): opens a window on
// one client — a position and size on the 320×240 screen and a list of
// elements (text, tileset image, button, text input). The server re-sends it
// until the client acknowledges it (docs/protocol.md § Dialogs).
import { readU16, readU32, writeU16, writeU32 } from "./bytes.js";
import {
  type DecodeError,
  type DecodeResult,
  EncodeError,
  checkRoom,
  checkU16,
  checkU32,
  failure,
  isIntegerIn,
} from "./errors.js";
import { HEADER_BYTES, MAX_DATAGRAM_BYTES, PACKET_DIALOG, encodeHeader, readClientType } from "./header.js";
import { STRING_LENGTH_BYTES, count, elements, enumField, int, layout, stringField } from "./layout.js";
import { type TextRule, checkText, readUtf8, textProblem, writeUtf8 } from "./text.js";

/** Header, dialog_id, x, y, width, height, element_count: where the elements start. */
export const DIALOG_HEADER_BYTES = 19;
/** kind, x, y, width, height: the part every element shares. */
export const DIALOG_ELEMENT_HEADER_BYTES = 9;

export const ELEMENT_TEXT = 1;
export const ELEMENT_IMAGE = 2;
export const ELEMENT_BUTTON = 3;
export const ELEMENT_TEXT_INPUT = 4;
/** Element kind names indexed by wire code; 0 is not a kind. */
export const ELEMENT_KIND_NAMES = ["", "text", "image", "button", "text_input"] as const;

/** The part every element shares; offsets are relative to the element. */
export const DIALOG_ELEMENT_LAYOUT = layout("dialog_element", 0, DIALOG_ELEMENT_HEADER_BYTES, [
  enumField("kind", 1, "kind", ELEMENT_KIND_NAMES),
  int("x", "u16", "x"),
  int("y", "u16", "y"),
  int("width", "u16", "width"),
  int("height", "u16", "height"),
]);
/** What follows the shared part, by element kind; offsets are relative to the body. */
export const DIALOG_ELEMENT_BODY_LAYOUTS = {
  text: layout("text", 0, 0, [stringField("text", "text")]),
  image: layout("image", 0, 2, [int("atlas_index", "u16", "atlasIndex")]),
  button: layout("button", 0, 2, [int("return_code", "u16", "returnCode"), stringField("label", "label")]),
  text_input: layout("text_input", 0, 1, [int("max_bytes", "u8", "maxBytes"), stringField("text", "text")]),
} as const;
/** docs/protocol.md § DialogPacket. */
export const DIALOG_LAYOUT = layout("dialog", HEADER_BYTES, DIALOG_HEADER_BYTES, [
  int("dialog_id", "u32", "dialogId"),
  int("x", "u16", "x"),
  int("y", "u16", "y"),
  int("width", "u16", "width"),
  int("height", "u16", "height"),
  count("element_count", 1, "elements"),
  elements("elements", "elements", DIALOG_ELEMENT_LAYOUT, DIALOG_ELEMENT_BODY_LAYOUTS),
]);
const DIALOG_ID_AT = DIALOG_LAYOUT.offset.dialog_id;
const X_AT = DIALOG_LAYOUT.offset.x;
const Y_AT = DIALOG_LAYOUT.offset.y;
const WIDTH_AT = DIALOG_LAYOUT.offset.width;
const HEIGHT_AT = DIALOG_LAYOUT.offset.height;
const COUNT_AT = DIALOG_LAYOUT.offset.element_count;
const ELEMENT_KIND_AT = DIALOG_ELEMENT_LAYOUT.offset.kind;
const ELEMENT_X_AT = DIALOG_ELEMENT_LAYOUT.offset.x;
const ELEMENT_Y_AT = DIALOG_ELEMENT_LAYOUT.offset.y;
const ELEMENT_WIDTH_AT = DIALOG_ELEMENT_LAYOUT.offset.width;
const ELEMENT_HEIGHT_AT = DIALOG_ELEMENT_LAYOUT.offset.height;
const IMAGE_BYTES = DIALOG_ELEMENT_BODY_LAYOUTS.image.fixedBytes;
const IMAGE_ATLAS_AT = DIALOG_ELEMENT_BODY_LAYOUTS.image.offset.atlas_index;
const BUTTON = DIALOG_ELEMENT_BODY_LAYOUTS.button;
const BUTTON_CODE_AT = BUTTON.offset.return_code;
const BUTTON_LABEL_AT = BUTTON.offset.label;
const INPUT = DIALOG_ELEMENT_BODY_LAYOUTS.text_input;
const INPUT_MAX_AT = INPUT.offset.max_bytes;
const INPUT_TEXT_AT = INPUT.offset.text;

/** Longest value a text input accepts, in bytes of UTF-8 (its max_bytes is 1 … this). */
export const DIALOG_INPUT_MAX_BYTES = 200;
/** Return code of a reply that closes the dialog without a button ("dismissed"); buttons use 1 … 65535. */
export const DIALOG_RETURN_DISMISSED = 0;

/** Text elements: up to 255 bytes, may break lines with U+000A. */
export const DIALOG_TEXT_RULE: TextRule = { minBytes: 0, maxBytes: 255, allowNewline: true };
/** Button labels: up to 255 bytes on one line. */
export const DIALOG_LABEL_RULE: TextRule = { minBytes: 0, maxBytes: 255, allowNewline: false };
/** Text input contents (initial text and replied values): up to 200 bytes on one line. */
export const DIALOG_INPUT_RULE: TextRule = { minBytes: 0, maxBytes: DIALOG_INPUT_MAX_BYTES, allowNewline: false };

/** Position and size of an element in pixels, relative to the dialog's top-left corner. */
interface ElementBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

export type DialogElement =
  | (ElementBox & { kind: "text"; text: string })
  | (ElementBox & { kind: "image"; atlasIndex: number })
  | (ElementBox & { kind: "button"; returnCode: number; label: string })
  | (ElementBox & { kind: "text_input"; maxBytes: number; text: string });

export interface DialogPacket {
  type: "dialog";
  clientType: number;
  /** Names the dialog in acks, replies and closes; unique per session, never 0. */
  dialogId: number;
  /** Screen position and size in framebuffer pixels (the screen is 320×240). */
  x: number;
  y: number;
  width: number;
  height: number;
  /** 1 … 255 elements, drawn in order. */
  elements: DialogElement[];
}

/** Encoded size of one element after checking it; throws EncodeError. */
function elementBytes(element: DialogElement, index: number): number {
  const what = `elements[${index}]`;
  checkU16(`${what}.x`, element.x);
  checkU16(`${what}.y`, element.y);
  checkU16(`${what}.width`, element.width);
  checkU16(`${what}.height`, element.height);
  switch (element.kind) {
    case "text":
      return (
        DIALOG_ELEMENT_HEADER_BYTES + STRING_LENGTH_BYTES + checkText(`${what}.text`, element.text, DIALOG_TEXT_RULE)
      );
    case "image":
      checkU16(`${what}.atlas_index`, element.atlasIndex);
      return DIALOG_ELEMENT_HEADER_BYTES + IMAGE_BYTES;
    case "button":
      if (!isIntegerIn(element.returnCode, 1, 0xffff)) {
        throw new EncodeError("bad_element", `${what}.return_code must be 1..65535 (0 means dismissed)`);
      }
      return (
        DIALOG_ELEMENT_HEADER_BYTES +
        BUTTON_LABEL_AT +
        STRING_LENGTH_BYTES +
        checkText(`${what}.label`, element.label, DIALOG_LABEL_RULE)
      );
    case "text_input": {
      if (!isIntegerIn(element.maxBytes, 1, DIALOG_INPUT_MAX_BYTES)) {
        throw new EncodeError("bad_element", `${what}.max_bytes must be 1..${DIALOG_INPUT_MAX_BYTES}`);
      }
      const rule = { ...DIALOG_INPUT_RULE, maxBytes: element.maxBytes };
      return (
        DIALOG_ELEMENT_HEADER_BYTES +
        INPUT_TEXT_AT +
        STRING_LENGTH_BYTES +
        checkText(`${what}.text`, element.text, rule)
      );
    }
    default:
      throw new EncodeError(
        "bad_element",
        `${what}.kind ${String((element as { kind: unknown }).kind)} is not defined`,
      );
  }
}

/** Encoded length of `packet` after checking every field; throws EncodeError (oversize beyond 1200 bytes). */
export function dialogByteLength(packet: DialogPacket): number {
  checkU32("dialog_id", packet.dialogId);
  if (packet.dialogId === 0) throw new EncodeError("out_of_range", "dialog_id must be at least 1");
  checkU16("x", packet.x);
  checkU16("y", packet.y);
  checkU16("width", packet.width);
  checkU16("height", packet.height);
  const count = Array.isArray(packet.elements) ? packet.elements.length : 0;
  if (count < 1 || count > 255) throw new EncodeError("out_of_range", `a dialog has 1..255 elements, got ${count}`);
  let size = DIALOG_HEADER_BYTES;
  for (let index = 0; index < count; index++) size += elementBytes(packet.elements[index], index);
  if (size > MAX_DATAGRAM_BYTES) {
    throw new EncodeError("oversize", `dialog is ${size} bytes, limit ${MAX_DATAGRAM_BYTES}`);
  }
  return size;
}

function writeString(text: string, out: Uint8Array, lengthAt: number): number {
  const length = writeUtf8(text, out, lengthAt + STRING_LENGTH_BYTES);
  out[lengthAt] = length;
  return STRING_LENGTH_BYTES + length;
}

/** Writes a DialogPacket at `offset`; returns its length. Throws EncodeError on bad input. */
export function encodeDialog(packet: DialogPacket, out: Uint8Array, offset = 0): number {
  const size = dialogByteLength(packet);
  checkRoom(out, offset, size);
  encodeHeader(PACKET_DIALOG, packet.clientType, out, offset);
  writeU32(out, offset + DIALOG_ID_AT, packet.dialogId);
  writeU16(out, offset + X_AT, packet.x);
  writeU16(out, offset + Y_AT, packet.y);
  writeU16(out, offset + WIDTH_AT, packet.width);
  writeU16(out, offset + HEIGHT_AT, packet.height);
  out[offset + COUNT_AT] = packet.elements.length;
  let at = offset + DIALOG_HEADER_BYTES;
  for (const element of packet.elements) {
    out[at + ELEMENT_KIND_AT] = ELEMENT_KIND_NAMES.indexOf(element.kind);
    writeU16(out, at + ELEMENT_X_AT, element.x);
    writeU16(out, at + ELEMENT_Y_AT, element.y);
    writeU16(out, at + ELEMENT_WIDTH_AT, element.width);
    writeU16(out, at + ELEMENT_HEIGHT_AT, element.height);
    at += DIALOG_ELEMENT_HEADER_BYTES;
    switch (element.kind) {
      case "text":
        at += writeString(element.text, out, at);
        break;
      case "image":
        writeU16(out, at + IMAGE_ATLAS_AT, element.atlasIndex);
        at += IMAGE_BYTES;
        break;
      case "button":
        writeU16(out, at + BUTTON_CODE_AT, element.returnCode);
        at += BUTTON_LABEL_AT + writeString(element.label, out, at + BUTTON_LABEL_AT);
        break;
      case "text_input":
        out[at + INPUT_MAX_AT] = element.maxBytes;
        at += INPUT_TEXT_AT + writeString(element.text, out, at + INPUT_TEXT_AT);
        break;
    }
  }
  return size;
}

/** A length-prefixed string at `lengthAt`: its end, or the failure. */
function readString(
  bytes: Uint8Array,
  lengthAt: number,
  maxBytes: number,
  allowNewline: boolean,
): { ok: true; end: number } | { ok: false; error: DecodeError } {
  if (lengthAt >= bytes.length) return failure("truncated", bytes.length, "string length byte is cut off");
  const length = bytes[lengthAt];
  if (length > maxBytes) return failure("text_too_long", lengthAt, `string of ${length} bytes exceeds ${maxBytes}`);
  const start = lengthAt + STRING_LENGTH_BYTES;
  const end = start + length;
  if (end > bytes.length)
    return failure("length_overrun", lengthAt, `string of ${length} bytes runs past the datagram`);
  const problem = textProblem(bytes, start, end, allowNewline);
  if (problem !== null) return failure("bad_text", start, problem);
  return { ok: true, end };
}

/** Decodes the body of a datagram whose header checkHeader accepted with type 13. */
export function decodeDialogBody(bytes: Uint8Array): DecodeResult<DialogPacket> {
  if (bytes.length < DIALOG_HEADER_BYTES) {
    return failure("truncated", bytes.length, `DialogPacket needs at least ${DIALOG_HEADER_BYTES} bytes`);
  }
  const dialogId = readU32(bytes, DIALOG_ID_AT);
  if (dialogId === 0) return failure("bad_dialog_id", DIALOG_ID_AT, "dialog_id 0 names no dialog");
  const count = bytes[COUNT_AT];
  if (count === 0) return failure("bad_count", COUNT_AT, "a dialog has at least one element");
  const elements: DialogElement[] = [];
  let at = DIALOG_HEADER_BYTES;
  for (let index = 0; index < count; index++) {
    if (at + DIALOG_ELEMENT_HEADER_BYTES > bytes.length) {
      return failure("truncated", bytes.length, `element ${index} of ${count} is cut off`);
    }
    const kind = bytes[at + ELEMENT_KIND_AT];
    const box = {
      x: readU16(bytes, at + ELEMENT_X_AT),
      y: readU16(bytes, at + ELEMENT_Y_AT),
      width: readU16(bytes, at + ELEMENT_WIDTH_AT),
      height: readU16(bytes, at + ELEMENT_HEIGHT_AT),
    };
    const body = at + DIALOG_ELEMENT_HEADER_BYTES;
    switch (kind) {
      case ELEMENT_TEXT: {
        const text = readString(bytes, body, DIALOG_TEXT_RULE.maxBytes, true);
        if (!text.ok) return text;
        elements.push({ kind: "text", ...box, text: readUtf8(bytes, body + STRING_LENGTH_BYTES, text.end) });
        at = text.end;
        break;
      }
      case ELEMENT_IMAGE:
        if (body + IMAGE_BYTES > bytes.length) {
          return failure("truncated", bytes.length, `image element ${index} is cut off`);
        }
        elements.push({ kind: "image", ...box, atlasIndex: readU16(bytes, body + IMAGE_ATLAS_AT) });
        at = body + IMAGE_BYTES;
        break;
      case ELEMENT_BUTTON: {
        if (body + BUTTON.fixedBytes > bytes.length) {
          return failure("truncated", bytes.length, `button element ${index} is cut off`);
        }
        const returnCode = readU16(bytes, body + BUTTON_CODE_AT);
        if (returnCode === 0) {
          return failure("bad_element", body + BUTTON_CODE_AT, `button ${index} has return_code 0 (dismissed)`);
        }
        const labelAt = body + BUTTON_LABEL_AT;
        const label = readString(bytes, labelAt, DIALOG_LABEL_RULE.maxBytes, false);
        if (!label.ok) return label;
        const labelText = readUtf8(bytes, labelAt + STRING_LENGTH_BYTES, label.end);
        elements.push({ kind: "button", ...box, returnCode, label: labelText });
        at = label.end;
        break;
      }
      case ELEMENT_TEXT_INPUT: {
        if (body + INPUT.fixedBytes > bytes.length)
          return failure("truncated", bytes.length, `text input element ${index} is cut off`);
        const maxBytes = bytes[body + INPUT_MAX_AT];
        if (maxBytes === 0 || maxBytes > DIALOG_INPUT_MAX_BYTES) {
          return failure(
            "bad_element",
            body + INPUT_MAX_AT,
            `text input ${index} max_bytes ${maxBytes} is not 1..${DIALOG_INPUT_MAX_BYTES}`,
          );
        }
        const textAt = body + INPUT_TEXT_AT;
        const text = readString(bytes, textAt, maxBytes, false);
        if (!text.ok) return text;
        elements.push({
          kind: "text_input",
          ...box,
          maxBytes,
          text: readUtf8(bytes, textAt + STRING_LENGTH_BYTES, text.end),
        });
        at = text.end;
        break;
      }
      default:
        return failure("bad_element", at, `element ${index} has kind ${kind}, not 1..4`);
    }
  }
  if (at < bytes.length) return failure("trailing_bytes", at, `${bytes.length - at} bytes after ${count} elements`);
  return {
    ok: true,
    packet: {
      type: "dialog",
      clientType: readClientType(bytes),
      dialogId,
      x: readU16(bytes, X_AT),
      y: readU16(bytes, Y_AT),
      width: readU16(bytes, WIDTH_AT),
      height: readU16(bytes, HEIGHT_AT),
      elements,
    },
  };
}
