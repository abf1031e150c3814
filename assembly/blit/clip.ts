// The clip rectangle every blit kernel draws through, and the clipped
// rectangle blit they all share. Edges are computed in i64 so offsets near
// the i32 limits clip instead of wrapping back onto the screen.
import { fbBase, fbHeight, fbWidth } from "./target";
import {
  MODE_OPAQUE,
  MODE_TINTED,
  MODE_TRANSPARENT,
  broadcastByte,
  copyOpaqueRow,
  copyTintedRow,
  copyTransparentRow,
  nonZeroMask,
} from "./rows";

/**
 * Active clip, half-open: [clipLeft, clipRight) × [clipTop, clipBottom), always
 * inside the framebuffer. Every kernel sets it before drawing, so it starts empty.
 */
export let clipLeft: i32 = 0;
export let clipTop: i32 = 0;
export let clipRight: i32 = 0;
export let clipBottom: i32 = 0;

/** Makes (x, y, w, h) ∩ framebuffer the active clip; false (and an empty clip) when nothing is left. */
export function setClip(x: i32, y: i32, w: i32, h: i32): bool {
  let left = <i64>x;
  let top = <i64>y;
  let right = left + <i64>w;
  let bottom = top + <i64>h;
  if (left < 0) left = 0;
  if (top < 0) top = 0;
  if (right > <i64>fbWidth) right = fbWidth;
  if (bottom > <i64>fbHeight) bottom = fbHeight;
  if (left >= right || top >= bottom) {
    clipLeft = clipTop = clipRight = clipBottom = 0;
    return false;
  }
  clipLeft = <i32>left;
  clipTop = <i32>top;
  clipRight = <i32>right;
  clipBottom = <i32>bottom;
  return true;
}

/** The whole framebuffer as the active clip. */
export function clipToFramebuffer(): void {
  clipLeft = 0;
  clipTop = 0;
  clipRight = fbWidth;
  clipBottom = fbHeight;
}

/**
 * Draws the w×h image rectangle whose top-left pixel is at `src` (rows `stride`
 * bytes apart) with its top-left corner at framebuffer (dx, dy), through the
 * active clip. Unknown modes draw nothing.
 */
export function blitClipped(src: usize, stride: i32, w: i32, h: i32, dx: i32, dy: i32, mode: i32, tint: i32): void {
  let left = <i64>dx;
  let top = <i64>dy;
  let right = left + <i64>w;
  let bottom = top + <i64>h;
  if (left < <i64>clipLeft) left = clipLeft;
  if (top < <i64>clipTop) top = clipTop;
  if (right > <i64>clipRight) right = clipRight;
  if (bottom > <i64>clipBottom) bottom = clipBottom;
  if (left >= right || top >= bottom) return;
  const count = <i32>(right - left);
  let rows = <i32>(bottom - top);
  let from = src + <usize>((top - <i64>dy) * <i64>stride + (left - <i64>dx));
  let to = fbBase + <usize>(<i32>top * fbWidth + <i32>left);
  const step = <usize>stride;
  if (mode == MODE_OPAQUE) {
    for (; rows > 0; rows--, from += step, to += fbWidth) copyOpaqueRow(to, from, count);
  } else if (mode == MODE_TRANSPARENT) {
    for (; rows > 0; rows--, from += step, to += fbWidth) copyTransparentRow(to, from, count);
  } else if (mode == MODE_TINTED) {
    const tintWord = broadcastByte(tint);
    for (; rows > 0; rows--, from += step, to += fbWidth) copyTintedRow(to, from, count, tintWord);
  }
}

/** True when the w×h rectangle at (dx, dy) lies wholly inside the active clip (w, h > 0). */
export function insideClip(dx: i32, dy: i32, w: i32, h: i32): bool {
  // Compared as differences so no sum can overflow i32.
  return dx >= clipLeft && dy >= clipTop && dx <= clipRight - w && dy <= clipBottom - h;
}

/**
 * blitClipped for an 8-px-wide rectangle already known to lie inside the clip
 * (the common tile, sprite and glyph case): one u64 per row, no clipping.
 */
export function blitInside8(src: usize, stride: i32, h: i32, dx: i32, dy: i32, mode: i32, tint: i32): void {
  let to = fbBase + <usize>(dy * fbWidth + dx);
  const step = <usize>stride;
  if (mode == MODE_OPAQUE) {
    for (; h > 0; h--, src += step, to += fbWidth) store<u64>(to, load<u64>(src));
  } else if (mode == MODE_TRANSPARENT) {
    for (; h > 0; h--, src += step, to += fbWidth) {
      const pixels = load<u64>(src);
      const mask = nonZeroMask(pixels);
      store<u64>(to, (load<u64>(to) & ~mask) | pixels);
    }
  } else if (mode == MODE_TINTED) {
    const tintWord = broadcastByte(tint);
    for (; h > 0; h--, src += step, to += fbWidth) {
      const mask = nonZeroMask(load<u64>(src));
      store<u64>(to, (load<u64>(to) & ~mask) | (tintWord & mask));
    }
  }
}
