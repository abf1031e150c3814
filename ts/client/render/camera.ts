// Smooth camera follow (roadmap 09): the camera is a float world-pixel position
// that chases a target (the player's tile × 8) at a fixed speed, and is rounded
// to whole pixels only when a frame is drawn.
//
// Each axis moves independently at the full speed. In our Chebyshev world a
// diagonal step takes as long as a cardinal one, so the player moves 8 px per
// axis per step; a camera moving along the straight line at 64 px/s would
// cover only 45 px/s per axis on diagonals, fall behind the walking player
// (6 steps/s = 48 px/s) and eventually hit the snap threshold mid-walk.
//
// A target further than SNAP (default 2 tiles, Chebyshev) from the camera is
// a teleport, a respawn or a large prediction correction: gliding there would
// show seconds of scrolling through the map, so the camera jumps instead.
// Walking never triggers it: at 64 px/s the camera trails a 48 px/s walker by
// under one tile.
import { CELL_SIZE_PX } from "../assets/sheets.js";
import { screenForTileSize } from "./layout.js";

export interface CameraOptions {
  /** Follow speed per axis. */
  speedPxPerSecond: number;
  /** A target further than this (Chebyshev, px) is jumped to instead of followed. */
  snapDistancePx: number;
}

export const DEFAULT_CAMERA_OPTIONS: Readonly<CameraOptions> = {
  speedPxPerSecond: 64,
  snapDistancePx: 2 * CELL_SIZE_PX,
};

/** A world position in pixels (tile × 8 for a tile's top-left corner). */
export interface PixelPoint {
  x: number;
  y: number;
}

/** Moves `from` towards `to` by at most `maxStep`, never past it. */
function approach(from: number, to: number, maxStep: number): number {
  const delta = to - from;
  if (Math.abs(delta) <= maxStep) return to;
  return from + Math.sign(delta) * maxStep;
}

/** One camera step: pure, so the caller owns the clock and tests can drive it with any dt. */
export function followTarget(
  camera: Readonly<PixelPoint>,
  target: Readonly<PixelPoint>,
  elapsedMs: number,
  options: Readonly<CameraOptions> = DEFAULT_CAMERA_OPTIONS,
): PixelPoint {
  const distance = Math.max(Math.abs(target.x - camera.x), Math.abs(target.y - camera.y));
  if (distance > options.snapDistancePx) return { x: target.x, y: target.y };
  const maxStep = (options.speedPxPerSecond * Math.max(0, elapsedMs)) / 1000;
  return { x: approach(camera.x, target.x, maxStep), y: approach(camera.y, target.y, maxStep) };
}

/** The camera's state: starts at the first target it sees, then follows. */
export class Camera {
  private position: PixelPoint | undefined;

  constructor(private readonly options: Readonly<CameraOptions> = DEFAULT_CAMERA_OPTIONS) {}

  /** Advances by `elapsedMs` towards `target` and returns the new (float) position. */
  update(elapsedMs: number, target: Readonly<PixelPoint>): Readonly<PixelPoint> {
    this.position =
      this.position === undefined
        ? { x: target.x, y: target.y }
        : followTarget(this.position, target, elapsedMs, this.options);
    return this.position;
  }

  /** Jumps to `target` (e.g. on joining or after a map change). */
  snapTo(target: Readonly<PixelPoint>): void {
    this.position = { x: target.x, y: target.y };
  }

  /** The float position, or undefined before the first update. */
  get current(): Readonly<PixelPoint> | undefined {
    return this.position;
  }
}

export interface ViewportOptions {
  widthPx: number;
  heightPx: number;
  /** The map's tiles as drawn: 8 px for the built-in art, a host's own map art at its native 8, 16 or 32 px. */
  tileSizePx: number;
}

/** The game view: the left 240×240 of the 320×240 framebuffer, 8 px tiles. */
export const DEFAULT_VIEWPORT: Readonly<ViewportOptions> = { widthPx: 240, heightPx: 240, tileSizePx: CELL_SIZE_PX };

/**
 * The game view for a map drawn with `tileSizePx` tiles (its own art, docs/art.md § Map art): 30 × 30
 * tiles at every size, 480 × 480 px for 16 px tiles and 960 × 960 for 32 (render/layout.ts screenForTileSize).
 */
export function viewportForTileSize(tileSizePx: number): Readonly<ViewportOptions> {
  if (tileSizePx === CELL_SIZE_PX) return DEFAULT_VIEWPORT;
  const { view } = screenForTileSize(tileSizePx);
  return { widthPx: view.w, heightPx: view.h, tileSizePx };
}

/** Where the world sits in the viewport for one frame. */
export interface ViewportPlacement {
  /** World pixel shown at the viewport's top-left corner (whole pixels). */
  originXPx: number;
  originYPx: number;
  /** Tile drawn at the top-left, partly cut off by the offsets below. */
  firstTileX: number;
  firstTileY: number;
  /** How far the first tile is shifted left/up (0..tileSize-1): tile (firstTileX + i) is drawn at screen x = i * tileSize - offsetXPx. */
  offsetXPx: number;
  offsetYPx: number;
  /** Tiles to draw per row/column to cover the viewport at any offset (31 × 31 for 240 px and 8 px tiles). */
  tilesWide: number;
  tilesHigh: number;
  /** The tiles' size on screen; world pixels (tile × 8) are scaled by tileSizePx / 8 to screen pixels. */
  tileSizePx: number;
  /** The view's size in framebuffer pixels (its top-left is the framebuffer's). */
  widthPx: number;
  heightPx: number;
}

/**
 * Places the viewport so the camera's tile is centred: the camera point is a tile's top-left
 * corner, so the tile's centre (camera + half a tile) lands on the viewport centre. The camera
 * is rounded to whole pixels here, and only here, so every layer of a frame uses the same shift.
 * The camera is in world pixels (tile × 8) whatever the tile size; larger tiles scale it.
 */
export function placeViewport(
  camera: Readonly<PixelPoint>,
  viewport: Readonly<ViewportOptions> = DEFAULT_VIEWPORT,
): ViewportPlacement {
  const tile = viewport.tileSizePx;
  const scale = tile / CELL_SIZE_PX;
  const originXPx = Math.round(camera.x * scale) + Math.floor(tile / 2) - Math.floor(viewport.widthPx / 2);
  const originYPx = Math.round(camera.y * scale) + Math.floor(tile / 2) - Math.floor(viewport.heightPx / 2);
  const firstTileX = Math.floor(originXPx / tile);
  const firstTileY = Math.floor(originYPx / tile);
  return {
    originXPx,
    originYPx,
    firstTileX,
    firstTileY,
    offsetXPx: originXPx - firstTileX * tile,
    offsetYPx: originYPx - firstTileY * tile,
    tilesWide: Math.ceil(viewport.widthPx / tile) + 1,
    tilesHigh: Math.ceil(viewport.heightPx / tile) + 1,
    tileSizePx: tile,
    widthPx: viewport.widthPx,
    heightPx: viewport.heightPx,
  };
}
