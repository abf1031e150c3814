// Day and night in Chromium (issue 15): the world the page draws at midnight
// is darker than at noon — the lighting pass darkens the viewport — while the
// HUD panel stays as bright, and the HUD shows the time the server says.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { join } from "node:path";
import {
  ARTIFACTS,
  type BrowserRig,
  canvasPixels,
  HAVE_CHROMIUM,
  openAndJoin,
  skipNotice,
  startRig,
} from "./browser-support.js";
import { VIEWPORT, PANEL } from "../../ts/client/render/layout.js";

skipNotice("browser day and night tests");

/** Mean of R + G + B over a rectangle of the canvas (its 320×240 framebuffer pixels). */
async function brightness(page: Parameters<typeof canvasPixels>[0], x: number, y: number, w: number, h: number) {
  const pixels = await canvasPixels(page, x, y, w, h);
  let sum = 0;
  for (const rgb of pixels) sum += (rgb >> 16) + ((rgb >> 8) & 0xff) + (rgb & 0xff);
  return sum / pixels.length;
}

describe.skipIf(!HAVE_CHROMIUM)("day and night in Chromium", () => {
  let rig: BrowserRig;
  beforeAll(async () => {
    rig = await startRig({ startTimeOfDay: 0.5 });
  }, 120_000);
  afterAll(async () => rig?.close());

  it("draws the world darker at midnight than at noon, the HUD as bright, and shows the time", async () => {
    const page = await openAndJoin(rig, "Owl", "debug=1");
    // Let the camera settle and the clock arrive.
    await page.waitForTimeout(1500);
    const canvas = page.getByTestId("game");
    await expect.poll(() => canvas.getAttribute("data-clock"), { timeout: 3000 }).toMatch(/^12:0\d day$/);
    const noonWorld = await brightness(page, VIEWPORT.x, VIEWPORT.y, VIEWPORT.w, VIEWPORT.h);
    const noonPanel = await brightness(page, PANEL.x, PANEL.y, PANEL.w, PANEL.h);
    const game = rig.server.game;
    game.worldClock.setTimeOfDay(0, game.tick);
    await expect
      .poll(() => brightness(page, VIEWPORT.x, VIEWPORT.y, VIEWPORT.w, VIEWPORT.h), { timeout: 5000 })
      .toBeLessThan(noonWorld * 0.6);
    await expect.poll(() => canvas.getAttribute("data-clock"), { timeout: 3000 }).toMatch(/^00:0\d night$/);
    const nightWorld = await brightness(page, VIEWPORT.x, VIEWPORT.y, VIEWPORT.w, VIEWPORT.h);
    const nightPanel = await brightness(page, PANEL.x, PANEL.y, PANEL.w, PANEL.h);
    expect(nightWorld).toBeGreaterThan(noonWorld * 0.1); // dark, not black
    expect(Math.abs(nightPanel - noonPanel)).toBeLessThan(noonPanel * 0.15);
    await page.screenshot({ path: join(ARTIFACTS, "night.png") });
    await page.close();
  }, 60_000);
});
