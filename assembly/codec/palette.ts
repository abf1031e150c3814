// Local chunk palettes (docs/protocol.md, ChunkPacket `pal_count`/`palette`):
// a chunk's 1024 global tile ids (u16, row-major, protocol-decisions.md 2)
// become at most 64 distinct ids plus one 6-bit index per tile, and back.
//
// Without SIMD (asc --disable simd: build/core-scalar.wasm, for hosts such as
// wasm2c 1.0.32 that cannot run v128) both exports take the scalar path in
// palette-scalar.ts; asc compiles only the branch ASC_FEATURE_SIMD selects.
import { CHUNK_INDICES, CHUNK_PALETTE, CHUNK_TILES, CHUNK_TILE_COUNT, PALETTE_MAX } from "../layout";
import { paletteBuildScalar, paletteExpandScalar } from "./palette-scalar";

/**
 * 1 + palette index of each of 16 tiles (i8x16; 0 = not in the palette) by
 * direct lookup, for palettes whose ids are all below 64: `tables` t holds, at
 * byte i, 1 + the index of id 16t + i. Ids are clamped to 255 before narrowing
 * to bytes, and i8x16.swizzle yields 0 for any byte index outside 0..15, so
 * each id finds its value in at most one table and larger ids find 0.
 */
// @ts-ignore: decorator
@inline
function lookupSmallIds(a: v128, b: v128, table0: v128, table1: v128, table2: v128, table3: v128): v128 {
  const clamp = i16x8.splat(255);
  const id0 = i8x16.narrow_i16x8_u(i16x8.min_u(a, clamp), i16x8.min_u(b, clamp));
  const sixteen = i8x16.splat(16);
  const id1 = i8x16.sub(id0, sixteen);
  const id2 = i8x16.sub(id1, sixteen);
  const id3 = i8x16.sub(id2, sixteen);
  return v128.or(
    v128.or(i8x16.swizzle(table0, id0), i8x16.swizzle(table1, id1)),
    v128.or(i8x16.swizzle(table2, id2), i8x16.swizzle(table3, id3)),
  );
}

/**
 * 1 + palette index of each of 16 tiles (i8x16; 0 = not in the palette) by
 * comparing them with every entry (count >= 1). Index = the number of m in
 * 1..count-1 with the tile among entries m..count-1: walking the entries
 * downwards, `seen` collects the lanes matched so far, and subtracting it
 * (-1 per matched lane) counts. No per-entry constants, so nothing for V8 to
 * rematerialize in the loop. Adding 1 is subtracting the final match mask.
 */
// @ts-ignore: decorator
@inline
function lookupByCompare(a: v128, b: v128, count: i32): v128 {
  let seenA = i16x8.splat(0);
  let seenB = seenA;
  let indexA = seenA;
  let indexB = seenA;
  for (let entry = <usize>(count - 1); entry > 0; entry--) {
    const id = v128.load16_splat(CHUNK_PALETTE + (entry << 1));
    seenA = v128.or(seenA, i16x8.eq(a, id));
    seenB = v128.or(seenB, i16x8.eq(b, id));
    indexA = i16x8.sub(indexA, seenA);
    indexB = i16x8.sub(indexB, seenB);
  }
  const first = v128.load16_splat(CHUNK_PALETTE);
  seenA = v128.or(seenA, i16x8.eq(a, first));
  seenB = v128.or(seenB, i16x8.eq(b, first));
  return i8x16.narrow_i16x8_u(i16x8.sub(indexA, seenA), i16x8.sub(indexB, seenB));
}

/** Adds `value` at byte (id - base) of a small-id table (no change if id is outside base..base+15). */
// @ts-ignore: decorator
@inline
function tableWith(table: v128, id: i32, value: i32, base: i32): v128 {
  const lane = i8x16.eq(i8x16.splat(<i8>(id - base)), i8x16(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
  return v128.or(table, v128.and(lane, i8x16.splat(<i8>value)));
}

/**
 * palette_build: CHUNK_TILES -> CHUNK_PALETTE (distinct ids in order of first
 * appearance, row-major) + CHUNK_INDICES. Returns the palette size, or -1 if
 * the chunk has more than 64 distinct ids (outputs then unspecified).
 *
 * Works on blocks of 16 tiles (two v128), cheapest test first:
 * 1. all 16 equal the previous tile (runs of wall or floor): one splat store;
 * 2. otherwise look every tile up at once: while all palette ids are below
 *    64 (the bundled map's ids are 1..16) by table (lookupSmallIds), else by
 *    comparing with each entry (lookupByCompare);
 * 3. tiles still missing carry new ids: the first missing lane is the next
 *    id in order of first appearance, so append it, mark every lane equal to
 *    it, and repeat. This runs at most 64 times per chunk.
 * No scratch memory: the tables and block state live in v128 locals.
 */
export function palette_build(): i32 {
  if (ASC_FEATURE_SIMD) {
    let count: i32 = 0;
    let lastIndex: i32 = 0;
    // Any splat can equal real ids (0xffff is TILE_UNKNOWN); one that differs
    // from tile 0 keeps the first block off the run path.
    let lastIds = i16x8.splat(~load<i16>(CHUNK_TILES));
    let smallIds = true;
    let table0 = i8x16.splat(0);
    let table1 = table0;
    let table2 = table0;
    let table3 = table0;
    for (let block: usize = 0; block < <usize>CHUNK_TILE_COUNT; block += 16) {
      const tiles = CHUNK_TILES + (block << 1);
      const a = v128.load(tiles);
      const b = v128.load(tiles, 16);
      if (!v128.any_true(v128.or(v128.xor(a, lastIds), v128.xor(b, lastIds)))) {
        v128.store(CHUNK_INDICES + block, i8x16.splat(<i8>lastIndex));
        continue;
      }
      lastIds = v128.load16_splat(tiles, 30);
      let found = smallIds ? lookupSmallIds(a, b, table0, table1, table2, table3) : lookupByCompare(a, b, count);
      let missing = i8x16.bitmask(i8x16.eq(found, i8x16.splat(0)));
      while (missing != 0) {
        if (count == PALETTE_MAX) return -1;
        const id = load<u16>(tiles + ((<usize>ctz(missing)) << 1));
        store<u16>(CHUNK_PALETTE + ((<usize>count) << 1), id);
        count++;
        const ids = i16x8.splat(id);
        const same = i8x16.narrow_i16x8_s(i16x8.eq(a, ids), i16x8.eq(b, ids));
        found = v128.or(found, v128.and(same, i8x16.splat(<i8>count)));
        missing &= ~i8x16.bitmask(same);
        if (id >= 64) smallIds = false;
        else if (smallIds) {
          table0 = tableWith(table0, id, count, 0);
          table1 = tableWith(table1, id, count, 16);
          table2 = tableWith(table2, id, count, 32);
          table3 = tableWith(table3, id, count, 48);
        }
      }
      const indices = i8x16.sub(found, i8x16.splat(1));
      v128.store(CHUNK_INDICES + block, indices);
      lastIndex = i8x16.extract_lane_u(indices, 15);
    }
    return count;
  } else {
    return paletteBuildScalar();
  }
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
  if (ASC_FEATURE_SIMD) {
    if (!indicesBelow(count)) return -1;
    if (count <= 16) expandTables1();
    else if (count <= 32) expandTables2();
    else expandTables4();
    return 0;
  } else {
    return paletteExpandScalar(count);
  }
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
