// Per-window movement: applies one movement window's steps for a batch of
// entities in one call, over the MOVES table, through THE rule (step.ts) — the
// server's executeWindow, moved next to the rule so that a window costs one
// boundary crossing per batch instead of one per entity (issue 11, part 4).
//
// Entities do not block each other, only tiles do, so every row is checked
// against the grid alone: rows are independent and their order does not matter,
// and a row moves exactly when step_allowed(x, y, action) holds for an action
// 1..8. The kernel reads nothing but the grid and TILE_FLAGS, like replay.
import { MOVES, MOVES_MAX } from "../layout";
import { actionDx, actionDy, ACTION_MAX, allowedStepsWorld } from "./step";

/** Bytes per MOVES row. */
export const MOVE_ROW_BYTES: usize = 16;
/** Row fields (byte offsets) after the host's i32 entity tag at 0, which the kernel never reads. */
const ROW_X: usize = 4;
const ROW_Y: usize = 8;
const ROW_ACTION: usize = 12;
const ROW_MOVED: usize = 13;

/**
 * apply_moves: for each of the first `count` MOVES rows (clamped to
 * [0, MOVES_MAX]), if the row's action is 1..8 and allowed from its (x, y),
 * writes the new position into the row and sets its moved byte to 1; otherwise
 * leaves the position and sets moved to 0 (NOOP, codes > 8 and blocked steps).
 * Returns how many rows moved.
 */
export function apply_moves(count: i32): i32 {
  const rows = count < 0 ? 0 : min(count, MOVES_MAX);
  let moved: i32 = 0;
  for (let i = 0; i < rows; i++) {
    const row = MOVES + <usize>i * MOVE_ROW_BYTES;
    const action = <u32>load<u8>(row, ROW_ACTION);
    let allowed: u32 = 0;
    // 1..8 only: the shift below would wrap for codes >= 32 and find NOOP's bit.
    if (action - 1 < <u32>ACTION_MAX) {
      const x = load<i32>(row, ROW_X);
      const y = load<i32>(row, ROW_Y);
      allowed = (allowedStepsWorld(x, y) >> action) & 1;
      if (allowed) {
        store<i32>(row, x + actionDx(<i32>action), ROW_X);
        store<i32>(row, y + actionDy(<i32>action), ROW_Y);
      }
    }
    store<u8>(row, <u8>allowed, ROW_MOVED);
    moved += <i32>allowed;
  }
  return moved;
}
