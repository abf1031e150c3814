// Weather drawn over the world (issue 15, docs/wasm-abi.md § Weather): one call per
// frame over the viewport, before the lit conversion (so the night darkens rain and fog too),
// labels and the HUD.
// Deterministic: the same rectangle, weather and frame number give the same pixels
// (ts/ref/weather.ts is the JS reference, byte for byte).
//
// Every effect is a per-channel average of the pixel with a colour — in RGB332,
// (a & b) + (((a ^ b) & 0xDA) >> 1): the mask clears each channel's lowest bit so
// the shift borrows nothing across channels — so rain and fog tint what is there
// instead of painting over it, and eight pixels take one u64 step.
//
// - rain (1): streaks falling down and a little left, each a hashed start moved
//   with the frame, 6 px long, averaged with a pale blue-grey.
// - storm (3): heavier rain (four times the streaks, 9 px, faster) and, on some
//   frames (a hash of frame / 8), a lightning flash: the whole rectangle averaged
//   with white for two frames.
// - fog (2): the rectangle averaged with fog grey, then once more with a paler grey
//   inside drifting 16 × 16 px puffs (a hash of the puff's cell in a grid moving with the frame).
// - clear (0) and unknown codes draw nothing.
import { fbBase, fbWidth } from "./target";
import { clipBottom, clipLeft, clipRight, clipTop, setClip } from "./clip";
import { broadcastByte } from "./rows";

export const WEATHER_RAIN: i32 = 1;
export const WEATHER_FOG: i32 = 2;
export const WEATHER_STORM: i32 = 3;

/** Colours averaged in: rain a pale blue (#B6B6FF), fog grey (#9292AA), its puffs a paler grey, the flash white. */
const RAIN_COLOUR: i32 = 0xb7;
const FOG_COLOUR: i32 = 0x92;
const PUFF_COLOUR: i32 = 0xdb;
const FLASH_COLOUR: i32 = 0xff;
/** Per-channel bits above each channel's lowest: r 7-6, g 4-3, b 1. */
const HALF_MASK: u64 = 0xdadadadadadadada;
const FOG_PUFF_SHIFT: i32 = 4;

/** A 32-bit integer hash (lowbias32): spreads consecutive inputs over the whole range. */
function hash32(value: u32): u32 {
  let x = value;
  x ^= x >> 16;
  x *= 0x7feb352d;
  x ^= x >> 15;
  x *= 0x846ca68b;
  x ^= x >> 16;
  return x;
}

/** The per-channel average of two RGB332 bytes (floor). */
function average(a: i32, b: i32): i32 {
  return (a & b) + (((a ^ b) & 0xda) >> 1);
}

/** Averages [from, to) of framebuffer row `row` with `colour`, eight pixels a step. */
function averageRun(row: usize, from: i32, to: i32, colour: i32): void {
  const word = broadcastByte(colour);
  let px = from;
  for (; px + 8 <= to; px += 8) {
    const at = row + <usize>px;
    const pixels = load<u64>(at);
    store<u64>(at, (pixels & word) + (((pixels ^ word) & HALF_MASK) >> 1));
  }
  for (; px < to; px++) {
    const at = row + <usize>px;
    store<u8>(at, <u8>average(<i32>load<u8>(at), colour));
  }
}

/** Averages the whole clip with `colour`. */
function averageClip(colour: i32): void {
  for (let py = clipTop; py < clipBottom; py++) {
    averageRun(fbBase + <usize>(py * fbWidth), clipLeft, clipRight, colour);
  }
}

/**
 * `count` streaks of `length` px over the clip, moving `speed` px down (and speed / 2 left) per
 * frame, wrapping around the clip (plus a streak's length, so they enter and leave at the edges).
 */
function drawStreaks(count: i32, length: i32, speed: i32, frame: i32, salt: u32): void {
  const w = clipRight - clipLeft;
  const h = clipBottom - clipTop;
  const spanX = <u32>(w + length);
  const spanY = <u32>(h + length);
  const fall = <u32>frame * <u32>speed;
  for (let i = 0; i < count; i++) {
    const seed = hash32(((<u32>i) << 1) ^ salt);
    const startX = hash32(seed) % spanX;
    const startY = hash32(seed ^ 0x9e3779b9) % spanY;
    // Unsigned wrap-around of the fall keeps the motion steady at any frame number.
    const headY = <i32>((startY + (fall % spanY)) % spanY) - length + clipTop;
    const headX = <i32>((startX + spanX - ((fall >> 1) % spanX)) % spanX) + clipLeft;
    for (let k = 0; k < length; k++) {
      const y = headY + k;
      const x = headX - (k >> 1);
      if (y < clipTop || y >= clipBottom || x < clipLeft || x >= clipRight) continue;
      const at = fbBase + <usize>(y * fbWidth + x);
      store<u8>(at, <u8>average(<i32>load<u8>(at), RAIN_COLOUR));
    }
  }
}

/** The fog: one average everywhere, a paler second one in the puffs of a 16 px grid drifting right and down. */
function drawFog(frame: i32): void {
  averageClip(FOG_COLOUR);
  // The grid moves one pixel every second frame to the right and every fourth down.
  const driftX = (<u32>frame) >> 1;
  const driftY = (<u32>frame) >> 2;
  for (let py = clipTop; py < clipBottom; py++) {
    const gy = <u32>(py - clipTop) + driftY;
    const cellY = gy >> FOG_PUFF_SHIFT;
    const row = fbBase + <usize>(py * fbWidth);
    let px = clipLeft;
    while (px < clipRight) {
      const gx = <u32>(px - clipLeft) + driftX;
      const cellX = gx >> FOG_PUFF_SHIFT;
      let cellEnd = px + <i32>(((cellX + 1) << FOG_PUFF_SHIFT) - gx);
      if (cellEnd > clipRight) cellEnd = clipRight;
      // About one cell in three is a puff.
      if (hash32((cellX * 0x10001) ^ (cellY * 0x3b9aca07)) % 3 == 0) averageRun(row, px, cellEnd, PUFF_COLOUR);
      px = cellEnd;
    }
  }
}

/**
 * Draws weather `kind` (0 clear, 1 rain, 2 fog, 3 storm: the WorldClockPacket's codes) over
 * [x, x + w) × [y, y + h) ∩ framebuffer as it looks at frame `frame` (any i32, read as u32).
 * Returns 1 when it drew a lightning flash (the host then shows the frame at full light: the
 * flash lights the scene), else 0.
 */
export function weather_draw(x: i32, y: i32, w: i32, h: i32, kind: i32, frame: i32): i32 {
  if (kind != WEATHER_RAIN && kind != WEATHER_FOG && kind != WEATHER_STORM) return 0;
  if (!setClip(x, y, w, h)) return 0;
  const area = (clipRight - clipLeft) * (clipBottom - clipTop);
  let flash = 0;
  if (kind == WEATHER_RAIN) {
    drawStreaks((area >> 9) + 1, 6, 5, frame, 0x5eed);
  } else if (kind == WEATHER_STORM) {
    // A flash lasts two frames of each eight-frame slot that the slot's hash picks (one in 24).
    if (((<u32>frame) & 7) < 2 && hash32(((<u32>frame) >> 3) ^ 0x57041) % 24 == 0) {
      averageClip(FLASH_COLOUR);
      flash = 1;
    }
    drawStreaks((area >> 7) + 1, 9, 8, frame, 0x570a);
  } else {
    drawFog(frame);
  }
  return flash;
}
