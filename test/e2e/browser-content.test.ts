// The bundled world's content (maps/caves.content/, issue 38) played in a real browser: the client
// built by Vite, the real game server on maps/caves.tmj with its Lua scripts in the real sandbox, and
// Debian's Chromium through playwright-core. The player is given gold coins (the item room's exchange, the
// path a shop's sale or a quest's reward takes: the test stands in for gold found in the caves), then plays
// the way a player does: walks up to Mira the merchant and talks to her, opens her wares and buys a
// healing potion; talks to Old Tom and takes his first job, the rat cull; kills a cave rat of the great
// hall (a real fight, whose kill the script counts) and reads the quest in the journal; the test counts
// the rest of the five through the scripts' kill event (as test/content-caves.test.ts does: the hall has
// three rats, back 30 s after they die); the player hands the quest in to Old Tom, hears his thanks and
// reads the reward in the bag and the journal. Then Old Tom's next job, the delve: taken, the player walks
// onto the great hall's stairs down (the guard shouts after it: it leaves the hall unarmed), is moved beside
// the stairs down of level 1 (the test stands in for the walk across the level) and takes them, hears the
// script at depth 2, is moved back beside Old Tom (as a scroll would) and is paid for the news. Once on a
// desktop window with the mouse and keys (J, I), as a registered account; once on a phone-sized touch
// screen by taps alone (the Quests and Bag buttons), as a guest. What the page shows came from the server:
// the test checks the server's counts beside it. Screenshots go to test-artifacts/ (content-*-desktop.png,
// content-*-phone.png; content-failed-* when a run fails). Needs /usr/bin/chromium; without it the suite
// says so and is skipped.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHUNK_SIZE } from "../../ts/constants.js";
import { ENTITY_TYPE_PLAYER, type StoredEntity } from "../../ts/server/entities/entities.js";
import { openGameDatabase } from "../../ts/server/persistence/database.js";
import type { Session } from "../../ts/server/sessions/session.js";
import {
  ARTIFACTS,
  type BrowserRig,
  debugText,
  HAVE_CHROMIUM,
  joinOnPhone,
  logText,
  openPage,
  pointOfTile,
  positionIn,
  skipNotice,
  startRig,
  type Tile,
  waitForDebug,
} from "./browser-support.js";

skipNotice("browser content tests");

const CAVE_RAT = 16;
const MIRA = 21;
const OLD_TOM = 22;
const RAT_CULL_GOAL = 5;
/** Gold the test gives each player: a potion's price (8) and some left over. */
const GOLD_GIVEN = 12;
const POTION_PRICE = 8;
/** Old Tom's reward for the rat cull (old-tom.lua). */
const REWARD_GOLD = 15;
const REWARD_POTIONS = 1;
/** Old Tom's reward for the delve, two levels down the stairs (old-tom.lua). */
const DELVE_GOLD = 40;
const DELVE_POTIONS = 2;
/** What the scripts say (old-tom.lua, guard.lua). */
const RAT_CULL_THANKS = "Five rats! The grain is safe for a week. Here.";
const DELVE_THANKS = "Two levels down, and back on your own feet! Here, you've earned this.";
const DEPTH_TWO_LINE = "The second level. That's deep enough to tell Old Tom about.";
const GUARD_SHOUT = "Oi! Not out there with bare hands.";

let rig: BrowserRig;
let databaseDir: string | undefined;

/** How one kind of screen plays: the mouse and keys of a desktop, or the taps of a phone. */
interface Hands {
  readonly label: string;
  readonly page: Page;
  /** The player's session on the server. */
  readonly session: Session;
  /** Presses a control of the page (a dialog's button, a window's button). */
  press(control: Locator): Promise<void>;
  /** Presses world tile `target`, the camera resting on the player at `at`. */
  pressTile(at: Tile, target: Tile): Promise<void>;
  /** Opens or closes the quest journal (J, or its button). */
  toggleJournal(): Promise<void>;
  /** Opens or closes the bag (I, or its button). */
  toggleBag(): Promise<void>;
  /** Opens or closes the minimap (M, or its button). */
  toggleMinimap(): Promise<void>;
}

/** What the page shows at world tile `target`'s point (the camera resting on `at`): "game" for the canvas. */
async function whatLiesAt(
  page: Page,
  at: Tile,
  target: Tile,
): Promise<{ point: { x: number; y: number }; under: string }> {
  const point = await pointOfTile(page, at, target);
  const under = await page.evaluate(({ x, y }) => {
    const element = document.elementFromPoint(x, y);
    return element?.id || (element?.outerHTML.slice(0, 120) ?? "nothing");
  }, point);
  return { point, under };
}

/** The page point of world tile `target` (the camera resting on `at`), checked to be the canvas's and no overlay's. */
async function canvasPoint(page: Page, at: Tile, target: Tile): Promise<{ x: number; y: number }> {
  const { point, under } = await whatLiesAt(page, at, target);
  expect(under, `what lies at tile ${target.x},${target.y} from ${at.x},${at.y}`).toBe("game");
  return point;
}

/**
 * Whether a press at `target` reaches the world from `at`: within the view's reach, and on the canvas — on a
 * phone the HUD bar lies over the view's top rows (a rat 11 tiles up was under the Quests button).
 */
async function pressableOnPage(hands: Hands, at: Tile, target: Tile): Promise<boolean> {
  return pressable(at, target) && (await whatLiesAt(hands.page, at, target)).under === "game";
}

function desktopHands(page: Page, session: Session): Hands {
  return {
    label: "desktop",
    page,
    session,
    press: (control) => control.click(),
    pressTile: async (at, target) => {
      const point = await canvasPoint(page, at, target);
      await page.mouse.click(point.x, point.y);
    },
    toggleJournal: () => page.keyboard.press("KeyJ"),
    toggleBag: () => page.keyboard.press("KeyI"),
    toggleMinimap: () => page.keyboard.press("KeyM"),
  };
}

function phoneHands(page: Page, session: Session): Hands {
  return {
    label: "phone",
    page,
    session,
    press: (control) => control.tap(),
    pressTile: async (at, target) => {
      const point = await canvasPoint(page, at, target);
      await page.touchscreen.tap(point.x, point.y);
    },
    toggleJournal: () => page.getByTestId("quest-button").tap(),
    toggleBag: () => page.getByTestId("bag-button").tap(),
    toggleMinimap: () => page.getByTestId("touch-map").tap(),
  };
}

function itemId(name: string): number {
  const item = rig.server.game.world.items.find((each) => each.name === name);
  if (!item) throw new Error(`the bundled catalogue has no ${name}`);
  return item.id;
}

function sessionOf(nick: string): Session {
  const session = [...rig.server.game.sessions.values()].find((each) => each.nick === nick);
  if (!session) throw new Error(`no session for ${nick}`);
  return session;
}

/** The first creature of `typeId` on the server. */
function creature(typeId: number): StoredEntity {
  const npc = [...rig.server.game.npcs.values()].find((each) => each.entity.typeId === typeId);
  if (!npc) throw new Error(`no creature of type ${typeId} on the map`);
  return npc.entity;
}

/** Chebyshev distance between two tiles: 1 is beside. */
function reach(a: Tile, b: Tile): number {
  return Math.max(Math.abs(a.x - b.x), Math.abs(a.y - b.y));
}

/** How many of `itemId` the bag window shows, over all its slots (a slot of one shows no number). */
async function bagShows(page: Page, id: number): Promise<number> {
  return page.evaluate((wanted) => {
    let total = 0;
    for (const slot of document.querySelectorAll(`[data-testid="bag"] [data-item-id="${wanted}"]`)) {
      total += Number(slot.querySelector(".item-count")?.textContent ?? "1");
    }
    return total;
  }, id);
}

async function journalText(page: Page): Promise<string> {
  return (await page.getByTestId("quest-list").textContent()) ?? "";
}

async function combatLogText(page: Page): Promise<string> {
  return (await page.getByTestId("combat-log").textContent()) ?? "";
}

/** The open dialog whose text says `words`. */
function dialogSaying(page: Page, words: string): Locator {
  return page.getByTestId("dialog").filter({ hasText: words });
}

/**
 * Checks that the page shows all of dialog `dialog`: inside the view's clip (a portrait phone crops the view to
 * its middle) and the window.
 */
async function shownWhole(page: Page, dialog: Locator): Promise<void> {
  const box = (await dialog.boundingBox())!;
  const clip = (await page.locator("#screen").boundingBox())!;
  const window = page.viewportSize()!;
  const inside = (outer: { x: number; y: number; width: number; height: number }) =>
    box.x >= outer.x - 0.5 &&
    box.y >= outer.y - 0.5 &&
    box.x + box.width <= outer.x + outer.width + 0.5 &&
    box.y + box.height <= outer.y + outer.height + 0.5;
  expect(inside(clip), `the dialog ${JSON.stringify(box)} inside the view ${JSON.stringify(clip)}`).toBe(true);
  expect(inside({ x: 0, y: 0, ...window }), `the dialog ${JSON.stringify(box)} inside the window`).toBe(true);
}

/** Gives `count` of `id` to the player through the item room's exchange (one change, saved, then pushed). */
function give(session: Session, id: number, count: number): Promise<void> {
  return new Promise((resolve, reject) =>
    rig.server.game.items.exchange(session, [], [{ itemId: id, count }], (outcome) =>
      outcome === "ok" ? resolve() : reject(new Error(`giving ${count} of item ${id}: ${outcome}`)),
    ),
  );
}

async function shot(hands: Hands, name: string): Promise<void> {
  await hands.page.screenshot({ path: join(ARTIFACTS, `content-${name}-${hands.label}.png`) });
}

/** Runs `play`; when it fails, the page as it was is saved (content-failed-<label>.png) before the error goes on. */
async function keepShotOnFailure(hands: Hands, play: () => Promise<void>): Promise<void> {
  try {
    await play();
  } catch (error) {
    await shot(hands, "failed").catch(() => undefined);
    throw error;
  }
}

/**
 * Whether a press on `target` reaches the canvas, the camera resting on `at`: not off the phone's cropped view
 * (24 tiles' width), under the buttons over its top edge, or under the message log over the bottom of the view
 * (the log takes the pointer: its tabs and scrolling).
 */
function pressable(at: Tile, target: Tile): boolean {
  const dx = target.x - at.x;
  const dy = target.y - at.y;
  return Math.abs(dx) <= 10 && dy >= -12 && dy <= 6;
}

/**
 * Where the player rests: the server has kept it on one tile for 400 ms (a press's walk ended, or never began)
 * and the page shows it there with no step pending — so the camera rests on it too, and a tile's point on the
 * canvas is where pointOfTile says. (The page's debug overlay alone lags a quarter of a second: right after a
 * press it still says "pending 0" at the old tile, and a press aimed from there lands elsewhere.)
 */
async function restingAt(hands: Hands): Promise<Tile> {
  const { page, session } = hands;
  const deadline = Date.now() + 15_000;
  let last = { x: session.entity.x, y: session.entity.y };
  let since = Date.now();
  for (;;) {
    await page.waitForTimeout(100);
    const now = { x: session.entity.x, y: session.entity.y };
    if (now.x !== last.x || now.y !== last.y) {
      last = now;
      since = Date.now();
    } else if (Date.now() - since >= 400) {
      const text = await debugText(page);
      const shown = positionIn(text);
      if (/^pending 0$/m.test(text) && shown?.x === now.x && shown.y === now.y) return now;
    }
    if (Date.now() > deadline) throw new Error(`the player never came to rest (last at ${now.x},${now.y})`);
  }
}

const nearScratch: StoredEntity[] = [];

/** Whether a creature (anything but a player) stands on `tile` or beside it, on the server now. */
function creatureNear(tile: Tile): boolean {
  const count = rig.server.game.entities.inSquare(tile.x, tile.y, 1, nearScratch, false);
  for (let index = 0; index < count; index++) if (nearScratch[index].typeId !== ENTITY_TYPE_PLAYER) return true;
  return false;
}

/** Whether a creature stands on `tile`, on the server now. */
function creatureOn(tile: Tile): boolean {
  const count = rig.server.game.entities.inSquare(tile.x, tile.y, 0, nearScratch, false);
  for (let index = 0; index < count; index++) if (nearScratch[index].typeId !== ENTITY_TYPE_PLAYER) return true;
  return false;
}

/**
 * Checks that the player, come to rest after talking to `person`, stands beside it: the press walked it there
 * (or it was there already), never onto the person's tile.
 */
async function standsBeside(hands: Hands, person: StoredEntity): Promise<void> {
  const at = await restingAt(hands);
  expect(reach(at, person), `the player at ${at.x},${at.y} beside ${person.name} at ${person.x},${person.y}`).toBe(1);
}

/** Walks (by pressing tiles) until `target` can be pressed; returns where the player rests. */
async function approach(hands: Hands, target: Tile): Promise<Tile> {
  for (let leg = 0; ; leg++) {
    const at = await restingAt(hands);
    if (await pressableOnPage(hands, at, target)) return at;
    expect(leg, `${target.x},${target.y} within reach of a press from ${at.x},${at.y}`).toBeLessThan(4);
    const clamp = (value: number, low: number, high: number) => Math.max(low, Math.min(high, value));
    const aim = { x: at.x + clamp(target.x - at.x, -8, 8), y: at.y + clamp(target.y - at.y, -10, 5) };
    const near = [0, 1, 2, 3].flatMap((r) => [
      { x: aim.x + r, y: aim.y },
      { x: aim.x - r, y: aim.y },
      { x: aim.x, y: aim.y + r },
      { x: aim.x, y: aim.y - r },
    ]);
    // Not on or beside a creature: a press on one attacks it or talks to it instead of walking.
    let step: Tile | undefined;
    for (const tile of near) {
      if (!pressable(at, tile) || creatureNear(tile) || rig.sim.astar(at.x, at.y, tile.x, tile.y, 10_000).status <= 0)
        continue;
      if ((await whatLiesAt(hands.page, at, tile)).under !== "game") continue; // under the phone's HUD bar
      step = tile;
      break;
    }
    expect(step, `a reachable tile towards ${target.x},${target.y}`).toBeDefined();
    await hands.pressTile(at, step!);
    // Until the walk has begun (or a creature in the way held it up): restingAt then waits for its end.
    await within(2000, async () => hands.session.entity.x !== at.x || hands.session.entity.y !== at.y);
  }
}

/** Presses creature `entity` where the server has it now, from where the player rests near it. */
async function pressCreature(hands: Hands, entity: StoredEntity): Promise<void> {
  for (let look = 0; ; look++) {
    const at = await approach(hands, entity);
    // Where it stands now (a rat wanders on while the player comes to rest): pressed there, if a press reaches it.
    const tile = { x: entity.x, y: entity.y };
    if (await pressableOnPage(hands, at, tile)) return hands.pressTile(at, tile);
    expect(look, `${entity.name} within reach of a press`).toBeLessThan(3);
  }
}

/** Opens the quest journal, runs `look` while it shows, and closes it again. */
async function inJournal(hands: Hands, look: () => Promise<void>): Promise<void> {
  await hands.toggleJournal();
  await expect.poll(() => hands.page.getByTestId("quest-list").isVisible()).toBe(true);
  await look();
  await hands.toggleJournal();
  await expect.poll(() => hands.page.getByTestId("quest-list").isVisible()).toBe(false);
}

/** Opens the bag, runs `look` while it shows, and closes it again. */
async function inBag(hands: Hands, look: () => Promise<void>): Promise<void> {
  await hands.toggleBag();
  await expect.poll(() => hands.page.getByTestId("bag").isVisible()).toBe(true);
  await look();
  await hands.toggleBag();
  await expect.poll(() => hands.page.getByTestId("bag").isVisible()).toBe(false);
}

/**
 * Opens the minimap and waits until it draws quest mark `sign` ("!" a quest to take, "?" one to hand in)
 * where Old Tom stands, then closes it. The minimap's own record of what it drew (its data-quest-marks:
 * "x,y,sign" in minimap pixels, the player at data-player) is compared with the server's places.
 */
async function minimapMarksTom(hands: Hands, sign: "!" | "?"): Promise<void> {
  const minimap = hands.page.getByTestId("minimap");
  await hands.toggleMinimap();
  await expect.poll(() => minimap.isVisible()).toBe(true);
  const tom = creature(OLD_TOM);
  const player = hands.session.entity;
  const expected = async () => {
    const [px, py] = ((await minimap.getAttribute("data-player")) ?? "").split(",").map(Number);
    return `${px + tom.x - player.x},${py + tom.y - player.y},${sign}`;
  };
  await expect
    .poll(async () => ((await minimap.getAttribute("data-quest-marks")) ?? "").split("|").includes(await expected()), {
      timeout: 5000,
    })
    .toBe(true);
  await hands.toggleMinimap();
  await expect.poll(() => minimap.isVisible()).toBe(false);
}

/** Waits until the journal (open) has a line saying `words`. */
async function journalSays(page: Page, words: string): Promise<void> {
  await expect.poll(() => journalText(page), { timeout: 5000 }).toContain(words);
}

/** Plays the content from the gold given to the delve's reward read; the player's page is playing. */
async function playTheHall(hands: Hands): Promise<void> {
  const { page, session } = hands;
  const game = rig.server.game;
  const gold = itemId("gold coin");
  const potion = itemId("healing potion");
  /** What the server's bag holds and the page's bag window shows (open) of gold and potions. */
  const holds = async (coins: number, potions: number) => {
    await expect.poll(() => bagShows(page, gold), { timeout: 5000 }).toBe(coins);
    await expect.poll(() => bagShows(page, potion), { timeout: 5000 }).toBe(potions);
    expect(game.items.countOf(session, gold)).toBe(coins);
    expect(game.items.countOf(session, potion)).toBe(potions);
  };
  const goldBefore = game.items.countOf(session, gold);
  const potionsBefore = game.items.countOf(session, potion);

  // Gold in the bag: the page shows what the server pushed.
  await give(session, gold, GOLD_GIVEN);
  await inBag(hands, () => holds(goldBefore + GOLD_GIVEN, potionsBefore));

  // Mira: pressed, the player walks beside her and she talks; her wares; a potion for 8 gold coins.
  await pressCreature(hands, creature(MIRA));
  const greeting = dialogSaying(page, "Mira the merchant");
  await expect.poll(() => greeting.count(), { timeout: 15_000 }).toBe(1);
  await standsBeside(hands, creature(MIRA));
  await shownWhole(page, greeting);
  await hands.press(greeting.getByRole("button", { name: "Show me your wares" }));
  const wares = dialogSaying(page, "Mira's wares");
  await expect.poll(() => wares.count(), { timeout: 5000 }).toBe(1);
  expect(await wares.textContent()).toContain(`You carry ${goldBefore + GOLD_GIVEN} gold coins.`);
  await shownWhole(page, wares);
  await shot(hands, "shop");
  await hands.press(wares.getByRole("button", { name: /^Buy healing potion - 8/ }));
  // The shop opens again, saying so; the bag holds the potion and the gold is less by its price.
  const bought = dialogSaying(page, "You buy the healing potion.");
  await expect.poll(() => bought.count(), { timeout: 5000 }).toBe(1);
  const goldLeft = goldBefore + GOLD_GIVEN - POTION_PRICE;
  expect(await bought.textContent()).toContain(`You carry ${goldLeft} gold coins.`);
  await shot(hands, "bought");
  // Leave (while a dialog holds the focus, the keys are the dialog's): the bag shows the potion.
  await hands.press(bought.getByRole("button", { name: "Leave" }));
  await expect.poll(() => page.getByTestId("dialog").count(), { timeout: 5000 }).toBe(0);
  await inBag(hands, () => holds(goldLeft, potionsBefore + 1));

  // Old Tom: his first job, taken; the journal lists it. Before, the minimap marks him: a quest to take.
  await minimapMarksTom(hands, "!");
  await pressCreature(hands, creature(OLD_TOM));
  const offer = dialogSaying(page, "The rats are at the grain again.");
  await expect.poll(() => offer.count(), { timeout: 15_000 }).toBe(1);
  await shownWhole(page, offer);
  await standsBeside(hands, creature(OLD_TOM));
  await hands.press(offer.getByRole("button", { name: "I'll do it" }));
  await expect.poll(() => logText(page), { timeout: 5000 }).toContain("Good. Press J to see what you owe me.");
  await expect.poll(() => page.getByTestId("quest-button").textContent(), { timeout: 5000 }).toBe("Quests 1");
  await inJournal(hands, async () => {
    await journalSays(page, `Rats in the grain — 0 / ${RAT_CULL_GOAL}`);
    expect(await journalText(page)).toContain("Old Tom wants 5 cave rats dead.");
    expect(await journalText(page)).toContain("Reward: 1 healing potion, 15 gold coin, 35 xp");
    await shot(hands, "journal");
  });

  // A cave rat of the hall, fought: a press on it attacks (the player follows it); its death is counted. (A
  // route across the hall may have bumped a rat on the way, and a bump is a blow: the count is the server's.)
  await killARat(hands);
  const progress = () => game.scripts!.quests.standing(session, "rat_cull").progress;
  expect(progress()).toBeGreaterThanOrEqual(1);
  await inJournal(hands, () =>
    expect
      .poll(async () => (await journalText(page)).includes(`Rats in the grain — ${progress()} / ${RAT_CULL_GOAL}`), {
        timeout: 5000,
      })
      .toBe(true),
  );
  // The other kills, counted by the scripts' kill event: the hall has three rats, back 30 s after they die.
  const rat = creature(CAVE_RAT);
  while (progress() < RAT_CULL_GOAL) game.scripts!.onKill(session.entity, rat);
  await expect.poll(() => logText(page), { timeout: 5000 }).toContain("That's five. Old Tom will want to hear of it.");
  await inJournal(hands, () => journalSays(page, "Rats in the grain — hand it in"));
  await minimapMarksTom(hands, "?");

  // Handed in: Old Tom's thanks, the journal says done, and the reward is in the bag.
  await pressCreature(hands, creature(OLD_TOM));
  await expect.poll(() => logText(page), { timeout: 15_000 }).toContain(RAT_CULL_THANKS);
  await standsBeside(hands, creature(OLD_TOM));
  await inJournal(hands, async () => {
    await journalSays(page, "Rats in the grain — done");
    expect(await page.getByTestId("quest-button").textContent()).toBe("Quests");
    await shot(hands, "done");
  });
  const goldPaid = goldLeft + REWARD_GOLD;
  const potionsPaid = potionsBefore + 1 + REWARD_POTIONS;
  await inBag(hands, async () => {
    await holds(goldPaid, potionsPaid);
    await shot(hands, "reward");
  });

  // His next job: down the stairs, two levels.
  await pressCreature(hands, creature(OLD_TOM));
  const delve = dialogSaying(page, "Nobody who went down those stairs");
  await expect.poll(() => delve.count(), { timeout: 15_000 }).toBe(1);
  await standsBeside(hands, creature(OLD_TOM));
  await hands.press(delve.getByRole("button", { name: "I'll do it" }));
  await expect.poll(() => page.getByTestId("quest-button").textContent(), { timeout: 5000 }).toBe("Quests 1");
  await inJournal(hands, () => journalSays(page, "Down the stairs — 0 / 1"));

  // The great hall's stairs down, walked onto: level 1; a guard shouts after a player leaving the hall unarmed.
  await takeStairs(hands, hallStairs(), 1);
  await expect.poll(() => logText(page), { timeout: 5000 }).toContain(GUARD_SHOUT);
  expect(game.scripts!.quests.standing(session, "delve").state).toBe("active");
  // Level 1's stairs down: the player is put beside them, and takes them.
  await takeStairs(hands, await besideStairsDown(hands), 2);
  await expect.poll(() => logText(page), { timeout: 5000 }).toContain(DEPTH_TWO_LINE);
  await inJournal(hands, async () => {
    await journalSays(page, "Down the stairs — hand it in");
    await shot(hands, "level-2");
  });

  // Back beside Old Tom, who pays for the news.
  await moveBeside(hands, creature(OLD_TOM));
  await pressCreature(hands, creature(OLD_TOM));
  await expect.poll(() => logText(page), { timeout: 15_000 }).toContain(DELVE_THANKS);
  await standsBeside(hands, creature(OLD_TOM));
  await inJournal(hands, async () => {
    await journalSays(page, "Down the stairs — done");
    expect(await page.getByTestId("quest-button").textContent()).toBe("Quests");
  });
  await inBag(hands, async () => {
    await holds(goldPaid + DELVE_GOLD, potionsPaid + DELVE_POTIONS);
    await shot(hands, "delve-reward");
  });
}

/** The map's stairs down nearest Old Tom: the great hall's. */
function hallStairs(): Tile {
  const tom = creature(OLD_TOM);
  const distance = (tile: Tile) => reach(tile, tom);
  const stairs = rig.server.game.warps
    .all()
    .filter((warp) => warp.stairs === "down" && rig.server.game.levels.levelOf(warp.x, warp.y) === null)
    .sort((a, b) => distance(a) - distance(b))[0];
  expect(stairs && distance(stairs), "the great hall's stairs down, near Old Tom").toBeLessThan(10);
  return { x: stairs.x, y: stairs.y };
}

/** The dungeon depth the player stands at on the server: 0 on the map. */
function depthOf(session: Session): number {
  return rig.server.game.levels.levelOf(session.entity.x, session.entity.y)?.level.depth ?? 0;
}

/** Whether the page's last frame holds the tile under the player as the server has it (its chunk has streamed). */
async function pageHoldsTileUnder(hands: Hands): Promise<boolean> {
  const { x, y } = hands.session.entity;
  const frames = await hands.page.evaluate(() =>
    (
      window as unknown as { cavesFrames: { take(): { tileX: number; tileY: number; tileId: number }[] } }
    ).cavesFrames.take(),
  );
  const last = frames.at(-1);
  return (
    last !== undefined && last.tileX === x && last.tileY === y && last.tileId === rig.server.game.world.tileAt(x, y)
  );
}

/**
 * Moves the player (on the server, as a scroll would: the test stands in for a walk) to a free tile beside
 * `target` in `target`'s own chunk, and waits until the page shows it resting there with that chunk streamed
 * in — so the page knows `target`'s tile, and a press on it is planned on the real floor.
 */
async function moveBeside(hands: Hands, target: Tile): Promise<Tile> {
  const world = rig.server.game.world;
  const chunkOf = (tile: Tile) => `${Math.floor(tile.x / CHUNK_SIZE)},${Math.floor(tile.y / CHUNK_SIZE)}`;
  const spot = [
    [1, 0],
    [-1, 0],
    [0, 1],
    [0, -1],
    [1, 1],
    [-1, 1],
    [1, -1],
    [-1, -1],
  ]
    .map(([dx, dy]) => ({ x: target.x + dx, y: target.y + dy }))
    .find(
      (tile) =>
        chunkOf(tile) === chunkOf(target) &&
        world.walkable(tile.x, tile.y) &&
        rig.server.game.warps.at(tile.x, tile.y) === undefined &&
        !creatureOn(tile),
    );
  expect(spot, `a free tile beside ${target.x},${target.y}`).toBeDefined();
  rig.server.game.warps.teleport(hands.session.entity, spot!.x, spot!.y);
  const at = await restingAt(hands);
  expect(at).toEqual(spot);
  await expect.poll(() => pageHoldsTileUnder(hands), { timeout: 10_000 }).toBe(true);
  return at;
}

/** The stairs down of the level the player is in, with the player moved beside them. */
async function besideStairsDown(hands: Hands): Promise<Tile> {
  const game = rig.server.game;
  const here = game.levels.levelOf(hands.session.entity.x, hands.session.entity.y)?.level;
  expect(here, "the player is in a level").toBeDefined();
  const stairs = game.warps.all().find((warp) => {
    const there = game.levels.levelOf(warp.x, warp.y)?.level;
    return warp.stairs === "down" && there?.seed === here!.seed && there.depth === here!.depth;
  });
  expect(stairs, `the stairs down of level ${here!.depth}`).toBeDefined();
  const target = { x: stairs!.x, y: stairs!.y };
  await moveBeside(hands, target);
  return target;
}

/**
 * Presses the stairs at `stairs` (from where the player rests, near them) until the player stands at
 * `depth`: it walks onto them, waits there while the level is made, and is put in it. A press lands as a
 * blow instead of a step when a creature has wandered onto the stairs (or the route bumps one): then the
 * player comes to rest off them, and the stairs are pressed again once nothing stands on them.
 */
async function takeStairs(hands: Hands, stairs: Tile, depth: number): Promise<void> {
  const { session } = hands;
  const on = () => session.entity.x === stairs.x && session.entity.y === stairs.y;
  for (let tries = 0; depthOf(session) !== depth; tries++) {
    expect(tries, `the stairs at ${stairs.x},${stairs.y} taken to depth ${depth}`).toBeLessThan(4);
    const at = await approach(hands, stairs);
    expect(await within(10_000, async () => !creatureOn(stairs)), "the stairs free of creatures").toBe(true);
    await hands.pressTile(at, stairs);
    // On the stairs (a walk of a few steps), or a blow landed instead and the player rests beside them.
    if (!(await within(5000, async () => on() || depthOf(session) === depth))) continue;
    // The level is made in a worker while the player waits on the stairs.
    expect(await within(30_000, async () => depthOf(session) === depth), `put in level ${depth}`).toBe(true);
  }
  // The page shows the player there, with the level's floor under it.
  await restingAt(hands);
  await expect.poll(() => pageHoldsTileUnder(hands), { timeout: 10_000 }).toBe(true);
}

/** Whether `check` comes true within `timeoutMs` (asked every 50 ms). */
async function within(timeoutMs: number, check: () => Promise<boolean>): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Where the great hall's rats live (their spawn area, 102 … 108 × 103 … 107, and the 5 tiles they wander). */
const RAT_CORNER: Tile = { x: 105, y: 105 };

/** The living cave rats of the great hall, nearest `at` first. */
function hallRats(at: Tile): StoredEntity[] {
  return [...rig.server.game.npcs.values()]
    .map((npc) => npc.entity)
    .filter((entity) => entity.typeId === CAVE_RAT && entity.hp > 0 && reach(entity, RAT_CORNER) <= 10)
    .sort((a, b) => Math.hypot(a.x - at.x, a.y - at.y) - Math.hypot(b.x - at.x, b.y - at.y));
}

/** How many times the combat log says `pattern` (global). */
async function combatLines(page: Page, pattern: RegExp): Promise<number> {
  return (await combatLogText(page)).match(pattern)?.length ?? 0;
}

/**
 * Presses the nearest rat of the hall until a blow lands on one, then waits for the kill. Walks across the hall
 * may have killed its rats already (a route into a creature bumps it): then it waits for one to come back.
 */
async function killARat(hands: Hands): Promise<void> {
  const { page } = hands;
  const killedBefore = await combatLines(page, /You killed the cave rat/g);
  for (let tries = 0; ; tries++) {
    const at = await restingAt(hands);
    expect(await within(40_000, async () => hallRats(at).length > 0), "a rat in the great hall").toBe(true);
    const blowsBefore = await combatLines(page, /You (hit|miss) the cave rat/g);
    await pressCreature(hands, hallRats(at)[0]);
    if (await within(4000, async () => (await combatLines(page, /You (hit|miss) the cave rat/g)) > blowsBefore)) break;
    // The rat wandered off the pressed tile before the press was aimed: press it where it is now.
    expect(tries, "a blow on a cave rat").toBeLessThan(5);
  }
  await expect
    .poll(() => combatLines(page, /You killed the cave rat/g), { timeout: 20_000 })
    .toBeGreaterThan(killedBefore);
}

describe.skipIf(!HAVE_CHROMIUM)("the great hall's people in Chromium (maps/caves.content)", () => {
  beforeAll(async () => {
    databaseDir = mkdtempSync(join(tmpdir(), "caves-e2e-content-"));
    rig = await startRig({ database: openGameDatabase(join(databaseDir, "caves.sqlite")) });
  }, 90_000);

  afterAll(async () => {
    await rig?.close();
    if (databaseDir) rmSync(databaseDir, { recursive: true, force: true });
  }, 30_000);

  it("on a desktop: buys a potion from Mira, does Old Tom's rat cull and his delve down the stairs, reads the rewards", async () => {
    // An account: what it carries stays with it when the page closes (a guest's would drop where it
    // stood, beside Old Tom, for the next player to walk over and pick up).
    const page = await openPage(rig, "desktop", "debug=1");
    await page.getByTestId("mode-register").click();
    await page.getByTestId("account-name").fill("newt_e2e");
    await page.getByTestId("password").fill("rats in the grain");
    await page.getByTestId("nick").fill("Newt");
    await page.getByTestId("play").click();
    await waitForDebug(page, (text) => /^state playing$/m.test(text) && positionIn(text), 10_000);
    try {
      const hands = desktopHands(page, sessionOf("Newt"));
      await keepShotOnFailure(hands, () => playTheHall(hands));
    } finally {
      await page.close();
    }
  }, 120_000);

  it("on a phone-sized touch screen: the same, by taps alone", async () => {
    let browser: Browser | null = null;
    try {
      const joined = await joinOnPhone(rig, "Thumb");
      browser = joined.browser;
      const hands = phoneHands(joined.page, sessionOf("Thumb"));
      await keepShotOnFailure(hands, () => playTheHall(hands));
    } finally {
      await browser?.close();
    }
  }, 120_000);
});
