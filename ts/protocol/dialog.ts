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
import { MAX_DATAGRAM_BYTES, PACKET_DIALOG, encodeHeader } from "./header.js";
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
      return DIALOG_ELEMENT_HEADER_BYTES + 1 + checkText(`${what}.text`, element.text, DIALOG_TEXT_RULE);
    case "image":
      checkU16(`${what}.atlas_index`, element.atlasIndex);
      return DIALOG_ELEMENT_HEADER_BYTES + 2;
    case "button":
      if (!isIntegerIn(element.returnCode, 1, 0xffff)) {
        throw new EncodeError("bad_element", `${what}.return_code must be 1..65535 (0 means dismissed)`);
      }
      return DIALOG_ELEMENT_HEADER_BYTES + 3 + checkText(`${what}.label`, element.label, DIALOG_LABEL_RULE);
    case "text_input": {
      if (!isIntegerIn(element.maxBytes, 1, DIALOG_INPUT_MAX_BYTES)) {
        throw new EncodeError("bad_element", `${what}.max_bytes must be 1..${DIALOG_INPUT_MAX_BYTES}`);
      }
      const rule = { ...DIALOG_INPUT_RULE, maxBytes: element.maxBytes };
      return DIALOG_ELEMENT_HEADER_BYTES + 2 + checkText(`${what}.text`, element.text, rule);
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
  const length = writeUtf8(text, out, lengthAt + 1);
  out[lengthAt] = length;
  return 1 + length;
}

/** Writes a DialogPacket at `offset`; returns its length. Throws EncodeError on bad input. */
export function encodeDialog(packet: DialogPacket, out: Uint8Array, offset = 0): number {
  const size = dialogByteLength(packet);
  checkRoom(out, offset, size);
  encodeHeader(PACKET_DIALOG, packet.clientType, out, offset);
  writeU32(out, offset + 6, packet.dialogId);
  writeU16(out, offset + 10, packet.x);
  writeU16(out, offset + 12, packet.y);
  writeU16(out, offset + 14, packet.width);
  writeU16(out, offset + 16, packet.height);
  out[offset + 18] = packet.elements.length;
  let at = offset + DIALOG_HEADER_BYTES;
  for (const element of packet.elements) {
    out[at] = ELEMENT_KIND_NAMES.indexOf(element.kind);
    writeU16(out, at + 1, element.x);
    writeU16(out, at + 3, element.y);
    writeU16(out, at + 5, element.width);
    writeU16(out, at + 7, element.height);
    at += DIALOG_ELEMENT_HEADER_BYTES;
    switch (element.kind) {
      case "text":
        at += writeString(element.text, out, at);
        break;
      case "image":
        writeU16(out, at, element.atlasIndex);
        at += 2;
        break;
      case "button":
        writeU16(out, at, element.returnCode);
        at += 2 + writeString(element.label, out, at + 2);
        break;
      case "text_input":
        out[at] = element.maxBytes;
        at += 1 + writeString(element.text, out, at + 1);
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
  const end = lengthAt + 1 + length;
  if (end > bytes.length)
    return failure("length_overrun", lengthAt, `string of ${length} bytes runs past the datagram`);
  const problem = textProblem(bytes, lengthAt + 1, end, allowNewline);
  if (problem !== null) return failure("bad_text", lengthAt + 1, problem);
  return { ok: true, end };
}

/** Decodes the body of a datagram whose header checkHeader accepted with type 13. */
export function decodeDialogBody(bytes: Uint8Array): DecodeResult<DialogPacket> {
  if (bytes.length < DIALOG_HEADER_BYTES) {
    return failure("truncated", bytes.length, `DialogPacket needs at least ${DIALOG_HEADER_BYTES} bytes`);
  }
  const dialogId = readU32(bytes, 6);
  if (dialogId === 0) return failure("bad_dialog_id", 6, "dialog_id 0 names no dialog");
  const count = bytes[18];
  if (count === 0) return failure("bad_count", 18, "a dialog has at least one element");
  const elements: DialogElement[] = [];
  let at = DIALOG_HEADER_BYTES;
  for (let index = 0; index < count; index++) {
    if (at + DIALOG_ELEMENT_HEADER_BYTES > bytes.length) {
      return failure("truncated", bytes.length, `element ${index} of ${count} is cut off`);
    }
    const kind = bytes[at];
    const box = {
      x: readU16(bytes, at + 1),
      y: readU16(bytes, at + 3),
      width: readU16(bytes, at + 5),
      height: readU16(bytes, at + 7),
    };
    const body = at + DIALOG_ELEMENT_HEADER_BYTES;
    switch (kind) {
      case ELEMENT_TEXT: {
        const text = readString(bytes, body, DIALOG_TEXT_RULE.maxBytes, true);
        if (!text.ok) return text;
        elements.push({ kind: "text", ...box, text: readUtf8(bytes, body + 1, text.end) });
        at = text.end;
        break;
      }
      case ELEMENT_IMAGE:
        if (body + 2 > bytes.length) return failure("truncated", bytes.length, `image element ${index} is cut off`);
        elements.push({ kind: "image", ...box, atlasIndex: readU16(bytes, body) });
        at = body + 2;
        break;
      case ELEMENT_BUTTON: {
        if (body + 2 > bytes.length) return failure("truncated", bytes.length, `button element ${index} is cut off`);
        const returnCode = readU16(bytes, body);
        if (returnCode === 0) return failure("bad_element", body, `button ${index} has return_code 0 (dismissed)`);
        const label = readString(bytes, body + 2, DIALOG_LABEL_RULE.maxBytes, false);
        if (!label.ok) return label;
        elements.push({ kind: "button", ...box, returnCode, label: readUtf8(bytes, body + 3, label.end) });
        at = label.end;
        break;
      }
      case ELEMENT_TEXT_INPUT: {
        if (body + 1 > bytes.length)
          return failure("truncated", bytes.length, `text input element ${index} is cut off`);
        const maxBytes = bytes[body];
        if (maxBytes === 0 || maxBytes > DIALOG_INPUT_MAX_BYTES) {
          return failure(
            "bad_element",
            body,
            `text input ${index} max_bytes ${maxBytes} is not 1..${DIALOG_INPUT_MAX_BYTES}`,
          );
        }
        const text = readString(bytes, body + 1, maxBytes, false);
        if (!text.ok) return text;
        elements.push({ kind: "text_input", ...box, maxBytes, text: readUtf8(bytes, body + 2, text.end) });
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
      clientType: readU16(bytes, 4),
      dialogId,
      x: readU16(bytes, 10),
      y: readU16(bytes, 12),
      width: readU16(bytes, 14),
      height: readU16(bytes, 16),
      elements,
    },
  };
}
