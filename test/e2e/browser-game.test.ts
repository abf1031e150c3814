// End to end in a real browser: the client built by Vite, served by the real
// game server (in-process, ports picked by the OS), played by Debian's
// Chromium through playwright-core. Players join through the page, see each
// other, walk with the keyboard, walk to a clicked tile, over the WebRTC data
// channel and over the WebSocket fallback; a refused nick is explained.
// Needs /usr/bin/chromium (never downloads a browser); without it the suite
// says so and is skipped.
import { FIRST_FRAME_MARK, PLAY_MARK } from "../../ts/client/browser/timing-marks.js";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ARTIFACTS,
  debugText,
  type BrowserRig,
  clickTile,
  HAVE_CHROMIUM,
  logText,
  openAndJoin,
  positionIn,
  settledPosition,
  skipNotice,
  startRig,
  STEP_MS,
  type Tile,
  waitForDebug,
} from "./browser-support.js";

skipNotice("browser end-to-end tests");

let rig: BrowserRig;

/** Arrow keys and their action codes (brief: shared vocabulary). */
const KEYS: { key: string; dx: number; dy: number }[] = [
  { key: "ArrowRight", dx: 1, dy: 0 },
  { key: "ArrowLeft", dx: -1, dy: 0 },
  { key: "ArrowDown", dx: 0, dy: 1 },
  { key: "ArrowUp", dx: 0, dy: -1 },
];
const ACTION_OF = new Map([
  ["1,0", 2],
  ["-1,0", 4],
  ["0,1", 3],
  ["0,-1", 1],
]);

/**
 * A key that walks from `from` into a wall after `min`..`max` free steps, and that number: holding it,
 * the player must come to rest exactly there, whatever the timing of frames and packets.
 */
function walkIntoWall(from: Tile, min: number, max: number): { key: string; dx: number; dy: number; steps: number } {
  for (const candidate of KEYS) {
    const action = ACTION_OF.get(`${candidate.dx},${candidate.dy}`)!;
    let steps = 0;
    while (steps <= max && rig.sim.stepAllowed(from.x + steps * candidate.dx, from.y + steps * candidate.dy, action)) {
      steps++;
    }
    if (steps >= min && steps <= max) return { ...candidate, steps };
  }
  throw new Error(`no straight walk of ${min}..${max} tiles into a wall from ${from.x},${from.y}`);
}

/** A tile 10..13 tiles away (Chebyshev; inside the view) that A* reaches from `from` in at most 40 steps. */
function farReachableTile(from: Tile): Tile {
  for (let radius = 13; radius >= 10; radius--) {
    for (let dy = -radius; dy <= radius; dy++) {
      for (let dx = -radius; dx <= radius; dx++) {
        if (Math.max(Math.abs(dx), Math.abs(dy)) !== radius) continue;
        const result = rig.sim.astar(from.x, from.y, from.x + dx, from.y + dy, 50_000);
        if (result.status >= radius && result.status <= 40) return { x: from.x + dx, y: from.y + dy };
      }
    }
  }
  throw new Error(`no reachable tile 10+ tiles from ${from.x},${from.y}`);
}

/** Holds an arrow key until the player rests against a wall; returns where it started and where it must stop. */
async function walkWithKey(page: Page, min: number, max: number): Promise<{ start: Tile; expected: Tile }> {
  const start = await settledPosition(page);
  const { key, dx, dy, steps } = walkIntoWall(start, min, max);
  const expected = { x: start.x + steps * dx, y: start.y + steps * dy };
  await page.keyboard.down(key);
  try {
    await waitForDebug(
      page,
      (text) => {
        const pos = positionIn(text);
        return pos !== null && pos.x === expected.x && pos.y === expected.y;
      },
      steps * STEP_MS + 5000,
    );
    // Still held: the wall stops the walk, and it stays stopped.
    await page.waitForTimeout(2 * STEP_MS);
  } finally {
    await page.keyboard.up(key);
  }
  expect(await settledPosition(page)).toEqual(expected);
  return { start, expected };
}

/** Clicks a far reachable tile, screenshots the walk, waits for arrival; returns the tile. */
async function walkByClick(page: Page, label: string): Promise<Tile> {
  const start = await settledPosition(page);
  const target = farReachableTile(start);
  // Let the camera finish gliding onto the player, so the tile is where clickTile computes it.
  await page.waitForTimeout(300);
  await clickTile(page, start, target);
  await waitForDebug(page, (text) => /^pending [1-9]/m.test(text), 3000);
  await page.screenshot({ path: join(ARTIFACTS, `walking-${label}.png`) });
  await waitForDebug(
    page,
    (text) => {
      const pos = positionIn(text);
      return pos !== null && pos.x === target.x && pos.y === target.y;
    },
    15_000,
  );
  return target;
}

describe.skipIf(!HAVE_CHROMIUM)("the game in Chromium", () => {
  const pages: Page[] = [];

  beforeAll(async () => {
    rig = await startRig();
  }, 90_000);

  afterAll(async () => {
    await rig?.close();
  }, 30_000);

  it("serves the page with its stable test ids, and refuses a bad nick in plain words", async () => {
    const page = await rig.context.newPage();
    await page.goto(`${rig.baseUrl}/`);
    await expect.poll(() => page.getByTestId("play").isEnabled(), { timeout: 10_000 }).toBe(true);
    expect(await page.getByTestId("game").getAttribute("width")).toBe("320");
    await page.getByTestId("nick").fill("<script>");
    await page.getByTestId("play").click();
    await expect
      .poll(() => page.locator("#join-error").textContent(), { timeout: 10_000 })
      .toContain("The server did not accept that nick");
    // The status line says what happened too, not just "not connected" (issue 18 item 9).
    expect(await page.getByTestId("status").textContent()).toMatch(
      /^Not connected: The server did not accept that nick/,
    );
    await page.close();
  }, 30_000);

  it("lets two players join over the data channel and see each other", async () => {
    pages.push(await openAndJoin(rig, "Ada", "debug=1"));
    pages.push(await openAndJoin(rig, "Bob", "debug=1"));
    for (const page of pages) {
      await waitForDebug(page, (text) => /^transport webrtc$/m.test(text), 5000);
      // Two players, the great hall's sign and notice board, and the creatures in view (issue 12).
      await waitForDebug(page, (text) => Number(/^entities (\d+)$/m.exec(text)?.[1] ?? 0) >= 5, 10_000);
      expect(await page.getByTestId("status").textContent()).toMatch(/^Playing as (Ada|Bob) via webrtc$/);
      // The marks the client bench times (bench/suites/client.ts): Play pressed, then the first frame of the
      // world, once each, the frame's with the datagram bytes and chunks it had.
      const marks = await page.evaluate(
        ([play, first]) =>
          [play, first]
            .map((name) => performance.getEntriesByName(name) as PerformanceMark[])
            .map((entries) => ({
              count: entries.length,
              at: entries[0]?.startTime ?? NaN,
              detail: entries[0]?.detail as { datagramBytesIn: number; chunks: number } | undefined,
            })),
        [PLAY_MARK, FIRST_FRAME_MARK],
      );
      expect(marks.map((mark) => mark.count)).toEqual([1, 1]);
      expect(marks[1].at).toBeGreaterThan(marks[0].at);
      expect(marks[1].detail!.datagramBytesIn).toBeGreaterThan(0);
      expect(marks[1].detail!.chunks).toBeGreaterThan(0);
    }
  }, 45_000);

  it("walks with the arrow keys: the overlay's pos reaches the expected tile", async () => {
    const { start, expected } = await walkWithKey(pages[0], 3, 12);
    expect(expected).not.toEqual(start);
  }, 30_000);

  it("moves exactly one tile per short key tap (30 ms down), however short", async () => {
    const page = pages[0];
    const start = await settledPosition(page);
    const { key, dx, dy } = walkIntoWall(start, 4, 12);
    for (let tap = 0; tap < 4; tap++) {
      await page.keyboard.down(key);
      await page.waitForTimeout(30);
      await page.keyboard.up(key);
      await page.waitForTimeout(350);
    }
    expect(await settledPosition(page)).toEqual({ x: start.x + 4 * dx, y: start.y + 4 * dy });
  }, 30_000);

  it("says why a clicked wall cannot be reached, in the log", async () => {
    const page = pages[0];
    const start = await settledPosition(page);
    let wall: Tile | null = null;
    for (let r = 2; r <= 12 && wall === null; r++) {
      for (let dx = -r; dx <= r && wall === null; dx++) {
        for (const dy of [-r, r]) {
          const tile = { x: start.x + dx, y: start.y + dy };
          const id = rig.sim.getTile(tile.x, tile.y);
          // Not the sign (14) or the notice board (15): a click on those walks up and opens them.
          if (!rig.sim.isFree(tile.x, tile.y) && id < 0xfffe && id !== 14 && id !== 15) wall = tile;
        }
      }
    }
    expect(wall).not.toBeNull();
    await page.waitForTimeout(300); // the camera at rest, so the tile is where clickTile aims
    await clickTile(page, start, wall!);
    await expect.poll(() => logText(page), { timeout: 5000 }).toMatch(/You can't walk (on [a-z ]+|there)\./);
  }, 30_000);

  it("walks to a clicked tile 10+ tiles away", async () => {
    const target = await walkByClick(pages[0], "webrtc");
    expect(await settledPosition(pages[0])).toEqual(target);
    await pages[0].waitForTimeout(400);
    await pages[0].screenshot({ path: join(ARTIFACTS, "game-webrtc.png") });
  }, 45_000);

  it("plays the same over the WebSocket fallback (?transport=websocket)", async () => {
    const page = await openAndJoin(rig, "Cy", "transport=websocket&debug=1");
    pages.push(page);
    await waitForDebug(page, (text) => /^transport websocket$/m.test(text), 5000);
    expect(await page.getByTestId("status").textContent()).toBe("Playing as Cy via websocket");
    await waitForDebug(page, (text) => Number(/^entities (\d+)$/m.exec(text)?.[1] ?? 0) >= 2, 10_000);
    await walkWithKey(page, 2, 12);
    await walkByClick(page, "websocket");
    await page.screenshot({ path: join(ARTIFACTS, "game-websocket.png") });
  }, 60_000);

  it("toggles the debug overlay with F3", async () => {
    const page = pages[1];
    await page.getByTestId("game").focus();
    expect(await page.getByTestId("debug").isVisible()).toBe(true);
    await page.keyboard.press("F3");
    await expect.poll(() => page.getByTestId("debug").isVisible()).toBe(false);
    await page.keyboard.press("F3");
    await expect.poll(() => page.getByTestId("debug").isVisible()).toBe(true);
    // Its loss line on this clean loopback, after this page walked and then stood idle — the server holding
    // back most idle States (one every 8 ticks, not every 2): no loss, by the pings or by the States the
    // protocol says were sent (counting every broadcast's gap, it read "loss 52 %": issue 42).
    const tickOf = (text: string) => Number(/^tick (\d+)/m.exec(text)?.[1] ?? NaN);
    const from = tickOf(await debugText(page));
    await waitForDebug(page, (text) => tickOf(text) >= from + 3 * 24, 10_000);
    expect(await debugText(page)).toMatch(/^loss 0\.0% \(pings; states 0\.0%\)$/m);
  }, 20_000);

  it.each(["webrtc", "websocket"])(
    "a closed tab (%s) leaves at once: its session ends and others read it left",
    async (transport) => {
      const nick = transport === "webrtc" ? "Leaver" : "Leaver WS";
      const leaver = await openAndJoin(
        rig,
        nick,
        transport === "websocket" ? "transport=websocket&debug=1" : "debug=1",
      );
      const game = rig.server.game;
      const isIn = () => [...game.sessions.values()].some((session) => session.nick === nick);
      expect(isIn()).toBe(true);
      const watcher = pages[1];
      // Its join is announced first (joins are coalesced over a second), so its leaving is too.
      await expect.poll(() => logText(watcher), { timeout: 5000 }).toContain(`${nick} joined`);
      const closedAt = performance.now();
      await leaver.close();
      await expect.poll(isIn, { timeout: 2000, interval: 20 }).toBe(false);
      // Within a second or two of the tab closing, not the 10 s timeout.
      expect(performance.now() - closedAt).toBeLessThan(2000);
      await expect.poll(() => logText(watcher), { timeout: 3000 }).toContain(`${nick} left`);
    },
    20_000,
  );
});
