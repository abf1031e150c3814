// Taking the stairs down in Chromium (issue 15, docs/dungeons.md): the level is
// a rectangle of world coordinates far beside the map (P-24), so the change is a
// teleport, and the client must cut to it — the camera and the own sprite snap,
// no frame draws the player (or centres the view) anywhere between the stairs
// and the level — and the level's chunks stream in so the view shows it. Every
// frame's camera and sprite come from the page's frame log (?debug=1:
// window.cavesFrames, ts/client/browser/frame-log.ts).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { join } from "node:path";
import type { Page } from "playwright-core";
import type { FrameRecord } from "../../ts/client/browser/frame-log.js";
import { TILE_SIZE_PX, VIEWPORT } from "../../ts/client/render/layout.js";
import { inArea, type AreaRect } from "../../ts/server/world/areas.js";
import { readWorld } from "../../ts/server/world/world-areas.js";
import {
  ARTIFACTS,
  type BrowserRig,
  canvasPixels,
  clickTile,
  HAVE_CHROMIUM,
  MAP_PATH,
  openAndJoin,
  restingCamera,
  skipNotice,
  startRig,
} from "./browser-support.js";

skipNotice("browser stairs tests");

const takeFrames = (page: Page): Promise<FrameRecord[]> =>
  page.evaluate(() => (window as unknown as { cavesFrames: { take(): FrameRecord[] } }).cavesFrames.take());

/** Whether world pixel (x, y) lies in `area` (a rectangle of tiles). */
function pixelIn(area: AreaRect, x: number, y: number): boolean {
  return inArea(area, Math.floor(x / TILE_SIZE_PX), Math.floor(y / TILE_SIZE_PX));
}

describe.skipIf(!HAVE_CHROMIUM)("stairs in Chromium", () => {
  let rig: BrowserRig;
  beforeAll(async () => {
    rig = await startRig({ levelSlots: 1 });
  }, 120_000);
  afterAll(async () => rig?.close());

  it("the stairs down cut to the level: camera and sprite snap, no frame between, the level's chunks stream", async () => {
    const game = rig.server.game;
    const stairs = readWorld(MAP_PATH).warps.find((warp) => warp.stairs === "down")!;
    const map: AreaRect = { x: 0, y: 0, width: game.world.mapWidth, height: game.world.mapHeight };
    const slot = game.world.levelSlots[0];
    expect(slot, "the world has a level slot").toBeDefined();

    const page = await openAndJoin(rig, "Delver", "debug=1");
    const start = await restingCamera(page);
    expect(Math.max(Math.abs(stairs.x - start.x), Math.abs(stairs.y - start.y)), "the stairs are in view").toBeLessThan(
      14,
    );
    const frames: FrameRecord[] = await takeFrames(page);

    // Click the stairs: the player walks there, waits on them while the worker makes the level, and is put in it.
    await clickTile(page, start, stairs);
    const player = () => [...game.sessions.values()].find((session) => session.nick === "Delver")!.entity;
    const deadline = Date.now() + 30_000;
    let arrivedAt = -1;
    for (;;) {
      frames.push(...(await takeFrames(page)));
      const last = frames[frames.length - 1];
      if (arrivedAt < 0 && last !== undefined && inArea(slot, last.tileX, last.tileY)) arrivedAt = frames.length;
      // Half a second of frames after the arrival, the camera at rest on the player.
      if (arrivedAt >= 0 && frames.length > arrivedAt + 30 && last.cameraX === last.ownX && last.cameraY === last.ownY)
        break;
      expect(Date.now(), "arrival in the level within 30 s").toBeLessThan(deadline);
      await page.waitForTimeout(50);
    }
    const entry = { x: player().x, y: player().y };
    expect(inArea(slot, entry.x, entry.y)).toBe(true);
    expect(game.warps.at(entry.x, entry.y)?.stairs).toBe("up");

    // Every frame draws the player and centres the view in the overworld or in the level, never between.
    const where = (x: number, y: number) => (pixelIn(map, x, y) ? "map" : pixelIn(slot, x, y) ? "level" : "between");
    const places = frames.map((frame) => ({
      own: where(frame.ownX, frame.ownY),
      camera: where(frame.cameraX, frame.cameraY),
    }));
    expect(places.filter((place) => place.own === "between" || place.camera === "between")).toEqual([]);
    // The sprite and the camera change place in the same frame, and the frame that changes draws the player
    // exactly on the level's stairs, the camera on it: a cut, not a glide that starts there.
    const first = places.findIndex((place) => place.own === "level");
    expect(first).toBeGreaterThan(0);
    expect(places.slice(0, first).every((place) => place.own === "map" && place.camera === "map")).toBe(true);
    expect(places.slice(first).every((place) => place.own === "level" && place.camera === "level")).toBe(true);
    const cut = frames[first];
    expect({ x: cut.tileX, y: cut.tileY }).toEqual(entry);
    expect({ x: cut.ownX, y: cut.ownY }).toEqual({ x: entry.x * TILE_SIZE_PX, y: entry.y * TILE_SIZE_PX });
    expect({ x: cut.cameraX, y: cut.cameraY }).toEqual({ x: cut.ownX, y: cut.ownY });
    // Before the cut the player stood on the stairs down.
    expect({ x: frames[first - 1].tileX, y: frames[first - 1].tileY }).toEqual({ x: stairs.x, y: stairs.y });

    // The level's chunks streamed: the tile under the player as the page holds it becomes the level's
    // stairs up (0 until its chunk arrives), and the view shows a level, not the void.
    const stairsUp = game.world.tileAt(entry.x, entry.y);
    expect(stairsUp).toBeGreaterThan(0);
    expect(frames[first - 1].tileId).toBe(game.world.tileAt(stairs.x, stairs.y));
    await expect.poll(async () => (await takeFrames(page)).at(-1)?.tileId, { timeout: 10_000 }).toBe(stairsUp);
    await page.waitForTimeout(500);
    const colours = new Set(await canvasPixels(page, VIEWPORT.x, VIEWPORT.y, VIEWPORT.w, VIEWPORT.h));
    expect(colours.size).toBeGreaterThan(8);
    await page.screenshot({ path: join(ARTIFACTS, "stairs-level.png") });
    await page.close();
  }, 90_000);
});
