// Bitmap font text (roadmap "UI / HUD": 8×8 glyph sheet, draw_text): ASCII
// bytes drawn as tinted 8×8 glyphs, one line, clipped to the framebuffer.
import { blitClipped, blitInside8, clipToFramebuffer, insideClip } from "./clip";
import { MODE_TINTED } from "./rows";
import { tileAddress, useSheet } from "./sheet";
import { fbHeight, fbWidth } from "./target";

/** Glyph cell edge in pixels. */
const GLYPH_SIZE: i32 = 8;
/** First and last byte with a glyph; the sheet holds glyph (byte - 32) for bytes 32..126. */
const FIRST_GLYPH_BYTE: i32 = 32;
const LAST_GLYPH_BYTE: i32 = 126;

/**
 * Draws `len` bytes from `ptr` left to right from (x, y), each 8 px wide.
 * Byte c in 32..126 is sheet glyph c - 32 (font_cols glyphs per sheet row);
 * other bytes (control, DEL, >= 128) are blank cells. Returns x + 8 * len
 * (i32 wrap-around), the pen position after the last cell.
 */
export function draw_text(ptr: usize, len: i32, x: i32, y: i32, color: u8, font: usize, font_cols: i32): i32 {
  if (len <= 0) return x;
  const end = x + len * GLYPH_SIZE;
  if (font_cols <= 0 || y <= -GLYPH_SIZE || y >= fbHeight) return end;
  clipToFramebuffer();
  const sheetStride = font_cols * GLYPH_SIZE;
  useSheet(font, font_cols, GLYPH_SIZE, GLYPH_SIZE);
  // Start at the first cell that reaches x >= -7: a long line far off to the left costs nothing.
  const first = x <= -GLYPH_SIZE ? <i32>((<i64>-GLYPH_SIZE - <i64>x) / GLYPH_SIZE) + 1 : 0;
  let penX = <i64>x + <i64>first * GLYPH_SIZE;
  for (let i = first; i < len; i++, penX += GLYPH_SIZE) {
    if (penX >= <i64>fbWidth) break;
    const c = <i32>load<u8>(ptr + <usize>i);
    if (c < FIRST_GLYPH_BYTE || c > LAST_GLYPH_BYTE) continue;
    const src = tileAddress(c - FIRST_GLYPH_BYTE);
    if (insideClip(<i32>penX, y, GLYPH_SIZE, GLYPH_SIZE)) {
      blitInside8(src, sheetStride, GLYPH_SIZE, <i32>penX, y, MODE_TINTED, color);
    } else {
      blitClipped(src, sheetStride, GLYPH_SIZE, GLYPH_SIZE, <i32>penX, y, MODE_TINTED, color);
    }
  }
  return end;
}
