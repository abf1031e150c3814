// 6-bit tile index packing (docs/protocol.md, ChunkPacket `tiles`; bit order
// from protocol-decisions.md 1): group g = bytes 3g..3g+2 read as the
// little-endian v = b0 | b1 << 8 | b2 << 16 holds tiles 4g..4g+3, tile k being
// (v >> 6k) & 63. Both kernels work on 4 groups (12 packed bytes, 16 indices)
// per v128 step; neither touches the 16 bytes of slack after its regions.
// Without SIMD (asc --disable simd: build/core-scalar.wasm, for hosts such as
// wasm2c 1.0.32 that cannot run v128) both take the scalar path in
// pack6-scalar.ts; asc compiles only the branch ASC_FEATURE_SIMD selects.
//
// Byte permutations use i8x16.swizzle with a constant mask rather than
// i8x16.shuffle: V8 (Node 20) rebuilds a shuffle's mask inside the loop on
// every use (4 instructions), while a constant swizzle mask is hoisted and
// becomes a single pshufb. That alone took unpack from 72 to 50 ns and pack
// from 75 to 42 ns; unrolling by 4 (fewer loop and stack checks) gave ~39 / ~41.
import { CHUNK_INDICES, CHUNK_PACKED } from "../layout";
import { pack6Scalar, unpack6Scalar } from "./pack6-scalar";

/** 12-byte blocks per chunk: 768 / 12. */
const BLOCKS: usize = 64;

/**
 * 16 indices from 4 packed groups spread over byte pairs by pairsOf*.
 *
 * Each 16-bit lane holds a byte pair of its group: even lanes (b0, b1) hold
 * tiles 0 and 1 at bits 0 and 6, odd lanes (b1, b2) hold tiles 2 and 3 at bits
 * 4 and 10. A lane-wise multiply moves the wanted tile to bits 10..15, where
 * the 16-bit wrap discards everything above it, so a shift extracts it clean:
 * the low output byte takes tile 0 / tile 2 (x1024 / x64, >> 10), the high byte
 * tile 1 / tile 3 (x16 / x1, >> 2, keep the high byte).
 */
// @ts-ignore: decorator
@inline
function unpackPairs(pairs: v128): v128 {
  const low = i16x8.shr_u(i16x8.mul(pairs, i16x8(1024, 64, 1024, 64, 1024, 64, 1024, 64)), 10);
  const high = v128.and(i16x8.shr_u(i16x8.mul(pairs, i16x8(16, 1, 16, 1, 16, 1, 16, 1)), 2), i16x8.splat(<i16>0xff00));
  return v128.or(low, high);
}

/** Byte pairs (b0, b1), (b1, b2) of the 4 groups in bytes 0..11. */
// @ts-ignore: decorator
@inline
function pairsOfBlock(bytes: v128): v128 {
  return i8x16.swizzle(bytes, i8x16(0, 1, 1, 2, 3, 4, 4, 5, 6, 7, 7, 8, 9, 10, 10, 11));
}

/** Byte pairs of the 4 groups in bytes 4..15 (the last block, loaded 4 bytes early). */
// @ts-ignore: decorator
@inline
function pairsOfLastBlock(bytes: v128): v128 {
  return i8x16.swizzle(bytes, i8x16(4, 5, 5, 6, 7, 8, 8, 9, 10, 11, 11, 12, 13, 14, 14, 15));
}

/**
 * 4 packed groups (in bytes 0..11 of the result) from 16 indices.
 *
 * Masking keeps the 6 bits of each index; the even index of each byte pair
 * plus the odd one shifted down by 2 makes a 12-bit half-group per 16-bit lane,
 * and i32x4.dot (pmaddwd) joins two halves as lo + hi * 4096 = the 24-bit group.
 */
// @ts-ignore: decorator
@inline
function packBlock(indices: v128): v128 {
  const even = v128.and(indices, i16x8.splat(0x003f));
  const odd = v128.and(indices, i16x8.splat(0x3f00));
  const halves = v128.or(even, i16x8.shr_u(odd, 2));
  const groups = i32x4.dot_i16x8_s(halves, i16x8(1, 4096, 1, 4096, 1, 4096, 1, 4096));
  return i8x16.swizzle(groups, i8x16(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1));
}

/** Unpacks block `block` counted from src / dst (not the last block of the chunk: it loads 16 bytes). */
// @ts-ignore: decorator
@inline
function unpackAt(src: usize, dst: usize, block: usize): void {
  v128.store(dst + block * 16, unpackPairs(pairsOfBlock(v128.load(src + block * 12))));
}

/** Packs block `block` counted from src / dst; stores 16 bytes, the last 4 belonging to the next block. */
// @ts-ignore: decorator
@inline
function packAt(src: usize, dst: usize, block: usize): void {
  v128.store(dst + block * 12, packBlock(v128.load(src + block * 16)));
}

/** Blocks per unrolled loop step; BLOCKS - UNROLL of them run in the loop, the rest after it. */
const UNROLL: usize = 4;

/**
 * unpack6: CHUNK_PACKED (768 bytes) -> CHUNK_INDICES (1024 bytes, 0..63).
 * Follows protocol-decisions.md 1. The last block is loaded 4 bytes early so
 * that no load reaches past byte 768.
 */
export function unpack6(): void {
  if (ASC_FEATURE_SIMD) {
    let src = CHUNK_PACKED;
    let dst = CHUNK_INDICES;
    const end = CHUNK_PACKED + (BLOCKS - UNROLL) * 12;
    while (src < end) {
      unpackAt(src, dst, 0);
      unpackAt(src, dst, 1);
      unpackAt(src, dst, 2);
      unpackAt(src, dst, 3);
      src += UNROLL * 12;
      dst += UNROLL * 16;
    }
    unpackAt(src, dst, 0);
    unpackAt(src, dst, 1);
    unpackAt(src, dst, 2);
    v128.store(dst + 48, unpackPairs(pairsOfLastBlock(v128.load(src + 32))));
  } else {
    unpack6Scalar();
  }
}

/**
 * pack6: CHUNK_INDICES (1024 bytes) -> CHUNK_PACKED (768 bytes), each index
 * masked with & 63. Follows protocol-decisions.md 1. Each block stores 16
 * bytes whose last 4 the next block overwrites; the last block stores exactly
 * 12, so nothing past byte 768 is written.
 */
export function pack6(): void {
  if (ASC_FEATURE_SIMD) {
    let src = CHUNK_INDICES;
    let dst = CHUNK_PACKED;
    const end = CHUNK_PACKED + (BLOCKS - UNROLL) * 12;
    while (dst < end) {
      packAt(src, dst, 0);
      packAt(src, dst, 1);
      packAt(src, dst, 2);
      packAt(src, dst, 3);
      src += UNROLL * 16;
      dst += UNROLL * 12;
    }
    packAt(src, dst, 0);
    packAt(src, dst, 1);
    packAt(src, dst, 2);
    const last = packBlock(v128.load(src + 48));
    v128.store64_lane(dst + 36, last, 0);
    v128.store32_lane(dst + 36, last, 2, 8);
  } else {
    pack6Scalar();
  }
}
