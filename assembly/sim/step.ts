// THE movement rule of the project (brief: "Movement rule step_allowed";
// roadmap: 8-directional movement in chessboard geometry). The server sim, the
// client's prediction replay and A* all ask allowedStepsLocal; nothing else in
// the module decides whether a step may be taken.
//
// A step by action a from (x, y) is allowed iff its target tile is free; a
// diagonal additionally needs both orthogonal neighbours (x+dx, y) and
// (x, y+dy) free — no corner cutting. Free = the tile's TILE_FLAGS entry has no
// COLLIDES bit and the tile is neither TILE_UNKNOWN nor TILE_BORDER; cells
// outside the grid are TILE_UNKNOWN. NOOP is always allowed, codes > 8 never.
// The source tile itself is not consulted.
import { TILE_BORDER, TILE_FLAGS, TILE_FLAG_COLLIDES } from "../layout";
import { gridHeight, gridOriginX, gridOriginY, gridTiles, gridWidth } from "./grid";

export const ACTION_NOOP: i32 = 0;
export const ACTION_N: i32 = 1;
export const ACTION_E: i32 = 2;
export const ACTION_S: i32 = 3;
export const ACTION_W: i32 = 4;
export const ACTION_NE: i32 = 5;
export const ACTION_SE: i32 = 6;
export const ACTION_SW: i32 = 7;
export const ACTION_NW: i32 = 8;
export const ACTION_MAX: i32 = 8;

// dx + 1 and dy + 1 of actions 0..8, two bits per action (action a at bit 2a).
const DX_PLUS_ONE: u32 = 1 | (1 << 2) | (2 << 4) | (1 << 6) | (0 << 8) | (2 << 10) | (2 << 12) | (0 << 14) | (0 << 16);
const DY_PLUS_ONE: u32 = 1 | (0 << 2) | (1 << 4) | (2 << 6) | (1 << 8) | (0 << 10) | (2 << 12) | (2 << 14) | (0 << 16);

/** x offset of an action (0 for NOOP and codes > 8). */
// @ts-ignore: decorator
@inline
export function actionDx(action: i32): i32 {
  return <u32>action > <u32>ACTION_MAX ? 0 : <i32>((DX_PLUS_ONE >> ((<u32>action) << 1)) & 3) - 1;
}

/** y offset of an action (north is y - 1; 0 for NOOP and codes > 8). */
// @ts-ignore: decorator
@inline
export function actionDy(action: i32): i32 {
  return <u32>action > <u32>ACTION_MAX ? 0 : <i32>((DY_PLUS_ONE >> ((<u32>action) << 1)) & 3) - 1;
}

/** 1 if the tile id at `address` is free to stand on, else 0. */
// @ts-ignore: decorator
@inline
function freeTileAt(address: usize): u32 {
  const tile = <u32>load<u16>(address);
  // The reserved ids collide whatever the host wrote into TILE_FLAGS.
  return (<u32>((load<u8>(TILE_FLAGS + tile) & TILE_FLAG_COLLIDES) == 0)) & (<u32>(tile < <u32>TILE_BORDER));
}

/** 1 if grid-local (lx, ly) is inside the grid and free, else 0. */
// @ts-ignore: decorator
@inline
export function freeCellLocal(lx: i32, ly: i32): u32 {
  if (<u32>lx >= <u32>gridWidth || <u32>ly >= <u32>gridHeight) return 0;
  return freeTileAt(gridTiles + ((<usize>ly * <usize>gridWidth + <usize>lx) << 1));
}

/**
 * The rule: bit a (0..8) of the result is set iff action a is allowed from
 * grid-local (lx, ly). Bit 0 (NOOP) is always set.
 */
// @ts-ignore: decorator
@inline
export function allowedStepsLocal(lx: i32, ly: i32): u32 {
  let free: u32;
  // Cells with all 8 neighbours inside the grid skip the bounds checks (A*'s common case).
  if (lx >= 1 && ly >= 1 && lx < gridWidth - 1 && ly < gridHeight - 1) {
    const stride = (<usize>gridWidth) << 1;
    const center = gridTiles + ((<usize>ly * <usize>gridWidth + <usize>lx) << 1);
    const north = center - stride;
    const south = center + stride;
    free =
      (freeTileAt(north) << ACTION_N) |
      (freeTileAt(center + 2) << ACTION_E) |
      (freeTileAt(south) << ACTION_S) |
      (freeTileAt(center - 2) << ACTION_W) |
      (freeTileAt(north + 2) << ACTION_NE) |
      (freeTileAt(south + 2) << ACTION_SE) |
      (freeTileAt(south - 2) << ACTION_SW) |
      (freeTileAt(north - 2) << ACTION_NW);
  } else {
    free =
      (freeCellLocal(lx, ly - 1) << ACTION_N) |
      (freeCellLocal(lx + 1, ly) << ACTION_E) |
      (freeCellLocal(lx, ly + 1) << ACTION_S) |
      (freeCellLocal(lx - 1, ly) << ACTION_W) |
      (freeCellLocal(lx + 1, ly - 1) << ACTION_NE) |
      (freeCellLocal(lx + 1, ly + 1) << ACTION_SE) |
      (freeCellLocal(lx - 1, ly + 1) << ACTION_SW) |
      (freeCellLocal(lx - 1, ly - 1) << ACTION_NW);
  }
  const n = (free >> ACTION_N) & 1;
  const e = (free >> ACTION_E) & 1;
  const s = (free >> ACTION_S) & 1;
  const w = (free >> ACTION_W) & 1;
  const cornersClear =
    ((n & e) << ACTION_NE) | ((s & e) << ACTION_SE) | ((s & w) << ACTION_SW) | ((n & w) << ACTION_NW);
  const orthogonal: u32 = (1 << ACTION_N) | (1 << ACTION_E) | (1 << ACTION_S) | (1 << ACTION_W);
  return 1 | (free & orthogonal) | (free & cornersClear);
}

/** allowedStepsLocal for world coordinates; safe for any i32 position, on or off the grid. */
// @ts-ignore: decorator
@inline
export function allowedStepsWorld(x: i32, y: i32): u32 {
  // In i64 so a position far from the grid cannot wrap around onto it.
  const lx = <i64>x - <i64>gridOriginX;
  const ly = <i64>y - <i64>gridOriginY;
  if (lx < -1 || ly < -1 || lx > <i64>gridWidth || ly > <i64>gridHeight) return 1;
  return allowedStepsLocal(<i32>lx, <i32>ly);
}

/** step_allowed: 1 iff `action` may be taken from world (x, y) under the rule above. */
export function step_allowed(x: i32, y: i32, action: i32): bool {
  if (<u32>action > <u32>ACTION_MAX) return false;
  return ((allowedStepsWorld(x, y) >> (<u32>action)) & 1) != 0;
}

/** allowed_steps: bit a set iff action a is allowed from world (x, y); bit 0 (NOOP) always set. */
export function allowed_steps(x: i32, y: i32): i32 {
  return <i32>allowedStepsWorld(x, y);
}

/** action_dx: x offset of an action code (0 for NOOP and invalid codes). */
export function action_dx(action: i32): i32 {
  return actionDx(action);
}

/** action_dy: y offset of an action code (north is -1; 0 for NOOP and invalid codes). */
export function action_dy(action: i32): i32 {
  return actionDy(action);
}
