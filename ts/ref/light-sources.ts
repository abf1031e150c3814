// JS reference of light_build (assembly/blit/light-sources.ts, docs/wasm-abi.md § Light):
// the light map of a view around its light sources, over plain arrays. The test oracle
// for the wasm kernel and its benchmark baseline; the same formula, tile for tile.
import { LIGHT_LEVELS, LIGHT_MAP_MAX, LIGHT_RADIUS_MAX, LIGHT_SOURCES_MAX, LIGHT_WORK_MAX } from "../blit-layout.js";
import { TILE_FLAG_OPAQUE, TILE_UNKNOWN } from "../constants.js";
const FULL = LIGHT_LEVELS - 1;

/** The world as light_build reads it: the grid window, the per-id flags and light radii. */
export interface LightWorld {
  /** Row-major tile ids of the grid, `width` per row, world tile (originX, originY) first. */
  readonly tiles: Uint16Array;
  readonly width: number;
  readonly height: number;
  readonly originX: number;
  readonly originY: number;
  /** TILE_FLAGS: 65536 entries. */
  readonly flags: Uint8Array;
  /** TILE_LIGHT: 65536 light radii. */
  readonly tileLight: Uint8Array;
}

/** A light the host adds: a world tile and a radius (LIGHT_SOURCES entry). */
export interface LightSource {
  readonly x: number;
  readonly y: number;
  readonly radius: number;
}

function tileAt(world: LightWorld, x: number, y: number): number {
  const lx = x - world.originX;
  const ly = y - world.originY;
  if (lx < 0 || ly < 0 || lx >= world.width || ly >= world.height) return TILE_UNKNOWN;
  return world.tiles[ly * world.width + lx];
}

/** Bresenham from (sx, sy) to (tx, ty): no opaque tile strictly between. */
export function lineClear(world: LightWorld, sx: number, sy: number, tx: number, ty: number): boolean {
  const dx = Math.abs(tx - sx);
  const dy = -Math.abs(ty - sy);
  const stepX = sx < tx ? 1 : -1;
  const stepY = sy < ty ? 1 : -1;
  let error = dx + dy;
  let x = sx;
  let y = sy;
  while (!(x === tx && y === ty)) {
    const twice = 2 * error;
    if (twice >= dy) {
      error += dy;
      x += stepX;
    }
    if (twice <= dx) {
      error += dx;
      y += stepY;
    }
    if (x === tx && y === ty) return true;
    if ((world.flags[tileAt(world, x, y)] & TILE_FLAG_OPAQUE) !== 0) return false;
  }
  return true;
}

/**
 * light_build into `lightMap` (LIGHT_MAP_MAX levels): returns 0, or −1 with the map untouched for a
 * view the kernel refuses. Arguments as the kernel's (viewX, viewY, wide, high, ambient, cellScale);
 * `sources` are the LIGHT_SOURCES entries (only the first LIGHT_SOURCES_MAX count; x, y as i16).
 */
export function lightBuild(
  world: LightWorld,
  lightMap: Uint8Array,
  viewX: number,
  viewY: number,
  wide: number,
  high: number,
  ambient: number,
  cellScale: number,
  sources: readonly LightSource[],
): number {
  if (wide <= 0 || high <= 0 || wide * high > LIGHT_WORK_MAX) return -1;
  if (cellScale < 1 || cellScale > 8) return -1;
  if (wide * high * cellScale * cellScale > LIGHT_MAP_MAX) return -1;
  if (Math.abs(viewX) > 0x40000000 || Math.abs(viewY) > 0x40000000) return -1;
  const work = new Uint8Array(wide * high).fill(ambient & FULL);
  const cast = (sx: number, sy: number, radius: number) => {
    if (radius <= 0) return;
    const r = Math.min(radius, LIGHT_RADIUS_MAX);
    const reach = (r + 1) * (r + 1);
    for (let ty = Math.max(sy - r, viewY); ty <= Math.min(sy + r, viewY + high - 1); ty++) {
      for (let tx = Math.max(sx - r, viewX); tx <= Math.min(sx + r, viewX + wide - 1); tx++) {
        const distance = (tx - sx) ** 2 + (ty - sy) ** 2;
        if (distance >= reach) continue;
        const level = Math.floor((FULL * (reach - distance)) / reach);
        const at = (ty - viewY) * wide + (tx - viewX);
        if (level > work[at] && lineClear(world, sx, sy, tx, ty)) work[at] = level;
      }
    }
  };
  for (let y = viewY - LIGHT_RADIUS_MAX; y < viewY + high + LIGHT_RADIUS_MAX; y++) {
    for (let x = viewX - LIGHT_RADIUS_MAX; x < viewX + wide + LIGHT_RADIUS_MAX; x++) {
      cast(x, y, world.tileLight[tileAt(world, x, y)]);
    }
  }
  for (const source of sources.slice(0, LIGHT_SOURCES_MAX)) {
    cast((source.x << 16) >> 16, (source.y << 16) >> 16, source.radius & 0xff);
  }
  const cellsWide = wide * cellScale;
  for (let cy = 0; cy < high * cellScale; cy++) {
    for (let cx = 0; cx < cellsWide; cx++) {
      lightMap[cy * cellsWide + cx] = work[Math.floor(cy / cellScale) * wide + Math.floor(cx / cellScale)];
    }
  }
  return 0;
}
