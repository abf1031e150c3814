// Little-endian integer access on plain byte arrays. Reading by index (not via
// a DataView) honours a subarray's byteOffset for free, allocates nothing and
// works at odd offsets, which the wire format has (a chunk palette starts at 13).
// Callers check bounds first; these helpers assume the bytes exist.

/** u16 at `offset`. */
export function readU16(bytes: Uint8Array, offset: number): number {
  return bytes[offset] | (bytes[offset + 1] << 8);
}

/** i16 at `offset`, sign-extended. */
export function readI16(bytes: Uint8Array, offset: number): number {
  return ((bytes[offset] | (bytes[offset + 1] << 8)) << 16) >> 16;
}

/** u32 at `offset`. */
export function readU32(bytes: Uint8Array, offset: number): number {
  return (bytes[offset] | (bytes[offset + 1] << 8) | (bytes[offset + 2] << 16) | (bytes[offset + 3] << 24)) >>> 0;
}

/** u64 at `offset` as a bigint (tokens and timestamps exceed 2^53). */
export function readU64(bytes: Uint8Array, offset: number): bigint {
  return BigInt(readU32(bytes, offset)) | (BigInt(readU32(bytes, offset + 4)) << 32n);
}

/** Writes the low 16 bits of `value`. */
export function writeU16(bytes: Uint8Array, offset: number, value: number): void {
  bytes[offset] = value;
  bytes[offset + 1] = value >>> 8;
}

/** Writes the low 32 bits of `value` (also right for i32 / i16 two's complement). */
export function writeU32(bytes: Uint8Array, offset: number, value: number): void {
  bytes[offset] = value;
  bytes[offset + 1] = value >>> 8;
  bytes[offset + 2] = value >>> 16;
  bytes[offset + 3] = value >>> 24;
}

/** Writes a u64 given as a bigint in [0, 2^64). */
export function writeU64(bytes: Uint8Array, offset: number, value: bigint): void {
  writeU32(bytes, offset, Number(value & 0xffffffffn));
  writeU32(bytes, offset + 4, Number(value >> 32n));
}
