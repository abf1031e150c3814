// The step mask: one byte per grid cell holding THE movement rule's answer for
// that cell (allowedStepsLocal, ../sim/step.ts), so an A* expansion is one load
// instead of eight tile loads, eight flag loads and the corner logic. The rule
// still lives once: every mask byte is computed by allowedStepsLocal, and the
// mask is a cache of it, never a second statement of it.
//
// Kept exact by the writers: grid_set_tile recomputes the 3 × 3 cells whose
// answer can depend on the tile, grid_put_chunk / grid_fill_chunk the chunk's
// rectangle grown by one cell, grid_init starts all-zero (every cell unknown:
// nothing allowed). A write the module cannot see — TILE_FLAGS (flags_reset,
// or the host writing the table) or the host writing the tile array directly —
// marks the whole mask stale (flags_reset does it itself; the host calls
// grid_changed), and the next search rebuilds it before it reads a byte.
// Only the searches read the mask; step_allowed, apply_moves and replay ask
// the rule directly, so movement never depends on this cache.
//
// Byte layout (successor order, see bucket.ts): bits 0..3 = NE, SE, SW, NW
// (actions 5..8), bits 4..7 = N, E, S, W (actions 1..4). NOOP is not stored.
import { gridHeight, gridMasks, gridWidth } from "../sim/grid";
import { allowedStepsLocal } from "../sim/step";

/** Set when the mask may disagree with the rule; cleared by a full rebuild. */
let maskStale: bool = false;

/** The rule's mask (bit a = action a) reordered so ctz visits diagonals first: see the byte layout above. */
// @ts-ignore: decorator
@inline
export function successorOrder(allowed: u32): u32 {
  return ((allowed >> 5) & 0xf) | ((allowed & 0x1e) << 3);
}

/** The action at bit `bit` of a successor-order mask. */
// @ts-ignore: decorator
@inline
export function actionAt(bit: u32): i32 {
  return <i32>((bit + 4) & 7) + 1;
}

// dx + 1 and dy + 1 of the action at each successor-order bit, two bits per bit
// (bit b at 2b): NE, SE, SW, NW, N, E, S, W. The same offsets as actionDx /
// actionDy of actionAt(bit) (test: pathfind.test.ts walks every path), without
// their range check.
const BIT_DX_PLUS_ONE: u32 = 2 | (2 << 2) | (0 << 4) | (0 << 6) | (1 << 8) | (2 << 10) | (1 << 12) | (0 << 14);
const BIT_DY_PLUS_ONE: u32 = 0 | (2 << 2) | (2 << 4) | (0 << 6) | (0 << 8) | (1 << 10) | (2 << 12) | (1 << 14);

/** x offset of the action at successor-order bit `bit` (0..7). */
// @ts-ignore: decorator
@inline
export function bitDx(bit: u32): i32 {
  return <i32>((BIT_DX_PLUS_ONE >> (bit << 1)) & 3) - 1;
}

/** y offset of the action at successor-order bit `bit` (0..7). */
// @ts-ignore: decorator
@inline
export function bitDy(bit: u32): i32 {
  return <i32>((BIT_DY_PLUS_ONE >> (bit << 1)) & 3) - 1;
}

/** Recomputes the mask of grid-local cells [x0, x1) × [y0, y1), clipped to the grid. */
function refreshRect(x0: i32, y0: i32, x1: i32, y1: i32): void {
  if (x0 < 0) x0 = 0;
  if (y0 < 0) y0 = 0;
  if (x1 > gridWidth) x1 = gridWidth;
  if (y1 > gridHeight) y1 = gridHeight;
  for (let y = y0; y < y1; y++) {
    const row = gridMasks + <usize>y * <usize>gridWidth;
    for (let x = x0; x < x1; x++) store<u8>(row + <usize>x, <u8>successorOrder(allowedStepsLocal(x, y)));
  }
}

/**
 * After grid-local cells [x0, x1) × [y0, y1) changed tile: recomputes every
 * cell whose allowed steps can depend on them (the rectangle grown by one).
 * Nothing to do while the whole mask is stale anyway.
 */
export function maskTilesChanged(x0: i32, y0: i32, x1: i32, y1: i32): void {
  if (maskStale) return;
  refreshRect(x0 - 1, y0 - 1, x1 + 1, y1 + 1);
}

/** The whole mask may be wrong (flags changed, or tiles written behind the module's back). */
export function maskInvalidate(): void {
  maskStale = true;
}

/** grid_init zeroed the mask: all cells unknown, nothing allowed — exact until the next write. */
export function maskReset(): void {
  maskStale = false;
}

/** Makes the mask exact before a search reads it. */
// @ts-ignore: decorator
@inline
export function maskEnsure(): void {
  if (maskStale) {
    refreshRect(0, 0, gridWidth, gridHeight);
    maskStale = false;
  }
}

/**
 * grid_changed: tells the module that the host wrote the tile array
 * (grid_tiles) or TILE_FLAGS directly; the next search rebuilds its step mask
 * from the rule. Writes through grid_set_tile, grid_put_chunk and
 * grid_fill_chunk need no call.
 */
export function grid_changed(): void {
  maskInvalidate();
}
