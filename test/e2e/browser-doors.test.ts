// Doors in a real browser (issue 14): the client built by Vite, the real game
// server on a small written map of two rooms joined by one closed door, played
// by Debian's Chromium. A click on the door walks the player beside it and uses
// it: the server opens it, the TileUpdate redraws the doorway as an open door,
// and a click beyond it walks through. The framebuffer shows the closed and the
// open door's art at the doorway (read from the canvas against the tile sheet,
// not against a screenshot). Needs /usr/bin/chromium; without it the suite says
// so and is skipped.
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type NpcMap, NPC_DOOR, NPC_FLOOR, NPC_OPEN_DOOR, NPC_WALL, writeNpcMap } from "../support/npc-map.js";
import {
  ARTIFACTS,
  type BrowserRig,
  canvasPixels,
  clickTile,
  framebufferOfTile,
  HAVE_CHROMIUM,
  openAndJoin,
  restingCamera,
  settledPosition,
  skipNotice,
  startRig,
  type Tile,
} from "./browser-support.js";

skipNotice("browser door tests");

const WIDTH = 18;
const HEIGHT = 9;
const SPAWN: Tile = { x: 4, y: 4 };
const DOOR: Tile = { x: 8, y: 4 };
const BEYOND: Tile = { x: 11, y: 4 };

let rig: BrowserRig;
let npcMap: NpcMap;

/** The doorway's 8×8 pixels on the canvas, the camera resting on the player at `at`. */
async function doorwayPixels(page: Page, at: Tile): Promise<number[]> {
  const fb = framebufferOfTile(at, DOOR);
  return canvasPixels(page, fb.x, fb.y, 8, 8);
}

describe.skipIf(!HAVE_CHROMIUM)("doors in Chromium", () => {
  beforeAll(async () => {
    npcMap = writeNpcMap({
      width: WIDTH,
      height: HEIGHT,
      tile: (x, y) => {
        if (x === 0 || y === 0 || x === WIDTH - 1 || y === HEIGHT - 1) return NPC_WALL;
        if (x === DOOR.x) return y === DOOR.y ? NPC_DOOR : NPC_WALL;
        return NPC_FLOOR;
      },
      spawn: SPAWN,
      kinds: [],
      spawns: [],
      doors: [{ ...DOOR }],
    });
    rig = await startRig({ mapPath: npcMap.path });
  }, 90_000);

  afterAll(async () => {
    await rig?.close();
    npcMap?.dispose();
  }, 30_000);

  it("opens a door by a click on it, redraws the doorway open, and walks through", async () => {
    const game = rig.server.game;
    const page = await openAndJoin(rig, "Ada", "debug=1");
    const start = await restingCamera(page);
    expect(start).toEqual(SPAWN);
    expect(game.world.tileAt(DOOR.x, DOOR.y)).toBe(NPC_DOOR);
    // A click beyond the closed door cannot be walked: the player stays put.
    await clickTile(page, start, BEYOND);
    await page.waitForTimeout(500);
    expect(await settledPosition(page)).toEqual(SPAWN);
    const closed = await doorwayPixels(page, start);

    // A click on the door: the player walks beside it and uses it; the server opens it.
    await clickTile(page, start, DOOR);
    await expect.poll(() => game.world.tileAt(DOOR.x, DOOR.y), { timeout: 10_000 }).toBe(NPC_OPEN_DOOR);
    const beside = await restingCamera(page);
    expect(Math.max(Math.abs(beside.x - DOOR.x), Math.abs(beside.y - DOOR.y))).toBe(1);
    expect(game.doors.stats.opened).toBe(1);
    // The doorway is drawn differently now (the open door's art, not the closed one's).
    await expect
      .poll(async () => {
        const open = await doorwayPixels(page, beside);
        return open.filter((rgb, i) => rgb !== closed[i]).length;
      })
      .toBeGreaterThan(8);
    await page.screenshot({ path: join(ARTIFACTS, "door-open.png") });

    // Through it: a click beyond the doorway is a route now.
    await clickTile(page, beside, BEYOND);
    await expect.poll(() => settledPosition(page, 15_000), { timeout: 15_000 }).toEqual(BEYOND);
    const player = [...game.sessions.values()][0].entity;
    expect({ x: player.x, y: player.y }).toEqual(BEYOND);
  });
});
