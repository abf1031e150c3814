// Unsigned LEB128 varints of at most 32 bits: the entity delta body's ids and
// counts (P-21) and the compact StateDelta's head (P-25). Written in the
// shortest form; read strictly (at most 5 bytes, no padding, ≤ u32), so one
// value has exactly one encoding — what lets the client checksum and compare.

/** The longest varint of a u32. */
export const VARINT_MAX_BYTES = 5;

/** Writes `value` (a u32) at out[at]; returns the offset after it. */
export function writeVarint(out: Uint8Array, at: number, value: number): number {
  while (value >= 0x80) {
    out[at++] = (value & 0x7f) | 0x80;
    value = Math.floor(value / 128);
  }
  out[at++] = value;
  return at;
}

/** Bytes writeVarint takes for `value`. */
export function varintBytes(value: number): number {
  let bytes = 1;
  while (value >= 0x80) {
    value = Math.floor(value / 128);
    bytes++;
  }
  return bytes;
}

/** A varint read: its value, and the offset after it (-1 when malformed or past `end`). Reused by every read. */
export interface VarintRead {
  value: number;
  next: number;
}
const read: VarintRead = { value: 0, next: 0 };

/** Reads the varint at bytes[at..end); `next` is -1 when it is longer than 5 bytes, padded, over u32 or cut off. */
export function readVarint(bytes: Uint8Array, at: number, end: number): VarintRead {
  let value = 0;
  let scale = 1;
  for (let i = 0; i < VARINT_MAX_BYTES; i++) {
    if (at >= end) break;
    const byte = bytes[at++];
    value += (byte & 0x7f) * scale;
    if ((byte & 0x80) === 0) {
      read.value = value;
      // Over u32, or a padded form (a last byte of 0 after the first): not what an encoder writes.
      read.next = value > 0xffffffff || (i > 0 && byte === 0) ? -1 : at;
      return read;
    }
    scale *= 128;
  }
  read.next = -1;
  return read;
}
