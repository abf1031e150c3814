// JS reference of the blit kernels (assembly/blit, docs/wasm-abi.md): the same
// drawing over plain typed arrays. It is the test oracle for the wasm kernels
// and their benchmark baseline, so it must give identical pixels for every
// input the ABI defines. Parameters are coerced the way a wasm call coerces
// them (i32 by ToInt32, u8 by its low byte) so both see the same numbers.
import type { BlitKernels, DrawTilemapArgs } from "../blit-args.js";
import {
  ATLAS_BYTES,
  asciiBytes,
  FIRST_GLYPH_BYTE,
  GLYPH_SIZE,
  LAST_GLYPH_BYTE,
  LIGHT_BAKED,
  LIGHT_LEVELS,
  LIGHT_MAP_MAX,
  MODE_OPAQUE,
  MODE_TINTED,
  MODE_TRANSPARENT,
  NO_TILE,
  SPRITE_BYTES,
  SPRITES_MAX,
  type SpriteEntry,
} from "../blit-layout.js";
import { FB_HEIGHT, FB_MAX_HEIGHT, FB_MAX_WIDTH, FB_WIDTH } from "../constants.js";

// The shared numbers are production's (ts/blit-layout.ts); tests reach them here beside the oracle too.
export * from "../blit-layout.js";

const PIXEL_COUNT = FB_WIDTH * FB_HEIGHT;
const TILE_ID_COUNT = 0x10000;

/** floor(a * b / c) for non-negative integers a, b and positive c, exact beyond 2^53. */
function mulDivFloor(a: number, b: number, c: number): number {
  const product = a * b;
  if (product <= Number.MAX_SAFE_INTEGER) {
    let quotient = Math.floor(product / c);
    // The float quotient can round across an integer; step back onto the exact floor.
    if (quotient * c > product) quotient--;
    else if ((quotient + 1) * c <= product) quotient++;
    return quotient;
  }
  return Number((BigInt(a) * BigInt(b)) / BigInt(c));
}

/** Byte offset of cell `index` of an atlas grid `atlasCols` cells wide, whose rows of cells are `cellRowBytes` apart. */
function atlasCell(atlas: number, atlasCols: number, cellW: number, cellRowBytes: number, index: number): number {
  return atlas + Math.floor(index / atlasCols) * cellRowBytes + (index % atlasCols) * cellW;
}

/**
 * A software blitter with its own framebuffer, atlas, tile look-up table,
 * sprite list and colour table, laid out like the wasm regions. Image
 * "pointers" are byte offsets into `atlas`.
 */
export class RefBlitter implements BlitKernels<Uint16Array> {
  /** The framebuffer's size: 320×240 until resize(), as in the wasm module. */
  width = FB_WIDTH;
  height = FB_HEIGHT;
  /** width × height RGB332, row-major. */
  framebuffer = new Uint8Array(PIXEL_COUNT);
  /** Indexed images (RGB332, 0 transparent), addressed by byte offset. */
  readonly atlas = new Uint8Array(ATLAS_BYTES);
  /** Tile id → atlas tile index; starts all 0 like fresh wasm memory. */
  readonly tileLook = new Uint16Array(TILE_ID_COUNT);
  /** Tile id → atlas tile drawn over the entities (TILE_OVER_LOOK); starts all 0 like fresh wasm memory. */
  readonly tileOverLook = new Uint16Array(TILE_ID_COUNT);
  /** SPRITES entries, byte for byte as in wasm memory (little-endian). */
  readonly sprites = new Uint8Array(SPRITES_MAX * SPRITE_BYTES);
  /** RGB332 → RGBA8888 (little-endian R, G, B, A bytes). */
  readonly lut = new Uint32Array(256);
  /** fbToRgba output, one u32 per pixel. */
  rgba = new Uint32Array(PIXEL_COUNT);
  /** LIGHT_LEVELS darkening tables of 256 bytes, and one level per light-map tile. */
  readonly lightTables = new Uint8Array(LIGHT_LEVELS * 256);
  readonly lightMap = new Uint8Array(LIGHT_MAP_MAX);

  private readonly spriteHalfWords = new Int16Array(this.sprites.buffer);
  private readonly spriteTiles = new Uint16Array(this.sprites.buffer);
  private clipLeft = 0;
  private clipTop = 0;
  private clipRight = this.width;
  private clipBottom = this.height;

  /** fb_resize: the same sizes as the wasm module accept (docs/wasm-abi.md § Framebuffer size); new buffers, all 0. */
  resize(width: number, height: number): void {
    if (
      !Number.isInteger(width) ||
      !Number.isInteger(height) ||
      width < 1 ||
      height < 1 ||
      width > FB_MAX_WIDTH ||
      height > FB_MAX_HEIGHT ||
      (width * height) % 16 !== 0
    ) {
      throw new RangeError(`no ${width}×${height} framebuffer`);
    }
    this.width = width;
    this.height = height;
    this.framebuffer = new Uint8Array(width * height);
    this.rgba = new Uint32Array(width * height);
  }

  /** Copies `pixels` into the atlas at `offsetBytes`; returns the image pointer (the offset). */
  upload(offsetBytes: number, pixels: Uint8Array): number {
    if (!Number.isInteger(offsetBytes) || offsetBytes < 0 || offsetBytes + pixels.length > ATLAS_BYTES) {
      throw new RangeError(`image of ${pixels.length} bytes at ${offsetBytes} does not fit the atlas`);
    }
    this.atlas.set(pixels, offsetBytes);
    return offsetBytes;
  }

  setTileLook(tileId: number, atlasIndex: number): void {
    this.tileLook[tileId & 0xffff] = atlasIndex;
  }

  /** Every tile id to "draw nothing". */
  resetTileLook(): void {
    this.tileLook.fill(NO_TILE);
  }

  setTileOverLook(tileId: number, atlasIndex: number): void {
    this.tileOverLook[tileId & 0xffff] = atlasIndex;
  }

  resetTileOverLook(): void {
    this.tileOverLook.fill(NO_TILE);
  }

  setSprite(index: number, sprite: SpriteEntry): void {
    if (!Number.isInteger(index) || index < 0 || index >= SPRITES_MAX) throw new RangeError(`sprite index ${index}`);
    this.spriteHalfWords[index * 4] = sprite.x;
    this.spriteHalfWords[index * 4 + 1] = sprite.y;
    this.spriteTiles[index * 4 + 2] = sprite.tile;
    this.sprites[index * 8 + 6] = sprite.mode;
    this.sprites[index * 8 + 7] = sprite.tint;
  }

  fbClear(color: number): void {
    this.framebuffer.fill(color & 0xff);
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
    srcStride |= 0;
    this.clipToFramebuffer();
    const origin = (src >>> 0) + (srcY | 0) * srcStride + (srcX | 0);
    this.blitClipped(origin, srcStride, w | 0, h | 0, dstX | 0, dstY | 0, mode | 0, tint & 0xff);
  }

  /** `tiles[0]` is the window's top-left tile id; rows are `tilesStride` ids apart. */
  drawTilemap(...args: DrawTilemapArgs<Uint16Array>): void {
    this.drawTiles(this.tileLook, MODE_OPAQUE, ...args);
  }

  /** The over pass: the window through tileOverLook, transparent. */
  drawTilemapOver(...args: DrawTilemapArgs<Uint16Array>): void {
    this.drawTiles(this.tileOverLook, MODE_TRANSPARENT, ...args);
  }

  private drawTiles(
    tileLook: Uint16Array,
    mode: number,
    tiles: Uint16Array,
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
    tilesStride |= 0;
    cols |= 0;
    rows |= 0;
    dstX |= 0;
    dstY |= 0;
    atlas >>>= 0;
    atlasCols |= 0;
    tileW |= 0;
    tileH |= 0;
    if (cols <= 0 || rows <= 0 || tileW <= 0 || tileH <= 0 || atlasCols <= 0) return;
    if (!this.setClip(clipX | 0, clipY | 0, clipW | 0, clipH | 0)) return;
    const firstCol = Math.max(0, Math.floor((this.clipLeft - dstX) / tileW));
    const endCol = Math.min(cols, Math.floor((this.clipRight - 1 - dstX) / tileW) + 1);
    const firstRow = Math.max(0, Math.floor((this.clipTop - dstY) / tileH));
    const endRow = Math.min(rows, Math.floor((this.clipBottom - 1 - dstY) / tileH) + 1);
    const atlasStride = atlasCols * tileW;
    const atlasTileRowBytes = atlasStride * tileH;
    for (let row = firstRow; row < endRow; row++) {
      const y = dstY + row * tileH;
      const rowStart = row * tilesStride;
      for (let col = firstCol; col < endCol; col++) {
        const look = tileLook[tiles[rowStart + col]];
        if (look === NO_TILE) continue;
        const src = atlasCell(atlas, atlasCols, tileW, atlasTileRowBytes, look);
        this.blitClipped(src, atlasStride, tileW, tileH, dstX + col * tileW, y, mode, 0);
      }
    }
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
    count |= 0;
    atlas >>>= 0;
    atlasCols |= 0;
    tileW |= 0;
    tileH |= 0;
    if (count <= 0 || tileW <= 0 || tileH <= 0 || atlasCols <= 0) return;
    if (!this.setClip(clipX | 0, clipY | 0, clipW | 0, clipH | 0)) return;
    count = Math.min(count, SPRITES_MAX);
    const atlasStride = atlasCols * tileW;
    const atlasTileRowBytes = atlasStride * tileH;
    const halfWords = this.spriteHalfWords;
    const bytes = this.sprites;
    for (let i = 0; i < count; i++) {
      const tile = this.spriteTiles[i * 4 + 2];
      if (tile === NO_TILE) continue;
      const src = atlasCell(atlas, atlasCols, tileW, atlasTileRowBytes, tile);
      const x = halfWords[i * 4];
      const y = halfWords[i * 4 + 1];
      this.blitClipped(src, atlasStride, tileW, tileH, x, y, bytes[i * 8 + 6], bytes[i * 8 + 7]);
    }
  }

  fillRect(x: number, y: number, w: number, h: number, color: number): void {
    x |= 0;
    y |= 0;
    this.fillEdges(x, y, x + (w | 0), y + (h | 0), color & 0xff);
  }

  drawRect(x: number, y: number, w: number, h: number, color: number): void {
    x |= 0;
    y |= 0;
    w |= 0;
    h |= 0;
    color &= 0xff;
    if (w <= 0 || h <= 0) return;
    const right = x + w;
    const bottom = y + h;
    this.fillEdges(x, y, right, y + 1, color);
    this.fillEdges(x, bottom - 1, right, bottom, color);
    this.fillEdges(x, y + 1, x + 1, bottom - 1, color);
    this.fillEdges(right - 1, y + 1, right, bottom - 1, color);
  }

  hbar(x: number, y: number, w: number, h: number, value: number, max: number, fg: number, bg: number): void {
    x |= 0;
    y |= 0;
    w |= 0;
    h |= 0;
    value |= 0;
    max |= 0;
    if (w <= 0 || h <= 0) return;
    let filled = 0;
    if (max > 0 && value > 0) filled = value >= max ? w : mulDivFloor(w, value, max);
    this.fillEdges(x, y, x + filled, y + h, fg & 0xff);
    this.fillEdges(x + filled, y, x + w, y + h, bg & 0xff);
  }

  /** Draws `text` (bytes, or a string through asciiBytes) and returns the pen x after it. */
  drawText(text: Uint8Array | string, x: number, y: number, color: number, font: number, fontCols: number): number {
    const bytes = typeof text === "string" ? asciiBytes(text) : text;
    const len = bytes.length;
    x |= 0;
    y |= 0;
    font >>>= 0;
    fontCols |= 0;
    if (len === 0) return x;
    const end = (x + len * GLYPH_SIZE) | 0;
    if (fontCols <= 0 || y <= -GLYPH_SIZE || y >= this.height) return end;
    this.clipToFramebuffer();
    const sheetStride = fontCols * GLYPH_SIZE;
    const sheetRowBytes = sheetStride * GLYPH_SIZE;
    const first = x <= -GLYPH_SIZE ? Math.floor((-GLYPH_SIZE - x) / GLYPH_SIZE) + 1 : 0;
    let penX = x + first * GLYPH_SIZE;
    for (let i = first; i < len; i++, penX += GLYPH_SIZE) {
      if (penX >= this.width) break;
      const c = bytes[i];
      if (c < FIRST_GLYPH_BYTE || c > LAST_GLYPH_BYTE) continue;
      const glyph = c - FIRST_GLYPH_BYTE;
      const src = atlasCell(font, fontCols, GLYPH_SIZE, sheetRowBytes, glyph);
      this.blitClipped(src, sheetStride, GLYPH_SIZE, GLYPH_SIZE, penX, y, MODE_TINTED, color & 0xff);
    }
    return end;
  }

  /** The standard RGB332 expansion: r = rrr*255/7, g = ggg*255/7, b = bb*255/3 (floored), alpha 255. */
  lutInit(): void {
    for (let c = 0; c < 256; c++) {
      const red = (((c >> 5) * 255) / 7) | 0;
      const green = ((((c >> 2) & 7) * 255) / 7) | 0;
      const blue = (((c & 3) * 255) / 3) | 0;
      this.lut[c] = (red | (green << 8) | (blue << 16) | 0xff000000) >>> 0;
    }
  }

  fbToRgba(): void {
    const framebuffer = this.framebuffer;
    const lut = this.lut;
    const rgba = this.rgba;
    for (let i = 0; i < this.framebuffer.length; i++) rgba[i] = lut[framebuffer[i]];
  }

  /** Pixel (px, py) of the rectangle becomes lightTables[level of its light-map tile][pixel]; edge tiles extend outwards. */
  lightApply(
    x: number,
    y: number,
    w: number,
    h: number,
    originX: number,
    originY: number,
    mapWidth: number,
    mapHeight: number,
  ): void {
    [x, y, w, h, originX, originY, mapWidth, mapHeight] = [x, y, w, h, originX, originY, mapWidth, mapHeight].map(
      (value) => value | 0,
    );
    if (mapWidth <= 0 || mapHeight <= 0 || mapWidth * mapHeight > LIGHT_MAP_MAX) return;
    const left = Math.max(0, x);
    const top = Math.max(0, y);
    const right = Math.min(this.width, x + w);
    const bottom = Math.min(this.height, y + h);
    for (let py = top; py < bottom; py++) {
      const ty = Math.min(mapHeight - 1, Math.max(0, (py - originY) >> 3));
      for (let px = left; px < right; px++) {
        const tx = Math.min(mapWidth - 1, Math.max(0, (px - originX) >> 3));
        const level = this.lightMap[ty * mapWidth + tx] & (LIGHT_LEVELS - 1);
        const at = py * this.width + px;
        this.framebuffer[at] = this.lightTables[level * 256 + this.framebuffer[at]];
      }
    }
  }

  /** lightView's arguments (ToInt32), or null for no view. */
  private view: {
    x: number;
    y: number;
    w: number;
    h: number;
    originX: number;
    originY: number;
    mapWidth: number;
    mapHeight: number;
  } | null = null;

  /** The frame's lit view for fbToRgbaLit and lightBake: light_apply's arguments; 0, or −1 (no view) for one it refuses. */
  lightView(
    x: number,
    y: number,
    w: number,
    h: number,
    originX: number,
    originY: number,
    mapWidth: number,
    mapHeight: number,
  ): number {
    [x, y, w, h, originX, originY, mapWidth, mapHeight] = [x, y, w, h, originX, originY, mapWidth, mapHeight].map(
      (value) => value | 0,
    );
    this.view = null;
    if (w <= 0 || h <= 0 || mapWidth <= 0 || mapHeight <= 0 || mapWidth * mapHeight > LIGHT_MAP_MAX) return -1;
    if (Math.abs(originX) > 0x40000000 || Math.abs(originY) > 0x40000000) return -1;
    this.view = { x, y, w, h, originX, originY, mapWidth, mapHeight };
    return 0;
  }

  /** The view clipped to the framebuffer, or null when empty. */
  private litRect(): { left: number; top: number; right: number; bottom: number } | null {
    const view = this.view;
    if (!view) return null;
    const left = Math.max(0, view.x);
    const top = Math.max(0, view.y);
    const right = Math.min(this.width, view.x + view.w);
    const bottom = Math.min(this.height, view.y + view.h);
    return left < right && top < bottom ? { left, top, right, bottom } : null;
  }

  /** The light-map cell index of view pixel (px, py), edge cells extending outwards. */
  private cellAt(px: number, py: number): number {
    const view = this.view!;
    const tx = Math.min(view.mapWidth - 1, Math.max(0, (px - view.originX) >> 3));
    const ty = Math.min(view.mapHeight - 1, Math.max(0, (py - view.originY) >> 3));
    return ty * view.mapWidth + tx;
  }

  /**
   * Every view pixel whose cell is not baked and that shares a cell with a pixel of the rectangle (within
   * the view) is darkened by its cell's table; then those cells are marked LIGHT_BAKED.
   */
  lightBake(x: number, y: number, w: number, h: number): void {
    [x, y, w, h] = [x, y, w, h].map((value) => value | 0);
    const lit = this.litRect();
    if (!lit) return;
    const cells = new Set<number>();
    for (let py = Math.max(lit.top, y); py < Math.min(lit.bottom, y + h); py++) {
      for (let px = Math.max(lit.left, x); px < Math.min(lit.right, x + w); px++) {
        const cell = this.cellAt(px, py);
        if ((this.lightMap[cell] & LIGHT_BAKED) === 0) cells.add(cell);
      }
    }
    if (cells.size === 0) return;
    for (let py = lit.top; py < lit.bottom; py++) {
      for (let px = lit.left; px < lit.right; px++) {
        const cell = this.cellAt(px, py);
        if (!cells.has(cell)) continue;
        const at = py * this.width + px;
        this.framebuffer[at] =
          this.lightTables[(this.lightMap[cell] & (LIGHT_LEVELS - 1)) * 256 + this.framebuffer[at]];
      }
    }
    for (const cell of cells) this.lightMap[cell] |= LIGHT_BAKED;
  }

  /** fbToRgba, but a view pixel in a cell not baked becomes lut[lightTables[its level][pixel]]: one pass. */
  fbToRgbaLit(): void {
    const { framebuffer, lut, rgba, lightMap, lightTables, width } = this;
    const lit = this.litRect();
    const view = this.view;
    for (let py = 0; py < this.height; py++) {
      const inRows = lit !== null && py >= lit.top && py < lit.bottom;
      const ty = view ? Math.min(view.mapHeight - 1, Math.max(0, (py - view.originY) >> 3)) : 0;
      for (let px = 0; px < width; px++) {
        const at = py * width + px;
        let colour = framebuffer[at];
        if (inRows && view && px >= lit.left && px < lit.right) {
          const tx = Math.min(view.mapWidth - 1, Math.max(0, (px - view.originX) >> 3));
          const cell = lightMap[ty * view.mapWidth + tx];
          if ((cell & LIGHT_BAKED) === 0) colour = lightTables[(cell & (LIGHT_LEVELS - 1)) * 256 + colour];
        }
        rgba[at] = lut[colour];
      }
    }
  }

  /** The RGBA output as bytes for an ImageData. */
  rgbaBytes(): Uint8ClampedArray {
    return new Uint8ClampedArray(this.rgba.buffer, this.rgba.byteOffset, this.rgba.byteLength);
  }

  private clipToFramebuffer(): void {
    this.clipLeft = 0;
    this.clipTop = 0;
    this.clipRight = this.width;
    this.clipBottom = this.height;
  }

  private setClip(x: number, y: number, w: number, h: number): boolean {
    this.clipLeft = Math.max(x, 0);
    this.clipTop = Math.max(y, 0);
    this.clipRight = Math.min(x + w, this.width);
    this.clipBottom = Math.min(y + h, this.height);
    return this.clipLeft < this.clipRight && this.clipTop < this.clipBottom;
  }

  /** Fills [left, right) × [top, bottom) clipped to the framebuffer. */
  private fillEdges(left: number, top: number, right: number, bottom: number, color: number): void {
    left = Math.max(left, 0);
    top = Math.max(top, 0);
    right = Math.min(right, this.width);
    bottom = Math.min(bottom, this.height);
    if (left >= right || top >= bottom) return;
    const framebuffer = this.framebuffer;
    for (let row = top; row < bottom; row++) framebuffer.fill(color, row * this.width + left, row * this.width + right);
  }

  /** The w×h image rectangle at atlas offset `src` (rows `stride` apart) to (dx, dy), through the clip. */
  private blitClipped(
    src: number,
    stride: number,
    w: number,
    h: number,
    dx: number,
    dy: number,
    mode: number,
    tint: number,
  ): void {
    const left = Math.max(dx, this.clipLeft);
    const top = Math.max(dy, this.clipTop);
    const right = Math.min(dx + w, this.clipRight);
    const bottom = Math.min(dy + h, this.clipBottom);
    if (left >= right || top >= bottom) return;
    const count = right - left;
    const framebuffer = this.framebuffer;
    const atlas = this.atlas;
    let from = src + (top - dy) * stride + (left - dx);
    let to = top * this.width + left;
    if (mode === MODE_OPAQUE) {
      for (let row = top; row < bottom; row++, from += stride, to += this.width) {
        for (let i = 0; i < count; i++) framebuffer[to + i] = atlas[from + i];
      }
    } else if (mode === MODE_TRANSPARENT) {
      for (let row = top; row < bottom; row++, from += stride, to += this.width) {
        for (let i = 0; i < count; i++) {
          const pixel = atlas[from + i];
          if (pixel !== 0) framebuffer[to + i] = pixel;
        }
      }
    } else if (mode === MODE_TINTED) {
      for (let row = top; row < bottom; row++, from += stride, to += this.width) {
        for (let i = 0; i < count; i++) if (atlas[from + i] !== 0) framebuffer[to + i] = tint;
      }
    }
  }
}
