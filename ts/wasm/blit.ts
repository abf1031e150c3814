// Typed wrapper over the core module's blit kernels (docs/wasm-abi.md): puts
// images, tile look-ups, sprite entries and text into their wasm regions and
// calls the kernels. Region offsets come from core.layout.
import { FB_HEIGHT, FB_WIDTH } from "../constants.js";
import { ATLAS_BYTES, SPRITES_MAX, SPRITE_BYTES, NO_TILE, asciiBytes, type SpriteEntry } from "../ref/blit.js";
import { CoreError, type Core } from "./core.js";

type I32 = number;
type Blit = (...args: I32[]) => void;
type DrawText = (ptr: I32, len: I32, x: I32, y: I32, color: I32, font: I32, fontCols: I32) => I32;

const PIXEL_COUNT = FB_WIDTH * FB_HEIGHT;

export class WasmBlitter {
  readonly core: Core;
  /** Where stageTiles puts a tile window: the first half of IO. */
  readonly tileStagePtr: number;
  readonly tileStageBytes: number;
  /** Where drawText puts its bytes: the second half of IO. */
  readonly textStagePtr: number;
  readonly textStageBytes: number;

  private readonly fbClearFn: (color: I32) => void;
  private readonly blitFn: Blit;
  private readonly drawTilemapFn: Blit;
  private readonly drawSpritesFn: Blit;
  private readonly fillRectFn: Blit;
  private readonly drawRectFn: Blit;
  private readonly hbarFn: Blit;
  private readonly drawTextFn: DrawText;
  private readonly lutInitFn: () => void;
  private readonly fbToRgbaFn: () => void;
  private rgbaView: Uint8ClampedArray | null = null;

  constructor(core: Core) {
    const layout = core.layout;
    if (layout.ATLAS_BYTES !== ATLAS_BYTES || layout.SPRITES_MAX !== SPRITES_MAX) {
      throw new CoreError(
        `core module's ATLAS_BYTES/SPRITES_MAX (${layout.ATLAS_BYTES}/${layout.SPRITES_MAX}) differ from ts/ref/blit.ts`,
      );
    }
    this.core = core;
    const half = layout.IO_BYTES >> 1;
    this.tileStagePtr = layout.IO;
    this.tileStageBytes = half;
    this.textStagePtr = layout.IO + half;
    this.textStageBytes = layout.IO_BYTES - half;
    this.fbClearFn = core.fn("fb_clear");
    this.blitFn = core.fn("blit");
    this.drawTilemapFn = core.fn("draw_tilemap");
    this.drawSpritesFn = core.fn("draw_sprites");
    this.fillRectFn = core.fn("fill_rect");
    this.drawRectFn = core.fn("draw_rect");
    this.hbarFn = core.fn("hbar");
    this.drawTextFn = core.fn("draw_text");
    this.lutInitFn = core.fn("lut_init");
    this.fbToRgbaFn = core.fn("fb_to_rgba");
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

  setSprite(index: number, sprite: SpriteEntry): void {
    if (!Number.isInteger(index) || index < 0 || index >= SPRITES_MAX) throw new RangeError(`sprite index ${index}`);
    const at = this.core.layout.SPRITES + index * SPRITE_BYTES;
    const u8 = this.core.u8;
    u8[at] = sprite.x;
    u8[at + 1] = sprite.x >> 8;
    u8[at + 2] = sprite.y;
    u8[at + 3] = sprite.y >> 8;
    u8[at + 4] = sprite.tile;
    u8[at + 5] = sprite.tile >> 8;
    u8[at + 6] = sprite.mode;
    u8[at + 7] = sprite.tint;
  }

  /** Copies a tile-id window into the first half of IO; returns its pointer for drawTilemap. */
  stageTiles(tiles: Uint16Array): number {
    if (tiles.byteLength > this.tileStageBytes) throw new RangeError(`${tiles.length} tiles exceed the IO stage`);
    this.core.u16.set(tiles, this.tileStagePtr >> 1);
    return this.tileStagePtr;
  }

  fbClear(color: number): void {
    this.fbClearFn(color);
  }

  blit(
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
  ): void {
    this.blitFn(src, srcStride, srcX, srcY, w, h, dstX, dstY, mode, tint);
  }

  /** `tilesPtr` points at the window's top-left u16 tile id in linear memory; rows are `tilesStride` ids apart. */
  drawTilemap(
    tilesPtr: number,
    tilesStride: number,
    cols: number,
    rows: number,
    dstX: number,
    dstY: number,
    atlas: number,
    atlasCols: number,
    tileW: number,
    tileH: number,
    clipX: number,
    clipY: number,
    clipW: number,
    clipH: number,
  ): void {
    this.drawTilemapFn(
      tilesPtr,
      tilesStride,
      cols,
      rows,
      dstX,
      dstY,
      atlas,
      atlasCols,
      tileW,
      tileH,
      clipX,
      clipY,
      clipW,
      clipH,
    );
  }

  drawSprites(
    count: number,
    atlas: number,
    atlasCols: number,
    tileW: number,
    tileH: number,
    clipX: number,
    clipY: number,
    clipW: number,
    clipH: number,
  ): void {
    this.drawSpritesFn(count, atlas, atlasCols, tileW, tileH, clipX, clipY, clipW, clipH);
  }

  fillRect(x: number, y: number, w: number, h: number, color: number): void {
    this.fillRectFn(x, y, w, h, color);
  }

  drawRect(x: number, y: number, w: number, h: number, color: number): void {
    this.drawRectFn(x, y, w, h, color);
  }

  hbar(x: number, y: number, w: number, h: number, value: number, max: number, fg: number, bg: number): void {
    this.hbarFn(x, y, w, h, value, max, fg, bg);
  }

  /** Stages `text` in the second half of IO and draws it; returns the pen x after it. */
  drawText(text: Uint8Array | string, x: number, y: number, color: number, font: number, fontCols: number): number {
    const bytes = typeof text === "string" ? asciiBytes(text) : text;
    if (bytes.length > this.textStageBytes) throw new RangeError(`text of ${bytes.length} bytes exceeds the IO stage`);
    this.core.u8.set(bytes, this.textStagePtr);
    return this.drawTextFn(this.textStagePtr, bytes.length, x, y, color, font, fontCols);
  }

  /** draw_text over bytes already in linear memory. */
  drawTextAt(ptr: number, len: number, x: number, y: number, color: number, font: number, fontCols: number): number {
    return this.drawTextFn(ptr, len, x, y, color, font, fontCols);
  }

  lutInit(): void {
    this.lutInitFn();
  }

  fbToRgba(): void {
    this.fbToRgbaFn();
  }

  /** The FRAMEBUFFER region (a fresh view; do not keep it across memory growth). */
  framebuffer(): Uint8Array {
    return this.core.u8.subarray(this.core.layout.FRAMEBUFFER, this.core.layout.FRAMEBUFFER + PIXEL_COUNT);
  }

  /** The RGB332_LUT region as 256 u32. */
  lut(): Uint32Array {
    const start = this.core.layout.RGB332_LUT >> 2;
    return this.core.u32.subarray(start, start + 256);
  }

  /** The RGBA region as bytes for `new ImageData(view, 320, 240)`; re-created only after memory growth. */
  rgba(): Uint8ClampedArray {
    const buffer = this.core.memory.buffer;
    if (this.rgbaView === null || this.rgbaView.buffer !== buffer) {
      this.rgbaView = new Uint8ClampedArray(buffer, this.core.layout.RGBA, PIXEL_COUNT * 4);
    }
    return this.rgbaView;
  }
}
