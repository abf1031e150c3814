// End to end in a real browser: the client built by Vite, served by the real
// game server (in-process, ports picked by the OS), played by Debian's
// Chromium through playwright-core. Players join through the page, see each
// other, walk with the keyboard, walk to a clicked tile, over the WebRTC data
// channel and over the WebSocket fallback; a refused nick is explained.
// Needs /usr/bin/chromium (never downloads a browser); without it the suite
// says so and is skipped.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { build } from "vite";
import { Logger } from "../../ts/server/log.js";
import { readWorldMap, type RunningServer, startServer } from "../../ts/server/server.js";
import { loadCore } from "../../ts/wasm/node.js";
import { WasmSim } from "../../ts/wasm/sim.js";

const CHROMIUM = "/usr/bin/chromium";
const HAVE_CHROMIUM = existsSync(CHROMIUM);
const REPO = fileURLToPath(new URL("../../", import.meta.url));
const MAP_PATH = join(REPO, "maps/caves.tmj");
const ARTIFACTS = join(REPO, "test-artifacts");
const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-quic",
];
/** Movement: one step per 4 ticks at 24 Hz. */
const STEP_MS = 1000 / 6;

if (!HAVE_CHROMIUM) {
  console.warn(`browser end-to-end tests skipped: ${CHROMIUM} is not installed (apt-get install chromium)`);
}

interface Tile {
  x: number;
  y: number;
}

let server: RunningServer;
let context: BrowserContext;
let clientDir: string;
let userDataDir: string;
let sim: WasmSim;
let baseUrl: string;

/** The map under THE movement rule (wasm), to choose walkable directions and reachable targets. */
async function loadRules(): Promise<WasmSim> {
  const map = readWorldMap(MAP_PATH);
  const rules = new WasmSim(await loadCore());
  expect(rules.initGrid(map.width, map.height, 0, 0)).toBe(true);
  rules.tiles.set(map.tiles);
  rules.setFlags(map.flags);
  return rules;
}

async function debugText(page: Page): Promise<string> {
  return (await page.getByTestId("debug").textContent()) ?? "";
}

function positionIn(text: string): Tile | null {
  const match = /^pos (-?\d+),(-?\d+)$/m.exec(text);
  return match ? { x: Number(match[1]), y: Number(match[2]) } : null;
}

/** Polls the debug overlay until `accept` returns a value; fails with the last text on timeout. */
async function waitForDebug<T>(page: Page, accept: (text: string) => T | null | false, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let text = "";
  for (;;) {
    text = await debugText(page);
    const value = accept(text);
    if (value !== null && value !== false) return value;
    if (Date.now() > deadline) {
      const focus = await page.evaluate(
        () =>
          `active ${document.activeElement?.id || document.activeElement?.tagName}, focus ${document.hasFocus()}, ${document.visibilityState}`,
      );
      throw new Error(`debug overlay never matched within ${timeoutMs} ms (${focus}); last:\n${text}`);
    }
    await page.waitForTimeout(50);
  }
}

/** Waits until the player stands still (nothing pending) and returns its tile. */
async function settledPosition(page: Page, timeoutMs = 5000): Promise<Tile> {
  return waitForDebug(page, (text) => (/^pending 0$/m.test(text) ? positionIn(text) : null), timeoutMs);
}

async function openAndJoin(nick: string, query: string): Promise<Page> {
  const page = await context.newPage();
  page.on("pageerror", (error) => console.error(`[${nick}] page error: ${error.message}`));
  await page.goto(`${baseUrl}/?${query}`);
  await expect.poll(() => page.getByTestId("play").isEnabled(), { timeout: 10_000 }).toBe(true);
  await page.getByTestId("nick").fill(nick);
  await page.getByTestId("play").click();
  await waitForDebug(page, (text) => /^state playing$/m.test(text) && positionIn(text), 10_000);
  return page;
}

/** Clicks the centre of world tile `target`, the camera being centred on the player standing at `at`. */
async function clickTile(page: Page, at: Tile, target: Tile): Promise<void> {
  const box = (await page.getByTestId("game").boundingBox())!;
  const scale = box.width / 320;
  // placeViewport: the camera tile's top-left is at framebuffer (116, 116).
  const fbX = 116 + (target.x - at.x) * 8 + 4;
  const fbY = 116 + (target.y - at.y) * 8 + 4;
  await page.mouse.click(box.x + fbX * scale, box.y + fbY * scale);
}

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
    while (steps <= max && sim.stepAllowed(from.x + steps * candidate.dx, from.y + steps * candidate.dy, action)) {
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
        const result = sim.astar(from.x, from.y, from.x + dx, from.y + dy, 50_000);
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
    mkdirSync(ARTIFACTS, { recursive: true });
    clientDir = mkdtempSync(join(tmpdir(), "caves-client-"));
    userDataDir = mkdtempSync(join(tmpdir(), "caves-chromium-"));
    await build({
      configFile: join(REPO, "vite.config.ts"),
      logLevel: "warn",
      build: { outDir: clientDir, emptyOutDir: true, sourcemap: false },
    });
    sim = await loadRules();
    server = await startServer({
      host: "127.0.0.1",
      httpPort: 0,
      udpPort: 0,
      mapPath: MAP_PATH,
      logger: new Logger("silent"),
      clientDir,
    });
    baseUrl = `http://127.0.0.1:${server.httpPort}`;
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width: 1000, height: 760 },
    });
  }, 90_000);

  afterAll(async () => {
    await context?.close();
    await server?.close();
    for (const dir of [clientDir, userDataDir]) if (dir) rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  it("serves the page with its stable test ids, and refuses a bad nick in plain words", async () => {
    const page = await context.newPage();
    await page.goto(`${baseUrl}/`);
    await expect.poll(() => page.getByTestId("play").isEnabled(), { timeout: 10_000 }).toBe(true);
    expect(await page.getByTestId("game").getAttribute("width")).toBe("320");
    await page.getByTestId("nick").fill("<script>");
    await page.getByTestId("play").click();
    await expect
      .poll(() => page.locator("#join-error").textContent(), { timeout: 10_000 })
      .toContain("The server did not accept that nick");
    expect(await page.getByTestId("status").textContent()).toBe("Not connected.");
    await page.close();
  }, 30_000);

  it("lets two players join over the data channel and see each other", async () => {
    pages.push(await openAndJoin("Ada", "debug=1"));
    pages.push(await openAndJoin("Bob", "debug=1"));
    for (const page of pages) {
      await waitForDebug(page, (text) => /^transport webrtc$/m.test(text), 5000);
      await waitForDebug(page, (text) => /^entities 2$/m.test(text), 10_000);
      expect(await page.getByTestId("status").textContent()).toMatch(/^Playing as (Ada|Bob) via webrtc$/);
    }
  }, 45_000);

  it("walks with the arrow keys: the overlay's pos reaches the expected tile", async () => {
    const { start, expected } = await walkWithKey(pages[0], 3, 12);
    expect(expected).not.toEqual(start);
  }, 30_000);

  it("walks to a clicked tile 10+ tiles away", async () => {
    const target = await walkByClick(pages[0], "webrtc");
    expect(await settledPosition(pages[0])).toEqual(target);
    await pages[0].waitForTimeout(400);
    await pages[0].screenshot({ path: join(ARTIFACTS, "game-webrtc.png") });
  }, 45_000);

  it("plays the same over the WebSocket fallback (?transport=websocket)", async () => {
    const page = await openAndJoin("Cy", "transport=websocket&debug=1");
    pages.push(page);
    await waitForDebug(page, (text) => /^transport websocket$/m.test(text), 5000);
    expect(await page.getByTestId("status").textContent()).toBe("Playing as Cy via websocket");
    await waitForDebug(page, (text) => /^entities [2-9]$/m.test(text), 10_000);
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
  }, 15_000);
});
