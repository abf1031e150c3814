// Typed wrapper over the core module's blit kernels (docs/wasm-abi.md): puts
// images, tile look-ups, sprite entries and text into their wasm regions and
// calls the kernels. Region offsets come from core.layout.
import type {
  BlitArgs,
  BlitKernels,
  DrawSpritesArgs,
  DrawTilemapArgs,
  HbarArgs,
  LightArgs,
  RectArgs,
} from "../blit-args.js";
import { FB_HEIGHT, FB_WIDTH } from "../constants.js";
import {
  ATLAS_BYTES,
  asciiBytes,
  LIGHT_BAKED,
  LIGHT_LEVELS,
  LIGHT_MAP_MAX,
  LIGHT_RADIUS_MAX,
  LIGHT_SOURCES_MAX,
  LIGHT_WORK_MAX,
  MAP_ATLAS_BYTES,
  NO_TILE,
  SPRITE_BYTES,
  SPRITES_MAX,
  type SpriteEntry,
  writeSpriteEntry,
} from "../blit-layout.js";
import { CoreError, type Core } from "./core.js";

type DrawText = (
  ptr: number,
  len: number,
  x: number,
  y: number,
  color: number,
  font: number,
  fontCols: number,
) => number;

export class WasmBlitter implements BlitKernels<number> {
  readonly core: Core;
  /** Where stageTiles puts a tile window: the first half of IO. */
  readonly tileStagePtr: number;
  readonly tileStageBytes: number;
  /** Where drawText puts its bytes: the second half of IO. */
  readonly textStagePtr: number;
  readonly textStageBytes: number;

  // The kernels themselves: the wasm call coerces the arguments, so nothing sits in between.
  readonly fbClear: (color: number) => void;
  readonly blit: (...args: BlitArgs) => void;
  /** `tiles` points at the window's top-left u16 tile id in linear memory; rows are `tilesStride` ids apart. */
  readonly drawTilemap: (...args: DrawTilemapArgs<number>) => void;
  /** draw_tilemap_over: the same window through TILE_OVER_LOOK, transparent (the pass over the entities). */
  readonly drawTilemapOver: (...args: DrawTilemapArgs<number>) => void;
  readonly drawSprites: (...args: DrawSpritesArgs) => void;
  readonly fillRect: (...args: RectArgs) => void;
  readonly drawRect: (...args: RectArgs) => void;
  readonly hbar: (...args: HbarArgs) => void;
  /** draw_text over bytes already in linear memory; returns the pen x after them. */
  readonly drawTextAt: DrawText;
  readonly lutInit: () => void;
  readonly fbToRgba: () => void;
  /** Darkens a rectangle by the levels of LIGHT_MAP through LIGHT_TABLES (docs/wasm-abi.md § Light). */
  readonly lightApply: (...args: LightArgs) => void;
  /** Sets the frame's lit view for fbToRgbaLit and lightBake (docs/wasm-abi.md § Light); 0, or −1 for none. */
  readonly lightView: (...args: LightArgs) => number;
  /** Darkens the view's cells under a rectangle in the framebuffer and marks them baked (converted unlit). */
  readonly lightBake: (x: number, y: number, w: number, h: number) => void;
  /** fb_to_rgba with the view lit by LIGHT_MAP through LIGHT_TABLES, in the same pass. */
  readonly fbToRgbaLit: () => void;
  /**
   * Writes LIGHT_MAP for a view around its light sources (TILE_LIGHT radii of the grid's tiles, and the
   * first `sourceCount` LIGHT_SOURCES entries), opaque tiles blocking; 0, or −1 for a view it refuses.
   */
  readonly lightBuild: (
    viewX: number,
    viewY: number,
    wide: number,
    high: number,
    ambient: number,
    cellScale: number,
    sourceCount: number,
  ) => number;
  /** Draws weather over a rectangle as it looks at a frame number (docs/wasm-abi.md § Weather); 1 when it flashed. */
  readonly weatherDraw: (x: number, y: number, w: number, h: number, kind: number, frame: number) => number;
  private rgbaView: Uint8ClampedArray | null = null;
  private readonly fbResize: (width: number, height: number) => number;
  private readonly fbAddress: () => number;
  private readonly rgbaAddress: () => number;
  /** The framebuffer's size (320×240 until resize). */
  private size = { width: FB_WIDTH, height: FB_HEIGHT };

  constructor(core: Core) {
    const layout = core.layout;
    if (
      layout.ATLAS_BYTES !== ATLAS_BYTES ||
      layout.SPRITES_MAX !== SPRITES_MAX ||
      layout.LIGHT_LEVELS !== LIGHT_LEVELS ||
      layout.LIGHT_MAP_MAX !== LIGHT_MAP_MAX ||
      layout.LIGHT_BAKED !== LIGHT_BAKED ||
      layout.MAP_ATLAS_BYTES !== MAP_ATLAS_BYTES ||
      layout.LIGHT_SOURCES_MAX !== LIGHT_SOURCES_MAX ||
      layout.LIGHT_WORK_MAX !== LIGHT_WORK_MAX ||
      layout.LIGHT_RADIUS_MAX !== LIGHT_RADIUS_MAX
    ) {
      throw new CoreError(
        `core module's ATLAS_BYTES/SPRITES_MAX/LIGHT_*/MAP_ATLAS_BYTES differ from ts/blit-layout.ts`,
      );
    }
    this.core = core;
    const half = layout.IO_BYTES >> 1;
    this.tileStagePtr = layout.IO;
    this.tileStageBytes = half;
    this.textStagePtr = layout.IO + half;
    this.textStageBytes = layout.IO_BYTES - half;
    this.fbClear = core.fn("fb_clear");
    this.blit = core.fn("blit");
    this.drawTilemap = core.fn("draw_tilemap");
    this.drawTilemapOver = core.fn("draw_tilemap_over");
    this.drawSprites = core.fn("draw_sprites");
    this.fillRect = core.fn("fill_rect");
    this.drawRect = core.fn("draw_rect");
    this.hbar = core.fn("hbar");
    this.drawTextAt = core.fn("draw_text");
    this.lutInit = core.fn("lut_init");
    this.fbToRgba = core.fn("fb_to_rgba");
    this.lightApply = core.fn("light_apply");
    this.lightView = core.fn("light_view");
    this.lightBake = core.fn("light_bake");
    this.fbToRgbaLit = core.fn("fb_to_rgba_lit");
    this.weatherDraw = core.fn("weather_draw");
    this.lightBuild = core.fn("light_build");
    this.fbResize = core.fn("fb_resize");
    this.fbAddress = core.fn("fb_address");
    this.rgbaAddress = core.fn("rgba_address");
  }

  /**
   * Makes the framebuffer width × height (docs/wasm-abi.md § Framebuffer size): at most
   * FB_MAX_WIDTH × FB_MAX_HEIGHT, a multiple of 16 pixels. Throws RangeError for another size.
   */
  resize(width: number, height: number): void {
    if (width === this.size.width && height === this.size.height) return;
    if (this.fbResize(width, height) !== 0) throw new RangeError(`no ${width}×${height} framebuffer`);
    this.size = { width, height };
    this.rgbaView = null;
  }

  get width(): number {
    return this.size.width;
  }

  get height(): number {
    return this.size.height;
  }

  /** The darkening tables (LIGHT_LEVELS × 256 bytes), written in place. */
  get lightTables(): Uint8Array {
    const { LIGHT_TABLES } = this.core.layout;
    return this.core.u8.subarray(LIGHT_TABLES, LIGHT_TABLES + LIGHT_LEVELS * 256);
  }

  /** The light map (LIGHT_MAP_MAX levels), written in place before lightApply. */
  get lightMap(): Uint8Array {
    const { LIGHT_MAP } = this.core.layout;
    return this.core.u8.subarray(LIGHT_MAP, LIGHT_MAP + LIGHT_MAP_MAX);
  }

  /** Each tile id's light radius in tiles (TILE_LIGHT, 65536 entries), written in place; 0 gives no light. */
  get tileLight(): Uint8Array {
    const { TILE_LIGHT } = this.core.layout;
    return this.core.u8.subarray(TILE_LIGHT, TILE_LIGHT + 0x10000);
  }

  /** Writes LIGHT_SOURCES entry `index`: a light of `radius` tiles at world tile (x, y). */
  setLightSource(index: number, x: number, y: number, radius: number): void {
    const { LIGHT_SOURCES } = this.core.layout;
    if (!Number.isInteger(index) || index < 0 || index >= LIGHT_SOURCES_MAX) {
      throw new RangeError(`light source ${index} is outside 0..${LIGHT_SOURCES_MAX - 1}`);
    }
    const at = LIGHT_SOURCES + index * 8;
    const bytes = this.core.u8;
    bytes[at] = x;
    bytes[at + 1] = x >> 8;
    bytes[at + 2] = y;
    bytes[at + 3] = y >> 8;
    bytes[at + 4] = radius;
  }

  /** Copies `pixels` into ATLAS at `offsetBytes`; returns the image's pointer in linear memory. */
  upload(offsetBytes: number, pixels: Uint8Array): number {
    if (!Number.isInteger(offsetBytes) || offsetBytes < 0 || offsetBytes + pixels.length > ATLAS_BYTES) {
      throw new RangeError(`image of ${pixels.length} bytes at ${offsetBytes} does not fit the atlas`);
    }
    const ptr = this.core.layout.ATLAS + offsetBytes;
    this.core.u8.set(pixels, ptr);
    return ptr;
  }

  /** Copies a map atlas (ts/server/map/map-atlas.ts) to the start of MAP_ATLAS; returns its pointer. */
  /** Copies `pixels` into MAP_ATLAS at `offsetBytes` (after the map's own atlas); returns its pointer. */
  uploadToMapAtlas(offsetBytes: number, pixels: Uint8Array): number {
    if (!Number.isInteger(offsetBytes) || offsetBytes < 0 || offsetBytes + pixels.length > MAP_ATLAS_BYTES) {
      throw new RangeError(`image of ${pixels.length} bytes at ${offsetBytes} does not fit MAP_ATLAS`);
    }
    const ptr = this.core.layout.MAP_ATLAS + offsetBytes;
    this.core.u8.set(pixels, ptr);
    return ptr;
  }

  uploadMapAtlas(pixels: Uint8Array): number {
    if (pixels.length > MAP_ATLAS_BYTES) {
      throw new RangeError(`map atlas of ${pixels.length} bytes does not fit MAP_ATLAS (${MAP_ATLAS_BYTES} bytes)`);
    }
    const ptr = this.core.layout.MAP_ATLAS;
    this.core.u8.set(pixels, ptr);
    return ptr;
  }

  setTileLook(tileId: number, atlasIndex: number): void {
    this.core.u16[(this.core.layout.TILE_LOOK >> 1) + (tileId & 0xffff)] = atlasIndex;
  }

  /** Sets TILE_LOOK[firstId + i] = atlasIndices[i]. */
  setTileLooks(firstId: number, atlasIndices: ArrayLike<number>): void {
    if (firstId < 0 || firstId + atlasIndices.length > 0x10000) throw new RangeError("tile ids beyond 0xffff");
    this.core.u16.set(atlasIndices, (this.core.layout.TILE_LOOK >> 1) + firstId);
  }

  /** Every tile id to "draw nothing". */
  resetTileLook(): void {
    const start = this.core.layout.TILE_LOOK >> 1;
    this.core.u16.fill(NO_TILE, start, start + 0x10000);
  }

  /** TILE_OVER_LOOK[tileId] = atlasIndex: what the id draws over the entities (NO_TILE: nothing). */
  setTileOverLook(tileId: number, atlasIndex: number): void {
    this.core.u16[(this.core.layout.TILE_OVER_LOOK >> 1) + (tileId & 0xffff)] = atlasIndex;
  }

  /** Every tile id draws nothing over the entities. */
  resetTileOverLook(): void {
    const start = this.core.layout.TILE_OVER_LOOK >> 1;
    this.core.u16.fill(NO_TILE, start, start + 0x10000);
  }

  setSprite(index: number, sprite: SpriteEntry): void {
    if (!Number.isInteger(index) || index < 0 || index >= SPRITES_MAX) throw new RangeError(`sprite index ${index}`);
    const at = this.core.layout.SPRITES + index * SPRITE_BYTES;
    writeSpriteEntry(this.core.u8, at, sprite.x, sprite.y, sprite.tile, sprite.mode, sprite.tint);
  }

  /** Copies a tile-id window into the first half of IO; returns its pointer for drawTilemap. */
  stageTiles(tiles: Uint16Array): number {
    if (tiles.byteLength > this.tileStageBytes) throw new RangeError(`${tiles.length} tiles exceed the IO stage`);
    this.core.u16.set(tiles, this.tileStagePtr >> 1);
    return this.tileStagePtr;
  }

  /** Stages `text` in the second half of IO and draws it; returns the pen x after it. */
  drawText(text: Uint8Array | string, x: number, y: number, color: number, font: number, fontCols: number): number {
    const bytes = typeof text === "string" ? asciiBytes(text) : text;
    if (bytes.length > this.textStageBytes) throw new RangeError(`text of ${bytes.length} bytes exceeds the IO stage`);
    this.core.u8.set(bytes, this.textStagePtr);
    return this.drawTextAt(this.textStagePtr, bytes.length, x, y, color, font, fontCols);
  }

  /** The framebuffer, width × height bytes (a fresh view; do not keep it across memory growth). */
  framebuffer(): Uint8Array {
    const at = this.fbAddress();
    return this.core.u8.subarray(at, at + this.size.width * this.size.height);
  }

  /** The RGB332_LUT region as 256 u32. */
  lut(): Uint32Array {
    const start = this.core.layout.RGB332_LUT >> 2;
    return this.core.u32.subarray(start, start + 256);
  }

  /** The RGBA output as bytes for `new ImageData(view, width, height)`; re-created after memory growth or a resize. */
  rgba(): Uint8ClampedArray {
    const buffer = this.core.memory.buffer;
    if (this.rgbaView === null || this.rgbaView.buffer !== buffer) {
      this.rgbaView = new Uint8ClampedArray(buffer, this.rgbaAddress(), this.size.width * this.size.height * 4);
    }
    return this.rgbaView;
  }
}
