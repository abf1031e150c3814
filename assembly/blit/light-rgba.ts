// The lit conversion (issue 15, docs/wasm-abi.md § Light): the lighting pass folded
// into the framebuffer → RGBA conversion, so the lit viewport costs about what
// converting it costs and no second read-modify-write of the framebuffer is made.
//
// light_view names the lit rectangle and the light map over it for this frame;
// fb_to_rgba_lit then converts every framebuffer pixel, those of the rectangle as
// RGBA = RGB332_LUT[LIGHT_TABLES[level][pixel]] (the level of the light-map cell the pixel lies
// in, edge cells extending outwards as light_apply's do), every other one as fb_to_rgba does.
// Overlays that must stay bright over a lit world (labels, damage numbers, a banner) are
// drawn after light_bake has darkened the cells under them in the framebuffer itself (the
// separate pass, over those cells only) and marked them LIGHT_BAKED: a baked cell converts
// without its level, so its world pixels come out exactly as lit ones and the overlay's at
// full brightness. ts/ref/blit.ts (lightView, lightBake, fbToRgbaLit) is the JS reference.
//
// Speed: the cells of one light-map row give the same runs of equal level to its 8 pixel
// rows, so the runs are found once per cell row. When RGB332_LUT and a level's table are
// channel-separable (the client's are), the level's composed table is three 8-entry byte
// tables and 16 pixels convert per step through byte swizzles, as fb_to_rgba does. A run's
// last step may convert up to 15 pixels past its end: every pixel is converted in order
// within this call, so the run or span after it writes them again (the steps never pass the
// framebuffer's last pixel; what is left there takes the per-pixel look-up, as does any
// table that is not separable).
import { LIGHT_BAKED, LIGHT_LEVELS, LIGHT_MAP, LIGHT_MAP_MAX, LIGHT_TABLES, RGB332_LUT } from "../layout";
import { fbBase, fbHeight, fbWidth, rgbaBase } from "./target";
import { storeRgba16 } from "./rgba";
import { clipBottom, clipLeft, clipRight, clipTop, setClip } from "./clip";
import { forgetLevels, shadeRun } from "./light";

const TILE_SHIFT: i32 = 3;
/** The pseudo-level of pixels converted without light: outside the view, and baked cells. */
const PLAIN: i32 = LIGHT_LEVELS;
const ORIGIN_LIMIT: i32 = 0x40000000;

// This frame's view (light_view).
let viewSet = false;
let viewX: i32 = 0;
let viewY: i32 = 0;
let viewW: i32 = 0;
let viewH: i32 = 0;
let originX: i32 = 0;
let originY: i32 = 0;
let mapWidth: i32 = 0;
let mapHeight: i32 = 0;

// Per level and PLAIN, for one call, in static data (the module never allocates): a state byte —
// 0 not looked at yet, 1 separable, 2 not — and the composed R, G, B byte tables (u64 each).
const LEVEL_STATE: usize = memory.data(32, 16);
const LEVEL_RGB: usize = memory.data((LIGHT_LEVELS + 1) * 24, 16);
// RGB332_LUT's own channel tables and alpha, and whether it is separable, for one call.
let lutRed: u64 = 0;
let lutGreen: u64 = 0;
let lutBlue: u64 = 0;
let lutAlpha: u32 = 0;
let lutSeparable = false;
// The runs of one cell row: u16 start, u16 end (pixels), u8 level, 3 pad. A row of the widest
// framebuffer (FB_MAX_WIDTH 1040) has at most 1040 / 8 + 2 runs.
const RUNS_MAX: i32 = 256;
const RUNS: usize = memory.data(RUNS_MAX * 8, 16);

/**
 * Sets the lit view for fb_to_rgba_lit and light_bake: the rectangle [x, x + w) × [y, y + h) (clipped
 * to the framebuffer when used) lit by LIGHT_MAP, a map of mapWidth × mapHeight cells of 8 × 8 px
 * whose cell (0, 0) starts at screen (origin_x, origin_y), as light_apply reads it. Returns 0, or −1
 * (and no view: fb_to_rgba_lit then converts as fb_to_rgba) for an empty rectangle, an empty map,
 * one larger than LIGHT_MAP_MAX, or an origin beyond ±2³⁰.
 */
export function light_view(
  x: i32,
  y: i32,
  w: i32,
  h: i32,
  origin_x: i32,
  origin_y: i32,
  map_width: i32,
  map_height: i32,
): i32 {
  viewSet = false;
  if (w <= 0 || h <= 0) return -1;
  if (map_width <= 0 || map_height <= 0 || <i64>map_width * <i64>map_height > <i64>LIGHT_MAP_MAX) return -1;
  if (origin_x < -ORIGIN_LIMIT || origin_x > ORIGIN_LIMIT || origin_y < -ORIGIN_LIMIT || origin_y > ORIGIN_LIMIT) {
    return -1;
  }
  viewX = x;
  viewY = y;
  viewW = w;
  viewH = h;
  originX = origin_x;
  originY = origin_y;
  mapWidth = map_width;
  mapHeight = map_height;
  viewSet = true;
  return 0;
}

/**
 * Bakes the view's cells that overlap [x, x + w) × [y, y + h): each one not yet baked has its pixels
 * (within the view) darkened in the framebuffer by its level's table, as light_apply would, and is
 * marked LIGHT_BAKED in LIGHT_MAP, so fb_to_rgba_lit converts it unlit. Called before drawing
 * something over the lit world that must keep its own colours; a cell is darkened once however many
 * overlays cover it. Nothing without a view.
 */
export function light_bake(x: i32, y: i32, w: i32, h: i32): void {
  if (!viewSet || !setClip(viewX, viewY, viewW, viewH)) return;
  const litLeft = clipLeft;
  const litTop = clipTop;
  const litRight = clipRight;
  const litBottom = clipBottom;
  if (!setClip(x, y, w, h)) return;
  const left = max(clipLeft, litLeft);
  const top = max(clipTop, litTop);
  const right = min(clipRight, litRight);
  const bottom = min(clipBottom, litBottom);
  if (left >= right || top >= bottom) return;
  const firstX = cellOf(left, originX, mapWidth);
  const lastX = cellOf(right - 1, originX, mapWidth);
  const firstY = cellOf(top, originY, mapHeight);
  const lastY = cellOf(bottom - 1, originY, mapHeight);
  forgetLevels();
  for (let cy = firstY; cy <= lastY; cy++) {
    // The cell's pixel rows within the view; edge cells reach the view's edge.
    const rowFrom = cy == 0 ? litTop : max(litTop, originY + (cy << TILE_SHIFT));
    const rowTo = cy == mapHeight - 1 ? litBottom : min(litBottom, originY + ((cy + 1) << TILE_SHIFT));
    for (let cx = firstX; cx <= lastX; cx++) {
      const at = LIGHT_MAP + <usize>(cy * mapWidth + cx);
      const cell = <i32>load<u8>(at);
      if ((cell & LIGHT_BAKED) != 0) continue;
      const from = cx == 0 ? litLeft : max(litLeft, originX + (cx << TILE_SHIFT));
      const to = cx == mapWidth - 1 ? litRight : min(litRight, originX + ((cx + 1) << TILE_SHIFT));
      if (from < to) {
        for (let py = rowFrom; py < rowTo; py++) {
          shadeRun(fbBase + <usize>(py * fbWidth), from, to, cell & (LIGHT_LEVELS - 1));
        }
      }
      store<u8>(at, <u8>(cell | LIGHT_BAKED));
    }
  }
}

/** The cell of a map `cells` wide that pixel coordinate `p` lies in, edge cells extending outwards. */
function cellOf(p: i32, origin: i32, cells: i32): i32 {
  let cell = (p - origin) >> TILE_SHIFT;
  if (cell < 0) cell = 0;
  if (cell >= cells) cell = cells - 1;
  return cell;
}

/**
 * The whole framebuffer to RGBA: the pixels of light_view's rectangle through their cell's level
 * (RGB332_LUT[LIGHT_TABLES[level][pixel]], levels modulo LIGHT_LEVELS; a baked cell's and every other
 * pixel RGB332_LUT[pixel], as fb_to_rgba). Without a view it is fb_to_rgba.
 */
export function fb_to_rgba_lit(): void {
  const total = fbWidth * fbHeight;
  memory.fill(LEVEL_STATE, 0, 32);
  lutSeparable = ASC_FEATURE_SIMD ? readLut() : false;
  if (!viewSet || !setClip(viewX, viewY, viewW, viewH)) {
    convertRun(0, total, PLAIN, total);
    return;
  }
  const left = clipLeft;
  const top = clipTop;
  const right = clipRight;
  const bottom = clipBottom;
  let plainFrom = 0;
  let cellRow = -1;
  let runs = 0;
  let pairs = -1;
  for (let py = top; py < bottom; py++) {
    const ty = cellOf(py, originY, mapHeight);
    if (ty != cellRow) {
      // The pairs when every level of the row is separable, else the runs.
      pairs = ASC_FEATURE_SIMD ? findPairs(ty, left, right) : -1;
      if (pairs < 0) runs = findRuns(ty, left, right);
      cellRow = ty;
    }
    const rowStart = py * fbWidth;
    // The unlit span from the previous row's right edge to this row's left one, then the lit row.
    convertRun(plainFrom, rowStart + left, PLAIN, total);
    if (ASC_FEATURE_SIMD && pairs >= 0) {
      convertPairs(rowStart, left, right, pairs, total);
    } else {
      for (let i = 0; i < runs; i++) {
        const run = RUNS + ((<usize>i) << 3);
        convertRun(rowStart + <i32>load<u16>(run), rowStart + <i32>load<u16>(run, 2), <i32>load<u8>(run, 4), total);
      }
    }
    plainFrom = rowStart + right;
  }
  convertRun(plainFrom, total, PLAIN, total);
}

/** The level a light-map byte converts with: PLAIN when baked, else its level modulo LIGHT_LEVELS. */
function levelOf(cell: i32): i32 {
  return (cell & LIGHT_BAKED) != 0 ? PLAIN : cell & (LIGHT_LEVELS - 1);
}

// The SIMD path of a cell row: 16-pixel steps that start on cell edges, so each step's low 8 lanes lie in
// one cell and its high 8 in the next. PAIRS holds, per step, the two cells' composed R, G and B tables side
// by side (16 bytes each: a swizzle table whose high half the high lanes index, by adding 8), built once
// per cell row; a step then costs what fb_to_rgba's does plus three loads and three ORs, however the
// levels vary — no per-run setup. Entry 0 is the head: the cell of the row's first pixel in both halves,
// for the pixels before the first cell edge (its other lanes are written again by the steps after it).
const PAIRS_MAX: i32 = 80;
const PAIRS: usize = memory.data(PAIRS_MAX * 48, 16);
/** The first cell edge at or right of the view's left edge, for this cell row. */
let pairsStart: i32 = 0;

/** Writes PAIRS for cell row `ty` over pixels [left, right); −1 when a level is not separable (use the runs). */
function findPairs(ty: i32, left: i32, right: i32): i32 {
  const mapRow = LIGHT_MAP + <usize>(ty * mapWidth);
  // Cell edges lie at originX + 8k; the first one at or after `left`.
  const start = originX + (((left - originX + 7) >> TILE_SHIFT) << TILE_SHIFT);
  pairsStart = start;
  const steps = start < right ? (right - start + 15) >> 4 : 0;
  if (steps + 1 > PAIRS_MAX) return -1;
  const head = levelOf(<i32>load<u8>(mapRow + <usize>cellOf(left, originX, mapWidth)));
  if (!separableLevel(head)) return -1;
  storePair(PAIRS, head, head);
  for (let i = 0; i < steps; i++) {
    const at = start + (i << 4);
    const low = levelOf(<i32>load<u8>(mapRow + <usize>cellOf(at, originX, mapWidth)));
    const high = levelOf(<i32>load<u8>(mapRow + <usize>cellOf(at + 8, originX, mapWidth)));
    if (!separableLevel(low) || !separableLevel(high)) return -1;
    storePair(PAIRS + <usize>(i + 1) * 48, low, high);
  }
  return steps;
}

function storePair(entry: usize, low: i32, high: i32): void {
  const a = LEVEL_RGB + <usize>low * 24;
  const b = LEVEL_RGB + <usize>high * 24;
  store<u64>(entry, load<u64>(a));
  store<u64>(entry, load<u64>(b), 8);
  store<u64>(entry, load<u64>(a, 8), 16);
  store<u64>(entry, load<u64>(b, 8), 24);
  store<u64>(entry, load<u64>(a, 16), 32);
  store<u64>(entry, load<u64>(b, 16), 40);
}

/** Row `rowStart`'s pixels [left, right) through PAIRS (findPairs' `steps`). */
function convertPairs(rowStart: i32, left: i32, right: i32, steps: i32, total: i32): void {
  const last = total - 16;
  const highLanes = i8x16(0, 0, 0, 0, 0, 0, 0, 0, 8, 8, 8, 8, 8, 8, 8, 8);
  const alphas = i8x16.splat(<i8>lutAlpha);
  const sevens = i8x16.splat(7);
  const threes = i8x16.splat(3);
  let px = rowStart + left;
  let entry = PAIRS;
  let count = steps;
  if (left < pairsStart) {
    // The head step from the view's left edge (pixels before the first cell edge), both halves its cell.
    count++;
  } else {
    entry += 48;
  }
  for (let i = 0; i < count; i++, entry += 48) {
    if (px > last) {
      // The framebuffer's last pixels: no 16-pixel step fits; per pixel, each through its own cell.
      convertTail(px, rowStart + right, rowStart);
      return;
    }
    const pixels = v128.load(fbBase + <usize>px);
    // 16-bit shifts (one instruction on x64, where a byte shift is several) masked to the channel's 3 bits.
    const red = i8x16.swizzle(v128.load(entry), v128.or(v128.and(i16x8.shr_u(pixels, 5), sevens), highLanes));
    const green = i8x16.swizzle(v128.load(entry, 16), v128.or(v128.and(i16x8.shr_u(pixels, 2), sevens), highLanes));
    const blue = i8x16.swizzle(v128.load(entry, 32), v128.or(v128.and(pixels, threes), highLanes));
    storeRgba16(rgbaBase + ((<usize>px) << 2), red, green, blue, alphas);
    // After the head, the steps start on cell edges.
    px = i == 0 && left < pairsStart ? rowStart + pairsStart : px + 16;
  }
}

/** Pixels [from, to) of the row starting at `rowStart`, one by one, each through its cell's level. */
function convertTail(from: i32, to: i32, rowStart: i32): void {
  const py = rowStart / fbWidth;
  const mapRow = LIGHT_MAP + <usize>(cellOf(py, originY, mapHeight) * mapWidth);
  for (let px = from; px < to; px++) {
    const level = levelOf(<i32>load<u8>(mapRow + <usize>cellOf(px - rowStart, originX, mapWidth)));
    let colour = <usize>load<u8>(fbBase + <usize>px);
    if (level != PLAIN) colour = <usize>load<u8>(LIGHT_TABLES + ((<usize>level) << 8) + colour);
    store<u32>(rgbaBase + ((<usize>px) << 2), load<u32>(RGB332_LUT + (colour << 2)));
  }
}

/** Writes RUNS for cell row `ty` over pixels [left, right): neighbouring cells of one level (or baked) form one run. */
function findRuns(ty: i32, left: i32, right: i32): i32 {
  const mapRow = LIGHT_MAP + <usize>(ty * mapWidth);
  let count = 0;
  let runStart = left;
  let runLevel = -1;
  let px = left;
  while (px < right) {
    const tx = cellOf(px, originX, mapWidth);
    // The pixels sharing this cell: to its right edge (the last cell reaches the view's), or the view's.
    let cellEnd = tx == mapWidth - 1 ? right : originX + ((tx + 1) << TILE_SHIFT);
    if (cellEnd > right || cellEnd <= px) cellEnd = right;
    const level = levelOf(<i32>load<u8>(mapRow + <usize>tx));
    if (level != runLevel) {
      if (runLevel >= 0) count = addRun(count, runStart, px, runLevel);
      runStart = px;
      runLevel = level;
    }
    px = cellEnd;
  }
  if (runLevel >= 0) count = addRun(count, runStart, right, runLevel);
  return count;
}

function addRun(count: i32, from: i32, to: i32, level: i32): i32 {
  // A row meets at most (right − left) / 8 + 2 cells, 132 at FB_MAX_WIDTH: RUNS_MAX is not reached.
  if (count >= RUNS_MAX) {
    store<u16>(RUNS + ((<usize>(RUNS_MAX - 1)) << 3), <u16>to, 2);
    return count;
  }
  const run = RUNS + ((<usize>count) << 3);
  store<u16>(run, <u16>from);
  store<u16>(run, <u16>to, 2);
  store<u8>(run, <u8>level, 4);
  return count + 1;
}

/** Reads RGB332_LUT's channel tables and alpha; whether it is channel-separable (as fb_to_rgba checks). */
function readLut(): bool {
  lutAlpha = load<u32>(RGB332_LUT) >>> 24;
  let red: u64 = 0;
  let green: u64 = 0;
  let blue: u64 = 0;
  for (let i = 0; i < 8; i++) {
    red |= (<u64>(load<u32>(RGB332_LUT + ((<usize>(i << 5)) << 2)) & 0xff)) << (i << 3);
    green |= (<u64>((load<u32>(RGB332_LUT + ((<usize>(i << 2)) << 2)) >>> 8) & 0xff)) << (i << 3);
  }
  for (let i = 0; i < 4; i++) blue |= (<u64>((load<u32>(RGB332_LUT + ((<usize>i) << 2)) >>> 16) & 0xff)) << (i << 3);
  lutRed = red;
  lutGreen = green;
  lutBlue = blue;
  for (let c = 0; c < 256; c++) {
    const expected =
      ((<u32>(red >> ((c >> 5) << 3))) & 0xff) |
      (((<u32>(green >> (((c >> 2) & 7) << 3))) & 0xff) << 8) |
      (((<u32>(blue >> ((c & 3) << 3))) & 0xff) << 16) |
      (lutAlpha << 24);
    if (load<u32>(RGB332_LUT + ((<usize>c) << 2)) != expected) return false;
  }
  return true;
}

/**
 * Whether `level` converts through byte swizzles: RGB332_LUT is separable and so is the level's table
 * (each of its r, g, b outputs depends only on that channel's input), checked 16 colours a step; then
 * its composed tables (LUT channel ∘ table channel) are in LEVEL_RGB. PLAIN is RGB332_LUT's own.
 */
function separableLevel(level: i32): bool {
  const known = load<u8>(LEVEL_STATE + <usize>level);
  if (known != 0) return known == 1;
  let ok = lutSeparable;
  let red: u64 = lutRed;
  let green: u64 = lutGreen;
  let blue: u64 = lutBlue;
  if (ok && level != PLAIN) {
    const table = LIGHT_TABLES + ((<usize>level) << 8);
    // The table's own channel tables: 3-bit red and green, 2-bit blue.
    let tableRed: u64 = 0;
    let tableGreen: u64 = 0;
    let tableBlue: u64 = 0;
    for (let i = 0; i < 8; i++) {
      tableRed |= (<u64>(load<u8>(table + <usize>(i << 5)) >> 5)) << (i << 3);
      tableGreen |= (<u64>((load<u8>(table + <usize>(i << 2)) >> 2) & 7)) << (i << 3);
    }
    for (let i = 0; i < 4; i++) tableBlue |= (<u64>(load<u8>(table + <usize>i) & 3)) << (i << 3);
    const reds = i64x2.splat(tableRed);
    const greens = i64x2.splat(tableGreen);
    const blues = i64x2.splat(tableBlue);
    const sevens = i8x16.splat(7);
    const threes = i8x16.splat(3);
    let colours = i8x16(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const sixteen = i8x16.splat(16);
    for (let c = 0; c < 256 && ok; c += 16) {
      const r = i8x16.swizzle(reds, i8x16.shr_u(colours, 5));
      const g = i8x16.swizzle(greens, v128.and(i8x16.shr_u(colours, 2), sevens));
      const b = i8x16.swizzle(blues, v128.and(colours, threes));
      const expected = v128.or(v128.or(i8x16.shl(r, 5), i8x16.shl(g, 2)), b);
      if (!i8x16.all_true(i8x16.eq(expected, v128.load(table + <usize>c)))) ok = false;
      colours = i8x16.add(colours, sixteen);
    }
    red = 0;
    green = 0;
    blue = 0;
    for (let i = 0; i < 8; i++) {
      const shift = <u64>(i << 3);
      red |= ((lutRed >> (((tableRed >> shift) & 7) << 3)) & 0xff) << shift;
      green |= ((lutGreen >> (((tableGreen >> shift) & 7) << 3)) & 0xff) << shift;
    }
    for (let i = 0; i < 4; i++) {
      const shift = <u64>(i << 3);
      blue |= ((lutBlue >> (((tableBlue >> shift) & 3) << 3)) & 0xff) << shift;
    }
  }
  store<u8>(LEVEL_STATE + <usize>level, ok ? 1 : 2);
  const tables = LEVEL_RGB + <usize>level * 24;
  store<u64>(tables, red);
  store<u64>(tables, green, 8);
  store<u64>(tables, blue, 16);
  return ok;
}

/** Framebuffer pixels [from, to) (indices from the first pixel) to RGBA through `level` (PLAIN: no light). */
function convertRun(from: i32, to: i32, level: i32, total: i32): void {
  let px = from;
  if (ASC_FEATURE_SIMD) {
    if (to > px && separableLevel(level)) {
      const tables = LEVEL_RGB + <usize>level * 24;
      const reds = i64x2.splat(load<u64>(tables));
      const greens = i64x2.splat(load<u64>(tables, 8));
      const blues = i64x2.splat(load<u64>(tables, 16));
      const alphas = i8x16.splat(<i8>lutAlpha);
      const sevens = i8x16.splat(7);
      const threes = i8x16.splat(3);
      const last = total - 16;
      for (; px < to && px <= last; px += 16) {
        const pixels = v128.load(fbBase + <usize>px);
        const red = i8x16.swizzle(reds, v128.and(i16x8.shr_u(pixels, 5), sevens));
        const green = i8x16.swizzle(greens, v128.and(i16x8.shr_u(pixels, 2), sevens));
        const blue = i8x16.swizzle(blues, v128.and(pixels, threes));
        storeRgba16(rgbaBase + ((<usize>px) << 2), red, green, blue, alphas);
      }
    }
  }
  if (px >= to) return;
  if (level == PLAIN) {
    for (; px < to; px++) {
      store<u32>(rgbaBase + ((<usize>px) << 2), load<u32>(RGB332_LUT + ((<usize>load<u8>(fbBase + <usize>px)) << 2)));
    }
  } else {
    const table = LIGHT_TABLES + ((<usize>level) << 8);
    for (; px < to; px++) {
      const lit = load<u8>(table + <usize>load<u8>(fbBase + <usize>px));
      store<u32>(rgbaBase + ((<usize>px) << 2), load<u32>(RGB332_LUT + ((<usize>lit) << 2)));
    }
  }
}
