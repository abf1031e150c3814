// The 30 × 30 tile view at every tile size (issue 16): a map drawn with its own 16 or 32 px tiles
// resizes the framebuffer (fb_resize) to a 480 or 960 px view plus the 80 px panel, and the real
// renderer on the real wasm blitter fills it with 30 tiles across and down, the camera's tile in the
// middle and the panel beside the view. Going back to the built-in tiles restores 320 × 240.
import { beforeAll, describe, expect, it } from "vitest";
import type { MapArtInfo } from "../ts/client/core/session-api.js";
import { gridViewOf } from "../ts/client/render/frame.js";
import { installMapArt } from "../ts/client/render/map-art.js";
import * as P from "../ts/client/render/palette.js";
import { screenOfTile } from "../ts/client/render/picking.js";
import { floorGrid, makeRenderRig, RIG_HUD, type RenderRig, SHEETS } from "./client-render-rig.js";
import { SPRITE_PLAYER } from "../ts/client/assets/sheets.js";
import { glyphCell } from "../ts/client/render/text.js";
import { scaleImage, spriteScaleFor, textScaleFor } from "../ts/client/render/world-scale.js";

let rig: RenderRig;
beforeAll(async () => {
  rig = await makeRenderRig();
});

/** Tile id of world cell (x, y): 1..15, so neighbours differ. */
const idAt = (x: number, y: number): number => 1 + ((x + 3 * y) % 15);
/** The colour atlas tile k is painted in (a solid RGB332 colour per tile; 0 stays transparent). */
const colourOf = (k: number): number => 0x21 + 9 * k;

/** A 16-tile map atlas of `tile` px tiles, tile k all colourOf(k), uploaded with ids 1..15 looking at tiles 1..15. */
function installSolidArt(tile: number) {
  const columns = 16;
  const pixels = new Uint8Array(columns * tile * tile);
  for (let k = 0; k < columns; k++) {
    for (let y = 0; y < tile; y++)
      pixels.fill(colourOf(k), y * columns * tile + k * tile, y * columns * tile + (k + 1) * tile);
  }
  const art: MapArtInfo = { url: "/art", tileSizePx: tile, columns, tileCount: columns, bytes: pixels.length };
  const looks = Array.from({ length: 15 }, (_, i) => ({ id: i + 1, look: i + 1 }));
  return installMapArt(rig.blitter, art, pixels, looks);
}

function renderAt(tileX: number, tileY: number) {
  return rig.renderer.render({
    camera: { x: tileX * 8, y: tileY * 8 },
    grid: gridViewOf(rig.sim),
    entities: [],
    pendingSteps: [],
    plannedSteps: [],
    goal: null,
    cursor: null,
    banner: null,
    hud: RIG_HUD,
  });
}

describe("the framebuffer sized for the map's tiles", () => {
  it("16 and 32 px tiles: a 30 × 30 tile view, the camera's tile centred, the panel beside it", () => {
    floorGrid(rig.sim);
    for (let y = 0; y < 64; y++) for (let x = 0; x < 64; x++) rig.sim.setTile(x, y, idAt(x, y));
    for (const [tile, width, height] of [
      [16, 560, 480],
      [32, 1040, 960],
    ]) {
      rig.renderer.setMapTiles(installSolidArt(tile));
      expect(rig.renderer.screen).toMatchObject({ width, height, view: { w: 30 * tile, h: 30 * tile } });
      expect([rig.blitter.width, rig.blitter.height]).toEqual([width, height]);
      const placement = renderAt(32, 32);
      const fb = rig.blitter.framebuffer();
      expect(fb.length).toBe(width * height);
      const view = 30 * tile;
      // Every pixel of the view's middle row is the world tile under it: 30 tiles' width of map pixels,
      // tiles 17 … 47 (the two at the edges cut in half), each one tile wide.
      const row = view / 2;
      const seen: number[] = [];
      for (let x = 0; x < view; x++) {
        const worldX = Math.floor((placement.originXPx + x) / tile);
        expect(fb[row * width + x]).toBe(colourOf(idAt(worldX, 32)));
        if (seen[seen.length - 1] !== worldX) seen.push(worldX);
      }
      expect(seen).toEqual(Array.from({ length: 31 }, (_, i) => 17 + i));
      // The same down the middle column.
      for (let y = 0; y < view; y++) {
        const worldY = Math.floor((placement.originYPx + y) / tile);
        expect(fb[y * width + view / 2]).toBe(colourOf(idAt(32, worldY)));
      }
      // The camera's tile (32, 32) is the one whose centre is the view's centre.
      const centre = screenOfTile(32, 32, placement);
      expect([centre.x + tile / 2, centre.y + tile / 2]).toEqual([view / 2, view / 2]);
      // Right of the view: the panel's edge, then its background, down the whole column.
      expect(fb[10 * width + view]).toBe(P.PANEL_EDGE);
      expect(fb[(height - 1) * width + view + 40]).toBe(P.PANEL_BACKGROUND);
    }
  });

  it("the built-in tiles go back to the 320 × 240 framebuffer and the 240 px view", () => {
    floorGrid(rig.sim);
    rig.renderer.setMapTiles(null);
    expect(rig.renderer.screen).toMatchObject({ width: 320, height: 240, view: { w: 240, h: 240 } });
    renderAt(10, 12);
    expect(rig.blitter.framebuffer().byteOffset).toBe(rig.blitter.core.layout.FRAMEBUFFER);
    expect(rig.blitter.framebuffer()[10 * 320 + 240]).toBe(P.PANEL_EDGE);
  });

  it("sprites, markers, labels, HP bars and damage numbers grow with 16, 32 and 64 px tiles (issue 42)", () => {
    const FLOATER = 0xfc;
    for (const tile of [16, 32, 64]) {
      floorGrid(rig.sim);
      rig.renderer.setMapTiles(installSolidArt(tile));
      const k = spriteScaleFor(tile);
      const s = textScaleFor(k);
      expect([k, s]).toEqual([tile / 8, tile / 16]);
      expect(rig.renderer.worldSheets).toMatchObject({ spriteScale: k, textScale: s });
      const placement = rig.renderer.render({
        camera: { x: 32 * 8, y: 32 * 8 },
        grid: gridViewOf(rig.sim),
        entities: [{ xPx: 30 * 8, yPx: 34 * 8, cell: SPRITE_PLAYER, hp: 5, hpMax: 10 }],
        pendingSteps: [],
        plannedSteps: [],
        goal: { x: 34, y: 34 },
        cursor: null,
        labels: [{ xPx: 34 * 8, yPx: 30 * 8, text: "Ada", colour: P.NAME_TAG }],
        floaters: [{ xPx: 30 * 8 + 4, yPx: 30 * 8, text: "12", colour: FLOATER }],
        banner: null,
        hud: RIG_HUD,
      });
      const fb = rig.blitter.framebuffer();
      const width = rig.blitter.width;
      const at = (x: number, y: number) => fb[y * width + x];
      /** The bounding box of `colour` in the framebuffer rectangle (x0, y0)–(x1, y1). */
      const boxOf = (colour: number, x0: number, y0: number, x1: number, y1: number) => {
        let [left, top, right, bottom] = [Infinity, Infinity, -1, -1];
        for (let y = y0; y < y1; y++) {
          for (let x = x0; x < x1; x++) {
            if (at(x, y) !== colour) continue;
            [left, top, right, bottom] = [Math.min(left, x), Math.min(top, y), Math.max(right, x), Math.max(bottom, y)];
          }
        }
        return { left, top, width: right - left + 1, height: bottom - top + 1 };
      };
      // The player's sprite: the sheet's cell with every pixel a k × k square, filling its tile.
      const cell = scaleImage(SHEETS.sprites, k);
      const sprite = screenOfTile(30, 34, placement);
      let inked = 0;
      for (let y = 0; y < 8 * k; y++) {
        for (let x = 0; x < 8 * k; x++) {
          const colour = cell.pixels[y * cell.width + SPRITE_PLAYER * 8 * k + x];
          if (colour === 0) continue;
          expect(at(sprite.x + x, sprite.y + y)).toBe(colour);
          inked++;
        }
      }
      expect(inked).toBeGreaterThan(16 * k * k);
      // Its HP bar: as wide as the sprite, 2 × s tall, s above it, half filled.
      const barY = sprite.y - s - 2 * s;
      for (let row = barY; row < barY + 2 * s; row++) {
        const fill = boxOf(P.ENTITY_HP_FILL, sprite.x - 4, row, sprite.x + 8 * k + 4, row + 1);
        const empty = boxOf(P.ENTITY_HP_EMPTY, sprite.x - 4, row, sprite.x + 8 * k + 4, row + 1);
        expect([fill.left, fill.width + empty.width, empty.left + empty.width]).toEqual([
          sprite.x,
          8 * k,
          sprite.x + 8 * k,
        ]);
      }
      expect(at(sprite.x, barY - 1)).not.toBe(P.ENTITY_HP_FILL);
      // The goal's outline: a square as large as the sprite cell, on its tile.
      const goal = screenOfTile(34, 34, placement);
      expect(boxOf(P.ROUTE_GOAL, goal.x - tile, goal.y - tile, goal.x + 2 * tile, goal.y + 2 * tile)).toEqual({
        left: goal.x,
        top: goal.y,
        width: 8 * k,
        height: 8 * k,
      });
      // The label: its box 9 × s tall, (3 glyphs × 6 + 3) × s wide, over the entity's tile.
      const labelTile = screenOfTile(34, 30, placement);
      const label = boxOf(
        P.LABEL_BACKGROUND,
        labelTile.x - 2 * tile,
        labelTile.y - 2 * tile,
        labelTile.x + 3 * tile,
        labelTile.y,
      );
      expect([label.height, label.width]).toEqual([9 * s, 21 * s]);
      expect(label.top + label.height).toBe(labelTile.y - s);
      // The damage number: its glyphs' ink at s × s per font pixel.
      const inkRows = (text: string) => {
        let [first, last] = [8, -1];
        for (const char of text) {
          const glyph = glyphCell(char.charCodeAt(0));
          for (let y = 0; y < 8; y++) {
            for (let x = 0; x < 6; x++) {
              const pixel =
                SHEETS.font.pixels[(Math.floor(glyph / 16) * 8 + y) * SHEETS.font.width + (glyph % 16) * 8 + x];
              if (pixel !== 0) [first, last] = [Math.min(first, y), Math.max(last, y)];
            }
          }
        }
        return last - first + 1;
      };
      const floaterTile = screenOfTile(30, 30, placement);
      const number = boxOf(
        FLOATER,
        floaterTile.x - 2 * tile,
        floaterTile.y - 2 * tile,
        floaterTile.x + 3 * tile,
        floaterTile.y + tile,
      );
      expect(number.height).toBe(inkRows("12") * s);
      expect(Math.abs(number.left + number.width / 2 - (floaterTile.x + tile / 2))).toBeLessThanOrEqual(2 * s);
    }
    rig.renderer.setMapTiles(null);
    expect(rig.renderer.worldSheets).toMatchObject({ spriteScale: 1, textScale: 1 });
  });
});
