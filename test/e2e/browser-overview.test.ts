// The overview in a real browser (issue 18 item 8): the minimap of the explored
// chunks (M) and who is online, on the client built by Vite against the real
// game server on the bundled map, in Debian's Chromium. Two guests play; one
// opens the map (its canvas remembers the chunks it saw and draws them in
// colour with the player's dot) and the list, which names the other. A
// screenshot goes to test-artifacts/. Needs /usr/bin/chromium; without it the
// suite says so and is skipped.
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ARTIFACTS, type BrowserRig, HAVE_CHROMIUM, openAndJoin, skipNotice, startRig } from "./browser-support.js";

skipNotice("browser overview tests");

let rig: BrowserRig;
const pages: Page[] = [];

/** Distinct colours among the minimap canvas's pixels, and how many are not black. */
async function minimapPixels(page: Page): Promise<{ colours: number; lit: number }> {
  return page.evaluate(() => {
    const canvas = document.getElementById("minimap") as HTMLCanvasElement;
    const data = canvas.getContext("2d")!.getImageData(0, 0, canvas.width, canvas.height).data;
    const colours = new Set<number>();
    let lit = 0;
    for (let index = 0; index < data.length; index += 4) {
      const rgb = (data[index] << 16) | (data[index + 1] << 8) | data[index + 2];
      colours.add(rgb);
      if (rgb !== 0) lit++;
    }
    return { colours: colours.size, lit };
  });
}

describe.skipIf(!HAVE_CHROMIUM)("the overview in Chromium", () => {
  beforeAll(async () => {
    rig = await startRig();
  }, 90_000);

  afterAll(async () => {
    await rig?.close();
  }, 30_000);

  it("M shows the minimap of the explored chunks, in the tiles' colours, with the player", async () => {
    pages.push(await openAndJoin(rig, "Mapper", "debug=1"));
    // Alone in the world, the page counts its own player within seconds — not "0 online" until the next
    // poll because its first ask raced its first datagram.
    await expect.poll(() => pages[0].getByTestId("who-button").getAttribute("data-count"), { timeout: 4000 }).toBe("1");
    pages.push(await openAndJoin(rig, "Other", "debug=1"));
    const page = pages[0];
    const minimap = page.getByTestId("minimap");
    expect(await minimap.isVisible()).toBe(false);
    await page.getByTestId("game").focus();
    await page.keyboard.press("KeyM");
    await expect.poll(() => minimap.isVisible(), { timeout: 3000 }).toBe(true);
    // The 3 × 3 chunks around the spawn arrive first (the map is wider than that).
    await expect
      .poll(async () => Number(await minimap.getAttribute("data-chunks")), { timeout: 5000 })
      .toBeGreaterThanOrEqual(4);
    await expect.poll(async () => (await minimapPixels(page)).lit, { timeout: 3000 }).toBeGreaterThan(2000);
    const { colours } = await minimapPixels(page);
    // Floor, walls, water, the player's white dot and the unexplored black at least.
    expect(colours).toBeGreaterThanOrEqual(5);
    expect(await minimap.getAttribute("data-player")).toMatch(/^\d+,\d+$/);
    await page.screenshot({ path: join(ARTIFACTS, "overview-minimap.png") });
    await page.keyboard.press("KeyM");
    await expect.poll(() => minimap.isVisible(), { timeout: 3000 }).toBe(false);
  }, 45_000);

  it("who's online counts both players and lists the other", async () => {
    const page = pages[0];
    const button = page.getByTestId("who-button");
    await expect.poll(() => button.getAttribute("data-count"), { timeout: 5000 }).not.toBeNull();
    await button.click();
    const list = page.getByTestId("who-list");
    await expect.poll(() => list.isVisible(), { timeout: 3000 }).toBe(true);
    await expect
      .poll(() => list.getByTestId("who-nick").allTextContents(), { timeout: 5000 })
      .toEqual(["Mapper", "Other"]);
    // Beside the other player (not beside oneself): Tell, Invite and Trade (issue 39).
    const other = list.locator("li").filter({ hasText: "Other" });
    expect(await other.getByRole("button").allTextContents()).toEqual(["Tell", "Invite", "Trade"]);
    expect(await list.locator("li").filter({ hasText: "Mapper" }).getByRole("button").count()).toBe(0);
    expect(await button.textContent()).toBe("2 online");
    await page.screenshot({ path: join(ARTIFACTS, "overview-who.png") });
    // O closes it (the canvas has the keys again).
    await page.getByTestId("game").focus();
    await page.keyboard.press("KeyO");
    await expect.poll(() => list.isVisible(), { timeout: 3000 }).toBe(false);
  }, 30_000);
});
