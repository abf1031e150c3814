// The lighting pass (issue 15, docs/wasm-abi.md § Light): darkens a rectangle of
// the framebuffer by a light level per tile. LIGHT_MAP holds one level per tile
// of the view (rows of `mapWidth`), LIGHT_TABLES one 256-byte darkening table per
// level; each pixel becomes TABLE[level][pixel]. One call per frame, no per-pixel
// work on the host: the host writes the levels (ambient light, light sources) and,
// once, the tables.
//
// Speed: neighbouring tiles of one level form one run. When a level's table is
// channel-separable (each of r, g, b depends only on its own bits — true for the
// client's tables, which scale each channel), 16 pixels of a run go through three
// 8-entry byte swizzles per step, as fb_to_rgba does, and a remaining 8 (a run of
// one tile) through the same swizzles on half a vector; any other table, and the
// last few pixels of runs, take the per-pixel look-up. Both give TABLE[level][pixel] exactly.
import { LIGHT_LEVELS, LIGHT_MAP, LIGHT_MAP_MAX, LIGHT_TABLES } from "../layout";
import { fbBase, fbWidth } from "./target";
import { clipBottom, clipLeft, clipRight, clipTop, setClip } from "./clip";

const TILE_SHIFT: i32 = 3;

// Per level, for this call, in a static data segment (the module never allocates): a state byte —
// 0 not looked at yet, 1 separable, 2 not — then its red, green and blue swizzle tables (u64 each).
const LEVEL_STATE: usize = memory.data(16, 16);
const LEVEL_TABLES: usize = memory.data(16 * 3 * 8, 16);

/** Forgets what shadeRun learnt of the tables: each call that may follow a change of LIGHT_TABLES starts with it. */
export function forgetLevels(): void {
  memory.fill(LEVEL_STATE, 0, 16);
}

/** Whether table `level` is channel-separable; fills its channel tables when it is. */
function separableLevel(level: i32): bool {
  const known = load<u8>(LEVEL_STATE + <usize>level);
  if (known != 0) return known == 1;
  const table = LIGHT_TABLES + ((<usize>level) << 8);
  let red: u64 = 0;
  let green: u64 = 0;
  let blue: u64 = 0;
  for (let i = 0; i < 8; i++) {
    red |= (<u64>(load<u8>(table + <usize>(i << 5)) >> 5)) << (i << 3);
    green |= (<u64>((load<u8>(table + <usize>(i << 2)) >> 2) & 7)) << (i << 3);
  }
  for (let i = 0; i < 4; i++) blue |= (<u64>(load<u8>(table + <usize>i) & 3)) << (i << 3);
  let ok = true;
  for (let c = 0; c < 256 && ok; c++) {
    const expected =
      (((<u32>(red >> ((c >> 5) << 3))) & 7) << 5) |
      (((<u32>(green >> (((c >> 2) & 7) << 3))) & 7) << 2) |
      ((<u32>(blue >> ((c & 3) << 3))) & 3);
    if (<u32>load<u8>(table + <usize>c) != expected) ok = false;
  }
  store<u8>(LEVEL_STATE + <usize>level, ok ? 1 : 2);
  const tables = LEVEL_TABLES + <usize>level * 24;
  store<u64>(tables, red);
  store<u64>(tables, green, 8);
  store<u64>(tables, blue, 16);
  return ok;
}

/** Pixels [from, to) of a row through one level's table (light_bake darkens its cells with it too). */
export function shadeRun(row: usize, from: i32, to: i32, level: i32): void {
  let px = from;
  if (ASC_FEATURE_SIMD) {
    // Torch pools make runs of one 8-px tile: those take the 8-pixel step below, not the look-up.
    if (to - px >= 8 && separableLevel(level)) {
      const tables = LEVEL_TABLES + <usize>level * 24;
      const reds = i64x2.splat(load<u64>(tables));
      const greens = i64x2.splat(load<u64>(tables, 8));
      const blues = i64x2.splat(load<u64>(tables, 16));
      const sevens = i8x16.splat(7);
      const threes = i8x16.splat(3);
      for (; px + 16 <= to; px += 16) {
        const at = row + <usize>px;
        const pixels = v128.load(at);
        const red = i8x16.swizzle(reds, i8x16.shr_u(pixels, 5));
        const green = i8x16.swizzle(greens, v128.and(i8x16.shr_u(pixels, 2), sevens));
        const blue = i8x16.swizzle(blues, v128.and(pixels, threes));
        v128.store(at, v128.or(v128.or(i8x16.shl(red, 5), i8x16.shl(green, 2)), blue));
      }
      if (px + 8 <= to) {
        // The same swizzles over the low eight lanes; only those eight bytes are stored.
        const at = row + <usize>px;
        const pixels = v128.load64_zero(at);
        const red = i8x16.swizzle(reds, i8x16.shr_u(pixels, 5));
        const green = i8x16.swizzle(greens, v128.and(i8x16.shr_u(pixels, 2), sevens));
        const blue = i8x16.swizzle(blues, v128.and(pixels, threes));
        v128.store64_lane(at, v128.or(v128.or(i8x16.shl(red, 5), i8x16.shl(green, 2)), blue), 0);
        px += 8;
      }
    }
  }
  const table = LIGHT_TABLES + ((<usize>level) << 8);
  for (; px < to; px++) {
    const at = row + <usize>px;
    store<u8>(at, load<u8>(table + <usize>load<u8>(at)));
  }
}

/**
 * Darkens [x, x + w) × [y, y + h) (clipped to the framebuffer). The pixel at (px, py) lies in tile
 * ((px − originX) >> 3, (py − originY) >> 3) of the light map — tiles are 8 px, originX/Y is where
 * light-map tile (0, 0) starts on screen (it may be negative: the first tile partly off-screen).
 * Tiles outside [0, mapWidth) × [0, mapHeight) take the level of the nearest edge tile; a map
 * larger than LIGHT_MAP_MAX does nothing. Levels are taken modulo LIGHT_LEVELS.
 */
export function light_apply(
  x: i32,
  y: i32,
  w: i32,
  h: i32,
  originX: i32,
  originY: i32,
  mapWidth: i32,
  mapHeight: i32,
): void {
  if (mapWidth <= 0 || mapHeight <= 0 || <i64>mapWidth * <i64>mapHeight > <i64>LIGHT_MAP_MAX) return;
  // The rectangle clipped to the framebuffer, the way every blit kernel clips (clip.ts).
  if (!setClip(x, y, w, h)) return;
  const left = clipLeft;
  const top = clipTop;
  const right = clipRight;
  const bottom = clipBottom;
  // The tables may have changed since the last call: look at each level afresh.
  forgetLevels();
  const levelMask = LIGHT_LEVELS - 1;
  const end = right;
  for (let py = top; py < bottom; py++) {
    let ty = (py - originY) >> TILE_SHIFT;
    if (ty < 0) ty = 0;
    if (ty >= mapHeight) ty = mapHeight - 1;
    const mapRow = LIGHT_MAP + <usize>(ty * mapWidth);
    const row = fbBase + <usize>(py * fbWidth);
    let px = left;
    let runStart = px;
    let runLevel = -1;
    while (px < end) {
      let tx = (px - originX) >> TILE_SHIFT;
      // The pixels sharing this tile: to the tile's right edge, or the rectangle's.
      let tileEnd = ((tx + 1) << TILE_SHIFT) + originX;
      if (tx < 0) {
        tx = 0;
        tileEnd = originX + (1 << TILE_SHIFT);
      } else if (tx >= mapWidth) {
        tx = mapWidth - 1;
        tileEnd = end;
      }
      if (tileEnd > end || tileEnd <= px) tileEnd = end;
      const level = (<i32>load<u8>(mapRow + <usize>tx)) & levelMask;
      if (level != runLevel) {
        if (runLevel >= 0) shadeRun(row, runStart, px, runLevel);
        runStart = px;
        runLevel = level;
      }
      px = tileEnd;
    }
    if (runLevel >= 0) shadeRun(row, runStart, end, runLevel);
  }
}
