// The blit kernels' positional argument lists (docs/wasm-abi.md, assembly/blit),
// written once. The JS reference (ts/ref/blit.ts) and the wasm wrapper
// (ts/wasm/blit.ts) both implement BlitKernels, so the oracle and the module it
// checks cannot drift apart in argument order, and the wrapper can hand the
// wasm exports out directly instead of restating every list to forward it.

/** Where an atlas grid lives and the clip rectangle its cells are drawn through. */
export type AtlasClipArgs = [
  atlas: number,
  atlasCols: number,
  tileW: number,
  tileH: number,
  clipX: number,
  clipY: number,
  clipW: number,
  clipH: number,
];

export type BlitArgs = [
  src: number,
  srcStride: number,
  srcX: number,
  srcY: number,
  w: number,
  h: number,
  dstX: number,
  dstY: number,
  mode: number,
  tint: number,
];

/** `Tiles` is how a side reaches the tile-id window: a typed array (JS) or a pointer (wasm). */
export type DrawTilemapArgs<Tiles> = [
  tiles: Tiles,
  tilesStride: number,
  cols: number,
  rows: number,
  dstX: number,
  dstY: number,
  ...AtlasClipArgs,
];

export type DrawSpritesArgs = [count: number, ...AtlasClipArgs];

export type RectArgs = [x: number, y: number, w: number, h: number, color: number];

export type HbarArgs = [x: number, y: number, w: number, h: number, value: number, max: number, fg: number, bg: number];

/** light_apply: the rectangle, where light-map tile (0, 0) starts on screen, the map's size in tiles. */
export type LightArgs = [
  x: number,
  y: number,
  w: number,
  h: number,
  originX: number,
  originY: number,
  mapWidth: number,
  mapHeight: number,
];

/** The kernels both blitters offer under the same names and argument lists. */
export interface BlitKernels<Tiles> {
  fbClear(color: number): void;
  blit(...args: BlitArgs): void;
  drawTilemap(...args: DrawTilemapArgs<Tiles>): void;
  /** The over pass: the same window through the over looks, transparent (index 0 keeps the framebuffer). */
  drawTilemapOver(...args: DrawTilemapArgs<Tiles>): void;
  drawSprites(...args: DrawSpritesArgs): void;
  fillRect(...args: RectArgs): void;
  drawRect(...args: RectArgs): void;
  hbar(...args: HbarArgs): void;
  lutInit(): void;
  fbToRgba(): void;
  lightApply(...args: LightArgs): void;
  /** light_view: the lit view of the frame (the same arguments as light_apply); 0, or −1 for none. */
  lightView(...args: LightArgs): number;
  lightBake(x: number, y: number, w: number, h: number): void;
  fbToRgbaLit(): void;
}
