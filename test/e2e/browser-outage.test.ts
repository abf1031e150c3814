// What the page says when something goes wrong (issue 18 item 9), and the notice
// board across a restart (item 6), on the client built by Vite against the real
// server on maps/caves.tmj (its SQLite file in a temp dir), in Debian's Chromium:
// a click on water names the water; a click on open floor no route reaches says
// so; Ada pins a notice; the server stops — her status line counts the outage
// down in seconds, and a page that presses Play meanwhile reads, on its join card
// and in its status line, that the server cannot be reached; the server starts
// again on the same ports and file — Ada is back by herself, and Bob, a new page
// after the restart, reads Ada's notice on the board. Screenshots go to
// test-artifacts/. Needs /usr/bin/chromium; without it the suite is skipped.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openGameDatabase } from "../../ts/server/persistence/database.js";
import {
  ARTIFACTS,
  type BrowserRig,
  clickTile,
  HAVE_CHROMIUM,
  logText,
  openAndJoin,
  openPage,
  restingCamera,
  skipNotice,
  startRig,
  type Tile,
  waitForDebug,
} from "./browser-support.js";

skipNotice("browser outage and notice tests");

/** The caves map's tile ids as the server's grid holds them (Tiled gids: the tileset id + 1). */
const WATER = 9;
const ROCK_WALL = 5;

let rig: BrowserRig;
let databaseDir: string;
const databasePath = () => join(databaseDir, "caves.sqlite");

function interactable(name: string): Tile {
  const entity = rig.server.game.interactables.entityNamed(name);
  if (!entity) throw new Error(`no interactable named ${name} on the map`);
  return { x: entity.x, y: entity.y };
}

async function statusText(page: Page): Promise<string> {
  return (await page.getByTestId("status").textContent()) ?? "";
}

describe.skipIf(!HAVE_CHROMIUM)("failures in plain words, and the notice board over a restart, in Chromium", () => {
  let ada: Page;

  beforeAll(async () => {
    databaseDir = mkdtempSync(join(tmpdir(), "caves-e2e-outage-"));
    rig = await startRig({ database: openGameDatabase(databasePath()) });
  }, 90_000);

  afterAll(async () => {
    await rig?.close();
    if (databaseDir) rmSync(databaseDir, { recursive: true, force: true });
  }, 30_000);

  it("a click on water says it is water; a click on floor no route reaches says there is no way", async () => {
    ada = await openAndJoin(rig, "Ada", "debug=1");
    const at = await restingCamera(ada);
    const game = rig.server.game;
    const occupied = (tile: Tile) => [...game.entities.values()].some((e) => e.x === tile.x && e.y === tile.y);
    // The spawn has no water in view, so the server floods a tile and walls a floor tile in (TileUpdates,
    // as a host's script would): the page knows them only as the server sends them.
    const ring = (centre: Tile) => {
      const tiles: Tile[] = [];
      for (let dy = -1; dy <= 1; dy++)
        for (let dx = -1; dx <= 1; dx++) tiles.push({ x: centre.x + dx, y: centre.y + dy });
      return tiles;
    };
    const spot = (distance: number) =>
      [
        { x: at.x + distance, y: at.y },
        { x: at.x - distance, y: at.y },
        { x: at.x, y: at.y + distance },
        { x: at.x, y: at.y - distance },
      ].find((centre) => ring(centre).every((tile) => rig.sim.isFree(tile.x, tile.y) && !occupied(tile))) ?? null;
    const pond = spot(3);
    const cell = spot(6);
    expect(pond, `open floor three tiles from ${at.x},${at.y}`).not.toBeNull();
    expect(cell, `open floor six tiles from ${at.x},${at.y}`).not.toBeNull();
    const changed = [pond!, ...ring(cell!).filter((tile) => tile.x !== cell!.x || tile.y !== cell!.y)];
    const original = changed.map((tile) => game.world.tileAt(tile.x, tile.y));
    try {
      expect(game.setTile(pond!.x, pond!.y, WATER)).toBe(true);
      for (const tile of changed.slice(1)) expect(game.setTile(tile.x, tile.y, ROCK_WALL)).toBe(true);
      await ada.waitForTimeout(500); // the tile updates arrive
      await clickTile(ada, at, pond!);
      await expect.poll(() => logText(ada), { timeout: 5000 }).toContain("You can't walk on water.");
      await ada.waitForTimeout(1600); // the note is said at most every 1.5 s
      await clickTile(ada, at, cell!);
      await expect.poll(() => logText(ada), { timeout: 5000 }).toContain("There is no way there from here.");
      await ada.screenshot({ path: join(ARTIFACTS, "unreachable-notes.png") });
    } finally {
      changed.forEach((tile, index) => game.setTile(tile.x, tile.y, original[index]));
    }
  }, 45_000);

  it("Ada pins a notice; during the outage her page counts down and a join says the server is unreachable; after the restart she is back and Bob reads the notice", async () => {
    const at = await restingCamera(ada);
    await clickTile(ada, at, interactable("notice board"));
    await expect.poll(() => ada.getByTestId("dialog").count(), { timeout: 15_000 }).toBe(1);
    await expect.poll(() => ada.evaluate(() => document.activeElement?.className)).toBe("dialog-input");
    await ada.keyboard.type("Back after the storm");
    await ada.keyboard.press("Enter");
    await expect.poll(() => logText(ada), { timeout: 10_000 }).toContain("notice board: Ada: Back after the storm");

    // A page loaded before the outage, whose Play is pressed during it.
    const late = await openPage(rig, "Late");
    const seen = new Set<string>();
    await rig.restartServer({ database: openGameDatabase(databasePath()) }, async () => {
      // Ada's line counts down: two different numbers of seconds, in words.
      await expect
        .poll(
          async () => {
            const text = await statusText(ada);
            if (/(reconnecting in|trying again in) \d+ s/.test(text)) seen.add(text);
            return seen.size;
          },
          { timeout: 15_000, interval: 200 },
        )
        .toBeGreaterThanOrEqual(2);
      await ada.screenshot({ path: join(ARTIFACTS, "outage-countdown.png") });
      await late.getByTestId("nick").fill("Late");
      await late.getByTestId("play").click();
      await expect
        .poll(() => late.getByTestId("join-error").textContent(), { timeout: 10_000 })
        .toMatch(/^Cannot reach the game server at http:\/\/127\.0\.0\.1:\d+\. Is it running\?/);
      expect(await statusText(late)).toMatch(/^Not connected: Cannot reach the game server/);
      await late.screenshot({ path: join(ARTIFACTS, "join-unreachable.png") });
    });
    expect([...seen].join("\n")).toMatch(/\d+ s/);

    // Ada rejoins by herself once the server is back.
    await expect.poll(() => statusText(ada), { timeout: 30_000 }).toMatch(/^Playing as Ada/);
    await waitForDebug(ada, (text) => /^state playing$/m.test(text), 10_000);

    const bob = await openAndJoin(rig, "Bob", "debug=1");
    const bobAt = await restingCamera(bob);
    await clickTile(bob, bobAt, interactable("notice board"));
    await expect.poll(() => bob.getByTestId("dialog").count(), { timeout: 15_000 }).toBe(1);
    await expect.poll(() => bob.getByTestId("dialog").textContent()).toMatch(/Ada, .*: Back after the storm/);
    await bob.screenshot({ path: join(ARTIFACTS, "notice-after-restart.png") });
    await Promise.all([bob.close(), late.close()]);
  }, 120_000);
});
