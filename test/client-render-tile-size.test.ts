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
import { floorGrid, makeRenderRig, RIG_HUD, type RenderRig } from "./client-render-rig.js";

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
});
