// The tile grid: one rectangle of u16 tile ids per module instance, placed in
// world coordinates by an origin. The server keeps its whole world here, the
// client its chunk cache. Layout of the dynamic grid region (docs/wasm-abi.md):
//
//   GRID_BASE (first 64 KiB boundary after __heap_base)
//   tiles   cells × u16, row-major, stride = width          (padded to 8 bytes)
//   masks   cells × u8: the rule's allowed steps per cell, A*'s cache of it (padded to 8 bytes)
//   nodes   cells × 8 bytes: u32 search stamp, u32 g/closed/action  (A* state)
//   queue   cells × 12 bytes: A* open list (bucket stacks or heap + positions)
//
// Per-cell search state lives beside the tiles so one grid_init sizes both and
// searches never clear it (generation stamps, see ../pathfind/search.ts).
import { CHUNK_SIZE, CHUNK_TILES, TILE_BORDER, TILE_FLAGS, TILE_FLAG_COLLIDES, TILE_UNKNOWN } from "../layout";
import { maskInvalidate, maskReset, maskTilesChanged } from "../pathfind/step-mask";

/** Largest grid edge in cells; A* packs x and y into 12 bits each. */
export const GRID_MAX_EDGE: i32 = 4096;
/** Bytes of A* node state per cell (u32 stamp + u32 info). */
export const NODE_BYTES: usize = 8;
/** Bytes of A* open-list storage per cell (3 × u32 bucket stacks, or u64 heap entry + u32 position). */
export const QUEUE_BYTES_PER_CELL: usize = 12;

const PAGE_BYTES: usize = 0x10000;

/** Start of the dynamic grid region. */
export const GRID_BASE: usize = (__heap_base + PAGE_BYTES - 1) & ~(PAGE_BYTES - 1);

export let gridWidth: i32 = 0;
export let gridHeight: i32 = 0;
export let gridOriginX: i32 = 0;
export let gridOriginY: i32 = 0;
export let gridCells: usize = 0;
export let gridTiles: usize = GRID_BASE;
/** The step mask (../pathfind/step-mask.ts): one u8 per cell, row-major like the tiles. */
export let gridMasks: usize = GRID_BASE;
export let gridNodes: usize = GRID_BASE;
export let gridQueue: usize = GRID_BASE;
/** Bumped by every grid_init; the A* module resets its generation counter when it changes. */
export let gridEpoch: u32 = 0;

/**
 * grid_init: sizes the grid region for width × height cells at world origin
 * (origin_x, origin_y), growing linear memory if needed. Every cell becomes
 * TILE_UNKNOWN and all A* state is invalidated. Returns 1, or 0 (grid left as
 * it was) when an edge is < 1 or > GRID_MAX_EDGE or memory cannot grow.
 */
export function grid_init(width: i32, height: i32, origin_x: i32, origin_y: i32): i32 {
  if (width < 1 || height < 1 || width > GRID_MAX_EDGE || height > GRID_MAX_EDGE) return 0;
  const cells = <usize>width * <usize>height;
  const tilesBytes = (cells * 2 + 7) & ~(<usize>7);
  const masksBytes = (cells + 7) & ~(<usize>7);
  const end = GRID_BASE + tilesBytes + masksBytes + cells * NODE_BYTES + cells * QUEUE_BYTES_PER_CELL;
  const haveBytes = <usize>memory.size() * PAGE_BYTES;
  if (end > haveBytes) {
    const pages = <i32>((end - haveBytes + PAGE_BYTES - 1) / PAGE_BYTES);
    if (memory.grow(pages) < 0) return 0;
  }
  gridWidth = width;
  gridHeight = height;
  gridOriginX = origin_x;
  gridOriginY = origin_y;
  gridCells = cells;
  gridTiles = GRID_BASE;
  gridMasks = GRID_BASE + tilesBytes;
  gridNodes = gridMasks + masksBytes;
  gridQueue = gridNodes + cells * NODE_BYTES;
  // 0xFFFF in every byte is TILE_UNKNOWN in every u16.
  memory.fill(gridTiles, 0xff, cells * 2);
  memory.fill(gridMasks, 0, cells);
  memory.fill(gridNodes, 0, cells * NODE_BYTES);
  maskReset();
  gridEpoch++;
  return 1;
}

/** grid_tiles: address of the u16 tile array (row-major, stride grid_width()). */
export function grid_tiles(): usize {
  return gridTiles;
}
export function grid_width(): i32 {
  return gridWidth;
}
export function grid_height(): i32 {
  return gridHeight;
}
export function grid_origin_x(): i32 {
  return gridOriginX;
}
export function grid_origin_y(): i32 {
  return gridOriginY;
}

/**
 * Copies chunk-local rows [0, 32) of `source` (a 32 × 32 u16 block, or a
 * constant when fillTile >= 0) into the grid at world chunk (chunk_x, chunk_y),
 * clipped to the grid rectangle.
 */
@inline
function blitChunk(chunk_x: i32, chunk_y: i32, fillTile: i32): void {
  // World → grid-local, in i64 so extreme chunk coordinates cannot wrap.
  const left = <i64>chunk_x * CHUNK_SIZE - gridOriginX;
  const top = <i64>chunk_y * CHUNK_SIZE - gridOriginY;
  const x0 = left < 0 ? <i64>0 : left;
  const y0 = top < 0 ? <i64>0 : top;
  const x1 = min<i64>(left + CHUNK_SIZE, gridWidth);
  const y1 = min<i64>(top + CHUNK_SIZE, gridHeight);
  if (x0 >= x1 || y0 >= y1) return;
  const spanBytes = <usize>(x1 - x0) * 2;
  for (let y = y0; y < y1; y++) {
    const dst = gridTiles + ((<usize>y * <usize>gridWidth + <usize>x0) << 1);
    if (fillTile >= 0) {
      for (let i: usize = 0; i < spanBytes; i += 2) store<u16>(dst + i, fillTile);
    } else {
      const src = CHUNK_TILES + ((<usize>(y - top) * CHUNK_SIZE + <usize>(x0 - left)) << 1);
      memory.copy(dst, src, spanBytes);
    }
  }
  maskTilesChanged(<i32>x0, <i32>y0, <i32>x1, <i32>y1);
}

/**
 * grid_put_chunk: copies the 1024 tile ids in CHUNK_TILES (row-major, 32 × 32)
 * into the grid at world chunk (chunk_x, chunk_y); the part outside the grid is
 * dropped. Protocol: world tile (x, y) lies in chunk (floor(x/32), floor(y/32)).
 */
export function grid_put_chunk(chunk_x: i32, chunk_y: i32): void {
  blitChunk(chunk_x, chunk_y, -1);
}

/** grid_fill_chunk: sets every grid cell of world chunk (chunk_x, chunk_y) to `tile` (low 16 bits), clipped. */
export function grid_fill_chunk(chunk_x: i32, chunk_y: i32, tile: i32): void {
  blitChunk(chunk_x, chunk_y, tile & 0xffff);
}

/** grid_set_tile: sets world tile (x, y) to `tile` (low 16 bits); ignored outside the grid. */
export function grid_set_tile(x: i32, y: i32, tile: i32): void {
  const lx = x - gridOriginX;
  const ly = y - gridOriginY;
  if (<u32>lx >= <u32>gridWidth || <u32>ly >= <u32>gridHeight) return;
  store<u16>(gridTiles + ((<usize>ly * <usize>gridWidth + <usize>lx) << 1), tile);
  maskTilesChanged(lx, ly, lx + 1, ly + 1);
}

/** grid_get_tile: the tile id at world (x, y); TILE_UNKNOWN outside the grid. */
export function grid_get_tile(x: i32, y: i32): i32 {
  const lx = x - gridOriginX;
  const ly = y - gridOriginY;
  if (<u32>lx >= <u32>gridWidth || <u32>ly >= <u32>gridHeight) return TILE_UNKNOWN;
  return load<u16>(gridTiles + ((<usize>ly * <usize>gridWidth + <usize>lx) << 1));
}

/**
 * flags_reset: clears TILE_FLAGS and marks TILE_UNKNOWN and TILE_BORDER as
 * colliding. The host then sets the flags of real tile ids from tile data;
 * the A* step mask is rebuilt from them before the next search.
 */
export function flags_reset(): void {
  memory.fill(TILE_FLAGS, 0, 65536);
  store<u8>(TILE_FLAGS + <usize>TILE_UNKNOWN, TILE_FLAG_COLLIDES);
  store<u8>(TILE_FLAGS + <usize>TILE_BORDER, TILE_FLAG_COLLIDES);
  maskInvalidate();
}
