// Scalar 6-bit packing for builds without wasm SIMD (asc --disable simd, e.g.
// build/core-scalar.wasm for wasm2c 1.0.32, which cannot translate v128 code).
// Same format and results as pack6.ts, byte for byte: group g = bytes
// 3g..3g+2 as v = b0 | b1 << 8 | b2 << 16 holds tiles 4g..4g+3, tile k being
// (v >> 6k) & 63 (protocol-decisions.md 1).
//
// Per-byte loops spend most of their time on loads and stores; here two groups
// (6 packed bytes, 8 indices) move as one u64 with three mask-and-shift steps
// that halve the field width each time, and a loop step covers 4 groups with
// one u64 and one u32 on the packed side, so exactly 768 bytes are read or
// written and the SIMD slack after the regions is never touched.
import { CHUNK_INDICES, CHUNK_PACKED } from "../layout";

/** 12-byte steps per chunk: 768 / 12. */
const STEPS: usize = 64;

/** 8 indices (one per byte, 0..63) from two packed groups in bits 0..47 of `packed`. */
// @ts-ignore: decorator
@inline
function spreadGroups(packed: u64): u64 {
  // groups at bits 0 and 32, 12-bit halves at 0/16/32/48, then 6-bit tiles at each byte
  const groups = (packed & 0xffffff) | ((packed & 0xffffff000000) << 8);
  const halves = (groups & 0x00000fff00000fff) | ((groups & 0x00fff00000fff000) << 4);
  return (halves & 0x003f003f003f003f) | ((halves & 0x0fc00fc00fc00fc0) << 2);
}

/** Two packed groups (bits 0..47) from 8 indices, one per byte, each masked to 6 bits. */
// @ts-ignore: decorator
@inline
function joinIndices(indices: u64): u64 {
  const halves = (indices & 0x003f003f003f003f) | ((indices >> 2) & 0x0fc00fc00fc00fc0);
  const groups = (halves & 0x00000fff00000fff) | ((halves >> 4) & 0x00fff00000fff000);
  return (groups & 0xffffff) | ((groups >> 8) & 0xffffff000000);
}

/** unpack6 without SIMD: CHUNK_PACKED (768 bytes) -> CHUNK_INDICES (1024 bytes). */
export function unpack6Scalar(): void {
  let src = CHUNK_PACKED;
  let dst = CHUNK_INDICES;
  const end = CHUNK_PACKED + STEPS * 12;
  for (; src < end; src += 12, dst += 16) {
    const low = load<u64>(src);
    const high = <u64>load<u32>(src, 8);
    store<u64>(dst, spreadGroups(low));
    store<u64>(dst, spreadGroups((low >> 48) | (high << 16)), 8);
  }
}

/** pack6 without SIMD: CHUNK_INDICES (1024 bytes, each & 63) -> CHUNK_PACKED (768 bytes). */
export function pack6Scalar(): void {
  let src = CHUNK_INDICES;
  let dst = CHUNK_PACKED;
  const end = CHUNK_PACKED + STEPS * 12;
  for (; dst < end; src += 16, dst += 12) {
    const first = joinIndices(load<u64>(src));
    const second = joinIndices(load<u64>(src, 8));
    store<u64>(dst, first | (second << 48));
    store<u32>(dst, <u32>(second >> 16), 8);
  }
}
