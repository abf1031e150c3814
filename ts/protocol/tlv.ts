// TLV metadata (tag u8, len u8, value) carried by entity entries and entity
// details (docs/protocol.md § TLV metadata). Known tags have fixed value
// formats and appear at most once; unknown tags are skipped so the server can
// add tags without breaking older clients. A block must be filled exactly by
// its TLVs. Readers here assume a block that validateTlvs accepted.
import { readU16, writeU16 } from "./bytes.js";
import { textProblem, utf8ByteLength, writeUtf8 } from "./text.js";
import { type DecodeError, EncodeError, checkRoom, decodeError, isIntegerIn } from "./errors.js";

export const TLV_STATUS_EFFECTS = 0x01;
export const TLV_WEAPON = 0x02;
export const TLV_ARMOR = 0x03;
/** UTF-8 player nick; project addition, see docs/protocol.md. */
export const TLV_NAME = 0x04;
/** Longest name value in bytes of UTF-8. */
export const NAME_MAX_BYTES = 32;
/** Longest value any TLV can carry (its len is a u8). */
export const TLV_VALUE_MAX_BYTES = 255;
/** A TLV is tag u8, len u8, then len bytes of value; offsets are relative to the TLV. */
export const TLV_TAG_OFFSET = 0;
export const TLV_LENGTH_OFFSET = 1;
/** tag and len: where the value starts. */
export const TLV_HEADER_BYTES = 2;
/** Value length of the u16 tags (status_effects, weapon, armor). */
export const TLV_U16_VALUE_BYTES = 2;
/** Names of the known tags by tag number, as the Tlv `kind` and the packet tool spell them. */
export const TLV_TAG_NAMES: Readonly<Record<number, "status_effects" | "weapon" | "armor" | "name">> = {
  [TLV_STATUS_EFFECTS]: "status_effects",
  [TLV_WEAPON]: "weapon",
  [TLV_ARMOR]: "armor",
  [TLV_NAME]: "name",
};

export type Tlv =
  | { kind: "status_effects"; value: number }
  | { kind: "weapon"; value: number }
  | { kind: "armor"; value: number }
  | { kind: "name"; value: string }
  /** A tag this build does not know (never 0x01..0x04), kept as raw bytes. */
  | { kind: "unknown"; tag: number; bytes: Uint8Array };

/**
 * Why the UTF-8 in bytes[start..end) is not an acceptable name, or null.
 * Rejects ill-formed UTF-8 (overlongs, surrogates, > U+10FFFF) and C0/C1
 * control characters, which would break log lines and the HUD.
 */
export function nameProblem(bytes: Uint8Array, start: number, end: number): string | null {
  if (end - start < 1 || end - start > NAME_MAX_BYTES) return `name must be 1..${NAME_MAX_BYTES} bytes of UTF-8`;
  return textProblem(bytes, start, end, false);
}

/** Checks that bytes[start..end) is a sequence of well-formed TLVs filling it exactly; null when it is. */
export function validateTlvs(bytes: Uint8Array, start: number, end: number): DecodeError | null {
  let seen = 0; // bit per known tag
  let at = start;
  while (at < end) {
    if (at + TLV_HEADER_BYTES > end) {
      return decodeError("tlv_overrun", at, "TLV tag without a length byte at the end of the block");
    }
    const tag = bytes[at + TLV_TAG_OFFSET];
    const length = bytes[at + TLV_LENGTH_OFFSET];
    const valueStart = at + TLV_HEADER_BYTES;
    if (valueStart + length > end) {
      const lengthAt = at + TLV_LENGTH_OFFSET;
      return decodeError("tlv_overrun", lengthAt, `TLV 0x${tag.toString(16)} len ${length} runs past the block`);
    }
    if (tag >= TLV_STATUS_EFFECTS && tag <= TLV_NAME) {
      if ((seen & (1 << tag)) !== 0) return decodeError("duplicate_tlv", at, `TLV ${TLV_TAG_NAMES[tag]} repeated`);
      seen |= 1 << tag;
      if (tag === TLV_NAME) {
        const problem = nameProblem(bytes, valueStart, valueStart + length);
        if (problem !== null) return decodeError("bad_name", valueStart, problem);
      } else if (length !== TLV_U16_VALUE_BYTES) {
        return decodeError(
          "bad_tlv_length",
          at + TLV_LENGTH_OFFSET,
          `TLV ${TLV_TAG_NAMES[tag]} has len ${length}, expected ${TLV_U16_VALUE_BYTES}`,
        );
      }
    }
    at = valueStart + length;
  }
  return null;
}

function badTlv(message: string): never {
  throw new EncodeError("bad_tlv", message);
}

const nameScratch = new Uint8Array(NAME_MAX_BYTES * 3);

/** Encoded length of `tlvs` after checking them as validateTlvs would; throws EncodeError. */
export function tlvsByteLength(tlvs: readonly Tlv[]): number {
  let length = 0;
  let seen = 0;
  for (let index = 0; index < tlvs.length; index++) {
    const tlv = tlvs[index];
    let tag: number;
    switch (tlv.kind) {
      case "status_effects":
      case "weapon":
      case "armor":
        tag = tlv.kind === "status_effects" ? TLV_STATUS_EFFECTS : tlv.kind === "weapon" ? TLV_WEAPON : TLV_ARMOR;
        if (!isIntegerIn(tlv.value, 0, 0xffff)) badTlv(`${tlv.kind} value must be a u16, got ${String(tlv.value)}`);
        length += TLV_HEADER_BYTES + TLV_U16_VALUE_BYTES;
        break;
      case "name": {
        tag = TLV_NAME;
        const bytes = typeof tlv.value === "string" ? utf8ByteLength(tlv.value) : -1;
        if (bytes < 0) badTlv("name must be a string of well-formed UTF-16");
        if (bytes < 1 || bytes > NAME_MAX_BYTES)
          badTlv(`name must be 1..${NAME_MAX_BYTES} bytes of UTF-8, got ${bytes}`);
        const problem = nameProblem(nameScratch, 0, writeUtf8(tlv.value, nameScratch, 0));
        if (problem !== null) badTlv(`name: ${problem}`);
        length += TLV_HEADER_BYTES + bytes;
        break;
      }
      case "unknown":
        tag = 0;
        if (!isIntegerIn(tlv.tag, 0, 0xff) || (tlv.tag >= TLV_STATUS_EFFECTS && tlv.tag <= TLV_NAME)) {
          badTlv(`unknown TLV tag must be a u8 outside 0x01..0x04, got ${String(tlv.tag)}`);
        }
        if (!(tlv.bytes instanceof Uint8Array) || tlv.bytes.length > TLV_VALUE_MAX_BYTES) {
          badTlv(`TLV value must be a Uint8Array of at most ${TLV_VALUE_MAX_BYTES} bytes`);
        }
        length += TLV_HEADER_BYTES + tlv.bytes.length;
        break;
      default:
        badTlv(`unknown TLV kind ${String((tlv as { kind: unknown }).kind)}`);
    }
    if (tag !== 0) {
      if ((seen & (1 << tag)) !== 0) badTlv(`TLV ${tlv.kind} repeated`);
      seen |= 1 << tag;
    }
  }
  return length;
}

/** Writes TLVs that tlvsByteLength accepted; returns bytes written. */
export function writeTlvs(tlvs: readonly Tlv[], out: Uint8Array, offset: number): number {
  let at = offset;
  for (let index = 0; index < tlvs.length; index++) {
    const tlv = tlvs[index];
    switch (tlv.kind) {
      case "status_effects":
      case "weapon":
      case "armor":
        out[at + TLV_TAG_OFFSET] =
          tlv.kind === "status_effects" ? TLV_STATUS_EFFECTS : tlv.kind === "weapon" ? TLV_WEAPON : TLV_ARMOR;
        out[at + TLV_LENGTH_OFFSET] = TLV_U16_VALUE_BYTES;
        writeU16(out, at + TLV_HEADER_BYTES, tlv.value);
        at += TLV_HEADER_BYTES + TLV_U16_VALUE_BYTES;
        break;
      case "name": {
        out[at + TLV_TAG_OFFSET] = TLV_NAME;
        const length = writeUtf8(tlv.value, out, at + TLV_HEADER_BYTES);
        out[at + TLV_LENGTH_OFFSET] = length;
        at += TLV_HEADER_BYTES + length;
        break;
      }
      case "unknown":
        out[at + TLV_TAG_OFFSET] = tlv.tag;
        out[at + TLV_LENGTH_OFFSET] = tlv.bytes.length;
        out.set(tlv.bytes, at + TLV_HEADER_BYTES);
        at += TLV_HEADER_BYTES + tlv.bytes.length;
        break;
    }
  }
  return at - offset;
}

/** Validates and writes a TLV block; returns its length. Throws EncodeError. */
export function encodeTlvs(tlvs: readonly Tlv[], out: Uint8Array, offset = 0): number {
  checkRoom(out, offset, tlvsByteLength(tlvs));
  return writeTlvs(tlvs, out, offset);
}

const utf8 = new TextDecoder("utf-8");

/** The TLVs of a validated block, in wire order; copies values out of the datagram. */
export function decodeTlvs(bytes: Uint8Array, start: number, end: number): Tlv[] {
  const tlvs: Tlv[] = [];
  for (let at = start; at < end; at += TLV_HEADER_BYTES + bytes[at + TLV_LENGTH_OFFSET]) {
    const tag = bytes[at + TLV_TAG_OFFSET];
    const valueStart = at + TLV_HEADER_BYTES;
    const valueEnd = valueStart + bytes[at + TLV_LENGTH_OFFSET];
    // Only the u16 tags have two value bytes to read; others may end the datagram earlier.
    const u16 = tag >= TLV_STATUS_EFFECTS && tag <= TLV_ARMOR ? readU16(bytes, valueStart) : 0;
    if (tag === TLV_STATUS_EFFECTS) tlvs.push({ kind: "status_effects", value: u16 });
    else if (tag === TLV_WEAPON) tlvs.push({ kind: "weapon", value: u16 });
    else if (tag === TLV_ARMOR) tlvs.push({ kind: "armor", value: u16 });
    else if (tag === TLV_NAME) tlvs.push({ kind: "name", value: utf8.decode(bytes.subarray(valueStart, valueEnd)) });
    else tlvs.push({ kind: "unknown", tag, bytes: bytes.slice(valueStart, valueEnd) });
  }
  return tlvs;
}

/** Offset of the value of the first TLV with `tag` in a validated block, or -1. */
export function findTlv(bytes: Uint8Array, start: number, end: number, tag: number): number {
  for (let at = start; at < end; at += TLV_HEADER_BYTES + bytes[at + TLV_LENGTH_OFFSET]) {
    if (bytes[at + TLV_TAG_OFFSET] === tag) return at + TLV_HEADER_BYTES;
  }
  return -1;
}

/** The u16 value of status_effects / weapon / armor in a validated block, or -1 when absent. */
export function readTlvU16(bytes: Uint8Array, start: number, end: number, tag: number): number {
  const at = findTlv(bytes, start, end, tag);
  return at < 0 ? -1 : readU16(bytes, at);
}

/** The name in a validated block, or null when absent. */
export function readTlvName(bytes: Uint8Array, start: number, end: number): string | null {
  const at = findTlv(bytes, start, end, TLV_NAME);
  const length = at < 0 ? 0 : bytes[at - TLV_HEADER_BYTES + TLV_LENGTH_OFFSET];
  return at < 0 ? null : utf8.decode(bytes.subarray(at, at + length));
}
