// A real map whose chunks hold more than 64 tile ids (sourceoftales
// goldenfields, up to 248) served to the browser client in Chromium: the page
// gathers the ChunkWidePackets into its chunk cache (all 9 chunks of the
// neighbourhood held, none pending) and the player walks with the keyboard,
// the server agreeing; and the page draws the map's own art (issue 16): the
// canvas matches a reference painting made here from the tileset images
// (test/support/map-painter.ts), within the RGB332 quantisation. Needs
// /usr/bin/chromium; without it the suite says so and is skipped.
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHUNK_SIZE, PALETTE_MAX } from "../../ts/constants.js";
import {
  type BrowserRig,
  HAVE_CHROMIUM,
  openAndJoin,
  positionIn,
  settledPosition,
  skipNotice,
  startRig,
  waitForDebug,
} from "./browser-support.js";
import { MAPS_REAL } from "../support/maps-real.js";
import { matchPainting, paintRegion } from "../support/map-painter.js";
import { readRawMap } from "../../ts/server/map/load-map.js";
import { canvasPixels, restingCamera } from "./browser-support.js";

skipNotice("browser wide-chunk map test");

const MAP = resolve(MAPS_REAL, "sourceoftales/maps/goldenfields/main.tmx");
const KEYS = [
  { key: "ArrowRight", dx: 1, dy: 0 },
  { key: "ArrowLeft", dx: -1, dy: 0 },
  { key: "ArrowDown", dx: 0, dy: 1 },
  { key: "ArrowUp", dx: 0, dy: -1 },
];

let rig: BrowserRig;

describe.skipIf(!HAVE_CHROMIUM)("a map with wide chunks in Chromium", () => {
  beforeAll(async () => {
    // Noon: no lighting pass over the art (the weather is set clear in the art test).
    rig = await startRig({ mapPath: MAP, startTimeOfDay: 0.5 });
  }, 90_000);

  afterAll(async () => {
    await rig?.close();
  }, 30_000);

  it("holds the whole neighbourhood, wide chunks included, and walks", async () => {
    const page = await openAndJoin(rig, "Wide", "debug=1");
    const start = await settledPosition(page);
    // The neighbourhood of the spawn has chunks of more than 64 ids, or this test proves nothing.
    const world = rig.server.game.world;
    const tiles = new Uint16Array(CHUNK_SIZE * CHUNK_SIZE);
    let wide = 0;
    for (let dy = -1; dy <= 1; dy++) {
      for (let dx = -1; dx <= 1; dx++) {
        world.copyChunkTiles(Math.floor(start.x / CHUNK_SIZE) + dx, Math.floor(start.y / CHUNK_SIZE) + dy, tiles);
        if (new Set(tiles).size > PALETTE_MAX) wide++;
      }
    }
    expect(wide).toBeGreaterThan(0);
    await waitForDebug(page, (text) => /^chunks 9$/m.test(text), 10_000);

    const walk = KEYS.find(({ dx, dy }) => world.walkable(start.x + dx, start.y + dy))!;
    expect(walk).toBeDefined();
    await page.keyboard.press(walk.key);
    const expected = { x: start.x + walk.dx, y: start.y + walk.dy };
    await waitForDebug(
      page,
      (text) => {
        const pos = positionIn(text);
        return pos !== null && pos.x === expected.x && pos.y === expected.y;
      },
      5000,
    );
    const entity = [...rig.server.game.entities.values()].find(
      (candidate) => candidate.x === expected.x && candidate.y === expected.y,
    );
    expect(entity).toBeDefined();
  }, 60_000);

  it("draws the map's own 32 px art, every layer, 30 × 30 tiles, as a painting from the tileset images shows it", async () => {
    const game = rig.server.game;
    game.worldClock.setWeather("clear", game.tick);
    game.worldClock.setTimeOfDay(0.5, game.tick);
    const page = await openAndJoin(rig, "Painter", "debug=1");
    const at = await restingCamera(page);
    await waitForDebug(page, (text) => /^chunks 9$/m.test(text), 10_000);
    await page.waitForTimeout(500);
    // 32 px tiles get a 30 × 30 tile view of 960 px (issue 16), the panel beside it: the canvas is 1040 × 960.
    const canvas = await page.evaluate(() => {
      const element = document.getElementById("game") as HTMLCanvasElement;
      return { width: element.width, height: element.height };
    });
    expect(canvas).toEqual({ width: 30 * 32 + 80, height: 30 * 32 });
    // The camera tile's top-left is at (464, 464), so world pixel (at × 32 − 464) is at the view's corner.
    const view = 30 * 32;
    const cameraTopLeft = view / 2 - 16;
    const leftPx = at.x * 32 - cameraTopLeft;
    const topPx = at.y * 32 - cameraTopLeft;
    // A band across the whole view through its centre (30 tiles wide, 240 px tall): painting all of it is slow.
    const band = { top: view / 2 - 120, height: 240 };
    const painting = paintRegion(readRawMap(MAP), leftPx, topPx + band.top, view, band.height);
    const shown = await canvasPixels(page, 0, band.top, view, band.height);
    // The player (and anything over its neighbours) is not map art.
    const match = matchPainting(
      painting,
      shown,
      (x, y) =>
        x >= cameraTopLeft - 32 &&
        x < cameraTopLeft + 64 &&
        band.top + y >= cameraTopLeft - 32 &&
        band.top + y < cameraTopLeft + 64,
    );
    expect(match.colours).toBeGreaterThan(20); // real art, not a flat fill
    // Ordered dithering puts each channel on one of the two RGB332 levels around it: less than a step off.
    expect(match.within / match.compared).toBeGreaterThan(0.98);
    // Dithering averages out: the mean error per pixel is well under one step per channel.
    expect(match.meanError).toBeLessThan(20);
  }, 60_000);
});
