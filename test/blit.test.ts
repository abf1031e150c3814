// Blit kernels (assembly/blit) on the real wasm module: golden cases checked
// against hand-worked pixels, and properties checking the wasm framebuffer
// against the JS reference (ts/ref/blit.ts) byte for byte.
import fc from "fast-check";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { FB_HEIGHT, FB_WIDTH } from "../ts/constants.js";
import { RefBlitter, SPRITES_MAX, type SpriteEntry } from "../ts/ref/blit.js";
import { WasmBlitter } from "../ts/wasm/blit.js";
import { loadCore } from "../ts/wasm/node.js";

const I32_MIN = -0x80000000;
const I32_MAX = 0x7fffffff;
const FC_SEED = 0x5eed_b117;

let wasm: WasmBlitter;
let ref: RefBlitter;

beforeAll(async () => {
  wasm = new WasmBlitter(await loadCore());
  ref = new RefBlitter();
});

/** Deterministic bytes: a mulberry32 stream; each byte is 0 with probability `zeroShare`. */
function seededBytes(seed: number, length: number, zeroShare = 0.3): Uint8Array {
  let state = seed >>> 0;
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++) {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    const word = (t ^ (t >>> 14)) >>> 0;
    bytes[i] = word / 2 ** 32 < zeroShare ? 0 : word & 0xff || 1;
  }
  return bytes;
}

function pixel(x: number, y: number): number {
  return wasm.framebuffer()[y * FB_WIDTH + x];
}

/** Bytes just before and after FRAMEBUFFER that no kernel may touch (the neighbouring regions). */
const GUARD_BYTES = 2 * FB_WIDTH;
const GUARD_VALUE = 0xa5;

function guardRanges(): [number, number][] {
  const start = wasm.core.layout.FRAMEBUFFER;
  const end = start + FB_WIDTH * FB_HEIGHT;
  return [
    [start - GUARD_BYTES, start],
    [end, end + GUARD_BYTES],
  ];
}

/** Both framebuffers set to the same content; guard bytes around the wasm framebuffer. */
function setBackground(bytes: Uint8Array): void {
  wasm.framebuffer().set(bytes);
  ref.framebuffer.set(bytes);
  for (const [from, to] of guardRanges()) wasm.core.u8.fill(GUARD_VALUE, from, to);
}

/** Same bytes at the same atlas offset in both; returns [wasm pointer, ref pointer]. */
function uploadBoth(offsetBytes: number, pixels: Uint8Array): [number, number] {
  return [wasm.upload(offsetBytes, pixels), ref.upload(offsetBytes, pixels)];
}

function expectSameFramebuffer(): void {
  const memory = wasm.core.u8;
  for (const [from, to] of guardRanges()) {
    for (let i = from; i < to; i++) {
      if (memory[i] !== GUARD_VALUE) expect.fail(`wrote outside the framebuffer, at address ${i}`);
    }
  }
  const actual = wasm.framebuffer();
  const expected = ref.framebuffer;
  for (let i = 0; i < actual.length; i++) {
    if (actual[i] !== expected[i]) {
      const at = `(${i % FB_WIDTH}, ${Math.floor(i / FB_WIDTH)})`;
      expect.fail(`framebuffers differ at ${at}: wasm ${actual[i]}, reference ${expected[i]}`);
    }
  }
}

/** Non-zero framebuffer pixels as "x,y" keys (for golden cases on a cleared frame). */
function litPixels(): string[] {
  const lit: string[] = [];
  const fb = wasm.framebuffer();
  for (let i = 0; i < fb.length; i++) if (fb[i] !== 0) lit.push(`${i % FB_WIDTH},${Math.floor(i / FB_WIDTH)}`);
  return lit;
}

describe("blit golden cases", () => {
  let image2x2 = 0;
  beforeEach(() => {
    wasm.fbClear(0);
    image2x2 = wasm.upload(0, Uint8Array.of(1, 2, 3, 4));
  });

  it("clips a 2x2 image at each framebuffer edge and corner", () => {
    wasm.blit(image2x2, 2, 0, 0, 2, 2, -1, -1, 0, 0);
    wasm.blit(image2x2, 2, 0, 0, 2, 2, FB_WIDTH - 1, -1, 0, 0);
    wasm.blit(image2x2, 2, 0, 0, 2, 2, -1, FB_HEIGHT - 1, 0, 0);
    wasm.blit(image2x2, 2, 0, 0, 2, 2, FB_WIDTH - 1, FB_HEIGHT - 1, 0, 0);
    expect(pixel(0, 0)).toBe(4);
    expect(pixel(FB_WIDTH - 1, 0)).toBe(3);
    expect(pixel(0, FB_HEIGHT - 1)).toBe(2);
    expect(pixel(FB_WIDTH - 1, FB_HEIGHT - 1)).toBe(1);
    expect(litPixels()).toHaveLength(4);
    wasm.fbClear(0);
    wasm.blit(image2x2, 2, 0, 0, 2, 2, 100, -1, 0, 0); // top edge: bottom row only
    wasm.blit(image2x2, 2, 0, 0, 2, 2, -1, 100, 0, 0); // left edge: right column only
    wasm.blit(image2x2, 2, 0, 0, 2, 2, 100, FB_HEIGHT - 1, 0, 0);
    wasm.blit(image2x2, 2, 0, 0, 2, 2, FB_WIDTH - 1, 100, 0, 0);
    expect([pixel(100, 0), pixel(101, 0)]).toEqual([3, 4]);
    expect([pixel(0, 100), pixel(0, 101)]).toEqual([2, 4]);
    expect([pixel(100, FB_HEIGHT - 1), pixel(101, FB_HEIGHT - 1)]).toEqual([1, 2]);
    expect([pixel(FB_WIDTH - 1, 100), pixel(FB_WIDTH - 1, 101)]).toEqual([1, 3]);
    expect(litPixels()).toHaveLength(8);
  });

  it("draws nothing for rectangles fully outside, empty or at the i32 limits", () => {
    const outside: [number, number, number, number][] = [
      [FB_WIDTH, 0, 2, 2],
      [0, FB_HEIGHT, 2, 2],
      [-2, 0, 2, 2],
      [0, -2, 2, 2],
      [I32_MIN, I32_MIN, 2, 2],
      [I32_MAX, I32_MAX, 2, 2],
      [I32_MAX - 1, 0, 2, 2], // x + w overflows i32 and must not wrap on-screen
      [I32_MIN, 0, I32_MAX, 2], // right edge at -1
      [10, 10, 0, 2],
      [10, 10, 2, -5],
    ];
    for (const [x, y, w, h] of outside) wasm.blit(image2x2, 2, 0, 0, w, h, x, y, 0, 0);
    expect(litPixels()).toEqual([]);
  });

  it("reads a source sub-rectangle at negative destination offsets", () => {
    const image = wasm.upload(
      64,
      Uint8Array.from({ length: 16 }, (_, i) => i + 1),
    ); // 4x4, 1..16
    wasm.blit(image, 4, 1, 1, 3, 3, -2, -1, 0, 0); // source rows 1..3, cols 1..3; visible: col 3, rows 2..3
    expect(litPixels()).toEqual(["0,0", "0,1"]);
    expect([pixel(0, 0), pixel(0, 1)]).toEqual([12, 16]);
  });

  it("keeps the background under index 0 in transparent mode", () => {
    const image = wasm.upload(0, Uint8Array.of(0, 9, 7, 0));
    wasm.fbClear(0x55);
    wasm.blit(image, 2, 0, 0, 2, 2, 10, 20, 1, 0);
    expect([pixel(10, 20), pixel(11, 20), pixel(10, 21), pixel(11, 21)]).toEqual([0x55, 9, 7, 0x55]);
    wasm.blit(image, 2, 0, 0, 2, 2, 30, 20, 0, 0); // opaque copies the zeros too
    expect([pixel(30, 20), pixel(31, 20)]).toEqual([0, 9]);
  });

  it("paints non-zero source pixels in the tint colour, using only its low byte", () => {
    const glyph = wasm.upload(0, Uint8Array.of(0, 1, 200, 0, 0, 0, 0, 0, 0, 5));
    wasm.fbClear(0x11);
    wasm.blit(glyph, 10, 0, 0, 10, 1, 0, 0, 2, 0x1e3);
    expect(Array.from(wasm.framebuffer().subarray(0, 11))).toEqual([
      0x11, 0xe3, 0xe3, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0xe3, 0x11,
    ]);
  });

  it("draws nothing for unknown blit modes", () => {
    wasm.blit(image2x2, 2, 0, 0, 2, 2, 5, 5, 3, 7);
    wasm.blit(image2x2, 2, 0, 0, 2, 2, 5, 5, -1, 7);
    expect(litPixels()).toEqual([]);
  });

  it("fills an hbar by value/max of its width: empty, half, full and out of range", () => {
    const row = (y: number) => Array.from(wasm.framebuffer().subarray(y * FB_WIDTH + 10, y * FB_WIDTH + 30));
    const cases: [number, number, number][] = [
      [0, 0, 100],
      [1, 50, 100],
      [2, 100, 100],
      [3, 250, 100],
      [4, -5, 100],
      [5, 5, 0],
      [6, 1, 3], // floor(20 / 3) = 6
    ];
    for (const [y, value, max] of cases) wasm.hbar(10, y, 20, 1, value, max, 9, 4);
    const bar = (filled: number) => [...Array(filled).fill(9), ...Array(20 - filled).fill(4)];
    expect(row(0)).toEqual(bar(0));
    expect(row(1)).toEqual(bar(10));
    expect(row(2)).toEqual(bar(20));
    expect(row(3)).toEqual(bar(20));
    expect(row(4)).toEqual(bar(0));
    expect(row(5)).toEqual(bar(0));
    expect(row(6)).toEqual(bar(6));
    expect(pixel(9, 1)).toBe(0);
    expect(pixel(30, 1)).toBe(0);
  });

  it("outlines a rectangle one pixel wide and leaves its inside alone", () => {
    wasm.fillRect(20, 20, 5, 4, 3);
    wasm.drawRect(20, 20, 5, 4, 8);
    const rows = [0, 1, 2, 3].map((dy) =>
      Array.from(wasm.framebuffer().subarray((20 + dy) * FB_WIDTH + 19, (20 + dy) * FB_WIDTH + 26)),
    );
    expect(rows).toEqual([
      [0, 8, 8, 8, 8, 8, 0],
      [0, 8, 3, 3, 3, 8, 0],
      [0, 8, 3, 3, 3, 8, 0],
      [0, 8, 8, 8, 8, 8, 0],
    ]);
    expect(pixel(20, 19)).toBe(0);
    expect(pixel(20, 24)).toBe(0);
    wasm.fbClear(0);
    wasm.drawRect(-1, -1, 3, 3, 6); // only the right and bottom edges are on-screen
    expect(litPixels().sort()).toEqual(["0,1", "1,0", "1,1"]);
    wasm.fbClear(0);
    wasm.drawRect(50, 50, 1, 1, 6);
    wasm.drawRect(60, 50, 0, 5, 6);
    expect(litPixels()).toEqual(["50,50"]);
  });

  it("draws text as tinted glyphs and returns the pen position after it", () => {
    // A 16-column font sheet of 8x8 cells; glyph k (byte k + 32) has a single pixel at (k % 8, 0).
    const sheet = new Uint8Array(16 * 8 * 8 * 6);
    for (let k = 0; k < 95; k++) sheet[Math.floor(k / 16) * 16 * 64 + (k % 16) * 8 + (k % 8)] = 1;
    const font = wasm.upload(4096, sheet);
    expect(wasm.drawText("!\n!\u00e9", 3, 7, 0x1c, font, 16)).toBe(3 + 32);
    // '!' is glyph 1: pixel at cell x + 1; '\n' is a blank cell; the non-ASCII character becomes '?' (glyph 31: + 7).
    expect(litPixels()).toEqual(["4,7", "20,7", "34,7"]);
    expect(pixel(4, 7)).toBe(0x1c);
    wasm.fbClear(0);
    expect(wasm.drawText("AAAA", FB_WIDTH - 10, 0, 1, font, 16)).toBe(FB_WIDTH + 22);
    // 'A' = glyph 33: pixel at cell x + 1; only the first two cells reach the screen.
    expect(litPixels()).toEqual([`${FB_WIDTH - 9},0`, `${FB_WIDTH - 1},0`]);
    expect(wasm.drawText("", 5, 5, 1, font, 16)).toBe(5);
    expect(wasm.drawText("x", I32_MAX - 3, 5, 1, font, 16)).toBe((I32_MAX - 3 + 8) | 0);
  });

  it("draws a tile layer through TILE_LOOK with a sub-tile offset and a clip", () => {
    // Atlas: 2 columns of 2x2 tiles; tile i is filled with 10 + i.
    const atlas = wasm.upload(0, Uint8Array.of(10, 10, 11, 11, 10, 10, 11, 11, 12, 12, 13, 13, 12, 12, 13, 13));
    wasm.resetTileLook();
    wasm.setTileLook(7, 3);
    wasm.setTileLook(8, 1);
    // 3x2 window of a 4-wide grid: ids [7 8 9 / 8 7 9]; id 9 has no look (draws nothing).
    const tiles = wasm.stageTiles(Uint16Array.of(7, 8, 9, 0, 8, 7, 9, 0));
    wasm.drawTilemap(tiles, 4, 3, 2, -1, -1, atlas, 2, 2, 2, 0, 0, 3, 2);
    expect(Array.from(wasm.framebuffer().subarray(0, 6))).toEqual([13, 11, 11, 0, 0, 0]);
    expect(Array.from(wasm.framebuffer().subarray(FB_WIDTH, FB_WIDTH + 6))).toEqual([11, 13, 13, 0, 0, 0]);
    expect(litPixels()).toHaveLength(6);
  });

  it("draws sprite entries in order, skipping tile 0xFFFF and unknown modes", () => {
    // A 4x2 sheet of two 2x2 tiles: tile 0 = [5 0 / 0 6], tile 1 = [7 7 / 7 7].
    const atlas = wasm.upload(0, Uint8Array.of(5, 0, 7, 7, 0, 6, 7, 7));
    const sprites: SpriteEntry[] = [
      { x: 10, y: 10, tile: 1, mode: 0, tint: 0 },
      { x: 10, y: 10, tile: 0, mode: 1, tint: 0 }, // transparent over the first
      { x: 20, y: 10, tile: 0, mode: 2, tint: 0x99 },
      { x: 30, y: 10, tile: 0xffff, mode: 0, tint: 0 },
      { x: 40, y: 10, tile: 1, mode: 3, tint: 0 },
      { x: -1, y: -1, tile: 1, mode: 0, tint: 0 }, // clipped to the clip rectangle at (0, 0)
    ];
    sprites.forEach((sprite, i) => wasm.setSprite(i, sprite));
    wasm.drawSprites(sprites.length, atlas, 2, 2, 2, 0, 0, 100, 100);
    const at = (x: number, y: number) => [pixel(x, y), pixel(x + 1, y), pixel(x, y + 1), pixel(x + 1, y + 1)];
    expect(at(10, 10)).toEqual([5, 7, 7, 6]);
    expect(at(20, 10)).toEqual([0x99, 0, 0, 0x99]);
    expect(litPixels()).toHaveLength(4 + 2 + 1);
    expect(pixel(0, 0)).toBe(7);
  });

  it("expands RGB332 through the standard table into R, G, B, A bytes", () => {
    wasm.lutInit();
    const lut = wasm.lut();
    expect(lut[0]).toBe(0xff000000);
    expect(lut[0xff]).toBe(0xffffffff);
    expect(lut[0xe0]).toBe(0xff0000ff); // red 7 → R byte 255
    expect(lut[0x20]).toBe(0xff000024); // red 1 → 255 / 7 = 36
    expect(lut[0x1c]).toBe(0xff00ff00);
    expect(lut[0x02]).toBe(0xffaa0000); // blue 2 → 170
    wasm.fbClear(0);
    wasm.fillRect(0, 0, 1, 1, 0xe0);
    wasm.fillRect(FB_WIDTH - 1, FB_HEIGHT - 1, 1, 1, 0x4a); // r 2, g 2, b 2
    wasm.fbToRgba();
    const rgba = wasm.rgba();
    expect(rgba).toHaveLength(FB_WIDTH * FB_HEIGHT * 4);
    expect(Array.from(rgba.subarray(0, 8))).toEqual([255, 0, 0, 255, 0, 0, 0, 255]);
    expect(Array.from(rgba.subarray(rgba.length - 4))).toEqual([72, 72, 170, 255]);
  });
});

// ---- properties: wasm framebuffer == reference framebuffer --------------------------------------------

/** Coordinates: mostly near the screen, sometimes anywhere in i32. */
const coordinate = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: -48, max: 368 }) },
  { weight: 1, arbitrary: fc.integer({ min: I32_MIN, max: I32_MAX }) },
);
const extent = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: -2, max: 40 }) },
  { weight: 1, arbitrary: fc.integer({ min: I32_MIN, max: I32_MAX }) },
);
const colour = fc.integer({ min: 0, max: 0x1ff }); // beyond a byte: only the low byte may count
/** Share of transparent (0) image bytes; fc.double would mostly pick 0 or 1, where transparency changes nothing. */
const zeroShare = fc.integer({ min: 0, max: 10 }).map((tenths) => tenths / 10);
const backgroundSeed = fc.integer();

const PROPERTY = { seed: FC_SEED, numRuns: 150 };

describe("blit matches the reference", () => {
  const imageCase = fc.record({
    imageSeed: fc.integer(),
    zeroShare,
    imageW: fc.integer({ min: 1, max: 40 }),
    imageH: fc.integer({ min: 1, max: 40 }),
    offsetBytes: fc.integer({ min: 0, max: 4096 }),
    blits: fc.array(
      fc.record({
        srcX: fc.nat(),
        srcY: fc.nat(),
        w: fc.integer({ min: -2, max: 40 }),
        h: fc.integer({ min: -2, max: 40 }),
        dstX: coordinate,
        dstY: coordinate,
        mode: fc.integer({ min: -1, max: 3 }),
        tint: colour,
      }),
      { minLength: 1, maxLength: 6 },
    ),
    background: backgroundSeed,
  });

  it("for random images, sub-rectangles, offsets, modes and tints", () => {
    fc.assert(
      fc.property(imageCase, (c) => {
        setBackground(seededBytes(c.background, FB_WIDTH * FB_HEIGHT));
        const image = seededBytes(c.imageSeed, c.imageW * c.imageH, c.zeroShare);
        const [wasmPtr, refPtr] = uploadBoth(c.offsetBytes, image);
        for (const b of c.blits) {
          // Keep the source rectangle inside the image: the ABI leaves reads outside it to the caller.
          const srcX = b.srcX % c.imageW;
          const srcY = b.srcY % c.imageH;
          const w = Math.min(b.w, c.imageW - srcX);
          const h = Math.min(b.h, c.imageH - srcY);
          const args = [c.imageW, srcX, srcY, w, h, b.dstX, b.dstY, b.mode, b.tint] as const;
          wasm.blit(wasmPtr, ...args);
          ref.blit(refPtr, ...args);
        }
        expectSameFramebuffer();
      }),
      PROPERTY,
    );
  });
});

describe("draw_tilemap matches the reference", () => {
  const tilemapCase = fc.record({
    atlasSeed: fc.integer(),
    atlasCols: fc.integer({ min: 1, max: 8 }),
    atlasRows: fc.integer({ min: 1, max: 4 }),
    tileW: fc.oneof(fc.constant(8), fc.integer({ min: -1, max: 12 })),
    tileH: fc.oneof(fc.constant(8), fc.integer({ min: -1, max: 12 })),
    gridCols: fc.integer({ min: 1, max: 48 }),
    gridRows: fc.integer({ min: 1, max: 48 }),
    gridSeed: fc.integer(),
    window: fc.record({
      col: fc.nat(),
      row: fc.nat(),
      cols: fc.integer({ min: -1, max: 48 }),
      rows: fc.integer({ min: -1, max: 48 }),
    }),
    lookSeed: fc.integer(),
    dstX: coordinate,
    dstY: coordinate,
    clip: fc.oneof(
      fc.constant({ x: 0, y: 0, w: 240, h: 240 }),
      fc.constant({ x: -5, y: -5, w: 400, h: 400 }),
      fc.record({ x: coordinate, y: coordinate, w: extent, h: extent }),
    ),
    background: backgroundSeed,
  });

  it("for random grids, look-ups, tile sizes, sub-tile offsets and clip rectangles", () => {
    fc.assert(
      fc.property(tilemapCase, (c) => {
        setBackground(seededBytes(c.background, FB_WIDTH * FB_HEIGHT));
        const tileW = Math.max(c.tileW, 1);
        const tileH = Math.max(c.tileH, 1);
        const atlasTiles = c.atlasCols * c.atlasRows;
        const atlasImage = seededBytes(c.atlasSeed, atlasTiles * tileW * tileH, 0.1);
        const [wasmAtlas, refAtlas] = uploadBoth(1024, atlasImage);
        // Tile ids 0..15; each maps to an atlas tile or (about one in five) to "draw nothing".
        const look = seededBytes(c.lookSeed, 16, 0);
        wasm.resetTileLook();
        ref.resetTileLook();
        for (let id = 0; id < 16; id++) {
          const index = look[id] % 5 === 0 ? 0xffff : look[id] % atlasTiles;
          wasm.setTileLook(id, index);
          ref.setTileLook(id, index);
        }
        const grid = Uint16Array.from(seededBytes(c.gridSeed, c.gridCols * c.gridRows, 0), (b) => b & 15);
        const col = c.window.col % c.gridCols;
        const row = c.window.row % c.gridRows;
        const cols = Math.min(c.window.cols, c.gridCols - col);
        const rows = Math.min(c.window.rows, c.gridRows - row);
        const tilesPtr = wasm.stageTiles(grid) + 2 * (row * c.gridCols + col);
        const window = grid.subarray(row * c.gridCols + col);
        const rest = [c.dstX, c.dstY] as const;
        const clip = [c.clip.x, c.clip.y, c.clip.w, c.clip.h] as const;
        wasm.drawTilemap(tilesPtr, c.gridCols, cols, rows, ...rest, wasmAtlas, c.atlasCols, c.tileW, c.tileH, ...clip);
        ref.drawTilemap(window, c.gridCols, cols, rows, ...rest, refAtlas, c.atlasCols, c.tileW, c.tileH, ...clip);
        expectSameFramebuffer();
      }),
      PROPERTY,
    );
  });

  it("draw_tilemap_over: the under pass, then the over looks transparent, for random grids, sizes and clips", () => {
    fc.assert(
      fc.property(tilemapCase, (c) => {
        setBackground(seededBytes(c.background, FB_WIDTH * FB_HEIGHT));
        const tileW = Math.max(c.tileW, 1);
        const tileH = Math.max(c.tileH, 1);
        const atlasTiles = c.atlasCols * c.atlasRows;
        // Many zero pixels: the over looks are mostly "nothing over here".
        const atlasImage = seededBytes(c.atlasSeed, atlasTiles * tileW * tileH, 0.5);
        const [wasmAtlas, refAtlas] = uploadBoth(1024, atlasImage);
        const look = seededBytes(c.lookSeed, 32, 0);
        wasm.resetTileLook();
        ref.resetTileLook();
        wasm.resetTileOverLook();
        ref.resetTileOverLook();
        for (let id = 0; id < 16; id++) {
          const under = look[id] % 5 === 0 ? 0xffff : look[id] % atlasTiles;
          const over = look[16 + id] % 2 === 0 ? 0xffff : look[16 + id] % atlasTiles;
          wasm.setTileLook(id, under);
          ref.setTileLook(id, under);
          wasm.setTileOverLook(id, over);
          ref.setTileOverLook(id, over);
        }
        const grid = Uint16Array.from(seededBytes(c.gridSeed, c.gridCols * c.gridRows, 0), (b) => b & 15);
        const col = c.window.col % c.gridCols;
        const row = c.window.row % c.gridRows;
        const cols = Math.min(c.window.cols, c.gridCols - col);
        const rows = Math.min(c.window.rows, c.gridRows - row);
        const tilesPtr = wasm.stageTiles(grid) + 2 * (row * c.gridCols + col);
        const window = grid.subarray(row * c.gridCols + col);
        const rest = [c.dstX, c.dstY] as const;
        const clip = [c.clip.x, c.clip.y, c.clip.w, c.clip.h] as const;
        wasm.drawTilemap(tilesPtr, c.gridCols, cols, rows, ...rest, wasmAtlas, c.atlasCols, c.tileW, c.tileH, ...clip);
        ref.drawTilemap(window, c.gridCols, cols, rows, ...rest, refAtlas, c.atlasCols, c.tileW, c.tileH, ...clip);
        // Something between the passes (an entity), so the over pass's transparency is what is compared.
        wasm.fillRect(c.dstX + 3, c.dstY + 3, 20, 20, 0x55);
        ref.fillRect(c.dstX + 3, c.dstY + 3, 20, 20, 0x55);
        wasm.drawTilemapOver(
          tilesPtr,
          c.gridCols,
          cols,
          rows,
          ...rest,
          wasmAtlas,
          c.atlasCols,
          c.tileW,
          c.tileH,
          ...clip,
        );
        ref.drawTilemapOver(window, c.gridCols, cols, rows, ...rest, refAtlas, c.atlasCols, c.tileW, c.tileH, ...clip);
        expectSameFramebuffer();
      }),
      PROPERTY,
    );
  });

  it("draw_tilemap_over for the 8 px fast path: a 31x31 layer at a sub-tile offset, over what is drawn", () => {
    fc.assert(
      fc.property(fc.integer({ min: -7, max: 0 }), fc.integer({ min: -7, max: 0 }), fc.integer(), (dx, dy, seed) => {
        setBackground(seededBytes(seed, FB_WIDTH * FB_HEIGHT));
        const [wasmAtlas, refAtlas] = uploadBoth(0, seededBytes(seed ^ 1, 16 * 2 * 64, 0.6));
        for (let id = 0; id < 32; id++) {
          const over = id % 3 === 0 ? 0xffff : id;
          wasm.setTileOverLook(id, over);
          ref.setTileOverLook(id, over);
        }
        const grid = Uint16Array.from(seededBytes(seed ^ 2, 31 * 31, 0.05), (b) => b & 31);
        wasm.drawTilemapOver(wasm.stageTiles(grid), 31, 31, 31, dx, dy, wasmAtlas, 16, 8, 8, 0, 0, 240, 240);
        ref.drawTilemapOver(grid, 31, 31, 31, dx, dy, refAtlas, 16, 8, 8, 0, 0, 240, 240);
        expectSameFramebuffer();
      }),
      { seed: FC_SEED, numRuns: 40 },
    );
  });

  it("draw_tilemap_over keeps the framebuffer where the over look is 0 or absent", () => {
    setBackground(new Uint8Array(FB_WIDTH * FB_HEIGHT).fill(9));
    // One 2x2 over tile: [0 6 / 6 0]; id 1 has it, id 2 has no over look.
    const atlas = wasm.upload(0, Uint8Array.of(0, 6, 6, 0));
    wasm.resetTileOverLook();
    wasm.setTileOverLook(1, 0);
    const tiles = wasm.stageTiles(Uint16Array.of(1, 2));
    wasm.drawTilemapOver(tiles, 2, 2, 1, 0, 0, atlas, 1, 2, 2, 0, 0, 100, 100);
    const fb = wasm.framebuffer();
    expect([fb[0], fb[1], fb[FB_WIDTH], fb[FB_WIDTH + 1]]).toEqual([9, 6, 6, 9]);
    expect([fb[2], fb[3], fb[FB_WIDTH + 2], fb[FB_WIDTH + 3]]).toEqual([9, 9, 9, 9]);
  });

  it("for the client's viewport pass: a 31x31 layer of 8x8 tiles at a sub-tile offset in a 240x240 clip", () => {
    fc.assert(
      fc.property(fc.integer({ min: -7, max: 0 }), fc.integer({ min: -7, max: 0 }), fc.integer(), (dx, dy, seed) => {
        setBackground(seededBytes(seed, FB_WIDTH * FB_HEIGHT));
        const [wasmAtlas, refAtlas] = uploadBoth(0, seededBytes(seed ^ 1, 16 * 2 * 64, 0.2));
        for (let id = 0; id < 32; id++) {
          wasm.setTileLook(id, id === 0 ? 0xffff : id);
          ref.setTileLook(id, id === 0 ? 0xffff : id);
        }
        const grid = Uint16Array.from(seededBytes(seed ^ 2, 31 * 31, 0.05), (b) => b & 31);
        wasm.drawTilemap(wasm.stageTiles(grid), 31, 31, 31, dx, dy, wasmAtlas, 16, 8, 8, 0, 0, 240, 240);
        ref.drawTilemap(grid, 31, 31, 31, dx, dy, refAtlas, 16, 8, 8, 0, 0, 240, 240);
        expectSameFramebuffer();
      }),
      { seed: FC_SEED, numRuns: 40 },
    );
  });
});

describe("draw_sprites matches the reference", () => {
  const sprite = fc.record({
    // Positions near the viewport and framebuffer edges, where the unclipped fast path must hand over.
    x: fc.oneof(
      { weight: 4, arbitrary: fc.integer({ min: -20, max: 340 }) },
      {
        weight: 2,
        arbitrary: fc.constantFrom(
          -8,
          -7,
          -1,
          0,
          1,
          8,
          9,
          15,
          16,
          108,
          109,
          115,
          231,
          232,
          233,
          239,
          240,
          311,
          312,
          313,
          319,
        ),
      },
      { weight: 1, arbitrary: fc.integer({ min: -0x8000, max: 0x7fff }) },
    ),
    y: fc.oneof(
      { weight: 4, arbitrary: fc.integer({ min: -20, max: 260 }) },
      { weight: 2, arbitrary: fc.constantFrom(-8, -7, -1, 0, 1, 8, 9, 15, 16, 108, 109, 115, 231, 232, 233, 239) },
      { weight: 1, arbitrary: fc.integer({ min: -0x8000, max: 0x7fff }) },
    ),
    tile: fc.oneof({ weight: 8, arbitrary: fc.nat() }, { weight: 1, arbitrary: fc.constant(0xffff) }),
    mode: fc.oneof(
      { weight: 8, arbitrary: fc.integer({ min: 0, max: 2 }) },
      { weight: 1, arbitrary: fc.integer({ min: 3, max: 255 }) },
    ),
    tint: fc.integer({ min: 0, max: 255 }),
  });
  const spritesCase = fc.record({
    atlasSeed: fc.integer(),
    zeroShare,
    atlasCols: fc.integer({ min: 1, max: 8 }),
    atlasRows: fc.integer({ min: 1, max: 4 }),
    tileW: fc.oneof(fc.constant(8), fc.integer({ min: 1, max: 20 })),
    tileH: fc.oneof(fc.constant(8), fc.integer({ min: 1, max: 20 })),
    sprites: fc.array(sprite, { maxLength: 40 }),
    count: fc.oneof(fc.constant(-1), fc.constant(SPRITES_MAX + 5), fc.nat({ max: 40 })),
    clip: fc.oneof(
      fc.constant({ x: 0, y: 0, w: 240, h: 240 }),
      fc.constant({ x: 16, y: 16, w: 100, h: 100 }),
      fc.record({ x: coordinate, y: coordinate, w: extent, h: extent }),
    ),
    background: backgroundSeed,
  });

  it("for random sprite lists, modes, tints, tile sizes and clip rectangles", () => {
    fc.assert(
      fc.property(spritesCase, (c) => {
        setBackground(seededBytes(c.background, FB_WIDTH * FB_HEIGHT));
        const atlasTiles = c.atlasCols * c.atlasRows;
        const atlasImage = seededBytes(c.atlasSeed, atlasTiles * c.tileW * c.tileH, c.zeroShare);
        const [wasmAtlas, refAtlas] = uploadBoth(2048, atlasImage);
        // count may exceed the written entries: the rest of SPRITES must agree too, so fill every slot.
        for (let i = 0; i < SPRITES_MAX; i++) {
          const s = c.sprites[i % Math.max(c.sprites.length, 1)] ?? { x: 0, y: 0, tile: 0xffff, mode: 0, tint: 0 };
          const entry = { ...s, tile: s.tile === 0xffff ? s.tile : s.tile % atlasTiles };
          wasm.setSprite(i, entry);
          ref.setSprite(i, entry);
        }
        const sheet = [c.atlasCols, c.tileW, c.tileH] as const;
        const clip = [c.clip.x, c.clip.y, c.clip.w, c.clip.h] as const;
        wasm.drawSprites(c.count, wasmAtlas, ...sheet, ...clip);
        ref.drawSprites(c.count, refAtlas, ...sheet, ...clip);
        expectSameFramebuffer();
      }),
      { seed: FC_SEED, numRuns: 60 },
    );
  });
});

describe("HUD primitives match the reference", () => {
  const shape = fc.record({
    kind: fc.constantFrom("fill", "outline", "bar"),
    x: coordinate,
    y: coordinate,
    w: extent,
    h: extent,
    value: fc.oneof(fc.integer({ min: -10, max: 110 }), fc.integer({ min: I32_MIN, max: I32_MAX })),
    max: fc.oneof(fc.integer({ min: -1, max: 100 }), fc.integer({ min: I32_MIN, max: I32_MAX })),
    fg: colour,
    bg: colour,
  });

  it("fill_rect, draw_rect and hbar for random and extreme rectangles", () => {
    fc.assert(
      fc.property(fc.array(shape, { minLength: 1, maxLength: 8 }), backgroundSeed, (shapes, background) => {
        setBackground(seededBytes(background, FB_WIDTH * FB_HEIGHT));
        for (const s of shapes) {
          for (const target of [wasm, ref]) {
            if (s.kind === "fill") target.fillRect(s.x, s.y, s.w, s.h, s.fg);
            else if (s.kind === "outline") target.drawRect(s.x, s.y, s.w, s.h, s.fg);
            else target.hbar(s.x, s.y, s.w, s.h, s.value, s.max, s.fg, s.bg);
          }
        }
        expectSameFramebuffer();
      }),
      PROPERTY,
    );
  });

  it("draw_text for random bytes, positions and font sheets", () => {
    const textCase = fc.record({
      bytes: fc.uint8Array({ maxLength: 50 }),
      x: fc.oneof(coordinate, fc.constantFrom(-9, -8, -7, -1, 0, 1, 311, 312, 313, 319, 320)),
      y: fc.oneof(coordinate, fc.constantFrom(-8, -7, -1, 0, 1, 231, 232, 233, 239, 240)),
      color: colour,
      fontCols: fc.integer({ min: 0, max: 32 }),
      fontSeed: fc.integer(),
      background: backgroundSeed,
    });
    fc.assert(
      fc.property(textCase, (c) => {
        setBackground(seededBytes(c.background, FB_WIDTH * FB_HEIGHT));
        const sheetRows = c.fontCols === 0 ? 1 : Math.ceil(95 / c.fontCols);
        const sheet = seededBytes(c.fontSeed, Math.max(c.fontCols, 1) * 64 * sheetRows, 0.6);
        const [wasmFont, refFont] = uploadBoth(8192, sheet);
        const wasmEnd = wasm.drawText(c.bytes, c.x, c.y, c.color, wasmFont, c.fontCols);
        const refEnd = ref.drawText(c.bytes, c.x, c.y, c.color, refFont, c.fontCols);
        expect(wasmEnd).toBe(refEnd);
        expectSameFramebuffer();
      }),
      PROPERTY,
    );
  });
});

describe("fb_to_rgba matches the reference", () => {
  function expectSameRgba(): void {
    const actual = wasm.rgba();
    const expected = ref.rgbaBytes();
    for (let i = 0; i < actual.length; i++) {
      if (actual[i] !== expected[i]) expect.fail(`RGBA byte ${i} differs: wasm ${actual[i]}, reference ${expected[i]}`);
    }
  }

  it("with the standard table (the SIMD path) for random frames", () => {
    wasm.lutInit();
    ref.lutInit();
    expect(Array.from(wasm.lut())).toEqual(Array.from(ref.lut));
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        setBackground(seededBytes(seed, FB_WIDTH * FB_HEIGHT, 0.1));
        wasm.fbToRgba();
        ref.fbToRgba();
        expectSameRgba();
      }),
      { seed: FC_SEED, numRuns: 20 },
    );
  });

  it("with random per-channel tables (SIMD path) and arbitrary tables (look-up path)", () => {
    fc.assert(
      fc.property(fc.integer(), fc.boolean(), (seed, separable) => {
        const random = seededBytes(seed, 1024, 0);
        const table = new Uint32Array(256);
        for (let c = 0; c < 256; c++) {
          table[c] = separable
            ? (random[c >> 5] |
                (random[8 + ((c >> 2) & 7)] << 8) |
                (random[16 + (c & 3)] << 16) |
                (random[20] << 24)) >>>
              0
            : (random[4 * c] | (random[4 * c + 1] << 8) | (random[4 * c + 2] << 16) | (random[4 * c + 3] << 24)) >>> 0;
        }
        wasm.lut().set(table);
        ref.lut.set(table);
        setBackground(seededBytes(seed ^ 0x55, FB_WIDTH * FB_HEIGHT, 0.1));
        wasm.fbToRgba();
        ref.fbToRgba();
        expectSameRgba();
      }),
      { seed: FC_SEED, numRuns: 30 },
    );
  });
});

describe("light_apply matches the reference (issue 15)", () => {
  const lightCase = fc.record({
    x: fc.oneof(coordinate, fc.integer({ min: -20, max: 330 })),
    y: fc.oneof(coordinate, fc.integer({ min: -20, max: 250 })),
    w: fc.oneof(extent, fc.integer({ min: 0, max: 340 })),
    h: fc.oneof(extent, fc.integer({ min: 0, max: 260 })),
    originX: fc.integer({ min: -40, max: 340 }),
    originY: fc.integer({ min: -40, max: 260 }),
    mapWidth: fc.oneof(fc.integer({ min: -1, max: 64 }), fc.constant(4097)),
    mapHeight: fc.integer({ min: -1, max: 64 }),
    mapSeed: fc.integer(),
    tableSeed: fc.integer(),
    background: backgroundSeed,
  });

  it("for random tables, light maps (levels above 15 included), origins off-screen and clip rectangles", () => {
    fc.assert(
      fc.property(lightCase, (c) => {
        setBackground(seededBytes(c.background, FB_WIDTH * FB_HEIGHT, 0.1));
        const tables = seededBytes(c.tableSeed, 16 * 256, 0.05);
        const map = seededBytes(c.mapSeed, 4096, 0.2);
        wasm.lightTables.set(tables);
        ref.lightTables.set(tables);
        wasm.lightMap.set(map);
        ref.lightMap.set(map);
        wasm.lightApply(c.x, c.y, c.w, c.h, c.originX, c.originY, c.mapWidth, c.mapHeight);
        ref.lightApply(c.x, c.y, c.w, c.h, c.originX, c.originY, c.mapWidth, c.mapHeight);
        expectSameFramebuffer();
      }),
      PROPERTY,
    );
  });

  it("for the client's separable tables (the SIMD path) over maps of few levels, long runs and off-screen origins", async () => {
    const { buildLightTables } = await import("../ts/client/render/light.js");
    const tables = new Uint8Array(16 * 256);
    buildLightTables(tables);
    wasm.lightTables.set(tables);
    ref.lightTables.set(tables);
    fc.assert(
      fc.property(lightCase, fc.integer({ min: 1, max: 3 }), (c, levels) => {
        setBackground(seededBytes(c.background, FB_WIDTH * FB_HEIGHT, 0.1));
        // Few distinct levels, so neighbouring tiles share one and runs are long.
        const map = seededBytes(c.mapSeed, 4096, 0).map((b) => 15 - (b % levels) * 5);
        wasm.lightMap.set(map);
        ref.lightMap.set(map);
        wasm.lightApply(c.x, c.y, c.w, c.h, c.originX, c.originY, c.mapWidth, c.mapHeight);
        ref.lightApply(c.x, c.y, c.w, c.h, c.originX, c.originY, c.mapWidth, c.mapHeight);
        expectSameFramebuffer();
      }),
      PROPERTY,
    );
  });

  it("the client's tables: level 15 changes nothing, each lower level is no brighter, night keeps some light", async () => {
    const { buildLightTables, NIGHT_FLOOR } = await import("../ts/client/render/light.js");
    const tables = new Uint8Array(16 * 256);
    buildLightTables(tables);
    const luma = (c: number) => ((c >> 5) * 255) / 7 + (((c >> 2) & 7) * 255) / 7 + ((c & 3) * 255) / 3;
    for (let colour = 0; colour < 256; colour++) {
      expect(tables[15 * 256 + colour]).toBe(colour);
      for (let level = 1; level < 16; level++) {
        expect(luma(tables[(level - 1) * 256 + colour])).toBeLessThanOrEqual(luma(tables[level * 256 + colour]) + 1e-9);
      }
    }
    // White at night is dim, not black.
    expect(luma(tables[0xff])).toBeGreaterThan(NIGHT_FLOOR * 0.5 * 3 * 255);
    expect(luma(tables[0xff])).toBeLessThan(0.6 * 3 * 255);
  });
});
