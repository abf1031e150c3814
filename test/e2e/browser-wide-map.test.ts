// A real map whose chunks hold more than 64 tile ids (sourceoftales
// goldenfields, up to 248) served to the browser client in Chromium: the page
// gathers the ChunkWidePackets into its chunk cache (all 9 chunks of the
// neighbourhood held, none pending) and the player walks with the keyboard,
// the server agreeing. Drawing the map's own art is a later slice. Needs
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
    rig = await startRig({ mapPath: MAP });
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
});
