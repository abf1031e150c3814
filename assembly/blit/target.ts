// The framebuffer the blit kernels draw into: its size and where it and its
// RGBA output are. 320×240 at FRAMEBUFFER / RGBA unless the host resizes it
// for a map drawn with larger tiles (issue 16: the spec's 30 × 30 tile view
// at 16 and 32 px tiles, docs/wasm-abi.md § Framebuffer size). Kernels read
// these instead of the FB_WIDTH / FB_HEIGHT constants; rows are fbWidth
// bytes apart.
import {
  FB_HEIGHT,
  FB_MAX_HEIGHT,
  FB_MAX_WIDTH,
  FB_WIDTH,
  FRAMEBUFFER,
  FRAMEBUFFER_LARGE,
  RGBA,
  RGBA_LARGE,
} from "../layout";

export let fbWidth: i32 = FB_WIDTH;
export let fbHeight: i32 = FB_HEIGHT;
export let fbBase: usize = FRAMEBUFFER;
export let rgbaBase: usize = RGBA;

/**
 * Makes the framebuffer `width` × `height` pixels: 1..FB_MAX_WIDTH × 1..FB_MAX_HEIGHT, a multiple
 * of 16 pixels in all (fb_to_rgba converts 16 at a time). Up to 320×240 pixels it lives at
 * FRAMEBUFFER, larger at FRAMEBUFFER_LARGE. Returns 0, or -1 (and changes nothing) for another size.
 * The pixels are not cleared.
 */
export function fb_resize(width: i32, height: i32): i32 {
  if (width < 1 || height < 1 || width > FB_MAX_WIDTH || height > FB_MAX_HEIGHT) return -1;
  const pixels = width * height;
  if ((pixels & 15) !== 0) return -1;
  const small = pixels <= FB_WIDTH * FB_HEIGHT;
  fbWidth = width;
  fbHeight = height;
  fbBase = small ? FRAMEBUFFER : FRAMEBUFFER_LARGE;
  rgbaBase = small ? RGBA : RGBA_LARGE;
  return 0;
}

/** The framebuffer's address (FRAMEBUFFER or FRAMEBUFFER_LARGE, by its size). */
export function fb_address(): usize {
  return fbBase;
}

/** The RGBA output's address (RGBA or RGBA_LARGE). */
export function rgba_address(): usize {
  return rgbaBase;
}
