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

/**
 * How the page shows the framebuffer (issue 18 items 4 and 5), every scale a whole number of device pixels per
 * framebuffer pixel so no pixel blurs:
 * - "side": the whole framebuffer, the panel right of the view (a desktop window, a phone held sideways). When
 *   the status line's own row would cost a whole scale step (800 × 500: 474 px left, 2× needs 480) the status
 *   line lies over the bottom of the view instead (`statusOverlay`); the player stands in the middle, far from it.
 * - "stacked": a portrait screen. The view on top, cropped symmetrically to `viewColumns` framebuffer columns
 *   (the client may show less than the server's 30 × 30 tiles; the player stays in the middle), so it can fill
 *   the width at a larger scale; the panel under it, left, at `panelScale` (≤ the view's), the touch controls
 *   beside it.
 */
export interface PageLayout {
  readonly mode: "side" | "stacked";
  /** Device pixels per framebuffer pixel of the view (and of the whole canvas). */
  readonly scale: number;
  /** CSS pixels per framebuffer pixel (scale / devicePixelRatio). */
  readonly cssPerPixel: number;
  /** Framebuffer columns of the view shown, from viewLeft (side: the whole VIEWPORT). */
  readonly viewLeft: number;
  readonly viewColumns: number;
  /** Stacked: device pixels per framebuffer pixel of the panel; side: the same as scale. */
  readonly panelScale: number;
  /** The status line is drawn over the view rather than in a row of its own. */
  readonly statusOverlay: boolean;
}

/** Fewest view columns a stacked layout may crop to: 24 tiles, so the 30-tile view loses at most 3 on each side. */
export const MIN_VIEW_COLUMNS = 24 * TILE_SIZE_PX;

/**
 * The layout for a page of `pageCssWidth` × `pageCssHeight` CSS pixels whose status line takes `statusCssHeight`,
 * at `devicePixelRatio`: the stacked layout on a portrait page when it gives the view a larger scale, else side.
 */
export function pageLayout(
  pageCssWidth: number,
  pageCssHeight: number,
  statusCssHeight: number,
  devicePixelRatio: number,
): PageLayout {
  const ratio = devicePixelRatio > 0 ? devicePixelRatio : 1;
  const width = Math.floor(pageCssWidth * ratio);
  const height = Math.floor(pageCssHeight * ratio);
  const status = Math.ceil(statusCssHeight * ratio);
  const sideScale = (space: number) => Math.max(1, Math.floor(Math.min(width / FB_WIDTH, space / FB_HEIGHT)));
  const withRow = sideScale(height - status);
  const overlaid = sideScale(height);
  const side: PageLayout = {
    mode: "side",
    scale: Math.max(withRow, overlaid),
    cssPerPixel: Math.max(withRow, overlaid) / ratio,
    viewLeft: VIEWPORT.x,
    viewColumns: VIEWPORT.w,
    panelScale: Math.max(withRow, overlaid),
    statusOverlay: overlaid > withRow,
  };
  if (pageCssHeight <= pageCssWidth) return side;
  for (let scale = Math.floor(width / MIN_VIEW_COLUMNS); scale > side.scale; scale--) {
    const columns = Math.min(VIEWPORT.w, Math.floor(width / scale));
    const panelScale = Math.min(scale, Math.floor((height - status - VIEWPORT.h * scale) / PANEL.h));
    if (panelScale < 1 || PANEL.w * panelScale > width) continue;
    return {
      mode: "stacked",
      scale,
      cssPerPixel: scale / ratio,
      viewLeft: VIEWPORT.x + Math.floor((VIEWPORT.w - columns) / 2),
      viewColumns: columns,
      panelScale,
      statusOverlay: false,
    };
  }
  return side;
}
