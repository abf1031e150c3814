// Fills the wasm SPRITES region entry by entry and draws it in one
// draw_sprites call per sheet: entities, route markers and HUD text all go
// through it, so the boundary is crossed once per batch, not once per glyph.
import { SPRITE_BYTES, SPRITES_MAX } from "../../ref/blit.js";
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
    const u8 = this.blitter.core.u8;
    const at = this.blitter.core.layout.SPRITES + this.count * SPRITE_BYTES;
    u8[at] = x;
    u8[at + 1] = x >> 8;
    u8[at + 2] = y;
    u8[at + 3] = y >> 8;
    u8[at + 4] = cell;
    u8[at + 5] = cell >> 8;
    u8[at + 6] = mode;
    u8[at + 7] = tint;
    this.count++;
    return true;
  }

  /** Draws the entries from `sheet` (a SHEET_COLUMNS-wide sheet of 8×8 cells), clipped to `clip`, and empties the list. */
  flush(sheet: number, clip: Rect): void {
    if (this.count > 0) {
      this.blitter.drawSprites(
        this.count,
        sheet,
        SHEET_COLUMNS,
        CELL_SIZE_PX,
        CELL_SIZE_PX,
        clip.x,
        clip.y,
        clip.w,
        clip.h,
      );
    }
    this.count = 0;
  }
}
