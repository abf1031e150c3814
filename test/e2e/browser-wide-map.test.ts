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
import { ARTIFACTS, canvasPixels, restingCamera } from "./browser-support.js";
import { checkPhoneLayout, shown } from "./phone-layout.js";
import { join } from "node:path";
import { PLAYER_LOOK_COUNT } from "../../ts/appearance.js";
import { playerLookCell } from "../../ts/client/render/entity-sprites.js";
import { SHEETS } from "../client-render-rig.js";
import { scaleImage } from "../../ts/client/render/world-scale.js";
import * as P from "../../ts/client/render/palette.js";

/** An RGB332 byte as the canvas shows it (the blitter's lut_init), 0xRRGGBB. */
function shownColour(rgb332: number): number {
  const red = Math.floor(((rgb332 >> 5) * 255) / 7);
  const green = Math.floor((((rgb332 >> 2) & 7) * 255) / 7);
  const blue = Math.floor(((rgb332 & 3) * 255) / 3);
  return (red << 16) | (green << 8) | blue;
}

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

  it("draws the player and its name at the map's 32 px scale; the HUD as a bar and the log beside the cropped view (issue 42)", async () => {
    const game = rig.server.game;
    game.worldClock.setWeather("clear", game.tick);
    game.worldClock.setTimeOfDay(0.5, game.tick);
    // Alone at the spawn: the earlier tests' players would stand there with name tags of their own.
    for (const other of rig.context.pages()) await other.close();
    const page = await openAndJoin(rig, "Scaled", "debug=1");
    await restingCamera(page);
    await waitForDebug(page, (text) => /^chunks 9$/m.test(text), 10_000);
    await page.screenshot({ path: join(ARTIFACTS, "map-32px-scaled.png") });
    // The own sprite fills the camera's tile (its top-left at framebuffer 464, 464): a look's cell with every
    // pixel 4 × 4, not an 8 px speck in its middle.
    const shown = await canvasPixels(page, 464, 464, 32, 32);
    let best = 0;
    let inked = 0;
    for (let look = 0; look < PLAYER_LOOK_COUNT; look++) {
      const cell = playerLookCell(look);
      const scaled = scaleImage(SHEETS.sprites, 4);
      const cellX = (cell % 16) * 32;
      const cellY = Math.floor(cell / 16) * 32;
      let matched = 0;
      let count = 0;
      for (let y = 0; y < 32; y++) {
        for (let x = 0; x < 32; x++) {
          const colour = scaled.pixels[(cellY + y) * scaled.width + cellX + x];
          if (colour === 0) continue;
          count++;
          if (shown[y * 32 + x] === shownColour(colour)) matched++;
        }
      }
      if (matched / count > best) [best, inked] = [matched / count, count];
    }
    expect(best).toBeGreaterThan(0.95);
    expect(inked).toBeGreaterThan(16 * 16);
    // The own name over it ("Scaled L1"): a label box 18 px tall (9 at 2×), 2 px above the sprite.
    const above = await canvasPixels(page, 400, 464 - 40, 160, 40);
    // A row of the box is mostly its background, between the glyphs.
    const labelRows = [];
    for (let y = 0; y < 40; y++) {
      let count = 0;
      for (let x = 0; x < 160; x++) if (above[y * 160 + x] === shownColour(P.LABEL_BACKGROUND)) count++;
      if (count >= 30) labelRows.push(y);
    }
    expect(labelRows.length).toBe(18);
    expect(labelRows[labelRows.length - 1]).toBe(40 - 2 - 1);
    // The page: 1040 × 960 does not fit 1000 × 760 at 1×, so the view is cropped to it around the player,
    // the HUD is the page's bar, and the log lies beside the view.
    const page0 = await page.evaluate(() => {
      const box = (id: string) => document.getElementById(id)!.getBoundingClientRect().toJSON() as DOMRect;
      return {
        hud: document.body.dataset.hud,
        screen: box("screen"),
        bar: box("hud-bar"),
        log: box("log-panel"),
        dock: document.getElementById("log-panel")!.dataset.dock,
        barFontPx: parseFloat(getComputedStyle(document.getElementById("hud-bar")!).fontSize),
        barText: document.getElementById("hud-bar")!.textContent,
      };
    });
    expect(page0.hud).toBe("bar");
    expect(page0.barText).toContain("100/100");
    expect(page0.barFontPx).toBeGreaterThanOrEqual(11);
    expect(page0.screen.top).toBeGreaterThanOrEqual(0);
    expect(page0.screen.bottom).toBeLessThanOrEqual(760);
    expect(page0.screen.width).toBeGreaterThanOrEqual(24 * 32);
    expect(page0.bar.top).toBeCloseTo(page0.screen.top, 0);
    expect(page0.dock).toBe("right");
    expect(page0.log.left).toBeGreaterThanOrEqual(page0.screen.right);
    expect(page0.log.right).toBeLessThanOrEqual(1000);
  }, 60_000);

  it("stacks it on an upright phone of real pixels (390 × 844, ratio 1): the view cropped around the player on top, the log and the controls below", async () => {
    // No scale keeps 24 of its 32-px tiles across 390 px: the page was laid out "side", the log and the touch
    // controls over the view and the sound toggle over the Map button (the gallery at ratio 1 showed it).
    const context = await rig.context.browser()!.newContext({
      viewport: { width: 390, height: 844 },
      deviceScaleFactor: 1,
      hasTouch: true,
      isMobile: true,
    });
    try {
      const page = await context.newPage();
      page.on("pageerror", (error) => console.error(`[phone] page error: ${error.message}`));
      await page.goto(`${rig.baseUrl}/?debug=1`);
      await expect.poll(() => page.getByTestId("play").isEnabled(), { timeout: 10_000 }).toBe(true);
      await page.getByTestId("nick").fill("Pocket");
      await page.getByTestId("play").tap();
      await waitForDebug(page, (text) => /^state playing$/m.test(text) && positionIn(text), 10_000);
      expect(await page.evaluate(() => document.body.dataset.layout)).toBe("stacked");
      await checkPhoneLayout(page, 390, 844);
      // The player in the middle of what is shown: the camera's tile is at the cropped view's centre.
      const { screen, canvas } = await shown(page);
      expect(screen.width).toBe(390);
      const cameraTileCss = { x: canvas.left + 464 + 16, y: canvas.top + 464 + 16 };
      expect(Math.abs(cameraTileCss.x - (screen.left + screen.width / 2))).toBeLessThanOrEqual(32);
      expect(Math.abs(cameraTileCss.y - (screen.top + screen.height / 2))).toBeLessThanOrEqual(32);
    } finally {
      await context.close();
    }
  }, 60_000);
});
