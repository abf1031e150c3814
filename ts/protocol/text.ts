// UTF-8 text fields of the chat and dialog packets (docs/protocol.md § Text
// fields): one rule for what text may travel, checked on receipt (a
// DecodeError) and before sending (an EncodeError), so whatever an encoder
// accepts a decoder accepts too.
import { EncodeError, isIntegerIn } from "./errors.js";

/** The one control character a text may carry where a field allows line breaks (dialog text). */
export const NEWLINE = 0x0a;

/**
 * Why bytes[start..end) is not acceptable text, or null. Rejects ill-formed
 * UTF-8 (overlongs, surrogates, above U+10FFFF, cut-off characters) and the
 * C0/C1 control characters and DEL, which would corrupt log lines, the HUD
 * and the chat log; `allowNewline` admits U+000A.
 */
export function textProblem(bytes: Uint8Array, start: number, end: number, allowNewline: boolean): string | null {
  let at = start;
  while (at < end) {
    const b0 = bytes[at];
    let length: number;
    let low = 0x80;
    let high = 0xbf;
    if (b0 < 0x80) {
      if ((b0 < 0x20 && !(allowNewline && b0 === NEWLINE)) || b0 === 0x7f) {
        return `control character 0x${b0.toString(16)} at byte ${at - start}`;
      }
      at++;
      continue;
    } else if (b0 >= 0xc2 && b0 <= 0xdf) {
      length = 2;
      if (b0 === 0xc2) low = 0xa0; // U+0080..U+009F are the C1 controls
    } else if (b0 >= 0xe0 && b0 <= 0xef) {
      length = 3;
      if (b0 === 0xe0) low = 0xa0; // overlong
      if (b0 === 0xed) high = 0x9f; // UTF-16 surrogates
    } else if (b0 >= 0xf0 && b0 <= 0xf4) {
      length = 4;
      if (b0 === 0xf0) low = 0x90; // overlong
      if (b0 === 0xf4) high = 0x8f; // beyond U+10FFFF
    } else {
      return `byte 0x${b0.toString(16)} at ${at - start} cannot start a UTF-8 character`;
    }
    if (at + length > end) return `UTF-8 character at byte ${at - start} is cut off`;
    const b1 = bytes[at + 1];
    if (b1 < low || b1 > high) return `ill-formed UTF-8 at byte ${at - start + 1}`;
    for (let k = 2; k < length; k++) {
      const bk = bytes[at + k];
      if (bk < 0x80 || bk > 0xbf) return `ill-formed UTF-8 at byte ${at - start + k}`;
    }
    at += length;
  }
  return null;
}

/** Bytes of UTF-8 for `text`, or -1 when it holds a lone surrogate (not encodable). */
export function utf8ByteLength(text: string): number {
  let length = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) length += 1;
    else if (unit < 0x800) length += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = i + 1 < text.length ? text.charCodeAt(i + 1) : 0;
      if (next < 0xdc00 || next > 0xdfff) return -1;
      length += 4;
      i++;
    } else if (unit >= 0xdc00 && unit <= 0xdfff) return -1;
    else length += 3;
  }
  return length;
}

/** Writes `text` (utf8ByteLength ≥ 0) as UTF-8 at `offset`; returns bytes written. */
export function writeUtf8(text: string, out: Uint8Array, offset: number): number {
  let at = offset;
  for (let i = 0; i < text.length; i++) {
    let point = text.charCodeAt(i);
    if (point >= 0xd800 && point <= 0xdbff) {
      point = 0x10000 + ((point - 0xd800) << 10) + (text.charCodeAt(++i) - 0xdc00);
    }
    if (point < 0x80) out[at++] = point;
    else if (point < 0x800) {
      out[at++] = 0xc0 | (point >> 6);
      out[at++] = 0x80 | (point & 63);
    } else if (point < 0x10000) {
      out[at++] = 0xe0 | (point >> 12);
      out[at++] = 0x80 | ((point >> 6) & 63);
      out[at++] = 0x80 | (point & 63);
    } else {
      out[at++] = 0xf0 | (point >> 18);
      out[at++] = 0x80 | ((point >> 12) & 63);
      out[at++] = 0x80 | ((point >> 6) & 63);
      out[at++] = 0x80 | (point & 63);
    }
  }
  return at - offset;
}

const utf8 = new TextDecoder("utf-8");

/** The string in bytes[start..end), which textProblem accepted. */
export function readUtf8(bytes: Uint8Array, start: number, end: number): string {
  return utf8.decode(bytes.subarray(start, end));
}

/** Rules of one text field: its byte limits and whether it may break lines. */
export interface TextRule {
  readonly minBytes: number;
  readonly maxBytes: number;
  readonly allowNewline: boolean;
}

const scratch = new Uint8Array(1200 * 3);

/**
 * Checks `text` against `rule` as a decoder would and returns its UTF-8
 * length; throws EncodeError ("bad_text") naming `field` otherwise.
 */
export function checkText(field: string, text: string, rule: TextRule): number {
  const bytes = typeof text === "string" ? utf8ByteLength(text) : -1;
  if (bytes < 0) throw new EncodeError("bad_text", `${field} must be a string of well-formed UTF-16`);
  if (!isIntegerIn(bytes, rule.minBytes, rule.maxBytes)) {
    throw new EncodeError(
      "bad_text",
      `${field} must be ${rule.minBytes}..${rule.maxBytes} bytes of UTF-8, got ${bytes}`,
    );
  }
  const problem = textProblem(scratch, 0, writeUtf8(text, scratch, 0), rule.allowNewline);
  if (problem !== null) throw new EncodeError("bad_text", `${field}: ${problem}`);
  return bytes;
}
