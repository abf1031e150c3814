// A map's own art in Chromium (issue 16, "flips and an animation are checked"):
// rs-tiled's tiled_flipped.tmx, whose four cells are GID 3 under the four flip
// combinations, is served and the canvas compared, cell by cell, with a
// reference painting made here from the tileset image (test/support/map-painter.ts,
// independent of the server's atlas), within the RGB332 quantisation. Its
// tileset has no animation, so the animation is checked on Tiled's forest.tmx:
// the squirrel's frames change every 150 ms, and two canvases a frame apart
// differ in the squirrel's cells and nowhere else. Needs /usr/bin/chromium;
// without it the suite says so and is skipped.
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type BrowserRig,
  canvasPixels,
  debugText,
  HAVE_CHROMIUM,
  openAndJoin,
  positionIn,
  restingCamera,
  skipNotice,
  startRig,
  type Tile,
  waitForDebug,
} from "./browser-support.js";
import { MAPS_REAL } from "../support/maps-real.js";
import { matchPainting, paintRegion } from "../support/map-painter.js";
import { readRawMap } from "../../ts/server/map/load-map.js";
import { readWorldMap } from "../../ts/server/world/world-map.js";

skipNotice("browser map art test");

/** The view's corner to the camera tile's top-left: the view is 30 tiles, the camera's tile centred. */
const cameraTopLeftOf = (tilePx: number): number => (30 * tilePx) / 2 - tilePx / 2;

describe.skipIf(!HAVE_CHROMIUM)("tiled_flipped.tmx in Chromium: the four flips", () => {
  const MAP = resolve(MAPS_REAL, "rs-tiled/tiled_flipped.tmx");
  let rig: BrowserRig;
  beforeAll(async () => {
    rig = await startRig({ mapPath: MAP, startTimeOfDay: 0.5 });
  }, 90_000);
  afterAll(async () => {
    await rig?.close();
  }, 30_000);

  it("draws each cell's flip of GID 3 as a painting from the tileset image shows it", async () => {
    const game = rig.server.game;
    game.worldClock.setWeather("clear", game.tick);
    game.worldClock.setTimeOfDay(0.5, game.tick);
    const page = await openAndJoin(rig, "Flips", "debug=1");
    // Names over heads off (N): the own name tag ("Flips L1") reaches into the next cells, which are the map art.
    await page.getByTestId("game").focus();
    await page.keyboard.press("n");
    await expect.poll(() => page.getByTestId("game").getAttribute("data-name-tags")).toBe("off");
    const tile = 32;
    const cameraTopLeft = cameraTopLeftOf(tile);
    /** The whole 2 × 2 map (64 × 64 px) as the canvas shows it with the player at `at`, the camera on it. */
    const shoot = async (at: Tile) => ({
      at,
      shown: await canvasPixels(page, cameraTopLeft - at.x * tile, cameraTopLeft - at.y * tile, 2 * tile, 2 * tile),
    });
    const shots = [await shoot(await restingCamera(page))];
    // The player and its name label cover its cell: step to the other column and look again, so that every
    // cell is seen once without the player on it.
    const first = shots[0].at;
    const step = first.x === 0 ? { key: "ArrowRight", x: 1 } : { key: "ArrowLeft", x: 0 };
    await page.keyboard.press(step.key);
    await waitForDebug(page, (text) => positionIn(text)?.x === step.x, 5000);
    shots.push(await shoot(await restingCamera(page)));
    expect(shots[1].at).toEqual({ x: step.x, y: first.y });
    const painting = paintRegion(readRawMap(MAP), 0, 0, 2 * tile, 2 * tile);
    const raw = readRawMap(MAP).tileLayers[0].chunks[0].gids;
    const cellPictures = new Set<string>();
    for (let cell = 0; cell < 4; cell++) {
      const cx = cell % 2;
      const cy = cell >> 1;
      const { shown, at } = shots.find((shot) => shot.at.x !== cx || shot.at.y !== cy)!;
      // The player's tile, and its label's few pixels past the tile's sides, are not map art.
      const onPlayer = (x: number, y: number): boolean =>
        x >= at.x * tile - 4 && x < (at.x + 1) * tile + 4 && y >= at.y * tile - 4 && y < (at.y + 1) * tile;
      const inCell = (x: number, y: number): boolean => Math.floor(x / tile) === cx && Math.floor(y / tile) === cy;
      const match = matchPainting(painting, shown, (x, y) => !inCell(x, y) || onPlayer(x, y));
      // Every cell is GID 3 with its own flip bits, and each is its own picture: a wrong flip shows.
      expect(raw[cell] & 0x0fffffff).toBe(3);
      expect(match.compared).toBeGreaterThan(tile * (tile - 8));
      expect(match.colours).toBeGreaterThan(4);
      expect(match.within / match.compared, `cell (${cx}, ${cy}), flips ${raw[cell] >>> 29}`).toBeGreaterThan(0.97);
      // This tile's flat, saturated colours sit far from the RGB332 levels (blue steps are 85): a mean error of
      // about 23 per channel drawn right, against 32 or more and at most 79 % within for a wrong flip.
      expect(match.meanError).toBeLessThan(27);
      const picture: number[] = [];
      for (let y = 0; y < tile; y++) {
        for (let x = 0; x < tile; x++) {
          const at4 = ((cy * tile + y) * 2 * tile + cx * tile + x) * 4;
          picture.push(Math.round(painting.rgba[at4]), Math.round(painting.rgba[at4 + 1]));
        }
      }
      cellPictures.add(picture.join(","));
    }
    expect(cellPictures.size).toBe(4);
  }, 60_000);
});

describe.skipIf(!HAVE_CHROMIUM)("forest.tmx in Chromium: the squirrel's animation", () => {
  const MAP = resolve(MAPS_REAL, "mapeditor-tiled/forest/forest.tmx");
  let rig: BrowserRig;
  beforeAll(async () => {
    rig = await startRig({ mapPath: MAP, startTimeOfDay: 0.5 });
  }, 90_000);
  afterAll(async () => {
    await rig?.close();
  }, 30_000);

  it("changes the squirrel's cells with the clock, and nothing else", async () => {
    const game = rig.server.game;
    game.worldClock.setWeather("clear", game.tick);
    game.worldClock.setTimeOfDay(0.5, game.tick);
    const page = await openAndJoin(rig, "Watcher", "debug=1");
    const at = await restingCamera(page);
    const tile = 16;
    const view = 30 * tile;
    const cameraTopLeft = cameraTopLeftOf(tile);
    // The animated cells, as the server's world names them (the same loader and atlas as the server's).
    const world = readWorldMap(MAP);
    const animatedIds = new Set(world.tileInfo.filter((entry) => entry.frames).map((entry) => entry.id));
    const rects: { x: number; y: number }[] = [];
    world.tiles.forEach((id, cell) => {
      if (!animatedIds.has(id)) return;
      const x = cell % world.width;
      const y = Math.floor(cell / world.width);
      rects.push({ x: cameraTopLeft + (x - at.x) * tile, y: cameraTopLeft + (y - at.y) * tile });
    });
    expect(rects.length).toBe(3);
    for (const rect of rects) {
      expect(rect.x >= 0 && rect.y >= 0 && rect.x + tile <= view && rect.y + tile <= view).toBe(true);
    }
    // The first canvas stays in the page and each later one is compared there, a frame at a time: a poll
    // costs no transfer of the 230 400 pixels, so a loaded machine still looks every few frames.
    await page.evaluate(
      ({ view }) => {
        const canvas = document.getElementById("game") as HTMLCanvasElement;
        (window as unknown as { firstCanvas: Uint8ClampedArray }).firstCanvas = canvas
          .getContext("2d")!
          .getImageData(0, 0, view, view).data;
      },
      { view },
    );
    // The frames last 150 ms: within a second a canvas differs from the first.
    const changed = await page
      .waitForFunction(
        ({ view }) => {
          const first = (window as unknown as { firstCanvas: Uint8ClampedArray }).firstCanvas;
          const canvas = document.getElementById("game") as HTMLCanvasElement;
          const now = canvas.getContext("2d")!.getImageData(0, 0, view, view).data;
          const cells: number[] = [];
          for (let at = 0; at < now.length; at += 4) {
            if (now[at] !== first[at] || now[at + 1] !== first[at + 1] || now[at + 2] !== first[at + 2]) {
              cells.push(at / 4);
            }
          }
          return cells.length > 0 ? cells : null;
        },
        { view },
        { polling: "raf", timeout: 15_000 },
      )
      .then(async (handle) => (await handle.jsonValue()) ?? [])
      .catch(async (error: Error) => {
        // Say what the page was doing: its state, frame rate and visibility, for a failure seen only in CI.
        const state = await page.evaluate(() => `${document.visibilityState}, focus ${document.hasFocus()}`);
        throw new Error(`the canvas never changed (${state}); debug:\n${await debugText(page)}\n${error.message}`);
      });
    const differing = changed.length;
    const outside: { x: number; y: number }[] = [];
    for (const index of changed) {
      const x = index % view;
      const y = Math.floor(index / view);
      if (!rects.some((rect) => x >= rect.x && x < rect.x + tile && y >= rect.y && y < rect.y + tile)) {
        outside.push({ x, y });
      }
    }
    expect(outside.slice(0, 5)).toEqual([]);
    expect(differing).toBeGreaterThan(20);
  }, 60_000);
});
