// Fills the wasm SPRITES region entry by entry and draws it in one
// draw_sprites call per sheet: entities, route markers and HUD text all go
// through it, so the boundary is crossed once per batch, not once per glyph.
import { SPRITE_BYTES, SPRITES_MAX, writeSpriteEntry } from "../../blit-layout.js";
import type { WasmBlitter } from "../../wasm/blit.js";
import { CELL_SIZE_PX, SHEET_COLUMNS } from "../assets/sheets.js";
import type { Rect } from "./layout.js";

/** Sprite positions are i16 in SPRITES; anything this far out is off-screen anyway. */
const POSITION_LIMIT = 0x4000;

export class SpriteList {
  private count = 0;

  constructor(private readonly blitter: WasmBlitter) {}

  get length(): number {
    return this.count;
  }

  /** Adds one cell at framebuffer (x, y); false when the list is full or the position absurd. */
  add(x: number, y: number, cell: number, mode: number, tint = 0): boolean {
    if (this.count >= SPRITES_MAX || Math.abs(x) >= POSITION_LIMIT || Math.abs(y) >= POSITION_LIMIT) return false;
    const at = this.blitter.core.layout.SPRITES + this.count * SPRITE_BYTES;
    writeSpriteEntry(this.blitter.core.u8, at, x, y, cell, mode, tint);
    this.count++;
    return true;
  }

  /**
   * Draws the entries from `sheet` (by default a SHEET_COLUMNS-wide sheet of 8×8 cells; the map atlas is
   * `columns` wide in cells of `cellPx`), clipped to `clip`, and empties the list.
   */
  flush(sheet: number, clip: Rect, columns = SHEET_COLUMNS, cellPx = CELL_SIZE_PX): void {
    if (this.count > 0) {
      this.blitter.drawSprites(this.count, sheet, columns, cellPx, cellPx, clip.x, clip.y, clip.w, clip.h);
    }
    this.count = 0;
  }
}
