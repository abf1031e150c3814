// Whole-framebuffer clear and the general rectangle blit (roadmap: "Pixel
// helpers" — signed offsets, clipped against all four framebuffer edges,
// index 0 transparent).
import { fbBase, fbHeight, fbWidth } from "./target";
import { blitClipped, clipToFramebuffer } from "./clip";

/** Sets every framebuffer pixel to `color`. */
export function fb_clear(color: u8): void {
  memory.fill(fbBase, color, <usize>(fbWidth * fbHeight));
}

/**
 * Copies the w×h rectangle at (src_x, src_y) of the image at `src` (row stride
 * `src_stride` bytes) to framebuffer (dst_x, dst_y), clipped to the framebuffer.
 * mode 0 opaque, 1 index 0 transparent, 2 every non-zero pixel written as `tint`.
 */
export function blit(
  src: usize,
  src_stride: i32,
  src_x: i32,
  src_y: i32,
  w: i32,
  h: i32,
  dst_x: i32,
  dst_y: i32,
  mode: i32,
  tint: u8,
): void {
  clipToFramebuffer();
  const origin = src + <usize>(<i64>src_y * <i64>src_stride + <i64>src_x);
  blitClipped(origin, src_stride, w, h, dst_x, dst_y, mode, tint);
}
