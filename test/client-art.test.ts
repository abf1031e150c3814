// The committed sheets: they decode to the documented geometry, are exactly what
// scripts/make-art.ts draws today (so nobody edits a .tga by hand or forgets to
// regenerate), and hold the properties the renderer relies on.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { decodeTga, TgaError } from "../ts/client/assets/tga.js";
import { toTiles, type Rgb332Image } from "../ts/client/assets/image.js";
import {
  CELL_SIZE_PX,
  FONT_FILE,
  FONT_FIRST_CHAR,
  FONT_INK_LEFT_PX,
  FONT_INK_WIDTH_PX,
  FONT_LAST_CHAR,
  ITEM_SPRITE_CELLS,
  KIND_SPRITE_CELLS,
  SPRITES_FILE,
  SPRITE_CELL_COUNT,
  SPRITE_PLAYER,
  SPRITE_WORN_ARMOR,
  SPRITE_WORN_WEAPON,
  TILES_FILE,
  WORN_SPRITE_CELLS,
} from "../ts/client/assets/sheets.js";
import { makeSheets } from "../scripts/make-art.js";

const ASSET_DIR = new URL("../ts/client/assets/", import.meta.url);
const files = Object.fromEntries(
  [TILES_FILE, SPRITES_FILE, FONT_FILE].map((name) => [name, new Uint8Array(readFileSync(new URL(name, ASSET_DIR)))]),
);
const tiles = toTiles(decodeTga(files[TILES_FILE]), CELL_SIZE_PX, CELL_SIZE_PX);
const sprites = toTiles(decodeTga(files[SPRITES_FILE]), CELL_SIZE_PX, CELL_SIZE_PX);
const glyphs = toTiles(decodeTga(files[FONT_FILE]), CELL_SIZE_PX, CELL_SIZE_PX);

const opaque = (cell: Rgb332Image): boolean => cell.pixels.every((pixel) => pixel !== 0);
const empty = (cell: Rgb332Image): boolean => cell.pixels.every((pixel) => pixel === 0);
const same = (a: Rgb332Image, b: Rgb332Image): boolean => a.pixels.every((pixel, index) => pixel === b.pixels[index]);

describe("committed art", () => {
  it("decodes to the documented sizes", () => {
    expect(decodeTga(files[TILES_FILE])).toMatchObject({ width: 128, height: 16 });
    expect(decodeTga(files[SPRITES_FILE])).toMatchObject({ width: 128, height: 16 });
    expect(decodeTga(files[FONT_FILE])).toMatchObject({ width: 128, height: 48 });
  });

  it("uses RLE for tiles and font and raw pixels for sprites, so both decoder paths carry real data", () => {
    expect(files[TILES_FILE][2]).toBe(10);
    expect(files[FONT_FILE][2]).toBe(10);
    expect(files[SPRITES_FILE][2]).toBe(2);
  });

  it("is byte for byte what scripts/make-art.ts draws", () => {
    for (const sheet of makeSheets()) expect(sheet.bytes, sheet.name).toEqual(files[sheet.name]);
  });

  it("tiles: index 0 is empty, ids 1..16 are opaque and all different; a wall is not a floor", () => {
    expect(empty(tiles[0])).toBe(true);
    for (let id = 1; id <= 16; id++) expect(opaque(tiles[id]), `tile ${id}`).toBe(true);
    for (let a = 1; a <= 16; a++) for (let b = a + 1; b <= 16; b++) expect(same(tiles[a], tiles[b])).toBe(false);
    expect(same(tiles[5], tiles[1])).toBe(false);
  });

  it("sprites: 30 cells, each drawn on a transparent background; the worn overlays are small", () => {
    const OVERLAYS = new Set([...Object.values(WORN_SPRITE_CELLS), SPRITE_WORN_WEAPON, SPRITE_WORN_ARMOR]);
    expect(sprites.length).toBe(32);
    for (let index = 0; index < SPRITE_CELL_COUNT; index++) {
      const pixels = sprites[index].pixels;
      expect(
        pixels.some((pixel) => pixel === 0),
        `sprite ${index} has background`,
      ).toBe(true);
      const ink = pixels.filter((pixel) => pixel !== 0).length;
      if (!OVERLAYS.has(index)) expect(ink, `sprite ${index} has a body`).toBeGreaterThan(12);
      else expect(ink, `overlay ${index} leaves the player showing`).toBeLessThanOrEqual(12);
    }
    for (let index = SPRITE_CELL_COUNT; index < 32; index++) expect(empty(sprites[index])).toBe(true);
  });

  it("sprites: every item sprite name has a cell of its own shape; worn overlays sit on the player", () => {
    const shape = (cell: Rgb332Image): string => Array.from(cell.pixels, (pixel) => (pixel !== 0 ? "#" : ".")).join("");
    const cells = Object.values(ITEM_SPRITE_CELLS);
    expect(Object.keys(ITEM_SPRITE_CELLS).sort()).toEqual(
      ["item", "key", "dagger", "sword", "leather", "mail", "potion", "coin", "crystal", "torch"].sort(),
    );
    expect(new Set(cells.map((cell) => shape(sprites[cell]))).size).toBe(cells.length);
    const player = sprites[SPRITE_PLAYER].pixels;
    for (const cell of [...Object.values(WORN_SPRITE_CELLS), SPRITE_WORN_WEAPON, SPRITE_WORN_ARMOR]) {
      const pixels = sprites[cell].pixels;
      // Within the player's outline but for the blade's tip above its hand (column 7).
      const outside = [...pixels.keys()].filter((at) => pixels[at] !== 0 && player[at] === 0 && at % 8 !== 7);
      expect(outside, `overlay ${cell}`).toEqual([]);
    }
  });

  it("sprites: every sprite name a kind may give has a cell of its own shape", () => {
    const shape = (cell: Rgb332Image): string => Array.from(cell.pixels, (pixel) => (pixel !== 0 ? "#" : ".")).join("");
    const cells = Object.values(KIND_SPRITE_CELLS);
    expect(Object.keys(KIND_SPRITE_CELLS)).toEqual(["creature", "rat", "beetle", "spider", "skeleton", "guard"]);
    expect(new Set(cells.map((cell) => shape(sprites[cell]))).size).toBe(cells.length);
    expect(new Set(cells.map((cell) => shape(sprites[cell]))).has(shape(sprites[SPRITE_PLAYER]))).toBe(false);
  });

  it("player variants share the player's shape and differ in colour", () => {
    const shape = (cell: Rgb332Image): boolean[] => Array.from(cell.pixels, (pixel) => pixel !== 0);
    for (let variant = 4; variant < 8; variant++) {
      expect(shape(sprites[variant])).toEqual(shape(sprites[0]));
      expect(same(sprites[variant], sprites[0])).toBe(false);
    }
  });

  it("font: one glyph per printable ASCII byte, inked inside its box, space blank, no two alike", () => {
    const count = FONT_LAST_CHAR - FONT_FIRST_CHAR + 1;
    expect(glyphs.length).toBeGreaterThanOrEqual(count);
    expect(empty(glyphs[0])).toBe(true);
    for (let index = 1; index < count; index++) {
      const glyph = glyphs[index];
      const character = String.fromCharCode(FONT_FIRST_CHAR + index);
      expect(empty(glyph), `glyph ${character}`).toBe(false);
      glyph.pixels.forEach((pixel, at) => {
        const x = at % CELL_SIZE_PX;
        if (pixel !== 0) expect(x >= FONT_INK_LEFT_PX && x < FONT_INK_LEFT_PX + FONT_INK_WIDTH_PX).toBe(true);
      });
      for (let other = 1; other < index; other++) expect(same(glyph, glyphs[other]), character).toBe(false);
    }
    for (let index = count; index < glyphs.length; index++) expect(empty(glyphs[index])).toBe(true);
  });

  it("every truncation of a committed file is a TgaError", () => {
    const names = [TILES_FILE, SPRITES_FILE, FONT_FILE];
    fc.assert(
      fc.property(fc.constantFrom(...names), fc.double({ min: 0, max: 1, maxExcluded: true }), (name, fraction) => {
        const bytes = files[name];
        const cut = Math.floor(fraction * bytes.length);
        expect(() => decodeTga(bytes.subarray(0, cut))).toThrow(TgaError);
      }),
      { seed: 0xa27, numRuns: 400 },
    );
  });
});
