// Bitmap text for the HUD: glyphs of the 8×8 font sheet placed 6 px apart
// (FONT_ADVANCE_PX: one clear column between letters, 13 characters across the
// 80-px panel where draw_text's fixed 8-px advance fits 10), drawn tinted as
// one sprite batch.
import { MODE_TINTED } from "../../blit-layout.js";
import { FONT_ADVANCE_PX, FONT_FIRST_CHAR, FONT_LAST_CHAR } from "../assets/sheets.js";
import type { SpriteList } from "./sprite-list.js";
import { TEXT_SHADOW } from "./palette.js";

const QUESTION_MARK = 0x3f;

/** The font cell of a character: printable ASCII as is, everything else '?'. */
export function glyphCell(code: number): number {
  const byte = code >= FONT_FIRST_CHAR && code <= FONT_LAST_CHAR ? code : QUESTION_MARK;
  return byte - FONT_FIRST_CHAR;
}

/** Width in pixels of `text` at the HUD advance (times `scale`, for text drawn from a scaled font: world-scale.ts). */
export function textWidthPx(text: string, scale = 1): number {
  return text.length * FONT_ADVANCE_PX * scale;
}

/** How many characters fit in `widthPx` (a glyph's ink ends in its cell's sixth column). */
export function columnsIn(widthPx: number): number {
  return Math.floor(widthPx / FONT_ADVANCE_PX);
}

/**
 * Queues `text` at (x, y) in `colour`; with `shadow` a dark copy one pixel
 * down-right first, which keeps text legible over busy tiles. Spaces cost nothing.
 * `scale`: the font sheet flushed is scaled by it (world-scale.ts), so the advance
 * and the shadow's offset are too. Returns the pen x after the text.
 */
export function queueText(
  list: SpriteList,
  text: string,
  x: number,
  y: number,
  colour: number,
  shadow = false,
  scale = 1,
): number {
  if (shadow) queueText(list, text, x + scale, y + scale, TEXT_SHADOW, false, scale);
  let pen = x;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code !== 0x20) list.add(pen, y, glyphCell(code), MODE_TINTED, colour);
    pen += FONT_ADVANCE_PX * scale;
  }
  return pen;
}

/** Cuts `text` to `columns` characters, marking a cut with a trailing '.'. */
export function fitText(text: string, columns: number): string {
  if (text.length <= columns) return text;
  return columns <= 1 ? text.slice(0, columns) : text.slice(0, columns - 1) + ".";
}

/**
 * Breaks `text` into lines of at most `columns` characters at spaces; a word
 * longer than a line is split. Never returns an empty list.
 */
export function wrapText(text: string, columns: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/).filter((part) => part.length > 0)) {
    let rest = word;
    if (line.length > 0 && line.length + 1 + rest.length <= columns) {
      line += " " + rest;
      continue;
    }
    if (line.length > 0) lines.push(line);
    while (rest.length > columns) {
      lines.push(rest.slice(0, columns));
      rest = rest.slice(columns);
    }
    line = rest;
  }
  if (line.length > 0 || lines.length === 0) lines.push(line);
  return lines;
}
