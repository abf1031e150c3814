// Prediction replay (roadmap: "Prediction rebuilt as predict → ack → replay").
// The predicted position is derived, never stored: start from the confirmed
// position, skip every pending step whose window the server has acknowledged
// (window <= ack_window: executed, rejected or lost — already reflected in the
// confirmed position), and apply the rest through the movement rule exactly as
// the server will, so a step the server is going to reject does not move the
// prediction either.
import { PENDING, PENDING_MAX, RESULT } from "../layout";
import { actionDx, actionDy, ACTION_MAX, allowedStepsWorld } from "./step";

/** Bytes per PENDING entry: u32 window, u8 action, 3 bytes padding. */
export const PENDING_ENTRY_BYTES: usize = 8;

/**
 * replay: applies `count` PENDING entries (clamped to [0, PENDING_MAX]) in order
 * from world (x, y). Writes the predicted position to RESULT (i32 x at +0, i32 y
 * at +4) and returns how many steps moved.
 */
export function replay(x: i32, y: i32, ack_window: u32, count: i32): i32 {
  const entries = count < 0 ? 0 : min(count, PENDING_MAX);
  let moved = 0;
  for (let i = 0; i < entries; i++) {
    const entry = PENDING + <usize>i * PENDING_ENTRY_BYTES;
    if (load<u32>(entry) <= ack_window) continue;
    const action = <i32>load<u8>(entry, 4);
    if (action == 0 || action > ACTION_MAX) continue;
    if (((allowedStepsWorld(x, y) >> (<u32>action)) & 1) == 0) continue;
    x += actionDx(action);
    y += actionDy(action);
    moved++;
  }
  store<i32>(RESULT, x);
  store<i32>(RESULT, y, 4);
  return moved;
}
