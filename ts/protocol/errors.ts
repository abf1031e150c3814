// Decode failures are values, encode failures are exceptions. A datagram comes
// from the network, so decoding is total: every malformed input ends in a
// DecodeError whose `code` is stable (servers count drops by it) and whose
// `message` is for humans. Encoding is driven by our own code, so an
// out-of-range value there is a bug and throws an EncodeError.

/** Every reason a datagram can be rejected; docs/protocol.md § Decoding rules explains each. */
export const DECODE_ERROR_CODES = [
  "oversize",
  "short_header",
  "bad_magic",
  "bad_version",
  "unknown_type",
  "truncated",
  "trailing_bytes",
  "bad_manifest",
  "bad_action",
  "bad_chunk_version",
  "palette_too_large",
  "reserved_tile",
  "bad_palette_index",
  "too_many_entities",
  "reserved_flags",
  "length_overrun",
  "tlv_overrun",
  "bad_tlv_length",
  "duplicate_tlv",
  "bad_name",
  "bad_text",
  "text_too_long",
  "bad_sequence",
  "bad_status",
  "bad_tile_index",
  "bad_count",
  "bad_element",
  "bad_dialog_id",
  "bad_challenge",
  "bad_rows",
  "bad_item",
  "bad_quest",
  "bad_progress",
  "bad_request",
  "bad_clock",
  "bad_delta",
] as const;
export type DecodeErrorCode = (typeof DECODE_ERROR_CODES)[number];

export interface DecodeError {
  readonly code: DecodeErrorCode;
  readonly message: string;
  /** Byte offset in the datagram where the problem was found. */
  readonly offset: number;
}

export type DecodeResult<T> =
  { readonly ok: true; readonly packet: T } | { readonly ok: false; readonly error: DecodeError };

export function decodeError(code: DecodeErrorCode, offset: number, message: string): DecodeError {
  return { code, offset, message };
}

export function failure(code: DecodeErrorCode, offset: number, message: string): { ok: false; error: DecodeError } {
  return { ok: false, error: { code, offset, message } };
}

export type EncodeErrorCode =
  "out_of_range" | "buffer_too_small" | "oversize" | "bad_manifest" | "bad_tlv" | "bad_text" | "bad_element";

/** Thrown by encoders for inputs the wire format cannot carry. */
export class EncodeError extends Error {
  readonly code: EncodeErrorCode;
  constructor(code: EncodeErrorCode, message: string) {
    super(message);
    this.name = "EncodeError";
    this.code = code;
  }
}

/** True for an integer in [min, max]; typeof guards against bigints and strings from untyped JSON. */
export function isIntegerIn(value: number, min: number, max: number): boolean {
  return typeof value === "number" && Number.isInteger(value) && value >= min && value <= max;
}

/** Throws the out-of-range EncodeError; callers build `name` only on this cold path. */
export function outOfRange(name: string, value: unknown, min: number | string, max: number | string): never {
  throw new EncodeError("out_of_range", `${name} must be an integer in [${min}, ${max}], got ${String(value)}`);
}

export function checkU8(name: string, value: number): void {
  if (!isIntegerIn(value, 0, 0xff)) outOfRange(name, value, 0, 0xff);
}

export function checkU16(name: string, value: number): void {
  if (!isIntegerIn(value, 0, 0xffff)) outOfRange(name, value, 0, 0xffff);
}

export function checkI16(name: string, value: number): void {
  if (!isIntegerIn(value, -0x8000, 0x7fff)) outOfRange(name, value, -0x8000, 0x7fff);
}

export function checkU32(name: string, value: number): void {
  if (!isIntegerIn(value, 0, 0xffffffff)) outOfRange(name, value, 0, 0xffffffff);
}

export function checkU64(name: string, value: bigint): void {
  if (typeof value !== "bigint" || value < 0n || value > 0xffffffffffffffffn) {
    throw new EncodeError("out_of_range", `${name} must be a bigint in [0, 2^64 - 1], got ${String(value)}`);
  }
}

/** Throws unless `out` has `size` bytes from `offset`; called before any byte is written. */
export function checkRoom(out: Uint8Array, offset: number, size: number): void {
  if (!Number.isInteger(offset) || offset < 0 || offset + size > out.length) {
    throw new EncodeError(
      "buffer_too_small",
      `need ${size} bytes at offset ${offset}, buffer holds ${out.length} bytes`,
    );
  }
}
