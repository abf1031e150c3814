// Scaling and touch in a real browser (issue 18 items 4 and 5): the client built
// by Vite, the real game server on the bundled map, Debian's Chromium through
// playwright-core with its touch emulation (hasTouch, isMobile,
// page.touchscreen.tap). The page must use its space at a whole scale in a
// desktop window, an 800 × 500 window and a phone held both ways; on the phone
// every tap on a reachable tile walks there, the d-pad steps and holds, and the
// touch buttons use and chat. Screenshots go to test-artifacts/.
// Needs /usr/bin/chromium; without it the suite says so and is skipped.
import { join } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENTITY_TYPE_PLAYER, type StoredEntity } from "../../ts/server/entities/entities.js";
import {
  ARTIFACTS,
  type BrowserRig,
  CHROMIUM,
  CHROMIUM_ARGS,
  HAVE_CHROMIUM,
  logText,
  pointOfTile,
  positionIn,
  restingCamera,
  settledPosition,
  skipNotice,
  startRig,
  type Tile,
  waitForDebug,
} from "./browser-support.js";
import { boxOf, checkPhoneLayout, dockedLog, overlaps, shown } from "./phone-layout.js";

skipNotice("browser touch and scaling tests");

let rig: BrowserRig;
let browser: Browser;

interface Screen {
  width: number;
  height: number;
  deviceScaleFactor: number;
  touch: boolean;
}

/** A page of its own browser context with `screen`'s size, pixel ratio and (when `touch`) a touch screen. */
async function openOn(screen: Screen): Promise<Page> {
  const context = await browser.newContext({
    viewport: { width: screen.width, height: screen.height },
    deviceScaleFactor: screen.deviceScaleFactor,
    hasTouch: screen.touch,
    isMobile: screen.touch,
  });
  const page = await context.newPage();
  page.on("pageerror", (error) => console.error(`[${screen.width}x${screen.height}] page error: ${error.message}`));
  await page.goto(`${rig.baseUrl}/?debug=1`);
  await expect.poll(() => page.getByTestId("play").isEnabled(), { timeout: 10_000 }).toBe(true);
  return page;
}

async function joinAs(page: Page, nick: string, touch: boolean): Promise<Tile> {
  await page.getByTestId("nick").fill(nick);
  if (touch) await page.getByTestId("play").tap();
  else await page.getByTestId("play").click();
  return waitForDebug(page, (text) => (/^state playing$/m.test(text) ? positionIn(text) : null), 10_000);
}

/**
 * Device pixels per framebuffer pixel, asserted whole (no pixel is blurred between two screen pixels). Layout
 * rounds CSS boxes to 1/64 px, so at a ratio of 3 a box of 1280 device pixels may read 1279.95.
 */
function wholeScale(cssWidth: number, sourcePx: number, ratio: number): number {
  const scale = (cssWidth * ratio) / sourcePx;
  expect(Math.abs(scale - Math.round(scale))).toBeLessThan(1e-3);
  return Math.round(scale);
}

/** A free tile `distance` steps from `from` in a straight line of free tiles, or null. */
function freeTileAway(from: Tile, dx: number, dy: number, distance: number): Tile | null {
  for (let step = 1; step <= distance; step++) {
    if (!rig.sim.isFree(from.x + dx * step, from.y + dy * step)) return null;
    // Creatures block steps (docs/netcode.md) and wander through the spawn hall: a walk whose line
    // one stands on could end short of the tapped tile; one beside the target could step onto it.
    if (creatureNear(from.x + dx * step, from.y + dy * step, step === distance ? 1 : 0)) return null;
  }
  return { x: from.x + dx * distance, y: from.y + dy * distance };
}

const nearScratch: StoredEntity[] = [];

/** Whether an entity other than a player stands within `radius` tiles of (x, y), on the server now. */
function creatureNear(x: number, y: number, radius: number): boolean {
  const count = rig.server.game.entities.inSquare(x, y, radius, nearScratch, false);
  for (let index = 0; index < count; index++) if (nearScratch[index].typeId !== ENTITY_TYPE_PLAYER) return true;
  return false;
}

describe.skipIf(!HAVE_CHROMIUM)("scaling and touch in Chromium", () => {
  beforeAll(async () => {
    rig = await startRig();
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await rig?.close();
  }, 30_000);

  it("fills an 800 × 500 window at 2× (the status line over the view's edge, not the panel)", async () => {
    const page = await openOn({ width: 800, height: 500, deviceScaleFactor: 1, touch: false });
    await joinAs(page, "Small", false);
    const { canvas, status, layout, ratio } = await shown(page);
    expect(layout).toBe("side");
    expect(wholeScale(canvas.width, 320, ratio)).toBe(2);
    expect(canvas.height).toBe(480);
    // Inside the window, and the status line ends where the panel (framebuffer x ≥ 240) begins.
    expect(canvas.top).toBeGreaterThanOrEqual(0);
    expect(canvas.top + canvas.height).toBeLessThanOrEqual(500);
    expect(status.left + status.width).toBeLessThanOrEqual(canvas.left + 240 * 2 + 0.5);
    await page.screenshot({ path: join(ARTIFACTS, "layout-800x500.png") });
    await page.context().close();
  }, 30_000);

  it("keeps 3× in the 1000 × 760 desktop window the other suites use", async () => {
    const page = await openOn({ width: 1000, height: 760, deviceScaleFactor: 1, touch: false });
    const { canvas, layout, panel } = await shown(page);
    expect(layout).toBe("side");
    expect(canvas.width).toBe(960);
    expect(panel.hidden).toBe(true);
    await page.context().close();
  }, 30_000);

  it("docks the log beside the view in desktop windows, folds it, and remembers the fold across a reload", async () => {
    for (const [width, height] of [
      [1000, 760],
      [1280, 800],
      [1920, 1080],
    ]) {
      const page = await openOn({ width, height, deviceScaleFactor: 1, touch: false });
      await joinAs(page, `Dock${width}`, false);
      const log = await dockedLog(page);
      const { canvas } = await shown(page);
      const scale = canvas.width / 320;
      // The map (the framebuffer's left 240 × 240) is never under the log; the Bag and Sound buttons neither.
      const map = { x: canvas.left, y: canvas.top, width: 240 * scale, height: 240 * scale };
      expect(log.place, `${width}×${height}`).not.toBe("over");
      expect(overlaps(log.box, map), `${width}×${height}: log ${JSON.stringify(log.box)}`).toBe(false);
      for (const button of ["bag-button", "sound"]) {
        const box = await boxOf(page, button);
        if (box) expect(overlaps(log.box, box), `${width}×${height}: the log over ${button}`).toBe(false);
      }
      expect(log.box.x).toBeGreaterThanOrEqual(0);
      expect(log.box.y).toBeGreaterThanOrEqual(0);
      expect(log.box.x + log.box.width).toBeLessThanOrEqual(width);
      expect(log.box.y + log.box.height).toBeLessThanOrEqual(height);
      expect(log.linesShown).toBe(true);
      // Room for the tabs and a few lines, and the join's line in it.
      expect(log.box.height).toBeGreaterThanOrEqual(80);
      await expect.poll(() => page.getByTestId("log-lines").textContent(), { timeout: 3000 }).toContain("Connected");
      await page.screenshot({ path: join(ARTIFACTS, `log-dock-${width}x${height}.png`) });
      if (width !== 1000) {
        await page.context().close();
        continue;
      }
      // Folded: only the tab row is left, at the bottom of the log's place; kept across a reload.
      await page.getByTestId("log-fold").click();
      await expect.poll(() => page.getByTestId("log-lines").isVisible(), { timeout: 3000 }).toBe(false);
      const folded = await dockedLog(page);
      expect(folded.box.height).toBeLessThan(40);
      expect(folded.box.y + folded.box.height).toBeCloseTo(log.box.y + log.box.height, 0);
      await page.reload();
      await expect.poll(() => page.getByTestId("play").isEnabled(), { timeout: 10_000 }).toBe(true);
      await joinAs(page, "Dock1000b", false);
      expect((await dockedLog(page)).linesShown).toBe(false);
      expect(await page.getByTestId("log-panel").getAttribute("data-collapsed")).toBe("true");
      // Opened again, and that is kept too.
      await page.getByTestId("log-fold").click();
      await expect.poll(() => page.getByTestId("log-lines").isVisible(), { timeout: 3000 }).toBe(true);
      await page.reload();
      await expect.poll(() => page.getByTestId("play").isEnabled(), { timeout: 10_000 }).toBe(true);
      await joinAs(page, "Dock1000c", false);
      expect((await dockedLog(page)).linesShown).toBe(true);
      await page.context().close();
    }
  }, 60_000);

  for (const ratio of [1, 3]) {
    it(`lays a 390 × 844 portrait phone out for thumbs (pixel ratio ${ratio}): the view on top, the HUD a bar over it`, async () => {
      const page = await openOn({ width: 390, height: 844, deviceScaleFactor: ratio, touch: true });
      await joinAs(page, `Tall${ratio}`, true);
      const { canvas, screen, panel, layout } = await shown(page);
      expect(layout).toBe("stacked");
      const scale = wholeScale(canvas.width, 320, ratio);
      // More than the 1× the page used to fall back to, and the view spans the width (to a framebuffer pixel).
      expect(scale).toBeGreaterThanOrEqual(2 * ratio);
      expect(screen.width).toBeGreaterThan(390 - scale / ratio);
      expect(screen.width).toBeLessThanOrEqual(390);
      expect(screen.height).toBeCloseTo((240 * scale) / ratio, 5);
      // The framebuffer's 80-px panel would be 6-px glyphs here: the HUD is the page's text over the view instead.
      expect(panel.hidden).toBe(true);
      expect(await page.getByTestId("touch").isVisible()).toBe(true);
      await checkPhoneLayout(page, 390, 844);
      const log = await dockedLog(page);
      expect(log.place).toBe("below");
      await page.context().close();
    }, 30_000);
  }

  for (const ratio of [1, 3]) {
    it(`lays an 844 × 390 landscape phone out (pixel ratio ${ratio}): the pad and the log beside the view`, async () => {
      const page = await openOn({ width: 844, height: 390, deviceScaleFactor: ratio, touch: true });
      await joinAs(page, `Wide${ratio}`, true);
      const { canvas, screen, layout } = await shown(page);
      expect(layout).toBe("side");
      expect(wholeScale(canvas.width, 320, ratio)).toBe(ratio === 3 ? 4 : 1);
      const pad = (await page.getByTestId("dpad").boundingBox())!;
      expect(pad.x + pad.width).toBeLessThanOrEqual(screen.left + 0.5);
      await checkPhoneLayout(page, 844, 390);
      expect(await page.evaluate(() => document.body.dataset.hudPlace)).toBe("margin");
      expect(["left", "right"]).toContain((await dockedLog(page)).place);
      await page.context().close();
    }, 30_000);
  }

  it("walks to each tapped tile on a touch screen, tap after tap", async () => {
    const page = await openOn({ width: 390, height: 844, deviceScaleFactor: 3, touch: true });
    await joinAs(page, "Tapper", true);
    const directions = [
      [1, 0],
      [-1, 0],
      [0, 1],
      [0, -1],
      [1, 1],
      [-1, -1],
    ];
    let moved = 0;
    for (let tap = 0; tap < 6; tap++) {
      const start = await restingCamera(page);
      let target: Tile | null = null;
      // Creatures wander past: when every line is crowded now, look again a moment later.
      for (let look = 0; look < 20 && target === null; look++) {
        if (look > 0) await page.waitForTimeout(250);
        for (let turn = 0; turn < directions.length && target === null; turn++) {
          const [dx, dy] = directions[(tap + turn) % directions.length];
          target = freeTileAway(start, dx, dy, 3) ?? freeTileAway(start, dx, dy, 2);
        }
      }
      expect(target, `a free tile near ${start.x},${start.y}`).not.toBeNull();
      const point = await pointOfTile(page, start, target!);
      await page.touchscreen.tap(point.x, point.y);
      await waitForDebug(
        page,
        (text) => {
          const at = positionIn(text);
          return at !== null && at.x === target!.x && at.y === target!.y;
        },
        8000,
      );
      moved++;
    }
    expect(moved).toBe(6);
    await page.context().close();
  }, 90_000);

  it("steps once per d-pad tap and walks on while the pad is held", async () => {
    const page = await openOn({ width: 390, height: 844, deviceScaleFactor: 3, touch: true });
    await joinAs(page, "Padder", true);
    const pad = (await page.getByTestId("dpad").boundingBox())!;
    const centre = { x: pad.x + pad.width / 2, y: pad.y + pad.height / 2 };
    const offsets: Record<string, { dx: number; dy: number; x: number; y: number }> = {
      east: { dx: 1, dy: 0, x: pad.width * 0.4, y: 0 },
      west: { dx: -1, dy: 0, x: -pad.width * 0.4, y: 0 },
      south: { dx: 0, dy: 1, x: 0, y: pad.height * 0.4 },
      north: { dx: 0, dy: -1, x: 0, y: -pad.height * 0.4 },
    };
    const start = await settledPosition(page);
    // A direction with two free tiles: two taps, two steps.
    const way = Object.values(offsets).find((o) => freeTileAway(start, o.dx, o.dy, 2) !== null);
    expect(way, "a free direction").toBeDefined();
    for (let tap = 0; tap < 2; tap++) {
      await page.touchscreen.tap(centre.x + way!.x, centre.y + way!.y);
      await page.waitForTimeout(350);
    }
    expect(await settledPosition(page)).toEqual({ x: start.x + 2 * way!.dx, y: start.y + 2 * way!.dy });
    // Held (a touch that stays down): it walks on, more than one step.
    const from = await settledPosition(page);
    const back = { dx: -way!.dx, dy: -way!.dy, x: -way!.x, y: -way!.y };
    const cdp = await page.context().newCDPSession(page);
    const point = { x: centre.x + back.x, y: centre.y + back.y };
    await cdp.send("Input.dispatchTouchEvent", { type: "touchStart", touchPoints: [point] });
    await page.waitForTimeout(900);
    await cdp.send("Input.dispatchTouchEvent", { type: "touchEnd", touchPoints: [] });
    const after = await settledPosition(page);
    const steps = Math.abs(after.x - from.x) + Math.abs(after.y - from.y);
    expect(steps).toBeGreaterThanOrEqual(2);
    expect(Math.sign(after.x - from.x)).toBe(back.dx === 0 ? 0 : Math.sign(back.dx));
    expect(Math.sign(after.y - from.y)).toBe(back.dy === 0 ? 0 : Math.sign(back.dy));
    await page.context().close();
  }, 60_000);

  it("uses and opens the chat from the touch buttons; a tap on a log tab switches the log", async () => {
    const page = await openOn({ width: 390, height: 844, deviceScaleFactor: 3, touch: true });
    await joinAs(page, "Buttons", true);
    await page.getByTestId("touch-chat").tap();
    await expect.poll(() => page.getByTestId("chat").isVisible(), { timeout: 3000 }).toBe(true);
    await page.getByTestId("chat-input").press("Escape");
    await expect.poll(() => page.getByTestId("chat").isVisible(), { timeout: 3000 }).toBe(false);
    // At the spawn nothing is within reach: Use says so (the answer to E).
    await page.getByTestId("touch-use").tap();
    await expect.poll(() => logText(page), { timeout: 3000 }).toContain("Nothing to use within reach");
    await page.screenshot({ path: join(ARTIFACTS, "touch-buttons.png") });
    // The log's tabs (ui/log-panel.ts) take taps on a phone: the Combat tab shows the combat log.
    await page.getByTestId("log-tab-combat").tap();
    await expect.poll(() => page.getByTestId("game").getAttribute("data-log-tab"), { timeout: 3000 }).toBe("combat");
    expect(await page.getByTestId("game").getAttribute("data-log-tab")).toBe("combat");
    await page.context().close();
  }, 30_000);
});
