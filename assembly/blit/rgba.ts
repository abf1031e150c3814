// Framebuffer → RGBA8888 for a canvas ImageData: the RGB332 expansion table
// and the whole-frame conversion through it.
import { RGB332_LUT } from "../layout";
import { fbBase, fbHeight, fbWidth, rgbaBase } from "./target";

/**
 * Fills RGB332_LUT with the standard expansion of rrrgggbb: r = rrr*255/7,
 * g = ggg*255/7, b = bb*255/3 (integer division), alpha 255, stored as a
 * little-endian u32 so the bytes read R, G, B, A as ImageData wants.
 */
export function lut_init(): void {
  for (let c = 0; c < 256; c++) {
    const red = ((c >> 5) * 255) / 7;
    const green = (((c >> 2) & 7) * 255) / 7;
    const blue = ((c & 3) * 255) / 3;
    store<u32>(RGB332_LUT + ((<usize>c) << 2), (<u32>(red | (green << 8) | (blue << 16))) | 0xff000000);
  }
}

/**
 * RGBA[i] = RGB332_LUT[FRAMEBUFFER[i]] for every pixel (or the large pair, target.ts). When the table is
 * channel-separable (each of R, G, B depends only on its own bits and alpha is
 * constant — true for lut_init's table and any per-channel remap of it), the
 * three channel tables fit SIMD registers and 16 pixels convert per step via
 * byte swizzles; any other table goes through the scalar per-pixel look-up.
 * Both paths give RGBA[i] = LUT[FB[i]] exactly. A build without SIMD (asc
 * --disable simd: build/core-scalar.wasm, for hosts such as wasm2c 1.0.32
 * that cannot run v128) always takes the per-pixel look-up; asc compiles only
 * the branch ASC_FEATURE_SIMD selects.
 */
export function fb_to_rgba(): void {
  if (ASC_FEATURE_SIMD) {
    const alpha = load<u32>(RGB332_LUT) >>> 24;
    let redTable: u64 = 0;
    let greenTable: u64 = 0;
    let blueTable: u64 = 0;
    for (let i = 0; i < 8; i++) {
      redTable |= (<u64>(load<u32>(RGB332_LUT + ((<usize>(i << 5)) << 2)) & 0xff)) << (i << 3);
      greenTable |= (<u64>((load<u32>(RGB332_LUT + ((<usize>(i << 2)) << 2)) >>> 8) & 0xff)) << (i << 3);
    }
    for (let i = 0; i < 4; i++)
      blueTable |= (<u64>((load<u32>(RGB332_LUT + ((<usize>i) << 2)) >>> 16) & 0xff)) << (i << 3);
    let separable = true;
    for (let c = 0; c < 256; c++) {
      const expected =
        ((<u32>(redTable >> ((c >> 5) << 3))) & 0xff) |
        (((<u32>(greenTable >> (((c >> 2) & 7) << 3))) & 0xff) << 8) |
        (((<u32>(blueTable >> ((c & 3) << 3))) & 0xff) << 16) |
        (alpha << 24);
      if (load<u32>(RGB332_LUT + ((<usize>c) << 2)) != expected) {
        separable = false;
        break;
      }
    }
    if (separable) convertSeparable(redTable, greenTable, blueTable, alpha);
    else convertThroughTable();
  } else {
    convertThroughTable();
  }
}

/** 16 pixels per step: three 8-entry swizzle look-ups, then interleave into R,G,B,A bytes. */
function convertSeparable(redTable: u64, greenTable: u64, blueTable: u64, alpha: u32): void {
  const reds = i64x2.splat(redTable);
  const greens = i64x2.splat(greenTable);
  const blues = i64x2.splat(blueTable);
  const alphas = i8x16.splat(<i8>alpha);
  const sevens = i8x16.splat(7);
  const threes = i8x16.splat(3);
  let from = fbBase;
  let to = rgbaBase;
  const end = fbBase + <usize>(fbWidth * fbHeight);
  for (; from < end; from += 16, to += 64) {
    const pixels = v128.load(from);
    const red = i8x16.swizzle(reds, i8x16.shr_u(pixels, 5));
    const green = i8x16.swizzle(greens, v128.and(i8x16.shr_u(pixels, 2), sevens));
    const blue = i8x16.swizzle(blues, v128.and(pixels, threes));
    storeRgba16(to, red, green, blue, alphas);
  }
}

/**
 * Interleaves 16 pixels' channel bytes with their alpha into R,G,B,A order and stores the 64 bytes at
 * `out`: the last step of every SIMD conversion (fb_to_rgba here, fb_to_rgba_lit in light-rgba.ts).
 */
@inline
export function storeRgba16(out: usize, red: v128, green: v128, blue: v128, alphas: v128): void {
  const redGreenLow = i8x16.shuffle(red, green, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
  const redGreenHigh = i8x16.shuffle(red, green, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
  const blueAlphaLow = i8x16.shuffle(blue, alphas, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
  const blueAlphaHigh = i8x16.shuffle(blue, alphas, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
  v128.store(out, i16x8.shuffle(redGreenLow, blueAlphaLow, 0, 8, 1, 9, 2, 10, 3, 11));
  v128.store(out, i16x8.shuffle(redGreenLow, blueAlphaLow, 4, 12, 5, 13, 6, 14, 7, 15), 16);
  v128.store(out, i16x8.shuffle(redGreenHigh, blueAlphaHigh, 0, 8, 1, 9, 2, 10, 3, 11), 32);
  v128.store(out, i16x8.shuffle(redGreenHigh, blueAlphaHigh, 4, 12, 5, 13, 6, 14, 7, 15), 48);
}

/** Any table: four pixels per step, one look-up each. */
function convertThroughTable(): void {
  let from = fbBase;
  let to = rgbaBase;
  const end = fbBase + <usize>(fbWidth * fbHeight);
  for (; from < end; from += 4, to += 16) {
    const four = load<u32>(from);
    store<u32>(to, load<u32>(RGB332_LUT + (((<usize>four) & 0xff) << 2)));
    store<u32>(to, load<u32>(RGB332_LUT + (((<usize>(four >>> 8)) & 0xff) << 2)), 4);
    store<u32>(to, load<u32>(RGB332_LUT + (((<usize>(four >>> 16)) & 0xff) << 2)), 8);
    store<u32>(to, load<u32>(RGB332_LUT + ((<usize>(four >>> 24)) << 2)), 12);
  }
}
