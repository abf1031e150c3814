// The light map around light sources (issue 15, docs/wasm-abi.md § Light): one call per
// frame writes LIGHT_MAP for light_apply from the world itself. Every tile of the view
// starts at the ambient level; each source — a tile whose id has a TILE_LIGHT radius
// (the map's torches), found by scanning the view and a margin of LIGHT_RADIUS_MAX
// tiles around it, and each LIGHT_SOURCES entry the host adds (a lit creature, a torch
// carried) — raises the tiles it reaches to its level there. Opaque tiles (TILE_FLAGS)
// stop the light: a tile is lit only if the Bresenham line from the source to it
// crosses no opaque tile between the two (the wall itself is lit, what lies behind it
// is not). Levels fall off smoothly with the squared distance:
//   level(d) = floor(15 · (R² − d²) / R²), R = radius + 1, d² = dx² + dy²,
// so the source's tile is at full light and the light ends just past its radius.
// Cost: the margin scan (one TILE_LIGHT load per tile) plus, per source, its disc's
// tiles that it would brighten, each with a short line walk. ts/ref/light-sources.ts is
// the JS reference.
import {
  LIGHT_LEVELS,
  LIGHT_MAP,
  LIGHT_MAP_MAX,
  LIGHT_RADIUS_MAX,
  LIGHT_SOURCES,
  LIGHT_SOURCES_MAX,
  LIGHT_WORK,
  LIGHT_WORK_MAX,
  TILE_FLAGS,
  TILE_FLAG_OPAQUE,
  TILE_LIGHT,
  TILE_UNKNOWN,
} from "../layout";
import { gridHeight, gridOriginX, gridOriginY, gridTiles, gridWidth } from "../sim/grid";

const FULL: i32 = LIGHT_LEVELS - 1;
const SOURCE_BYTES: usize = 8;

// The view of this call, set by light_build for the helpers below.
let viewX: i32 = 0;
let viewY: i32 = 0;
let viewWide: i32 = 0;
let viewHigh: i32 = 0;

/** The tile id at world (x, y) in the wasm grid; TILE_UNKNOWN outside it (as grid_get_tile). */
function tileAt(x: i32, y: i32): i32 {
  const lx = x - gridOriginX;
  const ly = y - gridOriginY;
  if (<u32>lx >= <u32>gridWidth || <u32>ly >= <u32>gridHeight) return TILE_UNKNOWN;
  return <i32>load<u16>(gridTiles + ((<usize>ly * <usize>gridWidth + <usize>lx) << 1));
}

function opaqueAt(x: i32, y: i32): bool {
  return (load<u8>(TILE_FLAGS + <usize>tileAt(x, y)) & TILE_FLAG_OPAQUE) != 0;
}

/** Whether the line from (sx, sy) to (tx, ty) crosses no opaque tile strictly between them. */
function lineClear(sx: i32, sy: i32, tx: i32, ty: i32): bool {
  const dx = tx > sx ? tx - sx : sx - tx;
  const dy = ty > sy ? sy - ty : ty - sy;
  const stepX = sx < tx ? 1 : -1;
  const stepY = sy < ty ? 1 : -1;
  let error = dx + dy;
  let x = sx;
  let y = sy;
  while (true) {
    if (x == tx && y == ty) return true;
    const twice = error << 1;
    if (twice >= dy) {
      error += dy;
      x += stepX;
    }
    if (twice <= dx) {
      error += dx;
      y += stepY;
    }
    if (x == tx && y == ty) return true;
    if (opaqueAt(x, y)) return false;
  }
  return true;
}

/** Raises the view's tiles within `radius` of (sx, sy) that the source sees to its level there. */
function castLight(sx: i32, sy: i32, radius: i32): void {
  if (radius <= 0) return;
  if (radius > LIGHT_RADIUS_MAX) radius = LIGHT_RADIUS_MAX;
  const reach = (radius + 1) * (radius + 1);
  let top = sy - radius;
  let bottom = sy + radius;
  let left = sx - radius;
  let right = sx + radius;
  if (top < viewY) top = viewY;
  if (left < viewX) left = viewX;
  if (bottom > viewY + viewHigh - 1) bottom = viewY + viewHigh - 1;
  if (right > viewX + viewWide - 1) right = viewX + viewWide - 1;
  for (let ty = top; ty <= bottom; ty++) {
    const dy = ty - sy;
    const row = LIGHT_WORK + <usize>((ty - viewY) * viewWide - viewX);
    for (let tx = left; tx <= right; tx++) {
      const dx = tx - sx;
      const distance = dx * dx + dy * dy;
      if (distance >= reach) continue;
      const level = (FULL * (reach - distance)) / reach;
      const at = row + <usize>tx;
      // Only a brighter level needs the line walk.
      if (level <= <i32>load<u8>(at)) continue;
      if (lineClear(sx, sy, tx, ty)) store<u8>(at, <u8>level);
    }
  }
}

/**
 * Writes LIGHT_MAP for a view of wide × high world tiles whose top-left tile is world (view_x,
 * view_y), each tile `cell_scale` × `cell_scale` light-map cells (its size / 8: 1 for 8 px tiles, 2
 * for 16, 4 for 32), rows of wide · cell_scale cells — what light_apply then reads. `ambient` (taken
 * modulo 16) is the level where no source reaches; the first `source_count` LIGHT_SOURCES entries
 * (clamped to LIGHT_SOURCES_MAX) and the tiles with a TILE_LIGHT radius within LIGHT_RADIUS_MAX of
 * the view raise it. Returns 0, or −1 (LIGHT_MAP untouched) when the view is empty, larger than
 * LIGHT_WORK_MAX tiles, cell_scale is not 1..8, or the cells exceed LIGHT_MAP_MAX.
 */
export function light_build(
  view_x: i32,
  view_y: i32,
  wide: i32,
  high: i32,
  ambient: i32,
  cell_scale: i32,
  source_count: i32,
): i32 {
  if (wide <= 0 || high <= 0 || <i64>wide * <i64>high > <i64>LIGHT_WORK_MAX) return -1;
  if (cell_scale < 1 || cell_scale > 8) return -1;
  if (<i64>wide * <i64>high * <i64>(cell_scale * cell_scale) > <i64>LIGHT_MAP_MAX) return -1;
  // World tiles are i16 on the wire; a view near the i32 limits would wrap the margin scan.
  if (view_x < -0x40000000 || view_x > 0x40000000 || view_y < -0x40000000 || view_y > 0x40000000) return -1;
  viewX = view_x;
  viewY = view_y;
  viewWide = wide;
  viewHigh = high;
  memory.fill(LIGHT_WORK, <u8>(ambient & FULL), <usize>(wide * high));

  const margin = LIGHT_RADIUS_MAX;
  if (load<u8>(TILE_LIGHT + <usize>TILE_UNKNOWN) == 0) {
    // Tiles outside the grid are TILE_UNKNOWN, which gives no light: scan only the part of the
    // margin's rectangle inside the grid, row by row straight from grid memory (most of the call's time).
    const top = max(view_y - margin, gridOriginY);
    const bottom = min(view_y + high + margin, gridOriginY + gridHeight);
    const left = max(view_x - margin, gridOriginX);
    const right = min(view_x + wide + margin, gridOriginX + gridWidth);
    for (let y = top; y < bottom; y++) {
      const row = gridTiles + ((<usize>(y - gridOriginY) * <usize>gridWidth - <usize>gridOriginX) << 1);
      for (let x = left; x < right; x++) {
        const radius = <i32>load<u8>(TILE_LIGHT + <usize>load<u16>(row + ((<usize>x) << 1)));
        if (radius != 0) castLight(x, y, radius);
      }
    }
  } else {
    for (let y = view_y - margin; y < view_y + high + margin; y++) {
      for (let x = view_x - margin; x < view_x + wide + margin; x++) {
        const radius = <i32>load<u8>(TILE_LIGHT + <usize>tileAt(x, y));
        if (radius != 0) castLight(x, y, radius);
      }
    }
  }
  let count = source_count;
  if (count > LIGHT_SOURCES_MAX) count = LIGHT_SOURCES_MAX;
  for (let i = 0; i < count; i++) {
    const entry = LIGHT_SOURCES + <usize>i * SOURCE_BYTES;
    castLight(<i32>load<i16>(entry), <i32>load<i16>(entry, 2), <i32>load<u8>(entry, 4));
  }

  // Each tile to its cell_scale × cell_scale cells.
  const cellsWide = wide * cell_scale;
  for (let ty = 0; ty < high; ty++) {
    const from = LIGHT_WORK + <usize>(ty * wide);
    for (let sub = 0; sub < cell_scale; sub++) {
      const to = LIGHT_MAP + <usize>((ty * cell_scale + sub) * cellsWide);
      if (cell_scale == 1) {
        memory.copy(to, from, <usize>wide);
        continue;
      }
      for (let tx = 0; tx < wide; tx++) {
        memory.fill(to + <usize>(tx * cell_scale), load<u8>(from + <usize>tx), <usize>cell_scale);
      }
    }
  }
  return 0;
}
