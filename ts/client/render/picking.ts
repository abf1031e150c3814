// From a pointer on the page to a world tile: page coordinates → framebuffer
// pixel (undoing the canvas's CSS scaling) → world tile (undoing the camera).
// Pure, so the mapping is tested without a browser.
import { FB_HEIGHT, FB_WIDTH } from "../../constants.js";
import type { ViewportPlacement } from "./camera.js";
import { contains, type Rect, TILE_SIZE_PX, VIEWPORT } from "./layout.js";

export interface Point {
  x: number;
  y: number;
}

/** The canvas's box on the page (getBoundingClientRect). */
export interface CanvasBox {
  left: number;
  top: number;
  width: number;
  height: number;
}

/**
 * The framebuffer pixel under page point (clientX, clientY), or null outside the canvas; `screen` is the
 * framebuffer's size (320 × 240 unless a map's larger tiles resized it).
 */
export function framebufferPixelAt(
  clientX: number,
  clientY: number,
  box: CanvasBox,
  screen: { width: number; height: number } = { width: FB_WIDTH, height: FB_HEIGHT },
): Point | null {
  if (box.width <= 0 || box.height <= 0) return null;
  const x = Math.floor(((clientX - box.left) * screen.width) / box.width);
  const y = Math.floor(((clientY - box.top) * screen.height) / box.height);
  if (x < 0 || y < 0 || x >= screen.width || y >= screen.height) return null;
  return { x, y };
}

/**
 * The framebuffer pixel under page point (clientX, clientY) on an element showing only framebuffer rectangle
 * `shows` (the stacked layout's panel canvas), or null outside it.
 */
export function framebufferPixelIn(clientX: number, clientY: number, box: CanvasBox, shows: Rect): Point | null {
  if (box.width <= 0 || box.height <= 0) return null;
  const x = Math.floor(((clientX - box.left) * shows.w) / box.width);
  const y = Math.floor(((clientY - box.top) * shows.h) / box.height);
  if (x < 0 || y < 0 || x >= shows.w || y >= shows.h) return null;
  return { x: shows.x + x, y: shows.y + y };
}

/** The world tile drawn at framebuffer pixel (x, y) in a frame placed by `placement`; null outside the viewport. */
export function worldTileAt(pixel: Point, placement: ViewportPlacement): Point | null {
  if (!contains({ ...VIEWPORT, w: placement.widthPx, h: placement.heightPx }, pixel.x, pixel.y)) return null;
  const tile = placement.tileSizePx;
  return {
    x: Math.floor((placement.originXPx + pixel.x - VIEWPORT.x) / tile),
    y: Math.floor((placement.originYPx + pixel.y - VIEWPORT.y) / tile),
  };
}

/** Framebuffer position of world tile (x, y)'s top-left pixel in a frame placed by `placement`. */
export function screenOfTile(tileX: number, tileY: number, placement: ViewportPlacement): Point {
  return {
    x: VIEWPORT.x + tileX * placement.tileSizePx - placement.originXPx,
    y: VIEWPORT.y + tileY * placement.tileSizePx - placement.originYPx,
  };
}

/**
 * Framebuffer x of a sprite `spritePx` wide (8, or 8 × the world's sprite scale: world-scale.ts) at world
 * pixel x `xPx` (tile × 8): scaled with the map's tiles and centred in its tile when the tiles are larger
 * than the sprite. Numbers, not a point: called per entity per frame.
 */
export function spriteScreenX(xPx: number, placement: ViewportPlacement, spritePx: number = TILE_SIZE_PX): number {
  return VIEWPORT.x + spriteOffsetPx(xPx, placement.tileSizePx, spritePx) - placement.originXPx;
}

/** Framebuffer y of a sprite at world pixel y `yPx`, as spriteScreenX. */
export function spriteScreenY(yPx: number, placement: ViewportPlacement, spritePx: number = TILE_SIZE_PX): number {
  return VIEWPORT.y + spriteOffsetPx(yPx, placement.tileSizePx, spritePx) - placement.originYPx;
}

/** Framebuffer x, y of a whole map tile drawn for an entity at world pixel (xPx, yPx): a kind in the map's own art. */
export function tileSpriteScreenX(xPx: number, placement: ViewportPlacement): number {
  return VIEWPORT.x + Math.round((xPx * placement.tileSizePx) / TILE_SIZE_PX) - placement.originXPx;
}

export function tileSpriteScreenY(yPx: number, placement: ViewportPlacement): number {
  return VIEWPORT.y + Math.round((yPx * placement.tileSizePx) / TILE_SIZE_PX) - placement.originYPx;
}

function spriteOffsetPx(worldPx: number, tileSizePx: number, spritePx: number): number {
  if (tileSizePx === TILE_SIZE_PX) return Math.round(worldPx);
  return Math.round((worldPx * tileSizePx) / TILE_SIZE_PX) + ((tileSizePx - spritePx) >> 1);
}
