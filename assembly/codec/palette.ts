// Local chunk palettes (docs/protocol.md, ChunkPacket `pal_count`/`palette`):
// a chunk's 1024 global tile ids (u16, row-major, protocol-decisions.md 2)
// become at most 64 distinct ids plus one 6-bit index per tile, and back.
import { CHUNK_INDICES, CHUNK_PALETTE, CHUNK_TILES, CHUNK_TILE_COUNT, PALETTE_MAX } from "../layout";

/**
 * Position of `id` among the first `count` palette entries, or `count` if absent.
 * Compares 8 entries per step; entries at or past `count` are stale data from
 * an earlier chunk, but palette ids are distinct and valid entries come first,
 * so the lowest matching lane is the answer exactly when it is below `count`.
 */
// @ts-ignore: decorator
@inline
function paletteFind(id: i32, count: i32): i32 {
  const needle = i16x8.splat(<i16>id);
  for (let base: i32 = 0; base < count; base += 8) {
    const hits = i16x8.bitmask(i16x8.eq(v128.load(CHUNK_PALETTE + ((<usize>base) << 1)), needle));
    if (hits != 0) return min(base + ctz(hits), count);
  }
  return count;
}

/**
 * palette_build: CHUNK_TILES -> CHUNK_PALETTE (distinct ids in order of first
 * appearance, row-major) + CHUNK_INDICES. Returns the palette size, or -1 if
 * the chunk has more than 64 distinct ids (outputs then unspecified).
 *
 * Chunks are mostly runs of one id: 16 tiles at a time are compared with the
 * last id seen (two v128) and, if all equal, get its index with one store.
 * Other blocks go tile by tile with the same last-id cache, searching the
 * palette 8 entries per step on a change.
 */
export function palette_build(): i32 {
  let count: i32 = 0;
  let lastId: i32 = -1; // no u16 id equals it, so the first tile always searches
  let lastIndex: i32 = 0;
  // Any splat can equal real ids (0xffff is TILE_UNKNOWN); one that differs
  // from tile 0 sends the first block down the tile-by-tile path.
  let lastIds = i16x8.splat(~load<i16>(CHUNK_TILES));
  for (let block: usize = 0; block < <usize>CHUNK_TILE_COUNT; block += 16) {
    const tiles = CHUNK_TILES + (block << 1);
    const differ = v128.or(v128.xor(v128.load(tiles), lastIds), v128.xor(v128.load(tiles, 16), lastIds));
    if (!v128.any_true(differ)) {
      v128.store(CHUNK_INDICES + block, i8x16.splat(<i8>lastIndex));
      continue;
    }
    for (let i: usize = 0; i < 16; i++) {
      const id = <i32>load<u16>(tiles + (i << 1));
      if (id != lastId) {
        let index = paletteFind(id, count);
        if (index == count) {
          if (count == PALETTE_MAX) return -1;
          store<u16>(CHUNK_PALETTE + ((<usize>count) << 1), <u16>id);
          count++;
        }
        lastId = id;
        lastIndex = index;
      }
      store<u8>(CHUNK_INDICES + block + i, <u8>lastIndex);
    }
    lastIds = i16x8.splat(<i16>lastId);
  }
  return count;
}

/**
 * palette_expand: CHUNK_PALETTE (first `count` entries) + CHUNK_INDICES ->
 * CHUNK_TILES. Returns 0, or -1 with CHUNK_TILES untouched if count is not in
 * 0..64 or any index is >= count.
 *
 * The palette is split into tables of 16 low bytes and 16 high bytes, and 16
 * tiles are looked up per step with i8x16.swizzle, which yields 0 for an index
 * outside 0..15: table t is probed with index - 16t, so exactly one table
 * answers for each index and the results can be or-ed. Only the tables the
 * count needs are probed.
 */
export function palette_expand(count: i32): i32 {
  if (<u32>count > <u32>PALETTE_MAX) return -1;
  if (!indicesBelow(count)) return -1;
  if (count <= 16) expandTables1();
  else if (count <= 32) expandTables2();
  else expandTables4();
  return 0;
}

/** Whether every index in CHUNK_INDICES is below count (count in 0..64). */
// @ts-ignore: decorator
@inline
function indicesBelow(count: i32): bool {
  let highest = i8x16.splat(0);
  for (let offset: usize = 0; offset < <usize>CHUNK_TILE_COUNT; offset += 64) {
    const p = CHUNK_INDICES + offset;
    highest = i8x16.max_u(
      i8x16.max_u(highest, i8x16.max_u(v128.load(p), v128.load(p, 16))),
      i8x16.max_u(v128.load(p, 32), v128.load(p, 48)),
    );
  }
  return !v128.any_true(i8x16.ge_u(highest, i8x16.splat(<i8>count)));
}

/** Low bytes of palette entries 16t..16t+15. */
// @ts-ignore: decorator
@inline
function lowTable(t: usize): v128 {
  const a = v128.load(CHUNK_PALETTE + (t << 5));
  const b = v128.load(CHUNK_PALETTE + (t << 5), 16);
  return i8x16.shuffle(a, b, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
}

/** High bytes of palette entries 16t..16t+15. */
// @ts-ignore: decorator
@inline
function highTable(t: usize): v128 {
  const a = v128.load(CHUNK_PALETTE + (t << 5));
  const b = v128.load(CHUNK_PALETTE + (t << 5), 16);
  return i8x16.shuffle(a, b, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
}

/** Stores 16 tiles given their low and high bytes. */
// @ts-ignore: decorator
@inline
function storeTiles(offset: usize, low: v128, high: v128): void {
  const tiles = CHUNK_TILES + (offset << 1);
  v128.store(tiles, i8x16.shuffle(low, high, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23));
  v128.store(tiles, i8x16.shuffle(low, high, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31), 16);
}

function expandTables1(): void {
  const low0 = lowTable(0);
  const high0 = highTable(0);
  for (let offset: usize = 0; offset < <usize>CHUNK_TILE_COUNT; offset += 16) {
    const index = v128.load(CHUNK_INDICES + offset);
    storeTiles(offset, i8x16.swizzle(low0, index), i8x16.swizzle(high0, index));
  }
}

function expandTables2(): void {
  const low0 = lowTable(0);
  const high0 = highTable(0);
  const low1 = lowTable(1);
  const high1 = highTable(1);
  const sixteen = i8x16.splat(16);
  for (let offset: usize = 0; offset < <usize>CHUNK_TILE_COUNT; offset += 16) {
    const index0 = v128.load(CHUNK_INDICES + offset);
    const index1 = i8x16.sub(index0, sixteen);
    storeTiles(
      offset,
      v128.or(i8x16.swizzle(low0, index0), i8x16.swizzle(low1, index1)),
      v128.or(i8x16.swizzle(high0, index0), i8x16.swizzle(high1, index1)),
    );
  }
}

function expandTables4(): void {
  const low0 = lowTable(0);
  const high0 = highTable(0);
  const low1 = lowTable(1);
  const high1 = highTable(1);
  const low2 = lowTable(2);
  const high2 = highTable(2);
  const low3 = lowTable(3);
  const high3 = highTable(3);
  const sixteen = i8x16.splat(16);
  for (let offset: usize = 0; offset < <usize>CHUNK_TILE_COUNT; offset += 16) {
    const index0 = v128.load(CHUNK_INDICES + offset);
    const index1 = i8x16.sub(index0, sixteen);
    const index2 = i8x16.sub(index1, sixteen);
    const index3 = i8x16.sub(index2, sixteen);
    storeTiles(
      offset,
      v128.or(
        v128.or(i8x16.swizzle(low0, index0), i8x16.swizzle(low1, index1)),
        v128.or(i8x16.swizzle(low2, index2), i8x16.swizzle(low3, index3)),
      ),
      v128.or(
        v128.or(i8x16.swizzle(high0, index0), i8x16.swizzle(high1, index1)),
        v128.or(i8x16.swizzle(high2, index2), i8x16.swizzle(high3, index3)),
      ),
    );
  }
}
