// Items in a real browser (issue 14): the client built by Vite, the real game
// server on the bundled map, played by Debian's Chromium. A guest clicks the
// supply chest in the great hall: the player walks beside it and the chest
// window lists a dagger and two healing potions. Take on the dagger puts it in
// the bag; pressed and equipped there, it shows in the bag's weapon slot and in
// the player's hand on the canvas (the blade's pixels, which the bare player
// lacks), and on the server the player's entity carries the inline weapon TLV.
// Then the keyboard alone: I closes and opens the bag, T takes the rest from
// the chest, Escape closes the windows. A screenshot of the equipped player is
// saved. Needs /usr/bin/chromium; without it the suite says so and is skipped.
import { copyFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SPRITE_PLAYER, SPRITE_WORN_DAGGER } from "../../ts/client/assets/sheets.js";
import { rgb24FromRgb332 } from "../../ts/client/assets/image.js";
import {
  ACTION_E,
  ACTION_N,
  ACTION_NE,
  ACTION_NW,
  ACTION_S,
  ACTION_SE,
  ACTION_SW,
  ACTION_W,
} from "../../ts/protocol/action.js";
import { SHEETS } from "../client-render-rig.js";
import {
  ARTIFACTS,
  type BrowserRig,
  canvasPixels,
  clickTile,
  HAVE_CHROMIUM,
  joinOnPhone,
  logText,
  openAndJoin,
  pointOfTile,
  positionIn,
  settledPosition,
  skipNotice,
  startRig,
  type Tile,
  waitForDebug,
} from "./browser-support.js";

skipNotice("browser item tests");

/** Single steps by key: the action code the rule checks and the key that sends it. */
const STEPS = [
  { key: "ArrowUp", action: ACTION_N, dx: 0, dy: -1 },
  { key: "ArrowDown", action: ACTION_S, dx: 0, dy: 1 },
  { key: "ArrowLeft", action: ACTION_W, dx: -1, dy: 0 },
  { key: "ArrowRight", action: ACTION_E, dx: 1, dy: 0 },
  { key: "Numpad9", action: ACTION_NE, dx: 1, dy: -1 },
  { key: "Numpad7", action: ACTION_NW, dx: -1, dy: -1 },
  { key: "Numpad3", action: ACTION_SE, dx: 1, dy: 1 },
  { key: "Numpad1", action: ACTION_SW, dx: -1, dy: 1 },
];
const SCREENSHOT = "/tmp/caves-items-equipped.png";
let rig: BrowserRig;
/** The first test's player and where it stood at the end: its items drop there when it leaves (a guest). */
let finder: { page: Page; at: Tile } | null = null;

/** The pixels of sheet cell `cell` (RGB332), row-major. */
function cellPixels(cell: number): number[] {
  const image = SHEETS.sprites;
  const out: number[] = [];
  for (let row = 0; row < 8; row++) {
    for (let col = 0; col < 8; col++) {
      out.push(image.pixels[(Math.floor(cell / 16) * 8 + row) * image.width + (cell % 16) * 8 + col]);
    }
  }
  return out;
}

describe.skipIf(!HAVE_CHROMIUM)("items in Chromium", () => {
  beforeAll(async () => {
    rig = await startRig();
  }, 90_000);

  afterAll(async () => {
    await rig?.close();
  }, 30_000);

  it("opens the supply chest, takes the dagger, equips it and shows it in the bag and in the player's hand", async () => {
    const page = await openAndJoin(rig, "Finder", "debug=1");
    const game = rig.server.game;
    const catalogue = game.world.items;
    const dagger = catalogue.find((item) => item.name === "dagger")!;
    const potion = catalogue.find((item) => item.name === "healing potion")!;
    const chest = game.items.chestNamed("supply chest")!;
    const start = await settledPosition(page);
    expect(Math.abs(chest.x - start.x), "the chest is in view").toBeLessThanOrEqual(13);
    expect(Math.abs(chest.y - start.y), "the chest is in view").toBeLessThanOrEqual(13);
    await page.waitForTimeout(400); // the camera settles on the player

    // A click on the chest walks beside it and uses it: the window lists what it holds.
    await clickTile(page, start, chest);
    const window = page.getByTestId("chest");
    await expect.poll(() => window.isVisible(), { timeout: 15_000 }).toBe(true);
    const daggerRow = window.locator(`[data-item-id="${dagger.id}"]`);
    await expect.poll(() => daggerRow.count()).toBe(1);
    expect(await window.locator(`[data-item-id="${potion.id}"]`).textContent()).toContain("2 × healing potion");
    expect(await page.getByTestId("chest-take-all").evaluate((button) => document.activeElement === button)).toBe(true);
    const beside = await settledPosition(page);
    expect(Math.max(Math.abs(beside.x - chest.x), Math.abs(beside.y - chest.y))).toBe(1);

    // Take it: it leaves the chest and lands in the bag (opened with the chest).
    await daggerRow.getByRole("button", { name: /Take/ }).click();
    const bag = page.getByTestId("bag");
    const inBag = bag.locator(`.items-grid [data-item-id="${dagger.id}"]`);
    await expect.poll(() => inBag.count(), { timeout: 5000 }).toBe(1);
    await expect.poll(() => daggerRow.count()).toBe(0);
    expect(await inBag.getAttribute("title")).toBe("dagger — weapon, damage 9");

    // Press it, Equip: the weapon slot holds it, and the server's player carries it inline.
    await inBag.click();
    expect(await page.getByTestId("bag-details").textContent()).toContain("damage 9");
    await page.getByTestId("item-action-equip").click();
    const weaponSlot = page.getByTestId("bag-weapon");
    await expect.poll(() => weaponSlot.getAttribute("data-item-id"), { timeout: 5000 }).toBe(String(dagger.id));
    expect(await inBag.count()).toBe(0);
    const player = [...game.sessions.values()].find((session) => session.nick === "Finder")!.entity;
    expect(player.meta).toContainEqual({ kind: "weapon", value: dagger.id });

    // Keyboard only: I closes and reopens the bag, T takes the potions, Escape closes both windows.
    await page.keyboard.press("KeyI");
    await expect.poll(() => bag.isVisible()).toBe(false);
    await page.keyboard.press("KeyI");
    await expect.poll(() => bag.isVisible()).toBe(true);
    await page.keyboard.press("KeyT");
    const potions = bag.locator(`.items-grid [data-item-id="${potion.id}"]`);
    await expect.poll(() => potions.count(), { timeout: 5000 }).toBe(1);
    expect(await potions.textContent()).toContain("2");
    await page.keyboard.press("KeyT");
    await expect.poll(() => logText(page), { timeout: 5000 }).toContain("There is nothing left to take.");
    await page.keyboard.press("Escape");
    await expect.poll(() => window.isVisible()).toBe(false);
    await expect.poll(() => bag.isVisible()).toBe(false);
    // On the canvas: the player's tile (the camera's, at framebuffer 116,116) shows the dagger in its hand.
    // (The "E: use" prompt over the chest covers the player beside it: the check is made two tiles off.)
    const away = STEPS.find(
      (step) =>
        Math.max(Math.abs(beside.x + step.dx - chest.x), Math.abs(beside.y + step.dy - chest.y)) === 2 &&
        rig.sim.stepAllowed(beside.x, beside.y, step.action),
    )!;
    await page.getByTestId("game").focus();
    await page.keyboard.press(away.key);
    const there = await waitForDebug(
      page,
      (text) => {
        const at = /^pending 0$/m.test(text) ? positionIn(text) : null;
        return at && (at.x !== beside.x || at.y !== beside.y) ? at : null;
      },
      5000,
    );
    expect(Math.max(Math.abs(there.x - chest.x), Math.abs(there.y - chest.y))).toBe(2);
    finder = { page, at: there };
    await page.waitForTimeout(400);
    const overlay = cellPixels(SPRITE_WORN_DAGGER);
    const body = cellPixels(SPRITE_PLAYER);
    const blade = overlay.flatMap((value, index) => (value !== 0 && body[index] === 0 ? [index] : []));
    expect(blade.length).toBeGreaterThan(0);
    await expect
      .poll(
        async () => {
          const pixels = await canvasPixels(page, 116, 116, 8, 8);
          return blade.every((index) => pixels[index] === rgb24FromRgb332(overlay[index]));
        },
        { timeout: 5000 },
      )
      .toBe(true);
    // The bag open beside the player who wields the dagger.
    await page.keyboard.press("KeyI");
    await expect.poll(() => bag.isVisible()).toBe(true);
    expect(await weaponSlot.getAttribute("data-item-id")).toBe(String(dagger.id));
    await page.screenshot({ path: SCREENSHOT });
    copyFileSync(SCREENSHOT, join(ARTIFACTS, "items-equipped.png"));
  }, 60_000);

  it("on a phone-sized touch screen: taps pick up what a guest left, open the bag and equip the dagger", async () => {
    expect(finder, "the first test left its player").not.toBeNull();
    const game = rig.server.game;
    const dagger = game.world.items.find((item) => item.name === "dagger")!;
    const left = finder!.at;
    const piles = game.items.pileCount;
    await finder!.page.close({ runBeforeUnload: true });
    // A guest's things drop where it stood: the dagger, the torch and the two potions.
    await expect.poll(() => game.items.pileCount, { timeout: 10_000 }).toBe(piles + 3);
    const { browser, page } = await joinOnPhone(rig, "Tapper");
    try {
      const bag = page.getByTestId("bag");
      const daggerSlot = bag.locator(`.items-grid [data-item-id="${dagger.id}"]`);
      // A creature on the tile (a cave rat wanders the hall) would take the tap instead of the piles under it:
      // each tap waits for the tile to be clear of creatures. (The test failed now and then with the pile count
      // unchanged after its tap; a failure now says what stood on and around the tile.)
      const around = () =>
        [...game.entities.values()]
          .filter((entity) => Math.max(Math.abs(entity.x - left.x), Math.abs(entity.y - left.y)) <= 1)
          .map((entity) => `${entity.name || entity.typeId}@${entity.x},${entity.y}`)
          .join(" ");
      const creatureOnTile = () =>
        [...game.entities.values()].some(
          (entity) => entity.x === left.x && entity.y === left.y && game.npcs.get(entity.id) !== undefined,
        );
      // Each tap on the tile walks beside it and picks up one of its piles (the dagger's, the torch's or the potions').
      for (let taps = 0; ; taps++) {
        const start = await settledPosition(page, 10_000);
        await page.waitForTimeout(400);
        await expect.poll(creatureOnTile, { timeout: 20_000 }).toBe(false);
        const point = await pointOfTile(page, start, left);
        const before = game.items.pileCount;
        const seen = around();
        await page.touchscreen.tap(point.x, point.y);
        await expect
          .poll(() => game.items.pileCount, {
            timeout: 10_000,
            message: `a pile picked up by tap ${taps + 1} on ${left.x},${left.y} from ${start.x},${start.y}; around it then: ${seen}, now: ${around()}`,
          })
          .toBeLessThan(before);
        await page.getByTestId("bag-button").tap();
        await expect.poll(() => bag.isVisible()).toBe(true);
        if ((await daggerSlot.count()) === 1 || taps === 2) break;
        await page.getByTestId("bag-button").tap();
      }
      await expect.poll(() => daggerSlot.count(), { timeout: 5000 }).toBe(1);
      // Slots are big enough to tap: at least 40 × 40 CSS px.
      const box = (await daggerSlot.boundingBox())!;
      expect(Math.min(box.width, box.height)).toBeGreaterThanOrEqual(40);
      await daggerSlot.tap();
      await page.getByTestId("item-action-equip").tap();
      await expect
        .poll(() => page.getByTestId("bag-weapon").getAttribute("data-item-id"), { timeout: 5000 })
        .toBe(String(dagger.id));
      await page.screenshot({ path: join(ARTIFACTS, "items-touch.png") });
    } finally {
      await browser.close();
    }
  }, 90_000);
});
