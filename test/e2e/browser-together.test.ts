// Playing together in a real browser (issue 39): the client built by Vite, the real server in-process on
// maps/caves.tmj, Debian's Chromium through playwright-core. Two players find each other in the
// who-is-online list and use its buttons: one invites the other, who joins in the dialog; both see the
// other in the party panel; they talk on the party channel and privately (Tell opens the chat box with the
// command begun); and standing together — the trade asked by pressing the other on the map, whose menu
// offers Tell, Invite and Trade — they trade a potion for coins in the trade window. Then the same
// from a phone-sized touch screen, by taps. Screenshots go to test-artifacts/together-*.png.
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Session } from "../../ts/server/sessions/session.js";
import {
  ARTIFACTS,
  type BrowserRig,
  HAVE_CHROMIUM,
  joinOnPhone,
  logText,
  openAndJoin,
  pointOfTile,
  restingCamera,
  skipNotice,
  startRig,
} from "./browser-support.js";

skipNotice("browser party, private line and trade tests");

const COIN = 7;
const POTION = 6;

let rig: BrowserRig;
const browsers: Browser[] = [];

function sessionNamed(nick: string): Session {
  const session = [...rig.server.game.sessions.values()].find((candidate) => candidate.nick === nick);
  if (session === undefined) throw new Error(`${nick} is not in play`);
  return session;
}

/** Puts `stacks` into a player's bag through the item room (the world's own way of giving). */
async function give(nick: string, stacks: { itemId: number; count: number }[]): Promise<void> {
  await new Promise<void>((resolve, reject) =>
    rig.server.game.items.exchange(sessionNamed(nick), [], stacks, (outcome) =>
      outcome === "ok" ? resolve() : reject(new Error(outcome)),
    ),
  );
}

/** Stands `nick` on a free cell beside `other`. */
function standBeside(nick: string, other: string): void {
  const at = sessionNamed(other).entity;
  for (const [dx, dy] of [
    [1, 0],
    [-1, 0],
    [0, 1],
    [0, -1],
  ]) {
    if (rig.server.game.world.walkable(at.x + dx, at.y + dy)) {
      rig.server.game.warps.teleport(sessionNamed(nick).entity, at.x + dx, at.y + dy);
      return;
    }
  }
  throw new Error(`no free cell beside ${other}`);
}

function dialogWith(page: Page, words: string) {
  return page.getByTestId("dialog").filter({ hasText: words });
}

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(ARTIFACTS, `together-${name}.png`) });
}

/** How a screen is pressed: the mouse on a desktop, a finger on a phone. */
type Press = (target: ReturnType<Page["getByTestId"]>) => Promise<void>;
const click: Press = (target) => target.click();
const tap: Press = (target) => target.tap();

/** Opens the who-is-online list and returns the row of `nick`. */
async function whoRow(page: Page, press: Press, nick: string) {
  if (!(await page.getByTestId("who-list").isVisible())) await press(page.getByTestId("who-button"));
  const row = page.getByTestId("who-list").locator("li").filter({ hasText: nick });
  await expect.poll(() => row.count(), { timeout: 20_000 }).toBe(1);
  return row;
}

/** Types a line into the chat box (opened by Enter, or by the touch Chat button) and sends it. */
async function say(page: Page, press: Press, text: string): Promise<void> {
  if (!(await page.getByTestId("chat-input").isVisible())) {
    if (press === tap) await tap(page.getByRole("button", { name: "Chat" }));
    else {
      await page.getByTestId("game").focus();
      await page.keyboard.press("Enter");
    }
  }
  await page.getByTestId("chat-input").fill(text);
  await page.getByTestId("chat-input").press("Enter");
  await expect.poll(() => page.getByTestId("chat-input").isVisible()).toBe(false);
}

/**
 * Presses player `nick` where `page`'s map draws them (beside the player) and returns the menu that
 * opens, naming them. Pressed again if the first press came before the page had them on that tile.
 */
async function playerMenuOn(page: Page, press: Press, nick: string) {
  const menu = page.getByTestId("player-menu");
  for (let attempt = 1; ; attempt++) {
    const at = await restingCamera(page);
    const other = sessionNamed(nick).entity;
    const point = await pointOfTile(page, at, { x: other.x, y: other.y });
    if (press === tap) await page.touchscreen.tap(point.x, point.y);
    else await page.mouse.click(point.x, point.y);
    try {
      await expect.poll(() => menu.isVisible(), { timeout: 3000 }).toBe(true);
      break;
    } catch (error) {
      if (attempt >= 3) throw error;
    }
  }
  expect(await menu.textContent()).toContain(nick);
  return menu;
}

/** The whole of playing together between `ann` (pressed by `annPress`) and `ben`. */
async function playTogether(ann: Page, annPress: Press, annNick: string, ben: Page, benNick: string, label: string) {
  // Invite from the list; the invited joins in the dialog.
  await annPress((await whoRow(ann, annPress, benNick)).getByTestId("who-invite"));
  const invitation = dialogWith(ben, `${annNick} invites you`);
  await expect.poll(() => invitation.count(), { timeout: 10_000 }).toBe(1);
  await shot(ben, `${label}-invited`);
  await invitation.getByRole("button", { name: "Join" }).click();
  await expect.poll(() => ann.getByTestId("party").textContent(), { timeout: 10_000 }).toContain(benNick);
  await expect.poll(() => ben.getByTestId("party").textContent(), { timeout: 10_000 }).toContain(`${annNick} (leads)`);
  await shot(ann, `${label}-party`);

  // The party channel, and a private line begun from the list's Tell.
  await say(ann, annPress, "/p follow me");
  await expect.poll(() => logText(ben), { timeout: 10_000 }).toContain(`[party] ${annNick}: follow me`);
  await annPress((await whoRow(ann, annPress, benNick)).getByTestId("who-tell"));
  await expect.poll(() => ann.getByTestId("chat-input").inputValue()).toBe(`/tell ${benNick} `);
  await ann.getByTestId("chat-input").pressSequentially("the vault is open");
  await ann.getByTestId("chat-input").press("Enter");
  await expect.poll(() => logText(ben), { timeout: 10_000 }).toContain(`from ${annNick}: the vault is open`);
  await expect.poll(() => logText(ann), { timeout: 10_000 }).toContain(`to ${benNick}: the vault is open`);

  // A trade: a potion for coins, standing together.
  await give(annNick, [{ itemId: COIN, count: 20 }]);
  await give(benNick, [{ itemId: POTION, count: 1 }]);
  standBeside(benNick, annNick);
  // Asked from the map: a press on Ben opens the menu of what to do with him (who-is-online's buttons).
  const menu = await playerMenuOn(ann, annPress, benNick);
  await shot(ann, `${label}-player-menu`);
  await annPress(menu.getByTestId("player-menu-trade"));
  await expect.poll(() => menu.isVisible(), { timeout: 5000 }).toBe(false);
  const asked = dialogWith(ben, `${annNick} wants to trade`);
  await expect.poll(() => asked.count(), { timeout: 10_000 }).toBe(1);
  await asked.getByRole("button", { name: "Trade" }).click();
  await expect.poll(() => dialogWith(ann, `Trade with ${benNick}`).count(), { timeout: 10_000 }).toBe(1);
  await say(ann, annPress, "/offer 8 gold");
  // Ben sees Ann's offer before he types his own (a player reads the window, then answers it).
  await expect.poll(() => dialogWith(ben, `${annNick} gives: 8 gold coin.`).count(), { timeout: 10_000 }).toBe(1);
  await say(ben, click, "/offer potion");
  const annWindow = dialogWith(ann, `You give: 8 gold coin. ${benNick} gives: 1 healing potion.`);
  await expect.poll(() => annWindow.count(), { timeout: 10_000 }).toBe(1);
  await shot(ann, `${label}-trade`);
  await annPress(annWindow.getByRole("button", { name: "Confirm" }));
  await expect.poll(() => logText(ben), { timeout: 10_000 }).toContain(`${annNick} confirmed the trade`);
  const benWindow = dialogWith(ben, `You give: 1 healing potion. ${annNick} gives: 8 gold coin.`);
  await benWindow.getByRole("button", { name: "Confirm" }).click();
  await expect
    .poll(() => logText(ann), { timeout: 10_000 })
    .toContain(`Trade done: you gave 8 gold coin and got 1 healing potion from ${benNick}.`);
  const game = rig.server.game;
  expect(game.items.countOf(sessionNamed(annNick), POTION)).toBe(1);
  expect(game.items.countOf(sessionNamed(benNick), COIN)).toBe(8);
  await shot(ben, `${label}-traded`);

  // Leaving: the panel goes.
  await annPress(ann.getByTestId("party-leave"));
  await expect.poll(() => ben.getByTestId("party").isVisible(), { timeout: 10_000 }).toBe(false);
}

describe.skipIf(!HAVE_CHROMIUM)("playing together in Chromium", () => {
  beforeAll(async () => {
    rig = await startRig();
  }, 90_000);

  afterAll(async () => {
    for (const browser of browsers) await browser.close();
    await rig?.close();
  }, 30_000);

  it("on a desktop: invite from the list, the party panel, party and private lines, a trade", async () => {
    const ann = await openAndJoin(rig, "Annwyn", "debug=1");
    const ben = await openAndJoin(rig, "Benedek", "debug=1");
    try {
      await playTogether(ann, click, "Annwyn", ben, "Benedek", "desktop");
    } catch (error) {
      await shot(ann, "failed-desktop-ann");
      await shot(ben, "failed-desktop-ben");
      throw error;
    }
  }, 120_000);

  it("on a phone-sized touch screen: the same, by taps", async () => {
    const phone = await joinOnPhone(rig, "Thumbelina");
    browsers.push(phone.browser);
    const friend = await openAndJoin(rig, "Desko", "debug=1");
    try {
      await playTogether(phone.page, tap, "Thumbelina", friend, "Desko", "phone");
    } catch (error) {
      await shot(phone.page, "failed-phone");
      throw error;
    }
  }, 120_000);
});
