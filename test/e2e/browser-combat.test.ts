// Combat in a real browser (issue 13): the client built by Vite, the real game
// server on a small written map with one weak creature two tiles from the spawn
// (it does not wander), played by Debian's Chromium. The pointer over the
// creature shows the attack cursor; a click walks next to it and bumps it each
// window; damage numbers float (read from the debug overlay's `floats` line,
// not from pixels); the combat lines go to the Combat tab and its text copy,
// never into the chat log; the creature dies, lies grey as a corpse, and is
// gone. Then a brute far off kills a player who attacks it: the death screen
// counts down, movement is ignored, and the player stands again at the spawn.
// Screenshots of the fight and of the death screen are saved. Needs
// /usr/bin/chromium; without it the suite says so and is skipped.
import { copyFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PLAYER_RESPAWN_SECONDS } from "../../ts/combat-rules.js";
import { rgb332FromRgba } from "../../ts/client/assets/image.js";
import * as P from "../../ts/client/render/palette.js";
import { type NpcMap, testKind, writeNpcMap } from "../support/npc-map.js";
import {
  ARTIFACTS,
  type BrowserRig,
  canvasPixels,
  clickTile,
  debugText,
  framebufferOfTile,
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

skipNotice("browser combat tests");

const SPAWN: Tile = { x: 4, y: 5 };
const DUMMY: Tile = { x: 6, y: 5 };
const DUMMY_TYPE = 16;
/** Ten tiles east of the spawn, in view: it notices only who stands next to it, and kills with one blow. */
const BRUTE: Tile = { x: 14, y: 5 };
const BRUTE_TYPE = 17;
/** Three tiles south of the spawn: the touch test's creature. */
const TARGET: Tile = { x: 4, y: 8 };
const TARGET_TYPE = 18;
/** Where the report's screenshot of a fight goes (and a copy among the test artifacts). */
const FIGHT_SCREENSHOT = "/tmp/caves-combat-fight.png";
const DEATH_SCREENSHOT = "/tmp/caves-combat-death.png";

let rig: BrowserRig;
let npcMap: NpcMap;

function entitiesIn(text: string): number {
  return Number(/^entities (\d+)$/m.exec(text)?.[1] ?? -1);
}

/** The `floats N: …` line: numbers floated so far, and the texts floating now. */
function floatsIn(text: string): { total: number; live: string[] } | null {
  const match = /^floats (\d+): (.*)$/m.exec(text);
  if (!match) return null;
  return { total: Number(match[1]), live: match[2] === "-" ? [] : match[2].split(" ") };
}

async function combatLogText(page: Page): Promise<string> {
  return (await page.getByTestId("combat-log").textContent()) ?? "";
}

/**
 * How many pixels around the dummy's tile are drawn in the corpse grey (a colour none of the art
 * uses): the tile and the few pixels a stack shifts it by, when someone stands on the corpse.
 */
async function greyPixelsAt(page: Page, at: Tile): Promise<number> {
  const fb = framebufferOfTile(at, DUMMY);
  const pixels = await canvasPixels(page, fb.x - 4, fb.y - 4, 16, 16);
  return pixels.filter((rgb) => rgb332FromRgba(rgb >> 16, (rgb >> 8) & 0xff, rgb & 0xff, 255) === P.CORPSE_GREY).length;
}

describe.skipIf(!HAVE_CHROMIUM)("combat in Chromium", () => {
  beforeAll(async () => {
    npcMap = writeNpcMap({
      width: 18,
      height: 11,
      spawn: SPAWN,
      kinds: [
        testKind({ name: "dummy", typeId: DUMMY_TYPE, hp: 12, wander: 0, respawnSeconds: 600 }),
        testKind({
          name: "brute",
          typeId: BRUTE_TYPE,
          behaviour: "hostile",
          sprite: "skeleton",
          hp: 60_000,
          wander: 0,
          perception: 1,
          leash: 1,
          attack: 1000,
          elo: 1400,
          respawnSeconds: 600,
        }),
        testKind({ name: "target", typeId: TARGET_TYPE, hp: 2000, wander: 0, respawnSeconds: 600 }),
      ],
      spawns: [
        { kind: "dummy", x: DUMMY.x, y: DUMMY.y },
        { kind: "brute", x: BRUTE.x, y: BRUTE.y },
        { kind: "target", x: TARGET.x, y: TARGET.y },
      ],
    });
    rig = await startRig({ mapPath: npcMap.path });
  }, 90_000);

  afterAll(async () => {
    await rig?.close();
    npcMap?.dispose();
  }, 30_000);

  it("click a monster: it is attacked, damage numbers float, it dies, lies as a corpse and is gone", async () => {
    const page = await openAndJoin(rig, "Ada", "debug=1");
    await waitForDebug(page, (text) => entitiesIn(text) === 4, 10_000);
    const start = await settledPosition(page);
    expect(start).toEqual(SPAWN);
    // Let the camera finish gliding onto the player, so tiles are where pointOfTile computes them.
    await page.waitForTimeout(400);
    expect(await greyPixelsAt(page, start)).toBe(0);

    // The pointer over the creature says a click attacks it; over the floor it does not.
    const over = await pointOfTile(page, start, DUMMY);
    await page.mouse.move(over.x, over.y);
    await expect.poll(() => page.getByTestId("game").getAttribute("data-hover"), { timeout: 3000 }).toBe("attack");
    const floor = await pointOfTile(page, start, { x: SPAWN.x, y: SPAWN.y + 2 });
    await page.mouse.move(floor.x, floor.y);
    await expect.poll(() => page.getByTestId("game").getAttribute("data-hover"), { timeout: 3000 }).toBe(null);

    await clickTile(page, start, DUMMY);
    // A damage number (or a miss) floats: the screenshot catches the fight with it.
    const firstNumber = await waitForDebug(
      page,
      (text) => {
        const floats = floatsIn(text);
        return floats !== null && floats.live.some((live) => /^\d+$/.test(live)) ? floats : null;
      },
      10_000,
    );
    expect(firstNumber.total).toBeGreaterThanOrEqual(1);
    await page.screenshot({ path: FIGHT_SCREENSHOT });
    copyFileSync(FIGHT_SCREENSHOT, join(ARTIFACTS, "combat-fight.png"));

    // The blows are told in the combat log, in words; the chat log stays free of them.
    await expect.poll(() => combatLogText(page), { timeout: 10_000 }).toMatch(/You hit the dummy for \d+\./);
    await expect.poll(() => combatLogText(page), { timeout: 15_000 }).toMatch(/You killed the dummy/);
    // The corpse lies grey on its tile (for CORPSE_SECONDS, 1.5 s). A bump already scheduled when it
    // died may step onto it: a corpse blocks nobody (combat-rules.ts isFoe).
    const fought = await settledPosition(page);
    expect(Math.max(Math.abs(fought.x - DUMMY.x), Math.abs(fought.y - DUMMY.y))).toBeLessThanOrEqual(1);
    await expect.poll(() => greyPixelsAt(page, fought), { timeout: 1200, interval: 50 }).toBeGreaterThan(0);
    expect(await logText(page)).not.toMatch(/You (hit|miss|killed)/);
    const floated = floatsIn(await waitForDebug(page, (text) => text, 1000))!;
    const hits = (await combatLogText(page)).match(/You hit the dummy for \d+\./g) ?? [];
    // Every hit floated (once: numbers come from notices and hp drops, never both for one blow).
    expect(floated.total).toBeGreaterThanOrEqual(hits.length);

    // Then it is gone from view, and its tile with it.
    await waitForDebug(page, (text) => entitiesIn(text) === 3, 5000);
    await page.waitForTimeout(200);
    expect(await greyPixelsAt(page, fought)).toBe(0);

    // The log's tabs (issue 18): L walks All → Chat → Combat, the Combat tab shows the blows and
    // not chat, and a click on "Chat" goes back (the canvas says which is shown).
    await page.getByTestId("game").focus();
    await page.keyboard.press("KeyL");
    await page.keyboard.press("KeyL");
    await expect.poll(() => page.getByTestId("game").getAttribute("data-log-tab"), { timeout: 3000 }).toBe("combat");
    expect(await page.getByTestId("log-lines").textContent()).toMatch(/You hit the dummy for \d+\./);
    await page.screenshot({ path: join(ARTIFACTS, "combat-log-tab.png") });
    await page.getByTestId("log-tab-chat").click();
    await expect.poll(() => page.getByTestId("game").getAttribute("data-log-tab"), { timeout: 3000 }).toBe("chat");
    await page.close();
  }, 60_000);

  it("killed: the death screen counts down, movement is ignored, and the player stands again at the spawn", async () => {
    const page = await openAndJoin(rig, "Bo", "debug=1");
    await waitForDebug(page, (text) => entitiesIn(text) === 3, 10_000); // Bo, the brute, the target (the dummy is dead)
    const start = await settledPosition(page);
    expect(start).toEqual(SPAWN);
    await page.waitForTimeout(400);
    const death = page.getByTestId("death");
    expect(await death.isHidden()).toBe(true);
    await clickTile(page, start, BRUTE);
    await expect.poll(() => death.isVisible(), { timeout: 15_000 }).toBe(true);
    expect(await page.getByTestId("death-detail").textContent()).toBe("The brute killed you.");
    const countdown = (await page.getByTestId("death-countdown").textContent()) ?? "";
    const seconds = Number(/^Back on your feet in (\d) s$/.exec(countdown)?.[1]);
    expect(seconds).toBeGreaterThanOrEqual(1);
    expect(seconds).toBeLessThanOrEqual(PLAYER_RESPAWN_SECONDS);
    await page.screenshot({ path: DEATH_SCREENSHOT });
    copyFileSync(DEATH_SCREENSHOT, join(ARTIFACTS, "combat-death.png"));
    await expect.poll(() => combatLogText(page), { timeout: 3000 }).toContain("The brute killed you.");

    // The dead do not walk: a key tap sends no step (nothing pending, the prediction stays on the server's tile).
    // Where the body lies is the server's word: a step confirmed in the window of the killing blow may
    // arrive just after the death notice, so wait until nothing is pending and the tile holds still.
    let lying = await settledPosition(page);
    for (let tries = 0; tries < 8; tries++) {
      await page.waitForTimeout(250);
      const again = await settledPosition(page);
      if (again.x === lying.x && again.y === lying.y) break;
      lying = again;
    }
    await page.keyboard.down("ArrowLeft");
    await page.waitForTimeout(60);
    await page.keyboard.up("ArrowLeft");
    await page.waitForTimeout(400);
    const after = await debugText(page);
    expect(after).toMatch(/^pending 0$/m);
    expect(positionIn(after)).toEqual(lying);
    expect(/^pred (-?\d+),(-?\d+)$/m.exec(after)?.slice(1).map(Number)).toEqual([lying.x, lying.y]);

    // Back on its feet at the spawn, with full health, after PLAYER_RESPAWN_SECONDS: the screen is gone.
    await expect.poll(() => death.isHidden(), { timeout: (PLAYER_RESPAWN_SECONDS + 3) * 1000 }).toBe(true);
    await waitForDebug(
      page,
      (text) => {
        const pos = positionIn(text);
        return pos !== null && pos.x === SPAWN.x && pos.y === SPAWN.y;
      },
      2000,
    );
    await page.close();
  }, 60_000);

  it("on a phone-sized touch screen a tap on a creature attacks it", async () => {
    const { browser, page } = await joinOnPhone(rig, "Cy");
    try {
      const start = await settledPosition(page);
      await page.waitForTimeout(400);
      const point = await pointOfTile(page, start, TARGET);
      await page.touchscreen.tap(point.x, point.y);
      await expect.poll(() => combatLogText(page), { timeout: 10_000 }).toMatch(/You (hit|miss) the target/);
      await waitForDebug(page, (text) => (floatsIn(text)?.total ?? 0) >= 1, 3000);
      await page.screenshot({ path: join(ARTIFACTS, "combat-touch.png") });
    } finally {
      await browser.close();
    }
  }, 60_000);
});
