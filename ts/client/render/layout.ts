// Where things sit on the framebuffer: the game viewport is the left 30 × 30
// tiles (240 × 240 at the built-in 8 px; 480 × 480 and 960 × 960 for a map
// drawn with its own 16 or 32 px tiles, issue 16), the HUD panel the 80 px
// right of it. One place for the numbers, so frame composition, HUD, the
// canvas and click mapping agree.
import { FB_HEIGHT, FB_MAX_HEIGHT, FB_MAX_WIDTH, FB_WIDTH } from "../../constants.js";
import { CELL_SIZE_PX } from "../assets/sheets.js";

export interface Rect {
  readonly x: number;
  readonly y: number;
  readonly w: number;
  readonly h: number;
}

export const TILE_SIZE_PX = CELL_SIZE_PX;
/** Tiles across and down the view (the spec's 30 × 30), at every tile size that fits the framebuffer. */
export const VIEW_TILES = 30;
/** The HUD panel: 80 px wide, 240 tall, right of the view (the column below it, on larger screens, is blank panel). */
const PANEL_WIDTH_PX = FB_WIDTH - VIEW_TILES * CELL_SIZE_PX;
const PANEL_HEIGHT_PX = FB_HEIGHT;

/** The framebuffer for one tile size: its size, the view in it and the HUD panel beside the view. */
export interface Screen {
  /** Framebuffer size (what fb_resize is given). */
  readonly width: number;
  readonly height: number;
  readonly view: Rect;
  /** The HUD's 80 × 240 at the view's top right. */
  readonly panel: Rect;
}

/**
 * The framebuffer for a map drawn with `tileSizePx` tiles: a view of 30 × 30 tiles (fewer when that
 * would not fit the largest framebuffer, 1040 × 960) and the panel. The width is rounded up to a
 * multiple of 16 (fb_resize's unit); 8 px gives the default 320 × 240 exactly.
 */
export function screenForTileSize(tileSizePx: number): Screen {
  const tile = Math.max(1, Math.floor(tileSizePx));
  const viewPx = Math.min(VIEW_TILES * tile, FB_MAX_WIDTH - PANEL_WIDTH_PX, FB_MAX_HEIGHT);
  const view: Rect = { x: 0, y: 0, w: viewPx, h: viewPx };
  const panel: Rect = { x: viewPx, y: 0, w: PANEL_WIDTH_PX, h: PANEL_HEIGHT_PX };
  const width = Math.min(FB_MAX_WIDTH, Math.ceil((viewPx + PANEL_WIDTH_PX) / 16) * 16);
  return { width, height: Math.max(viewPx, PANEL_HEIGHT_PX), view, panel };
}

/** The built-in 8 px tiles' framebuffer: 320 × 240, the view the left 240 × 240. */
export const DEFAULT_SCREEN: Screen = screenForTileSize(CELL_SIZE_PX);
export const VIEWPORT: Rect = DEFAULT_SCREEN.view;
export const PANEL: Rect = DEFAULT_SCREEN.panel;

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
  /** Framebuffer columns of the view shown, from viewLeft (side: the whole VIEWPORT unless cropped to fit). */
  readonly viewLeft: number;
  readonly viewColumns: number;
  /**
   * Framebuffer rows of the view shown, from viewTop: the whole view, except where a framebuffer does not fit
   * the page even at 1× (a map of 32 px tiles, 1040 × 960, in a 1000 × 760 window) — then the view is cropped
   * around its middle, where the player stands, to what fits, across and down, and the HUD is the bar.
   */
  readonly viewTop: number;
  readonly viewRows: number;
  /**
   * A cropped side view leaves LOG_ROOM_CSS_PX of the page's width for the message log, on its right (the view
   * keeps at least 24 of its 30 tiles across): the page then puts the view at its left edge.
   */
  readonly logRoom: boolean;
  /** Stacked: device pixels per framebuffer pixel of the panel; side: the same as scale. */
  readonly panelScale: number;
  /** The status line is drawn over the view rather than in a row of its own. */
  readonly statusOverlay: boolean;
  /**
   * Where the HUD is read (issue 42): "panel", the framebuffer's panel beside (or under) the view; "bar",
   * a bar of the page's own text over the top of the view, where the panel's 6-px glyphs would be shown
   * smaller than HUD_READABLE_CSS_PER_PX (a phone, a map of large tiles at 1×) — the panel is then not shown.
   */
  readonly hud: "panel" | "bar";
}

/**
 * CSS pixels per framebuffer pixel below which the panel's text cannot be read (its glyphs are 6 × 8):
 * at 2 they are about the page's 12-px text.
 */
export const HUD_READABLE_CSS_PER_PX = 2;

/** The width a cropped view leaves for the message log beside it (ui/log-dock.ts takes at least 160 of it). */
export const LOG_ROOM_CSS_PX = 240;

function hudFor(panelCssPerPixel: number): "panel" | "bar" {
  return panelCssPerPixel < HUD_READABLE_CSS_PER_PX ? "bar" : "panel";
}

/**
 * What an upright page keeps under a view it must crop down (pageLayout's last case) for the log, the touch
 * controls and the Bag button: about what the stacked layout leaves them on a phone at pixel ratio 2 or 3.
 */
export const STACKED_CONTROLS_CSS_PX = 340;

/** Fewest view columns a stacked layout may crop to: 24 tiles, so the 30-tile view loses at most 3 on each side. */
export const MIN_VIEW_COLUMNS = 24 * TILE_SIZE_PX;

/** MIN_VIEW_COLUMNS for a screen: the same 24 of 30 tiles. */
function minViewColumns(screen: Screen): number {
  return Math.round((screen.view.w * 24) / VIEW_TILES);
}

/**
 * The layout for a page of `pageCssWidth` × `pageCssHeight` CSS pixels whose status line takes `statusCssHeight`,
 * at `devicePixelRatio`: the stacked layout on a portrait page when it gives the view at least side's scale, else side.
 * `screen` is the framebuffer's (the default 320 × 240 unless a map's tiles are larger).
 */
export function pageLayout(
  pageCssWidth: number,
  pageCssHeight: number,
  statusCssHeight: number,
  devicePixelRatio: number,
  screen: Screen = DEFAULT_SCREEN,
): PageLayout {
  const ratio = devicePixelRatio > 0 ? devicePixelRatio : 1;
  const width = Math.floor(pageCssWidth * ratio);
  const height = Math.floor(pageCssHeight * ratio);
  const status = Math.ceil(statusCssHeight * ratio);
  const sideScale = (space: number) => Math.max(1, Math.floor(Math.min(width / screen.width, space / screen.height)));
  const withRow = sideScale(height - status);
  const overlaid = sideScale(height);
  const scale = Math.max(withRow, overlaid);
  const statusOverlay = overlaid > withRow;
  const hud = hudFor(scale / ratio);
  // Only with the HUD as the bar (the panel is then not shown) can the view be cropped; at 1× it is the bar.
  const usable = statusOverlay ? height : height - status;
  const fitColumns = Math.min(screen.view.w, Math.floor(width / scale));
  const rows = hud === "bar" ? Math.min(screen.view.h, Math.floor(usable / scale)) : screen.view.h;
  const cropped = hud === "bar" && (fitColumns < screen.view.w || rows < screen.view.h);
  // Cropped anyway: room for the log beside the view too, as long as 24 of the 30 tiles stay across.
  const roomColumns = Math.floor((width - LOG_ROOM_CSS_PX * ratio) / scale);
  const columns = !cropped ? screen.view.w : Math.min(fitColumns, Math.max(minViewColumns(screen), roomColumns));
  const logRoom = cropped && (width - columns * scale) / ratio >= LOG_ROOM_CSS_PX - 16;
  const side: PageLayout = {
    mode: "side",
    scale,
    cssPerPixel: scale / ratio,
    viewLeft: screen.view.x + Math.floor((screen.view.w - columns) / 2),
    viewColumns: columns,
    viewTop: screen.view.y + Math.floor((screen.view.h - rows) / 2),
    viewRows: rows,
    logRoom,
    panelScale: scale,
    statusOverlay,
    hud,
  };
  if (pageCssHeight <= pageCssWidth) return side;
  // Upright, the stacked layout also at the side layout's own scale: a map of 32-px tiles on a phone is
  // drawn at 1× either way, and side put the view in the middle of the page with the log over it and the
  // touch controls over each other (the map gallery showed it, ts/tools/map-gallery.ts).
  for (let scale = Math.floor(width / minViewColumns(screen)); scale >= side.scale; scale--) {
    const columns = Math.min(screen.view.w, Math.floor(width / scale));
    const panelScale = Math.min(scale, Math.floor((height - status - screen.view.h * scale) / screen.panel.h));
    if (panelScale < 1 || screen.panel.w * panelScale > width) continue;
    return {
      mode: "stacked",
      scale,
      cssPerPixel: scale / ratio,
      viewLeft: screen.view.x + Math.floor((screen.view.w - columns) / 2),
      viewColumns: columns,
      viewTop: screen.view.y,
      viewRows: screen.view.h,
      logRoom: false,
      panelScale,
      statusOverlay: false,
      hud: hudFor(panelScale / ratio),
    };
  }
  // Upright where no scale keeps 24 tiles across (a 390-px page of real pixels, pixel ratio 1, and a map of
  // 32-px tiles at 1×): still stacked, the view cropped around the player to the page's width and to what
  // leaves the log and the touch controls their room below it, the HUD the bar. Side put them over the view.
  const rowsLeft = Math.floor((height - status - STACKED_CONTROLS_CSS_PX * ratio) / side.scale);
  if (side.hud === "bar" && rowsLeft >= screen.view.h / 3) {
    const columns = Math.min(screen.view.w, Math.floor(width / side.scale));
    const rows = Math.min(screen.view.h, rowsLeft);
    return {
      ...side,
      mode: "stacked",
      viewLeft: screen.view.x + Math.floor((screen.view.w - columns) / 2),
      viewColumns: columns,
      viewTop: screen.view.y + Math.floor((screen.view.h - rows) / 2),
      viewRows: rows,
      logRoom: false,
      statusOverlay: false,
    };
  }
  return side;
}
