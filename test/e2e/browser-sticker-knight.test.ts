// Tiled's sticker-knight example (sandbox2.tmx: tile objects scaled to any size over a background colour,
// no tile layer) served to the browser client in Chromium (issue 42): the canvas's view, cell-sized block by
// block, shows Tiled's picture of the same place — tmxrasterizer's, composited over the map's background
// colour, which this Tiled leaves transparent — within the RGB332 quantisation. Before the objects were drawn
// at their size, most of the view was the darkness. Needs /usr/bin/chromium and /usr/bin/tmxrasterizer;
// without them the suite says so and is skipped.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decode } from "fast-png";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadMap } from "../../ts/server/map/load-map.js";
import { STICKER_KNIGHT } from "../support/maps-real.js";
import { detachedCopy } from "../support/tiled-detach.js";
import {
  type BrowserRig,
  canvasPixels,
  HAVE_CHROMIUM,
  openAndJoin,
  restingCamera,
  skipNotice,
  startRig,
  waitForDebug,
} from "./browser-support.js";

skipNotice("browser sticker-knight test");
const TMXRASTERIZER = "/usr/bin/tmxrasterizer";
const MAP = join(STICKER_KNIGHT, "map/sandbox2.tmx");
const TILE = 32;
const VIEW = 30 * TILE;

const dir = mkdtempSync(join(tmpdir(), "browser-sticker-knight-"));
let rig: BrowserRig | undefined;

describe.skipIf(!HAVE_CHROMIUM || !existsSync(TMXRASTERIZER))("sticker-knight in Chromium, as Tiled draws it", () => {
  beforeAll(async () => {
    // Noon and clear: no lighting pass over the art.
    rig = await startRig({ mapPath: MAP, startTimeOfDay: 0.5 });
  }, 90_000);

  afterAll(async () => {
    await rig?.close();
    rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  it("the view's blocks are within the quantisation of tmxrasterizer's picture over the background colour", async () => {
    const game = rig!.server.game;
    game.worldClock.setWeather("clear", game.tick);
    game.worldClock.setTimeOfDay(0.5, game.tick);
    const page = await openAndJoin(rig!, "Knight", "debug=1");
    const at = await restingCamera(page);
    // The map is 80 × 31 tiles: the three chunks of its one row of chunks.
    await waitForDebug(page, (text) => /^chunks 3$/m.test(text), 10_000);
    await page.waitForTimeout(500);

    const out = join(dir, "tiled.png");
    // Of the map with its templates detached: this tmxrasterizer reads no template (support/tiled-detach.ts).
    const detached = detachedCopy(MAP, "browser");
    try {
      execFileSync(TMXRASTERIZER, [detached, out], {
        env: { ...process.env, QT_QPA_PLATFORM: "offscreen", XDG_RUNTIME_DIR: dir },
        stdio: "ignore",
        timeout: 60_000,
      });
    } finally {
      rmSync(detached, { force: true });
    }
    const tiled = decode(readFileSync(out));
    const background = loadMap(MAP).art!.backgroundColor!;
    const back = [(background >>> 16) & 0xff, (background >>> 8) & 0xff, background & 0xff];
    const tiledAt = (x: number, y: number): number[] => {
      const from = (y * tiled.width + x) * tiled.channels;
      const alpha = tiled.data[from + 3] / 255;
      return [0, 1, 2].map((channel) => tiled.data[from + channel] * alpha + back[channel] * (1 - alpha));
    };

    // The camera tile's top-left is at (464, 464) of the view: world pixel (at × 32 − 464) is its corner.
    const cameraTopLeft = VIEW / 2 - TILE / 2;
    const leftPx = at.x * TILE - cameraTopLeft;
    const topPx = at.y * TILE - cameraTopLeft;
    const shown = await canvasPixels(page, 0, 0, VIEW, VIEW);
    const differences: number[] = [];
    for (let top = 0; top < VIEW; top += TILE) {
      for (let left = 0; left < VIEW; left += TILE) {
        // Only blocks wholly on the map, and not the player, its name over it, or its neighbours.
        const worldLeft = leftPx + left;
        const worldTop = topPx + top;
        if (worldLeft < 0 || worldTop < 0 || worldLeft + TILE > tiled.width || worldTop + TILE > tiled.height) continue;
        const nearPlayer =
          left + TILE > cameraTopLeft - 2 * TILE &&
          left < cameraTopLeft + 3 * TILE &&
          top + TILE > cameraTopLeft - 2 * TILE &&
          top < cameraTopLeft + 2 * TILE;
        if (nearPlayer) continue;
        const mine = [0, 0, 0];
        const theirs = [0, 0, 0];
        for (let y = 0; y < TILE; y++) {
          for (let x = 0; x < TILE; x++) {
            const colour = shown[(top + y) * VIEW + left + x];
            const reference = tiledAt(worldLeft + x, worldTop + y);
            for (let channel = 0; channel < 3; channel++) {
              mine[channel] += (colour >>> (16 - 8 * channel)) & 0xff;
              theirs[channel] += reference[channel];
            }
          }
        }
        differences.push(
          Math.max(...[0, 1, 2].map((channel) => Math.abs(mine[channel] - theirs[channel]) / TILE ** 2)),
        );
      }
    }
    // Most of the view is on the map (the spawn is 14 rows down a 31-row map).
    expect(differences.length).toBeGreaterThan(500);
    // Dithered RGB332 keeps a block's mean within a few levels (measured: 840 blocks, median 1.6, all within 8); the
    // rest is Tiled's smooth sampling along the stickers' edges.
    const close = differences.filter((difference) => difference <= 8).length;
    expect(close / differences.length).toBeGreaterThanOrEqual(0.99);
  }, 90_000);
});
