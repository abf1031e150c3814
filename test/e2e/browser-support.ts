// What the browser end-to-end suites share: the client built by Vite (dist/client,
// the one `npm start` serves, built once when missing or stale), the real game
// server in-process (ports picked by the OS, maps/caves.tmj, silent), Debian's Chromium (/usr/bin/chromium, headless, a
// fresh temp profile; never a downloaded browser) through playwright-core, and
// helpers that read the page: the debug overlay, the message log's text copy,
// the canvas pixels.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { expect } from "vitest";
import { windowPeriodMs } from "../../ts/window.js";
import { TICK_HZ } from "../../ts/constants.js";
import { Logger } from "../../ts/server/ops/log.js";
import { readWorldMap, type RunningServer, startServer, type ServerOptions } from "../../ts/server/server.js";
import { loadCore } from "../../ts/wasm/node.js";
import { WasmSim } from "../../ts/wasm/sim.js";

export const CHROMIUM = "/usr/bin/chromium";
export const HAVE_CHROMIUM = existsSync(CHROMIUM);
export const REPO = fileURLToPath(new URL("../../", import.meta.url));
export const MAP_PATH = join(REPO, "maps/caves.tmj");
export const ARTIFACTS = join(REPO, "test-artifacts");
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-quic",
];
/** Movement: one step per window (4 ticks at 24 Hz, the test server's rate). */
export const STEP_MS = windowPeriodMs(TICK_HZ);

export interface Tile {
  x: number;
  y: number;
}

export interface BrowserRig {
  server: RunningServer;
  context: BrowserContext;
  baseUrl: string;
  /** The map under THE movement rule (wasm), to choose walkable directions and reachable targets. */
  sim: WasmSim;
  /**
   * Stops the server and starts another on the same HTTP and UDP ports with the rig's options and
   * `options` on top (a database to reopen, say): an outage and a restart, as the pages see them.
   * `whileDown` runs between the two.
   */
  restartServer(options?: Partial<ServerOptions>, whileDown?: () => Promise<void>): Promise<void>;
  close(): Promise<void>;
}

export function skipNotice(suite: string): void {
  if (!HAVE_CHROMIUM) console.warn(`${suite} skipped: ${CHROMIUM} is not installed (apt-get install chromium)`);
}

/**
 * The built client's directory (dist/client): built by scripts/build-client.mjs when it is missing or older
 * than its sources, as `npm start` does — so the suites build it once between them, not once each.
 */
export function builtClientDir(): string {
  execFileSync(process.execPath, [join(REPO, "scripts/build-client.mjs"), "--if-missing"], { stdio: "inherit" });
  return join(REPO, "dist/client");
}

/** Builds the client if stale, starts the server (with `options` on top of the defaults) and Chromium. */
export async function startRig(options: Partial<ServerOptions> = {}): Promise<BrowserRig> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const clientDir = builtClientDir();
  const userDataDir = mkdtempSync(join(tmpdir(), "caves-chromium-"));
  const map = readWorldMap(MAP_PATH);
  const sim = new WasmSim(await loadCore());
  expect(sim.initGrid(map.width, map.height, 0, 0)).toBe(true);
  sim.tiles.set(map.tiles);
  sim.setFlags(map.flags);
  const serverOptions: ServerOptions = {
    host: "127.0.0.1",
    httpPort: 0,
    udpPort: 0,
    mapPath: MAP_PATH,
    logger: new Logger("silent"),
    clientDir,
    ...options,
  };
  const server = await startServer(serverOptions);
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1000, height: 760 },
  });
  const rig: BrowserRig = {
    server,
    context,
    baseUrl: `http://127.0.0.1:${server.httpPort}`,
    sim,
    async restartServer(more = {}, whileDown) {
      const { httpPort, udpPort } = rig.server;
      await rig.server.close();
      await whileDown?.();
      rig.server = await startServer({ ...serverOptions, ...more, httpPort, udpPort });
    },
    async close() {
      await context.close();
      await rig.server.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
  return rig;
}

export async function debugText(page: Page): Promise<string> {
  return (await page.getByTestId("debug").textContent()) ?? "";
}

export function positionIn(text: string): Tile | null {
  const match = /^pos (-?\d+),(-?\d+)$/m.exec(text);
  return match ? { x: Number(match[1]), y: Number(match[2]) } : null;
}

/** Polls the debug overlay until `accept` returns a value; fails with the last text on timeout. */
export async function waitForDebug<T>(
  page: Page,
  accept: (text: string) => T | null | false,
  timeoutMs: number,
): Promise<T> {
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
export async function settledPosition(page: Page, timeoutMs = 5000): Promise<Tile> {
  return waitForDebug(page, (text) => (/^pending 0$/m.test(text) ? positionIn(text) : null), timeoutMs);
}

/** Waits until the player rests and the camera has caught up with it (pointer maths assume a centred camera). */
export async function restingCamera(page: Page): Promise<Tile> {
  const at = await settledPosition(page, 15_000);
  await page.waitForTimeout(400);
  return at;
}

/** Opens the page (with `query`), joins as guest `nick` and waits until it plays. */
export async function openAndJoin(rig: BrowserRig, nick: string, query: string): Promise<Page> {
  const page = await openPage(rig, nick, query);
  await page.getByTestId("nick").fill(nick);
  await page.getByTestId("play").click();
  await waitForDebug(page, (text) => /^state playing$/m.test(text) && positionIn(text), 10_000);
  return page;
}

/** Opens the page and waits until the join card can be used. */
export async function openPage(rig: BrowserRig, label: string, query = ""): Promise<Page> {
  const page = await rig.context.newPage();
  page.on("pageerror", (error) => console.error(`[${label}] page error: ${error.message}`));
  await page.goto(`${rig.baseUrl}/${query ? `?${query}` : ""}`);
  await expect.poll(() => page.getByTestId("play").isEnabled(), { timeout: 10_000 }).toBe(true);
  return page;
}

/** The page point at the centre of world tile `target`, the camera being centred on the player standing at `at`. */
export async function pointOfTile(page: Page, at: Tile, target: Tile): Promise<{ x: number; y: number }> {
  const box = (await page.getByTestId("game").boundingBox())!;
  const scale = box.width / 320;
  // placeViewport: the camera tile's top-left is at framebuffer (116, 116).
  const fb = framebufferOfTile(at, target);
  return { x: box.x + (fb.x + 4) * scale, y: box.y + (fb.y + 4) * scale };
}

/** Framebuffer position of world tile `target`'s top-left, the camera resting on the player at `at`. */
export function framebufferOfTile(at: Tile, target: Tile): { x: number; y: number } {
  return { x: 116 + (target.x - at.x) * 8, y: 116 + (target.y - at.y) * 8 };
}

export async function clickTile(page: Page, at: Tile, target: Tile): Promise<void> {
  const point = await pointOfTile(page, at, target);
  await page.mouse.click(point.x, point.y);
}

/** The canvas's pixels (framebuffer coordinates) as 0xRRGGBB, row-major over the rectangle. */
export async function canvasPixels(page: Page, x: number, y: number, width: number, height: number): Promise<number[]> {
  return page.evaluate(
    ({ x, y, width, height }) => {
      const canvas = document.getElementById("game") as HTMLCanvasElement;
      const data = canvas.getContext("2d")!.getImageData(x, y, width, height).data;
      const out: number[] = [];
      for (let index = 0; index < data.length; index += 4) {
        out.push((data[index] << 16) | (data[index + 1] << 8) | data[index + 2]);
      }
      return out;
    },
    { x, y, width, height },
  );
}

/** The text copy of the side panel's message log. */
export async function logText(page: Page): Promise<string> {
  return (await page.getByTestId("log").textContent()) ?? "";
}

/**
 * A page in a browser of its own with a phone's 390 × 780 touch screen, joined as guest `nick` and
 * playing (taps, not clicks). Close the returned browser when done.
 */
export async function joinOnPhone(rig: BrowserRig, nick: string): Promise<{ browser: Browser; page: Page }> {
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  try {
    const context = await browser.newContext({ viewport: { width: 390, height: 780 }, hasTouch: true, isMobile: true });
    const page = await context.newPage();
    await page.goto(`${rig.baseUrl}/?debug=1`);
    await expect.poll(() => page.getByTestId("play").isEnabled(), { timeout: 10_000 }).toBe(true);
    await page.getByTestId("nick").fill(nick);
    await page.getByTestId("play").tap();
    await waitForDebug(page, (text) => /^state playing$/m.test(text) && positionIn(text), 10_000);
    return { browser, page };
  } catch (error) {
    await browser.close();
    throw error;
  }
}
