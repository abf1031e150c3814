// Scalar local palettes for builds without wasm SIMD (asc --disable simd, e.g.
// build/core-scalar.wasm for wasm2c 1.0.32, which cannot translate v128 code).
// Same contract and results as palette.ts, byte for byte (docs/protocol.md,
// ChunkPacket `pal_count`/`palette`; protocol-decisions.md 2).
//
// The kernels may not allocate or keep a 64 KiB id -> slot table as the JS
// reference does, so palette_build remembers the previous tile's id (chunks
// are mostly runs of wall or floor) and otherwise searches the palette itself,
// 4 entries per u64 compare (SWAR). Measured in Node (docs/benchmarks.md), this
// plain tile-by-tile loop beat every cleverer variant tried: 4-tile blocks
// with a run test, look-ups of only the tiles that change inside a block, a
// branch-free table of ids below 32 or 64 held in u64 locals, and a
// branch-free first search step were all slower under V8 (by 10% to 2.5x).
import { CHUNK_INDICES, CHUNK_PALETTE, CHUNK_TILES, CHUNK_TILE_COUNT, PALETTE_MAX } from "../layout";

const LANES16: u64 = 0x0001000100010001;
const LANES8: u64 = 0x0101010101010101;

/**
 * Index of `id` among the first `count` palette entries, or -1. Entries are
 * distinct, and the lowest lane the zero-lane test flags is always a true
 * match (a false flag needs a borrow from a true match below it), so the
 * first flag found is the answer when it lies below count; a flag at or past
 * count is a stale entry of the last word, and then nothing below matched.
 * Reads at most entries 0..63 (the 128-byte palette region).
 */
// @ts-ignore: decorator
@inline
function paletteIndexOf(id: u32, count: i32): i32 {
  const ids = <u64>id * LANES16;
  for (let entry: i32 = 0; entry < count; entry += 4) {
    const differences = load<u64>(CHUNK_PALETTE + ((<usize>entry) << 1)) ^ ids;
    const zeroLanes = (differences - LANES16) & ~differences & (LANES16 << 15);
    if (zeroLanes != 0) {
      const index = entry + <i32>(ctz(zeroLanes) >> 4);
      return index < count ? index : -1;
    }
  }
  return -1;
}

/** palette_build without SIMD: CHUNK_TILES -> CHUNK_PALETTE + CHUNK_INDICES; palette size, or -1 past 64 ids. */
export function paletteBuildScalar(): i32 {
  let count: i32 = 0;
  // No u16 equals lastId before the first tile.
  let lastId: u32 = 0xffffffff;
  let lastIndex: i32 = 0;
  for (let tile: usize = 0; tile < <usize>CHUNK_TILE_COUNT; tile++) {
    const id = <u32>load<u16>(CHUNK_TILES + (tile << 1));
    if (id != lastId) {
      lastIndex = paletteIndexOf(id, count);
      if (lastIndex < 0) {
        if (count == PALETTE_MAX) return -1;
        store<u16>(CHUNK_PALETTE + ((<usize>count) << 1), <u16>id);
        lastIndex = count++;
      }
      lastId = id;
    }
    store<u8>(CHUNK_INDICES + tile, <u8>lastIndex);
  }
  return count;
}

/**
 * palette_expand without SIMD: CHUNK_PALETTE (first `count` entries, count in
 * 0..64) + CHUNK_INDICES -> CHUNK_TILES. Returns 0, or -1 with CHUNK_TILES
 * untouched if any index is >= count.
 */
export function paletteExpandScalar(count: i32): i32 {
  // Per byte, (b & 127) + 128 - count sets bit 7 exactly when b >= count for b < 128, without carrying into
  // the next byte; or-ing b itself flags b >= 128.
  const bias = <u64>(128 - count) * LANES8;
  let tooLarge: u64 = 0;
  for (let offset: usize = 0; offset < <usize>CHUNK_TILE_COUNT; offset += 16) {
    const first = load<u64>(CHUNK_INDICES + offset);
    const second = load<u64>(CHUNK_INDICES + offset, 8);
    tooLarge |= ((first & (LANES8 * 0x7f)) + bias) | first | ((second & (LANES8 * 0x7f)) + bias) | second;
  }
  if ((tooLarge & (LANES8 << 7)) != 0) return -1;
  for (let offset: usize = 0; offset < <usize>CHUNK_TILE_COUNT; offset += 4) {
    const four = <usize>load<u32>(CHUNK_INDICES + offset);
    const tiles =
      (<u64>load<u16>(CHUNK_PALETTE + ((four & 0xff) << 1))) |
      ((<u64>load<u16>(CHUNK_PALETTE + ((four >> 7) & 0x1fe))) << 16) |
      ((<u64>load<u16>(CHUNK_PALETTE + ((four >> 15) & 0x1fe))) << 32) |
      ((<u64>load<u16>(CHUNK_PALETTE + ((four >> 23) & 0x1fe))) << 48);
    store<u64>(CHUNK_TILES + (offset << 1), tiles);
  }
  return 0;
}
