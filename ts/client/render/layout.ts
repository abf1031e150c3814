// Where things sit on the 320×240 framebuffer: the game viewport is the left
// 240×240 (30×30 tiles of 8 px), the HUD panel the right 80 px. One place for
// the numbers, so frame composition, HUD and click mapping agree.
import { FB_HEIGHT, FB_WIDTH } from "../../constants.js";
import { CELL_SIZE_PX } from "../assets/sheets.js";

export interface Rect {
  readonly x: number;
  readonly y: number;
  readonly w: number;
  readonly h: number;
}

export const TILE_SIZE_PX = CELL_SIZE_PX;
export const VIEWPORT: Rect = { x: 0, y: 0, w: 240, h: FB_HEIGHT };
export const PANEL: Rect = { x: VIEWPORT.w, y: 0, w: FB_WIDTH - VIEWPORT.w, h: FB_HEIGHT };

export function contains(rect: Rect, x: number, y: number): boolean {
  return x >= rect.x && x < rect.x + rect.w && y >= rect.y && y < rect.y + rect.h;
}
