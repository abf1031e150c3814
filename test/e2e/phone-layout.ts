// What a phone's page must look like (issue 42), read from the page in Chromium: the boxes of the canvas,
// the view's clip, the HUD bar, the log and the touch controls; shared by the touch suite (the bundled 8-px
// world) and the wide-map suite (a map of 32-px tiles).
import { join } from "node:path";
import type { Page } from "playwright-core";
import { expect } from "vitest";
import { ARTIFACTS } from "./browser-support.js";

/** What the page shows: the canvas's CSS box, the view's clip, the panel canvas and the status line. */
export async function shown(page: Page) {
  return page.evaluate(() => {
    const box = (id: string) => {
      const element = document.getElementById(id)!;
      const rect = element.getBoundingClientRect();
      return { left: rect.left, top: rect.top, width: rect.width, height: rect.height, hidden: element.hidden };
    };
    return {
      canvas: box("game"),
      screen: box("screen"),
      panel: box("panel"),
      status: box("status"),
      layout: document.body.dataset.layout,
      ratio: devicePixelRatio,
      page: { width: document.documentElement.clientWidth, height: document.documentElement.clientHeight },
    };
  });
}

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

export function overlaps(a: Box, b: Box): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

/** The box of the element `testId`, or null when it is not shown. */
export async function boxOf(page: Page, testId: string): Promise<Box | null> {
  return page.getByTestId(testId).boundingBox();
}

/** The message log once it is docked: where (data-dock), its box, and whether its lines show. */
export async function dockedLog(page: Page): Promise<{ place: string; box: Box; linesShown: boolean }> {
  const log = page.getByTestId("log-panel");
  await expect.poll(() => log.getAttribute("data-dock"), { timeout: 5000 }).not.toBeNull();
  return {
    place: (await log.getAttribute("data-dock"))!,
    box: (await log.boundingBox())!,
    linesShown: await page.getByTestId("log-lines").isVisible(),
  };
}

/** The page's own text and controls a phone shows, by test id. */
export const PHONE_PARTS = [
  "hud-bar",
  "log-panel",
  "dpad",
  "touch-use",
  "touch-chat",
  "touch-map",
  "bag-button",
  "sound",
  "who-button",
  "quest-button",
];

/**
 * What a phone must show (issue 42): the HUD as a bar over the top of the view; every control and the log
 * wholly on the page, none over another, the log off the view; every text of the HUD bar, the log and the
 * controls at least 11 CSS px; and most of the view's middle — the player's surroundings — uncovered.
 */
export async function checkPhoneLayout(page: Page, width: number, height: number): Promise<void> {
  const bar = page.getByTestId("hud-bar");
  await expect.poll(() => bar.isVisible(), { timeout: 3000 }).toBe(true);
  await expect.poll(() => bar.textContent(), { timeout: 3000 }).toContain("100/100");
  // The picture as a player sees it: without the debug overlay (F3), which the other checks here read.
  await page.keyboard.press("F3");
  await expect.poll(() => page.getByTestId("debug").isVisible(), { timeout: 3000 }).toBe(false);
  const ratio = await page.evaluate(() => devicePixelRatio);
  await page.screenshot({ path: join(ARTIFACTS, `layout-${width}x${height}-dpr${ratio}.png`) });
  await page.keyboard.press("F3");
  const { screen } = await shown(page);
  const view = { x: screen.left, y: screen.top, width: screen.width, height: screen.height };
  const barBox = (await bar.boundingBox())!;
  const place = await page.evaluate(() => document.body.dataset.hudPlace);
  if (place === "margin") {
    // Sideways: in the margin beside the view, clear of it.
    expect(overlaps(barBox, view)).toBe(false);
  } else {
    // Over the view's top, across it, and thin: the view's middle (where the player stands) is far below it.
    expect(barBox.y).toBeCloseTo(view.y, 0);
    expect(barBox.x).toBeGreaterThanOrEqual(view.x - 0.5);
    expect(barBox.x + barBox.width).toBeLessThanOrEqual(view.x + view.width + 0.5);
    expect(barBox.y + barBox.height).toBeLessThan(view.y + view.height * 0.2);
  }
  const boxes = new Map<string, Box>();
  for (const part of PHONE_PARTS) {
    const box = await boxOf(page, part);
    if (box === null) continue;
    boxes.set(part, box);
    expect(box.x, part).toBeGreaterThanOrEqual(-0.5);
    expect(box.y, part).toBeGreaterThanOrEqual(-0.5);
    expect(box.x + box.width, part).toBeLessThanOrEqual(width + 0.5);
    expect(box.y + box.height, part).toBeLessThanOrEqual(height + 0.5);
  }
  expect([...boxes.keys()]).toEqual(expect.arrayContaining(["hud-bar", "log-panel", "dpad", "bag-button"]));
  const log = boxes.get("log-panel")!;
  expect(overlaps(log, view), `the log ${JSON.stringify(log)} over the view ${JSON.stringify(view)}`).toBe(false);
  // No two of them over each other (the HUD bar lies over the view, where the controls may too).
  for (const [part, box] of boxes) {
    for (const [other, otherBox] of boxes) {
      if (part < other && !(place !== "margin" && (part === "hud-bar" || other === "hud-bar"))) {
        expect(overlaps(box, otherBox), `${part} over ${other}`).toBe(false);
      }
    }
  }
  const smallest = await page.evaluate((ids) => {
    let least = Infinity;
    let where = "";
    for (const id of ids) {
      const root = document.querySelector(`[data-testid="${id}"]`);
      if (!root) continue;
      for (const element of [root, ...root.querySelectorAll("*")]) {
        const text = [...element.childNodes].some((node) => node.nodeType === 3 && node.textContent!.trim() !== "");
        if (!text || (element as HTMLElement).offsetParent === null) continue;
        const size = parseFloat(getComputedStyle(element).fontSize);
        if (size < least) [least, where] = [size, `${id} ${element.className}`];
      }
    }
    return { least, where };
  }, PHONE_PARTS);
  expect(smallest.least, `the smallest text: ${smallest.where}`).toBeGreaterThanOrEqual(11);
}
