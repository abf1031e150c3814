// HUD primitives (roadmap "UI / HUD": fill_rect, draw_rect, draw_hbar), all
// clipped to the framebuffer. Edges are i64 so no i32 offset can wrap on-screen.
import { fbBase, fbHeight, fbWidth } from "./target";
import { broadcastByte, fillRow } from "./rows";

/** Fills [left, right) × [top, bottom), clipped to the framebuffer. */
function fillEdges(left: i64, top: i64, right: i64, bottom: i64, color: i32): void {
  if (left < 0) left = 0;
  if (top < 0) top = 0;
  if (right > <i64>fbWidth) right = fbWidth;
  if (bottom > <i64>fbHeight) bottom = fbHeight;
  if (left >= right || top >= bottom) return;
  const count = <i32>(right - left);
  const colorWord = broadcastByte(color);
  let to = fbBase + <usize>(<i32>top * fbWidth + <i32>left);
  for (let rows = <i32>(bottom - top); rows > 0; rows--, to += fbWidth) fillRow(to, count, colorWord);
}

/** Fills the w×h rectangle at (x, y). */
export function fill_rect(x: i32, y: i32, w: i32, h: i32, color: u8): void {
  fillEdges(x, y, <i64>x + <i64>w, <i64>y + <i64>h, color);
}

/** Draws the 1-px outline of the w×h rectangle at (x, y); its inside is left untouched. */
export function draw_rect(x: i32, y: i32, w: i32, h: i32, color: u8): void {
  if (w <= 0 || h <= 0) return;
  const left = <i64>x;
  const top = <i64>y;
  const right = left + <i64>w;
  const bottom = top + <i64>h;
  fillEdges(left, top, right, top + 1, color);
  fillEdges(left, bottom - 1, right, bottom, color);
  fillEdges(left, top + 1, left + 1, bottom - 1, color);
  fillEdges(right - 1, top + 1, right, bottom - 1, color);
}

/**
 * A horizontal bar: the left floor(w * value / max) pixels (value clamped to
 * [0, max]) in `fg`, the rest of the w×h rectangle in `bg`. max <= 0 draws an
 * empty (all `bg`) bar.
 */
export function hbar(x: i32, y: i32, w: i32, h: i32, value: i32, max: i32, fg: u8, bg: u8): void {
  if (w <= 0 || h <= 0) return;
  let filled: i64 = 0;
  if (max > 0 && value > 0) filled = value >= max ? <i64>w : (<i64>w * <i64>value) / <i64>max;
  const left = <i64>x;
  const top = <i64>y;
  const split = left + filled;
  fillEdges(left, top, split, top + <i64>h, fg);
  fillEdges(split, top, left + <i64>w, top + <i64>h, bg);
}
