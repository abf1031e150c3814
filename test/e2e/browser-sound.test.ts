// The game's sound in a real browser (issue 18 item 8), on the client built by
// Vite against the real server on the bundled map, in Debian's Chromium: after
// Play (a user gesture) the page's AudioContext runs and the cave's ambient bed
// starts; every sound rendered through the page's own graph in an
// OfflineAudioContext is audible (window.cavesSound, ?debug=1); a step plays a
// footstep, counted by the sound button's data-played (docs/client.md § Sound);
// V mutes it (the context suspends, steps are silent) and the choice survives a
// reload. Needs /usr/bin/chromium; without it the suite says so and is skipped.
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ARTIFACTS,
  type BrowserRig,
  HAVE_CHROMIUM,
  openAndJoin,
  settledPosition,
  skipNotice,
  startRig,
  type Tile,
} from "./browser-support.js";

skipNotice("browser sound tests");

let rig: BrowserRig;

/** How many times the page started `name` (the sound button's data-played). */
async function played(page: Page, name: string): Promise<number> {
  const list = (await page.getByTestId("sound").getAttribute("data-played")) ?? "";
  const match = new RegExp(`(?:^| )${name}:(\\d+)`).exec(list);
  if (!match) throw new Error(`data-played has no ${name}: "${list}"`);
  return Number(match[1]);
}

/** An arrow key that walks from `at` onto a free tile (the movement rule in wasm says which). */
function freeStep(at: Tile): string {
  const keys: [string, number, number][] = [
    ["ArrowRight", 1, 0],
    ["ArrowLeft", -1, 0],
    ["ArrowDown", 0, 1],
    ["ArrowUp", 0, -1],
  ];
  const step = keys.find(([, dx, dy]) => rig.sim.isFree(at.x + dx, at.y + dy));
  if (!step) throw new Error(`no free tile beside ${at.x},${at.y}`);
  return step[0];
}

/** Taps a key that walks one tile and waits until the player stands on the new tile. */
async function stepOnce(page: Page): Promise<void> {
  const at = await settledPosition(page);
  await page.getByTestId("game").focus();
  await page.keyboard.press(freeStep(at));
  await expect.poll(async () => settledPosition(page), { timeout: 5000 }).not.toEqual(at);
}

describe.skipIf(!HAVE_CHROMIUM)("the sound in Chromium", () => {
  beforeAll(async () => {
    rig = await startRig();
  }, 90_000);

  afterAll(async () => {
    await rig?.close();
  }, 30_000);

  it("renders every sound audibly through the page's graph, starts the ambient bed, and steps play footsteps", async () => {
    const page = await openAndJoin(rig, "Listener", "debug=1");
    const button = page.getByTestId("sound");
    await expect.poll(() => button.isVisible()).toBe(true);
    expect(await button.getAttribute("data-sound")).toBe("on");
    await expect.poll(() => button.getAttribute("data-context"), { timeout: 5000 }).toBe("running");
    await expect.poll(() => played(page, "ambient"), { timeout: 5000 }).toBe(1);
    const levels = await page.evaluate(async () => {
      const sound = (window as unknown as { cavesSound: { names: string[]; render(name: string): Promise<number> } })
        .cavesSound;
      const out: Record<string, number> = {};
      for (const name of sound.names) out[name] = await sound.render(name);
      return out;
    });
    expect(Object.keys(levels).sort()).toEqual(["ambient", "chat", "door", "footstep", "hit"]);
    for (const [name, level] of Object.entries(levels)) {
      expect(level, `${name}'s RMS level`).toBeGreaterThan(0.01);
    }
    const before = await played(page, "footstep");
    await stepOnce(page);
    await expect.poll(() => played(page, "footstep"), { timeout: 3000 }).toBe(before + 1);
    await stepOnce(page);
    await expect.poll(() => played(page, "footstep"), { timeout: 3000 }).toBe(before + 2);
    await page.screenshot({ path: join(ARTIFACTS, "sound-on.png") });
    await page.close();
  }, 60_000);

  it("V mutes: the context suspends, a step is silent, and the page remembers it over a reload", async () => {
    const page = await openAndJoin(rig, "Quiet", "debug=1");
    const button = page.getByTestId("sound");
    await expect.poll(() => button.getAttribute("data-context"), { timeout: 5000 }).toBe("running");
    await page.getByTestId("game").focus();
    await page.keyboard.press("KeyV");
    await expect.poll(() => button.getAttribute("data-sound")).toBe("off");
    expect(await button.textContent()).toBe("Sound off");
    await expect.poll(() => button.getAttribute("data-context"), { timeout: 5000 }).toBe("suspended");
    const before = await played(page, "footstep");
    await stepOnce(page);
    await page.waitForTimeout(300);
    expect(await played(page, "footstep")).toBe(before);

    await page.reload();
    await expect.poll(() => page.getByTestId("play").isEnabled(), { timeout: 10_000 }).toBe(true);
    expect(await page.getByTestId("sound").getAttribute("data-sound")).toBe("off");
    await page.getByTestId("nick").fill("Quiet Again");
    await page.getByTestId("play").click();
    await expect.poll(() => page.getByTestId("sound").isVisible(), { timeout: 10_000 }).toBe(true);
    expect(await page.getByTestId("sound").getAttribute("data-sound")).toBe("off");
    expect(await played(page, "ambient")).toBe(0);
    // The button turns it back on: the context runs and the bed starts.
    await page.getByTestId("sound").click();
    await expect.poll(() => page.getByTestId("sound").getAttribute("data-context"), { timeout: 5000 }).toBe("running");
    await expect.poll(() => played(page, "ambient"), { timeout: 5000 }).toBe(1);
    await page.close();
  }, 60_000);
});
