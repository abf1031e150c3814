// JS reference of weather_draw (assembly/blit/weather.ts, docs/wasm-abi.md § Weather):
// the same rain streaks, storm flashes and fog puffs, pixel by pixel over a plain
// framebuffer. The test oracle for the wasm kernel and its benchmark baseline.
import { FB_HEIGHT, FB_WIDTH } from "../constants.js";

export const WEATHER_RAIN = 1;
export const WEATHER_FOG = 2;
export const WEATHER_STORM = 3;
const RAIN_COLOUR = 0xb7;
const FOG_COLOUR = 0x92;
const PUFF_COLOUR = 0xdb;
const FLASH_COLOUR = 0xff;
const FOG_PUFF_PX = 16;

/** lowbias32, as the kernel's hash32 (u32 arithmetic). */
export function hash32(value: number): number {
  let x = value >>> 0;
  x = (x ^ (x >>> 16)) >>> 0;
  x = Math.imul(x, 0x7feb352d) >>> 0;
  x = (x ^ (x >>> 15)) >>> 0;
  x = Math.imul(x, 0x846ca68b) >>> 0;
  return (x ^ (x >>> 16)) >>> 0;
}

/** The per-channel floor average of two RGB332 bytes, channel by channel. */
export function averageRgb332(a: number, b: number): number {
  const red = ((a >> 5) + (b >> 5)) >> 1;
  const green = (((a >> 2) & 7) + ((b >> 2) & 7)) >> 1;
  const blue = ((a & 3) + (b & 3)) >> 1;
  return (red << 5) | (green << 2) | blue;
}

interface Clip {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

function averageAt(fb: Uint8Array, x: number, y: number, colour: number): void {
  fb[y * FB_WIDTH + x] = averageRgb332(fb[y * FB_WIDTH + x], colour);
}

function averageAll(fb: Uint8Array, clip: Clip, colour: number): void {
  for (let y = clip.top; y < clip.bottom; y++) for (let x = clip.left; x < clip.right; x++) averageAt(fb, x, y, colour);
}

function streaks(
  fb: Uint8Array,
  clip: Clip,
  count: number,
  length: number,
  speed: number,
  frame: number,
  salt: number,
): void {
  const spanX = clip.right - clip.left + length;
  const spanY = clip.bottom - clip.top + length;
  const fall = Math.imul(frame >>> 0, speed) >>> 0;
  for (let i = 0; i < count; i++) {
    const seed = hash32(((i << 1) ^ salt) >>> 0);
    const startX = hash32(seed) % spanX;
    const startY = hash32((seed ^ 0x9e3779b9) >>> 0) % spanY;
    const headY = ((startY + (fall % spanY)) % spanY) - length + clip.top;
    const headX = ((startX + spanX - ((fall >>> 1) % spanX)) % spanX) + clip.left;
    for (let k = 0; k < length; k++) {
      const y = headY + k;
      const x = headX - (k >> 1);
      if (y >= clip.top && y < clip.bottom && x >= clip.left && x < clip.right) averageAt(fb, x, y, RAIN_COLOUR);
    }
  }
}

function fog(fb: Uint8Array, clip: Clip, frame: number): void {
  averageAll(fb, clip, FOG_COLOUR);
  const driftX = (frame >>> 0) >>> 1;
  const driftY = (frame >>> 0) >>> 2;
  for (let y = clip.top; y < clip.bottom; y++) {
    const cellY = Math.floor((y - clip.top + driftY) / FOG_PUFF_PX);
    for (let x = clip.left; x < clip.right; x++) {
      const cellX = Math.floor((x - clip.left + driftX) / FOG_PUFF_PX);
      const puff = hash32((Math.imul(cellX, 0x10001) ^ Math.imul(cellY, 0x3b9aca07)) >>> 0) % 3 === 0;
      if (puff) averageAt(fb, x, y, PUFF_COLOUR);
    }
  }
}

/**
 * weather_draw over `fb` (FB_WIDTH × FB_HEIGHT RGB332): arguments coerced to i32 as a wasm call does;
 * 1 when it drew a lightning flash, else 0.
 */
export function weatherDraw(
  fb: Uint8Array,
  x: number,
  y: number,
  w: number,
  h: number,
  kind: number,
  frame: number,
): number {
  [x, y, w, h, kind, frame] = [x, y, w, h, kind, frame].map((value) => value | 0);
  if (kind !== WEATHER_RAIN && kind !== WEATHER_FOG && kind !== WEATHER_STORM) return 0;
  const clip: Clip = {
    left: Math.max(0, x),
    top: Math.max(0, y),
    right: Math.min(FB_WIDTH, x + w),
    bottom: Math.min(FB_HEIGHT, y + h),
  };
  if (clip.left >= clip.right || clip.top >= clip.bottom) return 0;
  const area = (clip.right - clip.left) * (clip.bottom - clip.top);
  let flash = 0;
  if (kind === WEATHER_RAIN) {
    streaks(fb, clip, (area >> 9) + 1, 6, 5, frame, 0x5eed);
  } else if (kind === WEATHER_STORM) {
    const slot = (frame >>> 0) >>> 3;
    if ((frame & 7) < 2 && hash32((slot ^ 0x57041) >>> 0) % 24 === 0) {
      averageAll(fb, clip, FLASH_COLOUR);
      flash = 1;
    }
    streaks(fb, clip, (area >> 7) + 1, 9, 8, frame, 0x570a);
  } else {
    fog(fb, clip, frame);
  }
  return flash;
}
