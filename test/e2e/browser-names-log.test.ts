// Who is who, and a log you can read (issue 18 items 1 and 2) in a real
// browser: the client built by Vite, the real server in-process on
// maps/caves.tmj, Debian's Chromium through playwright-core. Two pages: Ada
// chooses the green tunic on the join card and Bob sees her in it, with her
// name over her head (N hides the names, remembered over a reload), and her level
// beside it, which Ada's panel and log show too as it rises (issue 39); then 50
// bots (ts/bots) join and walk about while Ada chats, and Bob's log keeps her
// line in view — the crowd's comings and goings are in the System tab only,
// and nobody is announced for walking into view. Screenshots to test-artifacts/.
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Swarm } from "../../ts/bots/swarm.js";
import { loadCore } from "../../ts/wasm/node.js";
import {
  ARTIFACTS,
  type BrowserRig,
  canvasPixels,
  framebufferOfTile,
  HAVE_CHROMIUM,
  logText,
  openPage,
  restingCamera,
  skipNotice,
  startRig,
  waitForDebug,
} from "./browser-support.js";

skipNotice("browser names and message log tests");

/** An RGB332 colour as the canvas shows it (the framebuffer's expansion), 0xRRGGBB. */
function canvasColour(colour: number): number {
  const red = (((colour >> 5) * 255) / 7) | 0;
  const green = ((((colour >> 2) & 7) * 255) / 7) | 0;
  const blue = (((colour & 3) * 255) / 3) | 0;
  return (red << 16) | (green << 8) | blue;
}
/** The green tunic's main colour (docs/art.md), and the name tag's text (palette NAME_TAG). */
const GREEN_TUNIC = canvasColour(0x34);
const NAME_TAG = canvasColour(0xdb);

let rig: BrowserRig;
let swarm: Swarm | null = null;

async function joinAs(nick: string, look: string): Promise<Page> {
  const page = await openPage(rig, nick, "debug=1");
  await page.getByTestId(`look-${look}`).click();
  await page.getByTestId("nick").fill(nick);
  await page.getByTestId("play").click();
  await waitForDebug(page, (text) => /^state playing$/m.test(text) && /^pos \d+,\d+$/m.test(text), 10_000);
  return page;
}

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`) });
}

const count = (pixels: number[], colour: number) => pixels.filter((pixel) => pixel === colour).length;

describe.skipIf(!HAVE_CHROMIUM)("names over heads, looks and the message log in Chromium", () => {
  let ada: Page;
  let bob: Page;

  beforeAll(async () => {
    rig = await startRig();
  }, 90_000);

  afterAll(async () => {
    swarm?.stop();
    await rig?.close();
  });

  it("Bob sees Ada in the green she chose, her name over her head; N hides the names, remembered", async () => {
    ada = await joinAs("Ada", "green");
    bob = await joinAs("Bob", "red");
    const adaEntity = [...rig.server.game.sessions.values()].find((session) => session.nick === "Ada")!.entity;
    expect(adaEntity.meta).toContainEqual({ kind: "appearance", value: 2 });
    const canvas = bob.getByTestId("game");
    await expect.poll(() => canvas.getAttribute("data-name-tags-shown"), { timeout: 10_000 }).toMatch(/\bAda\b/);
    expect(await canvas.getAttribute("data-name-tags-shown")).toMatch(/\bBob\b/);
    const at = await restingCamera(bob);
    const fb = framebufferOfTile(at, { x: adaEntity.x, y: adaEntity.y });
    // The rows above her: her name in the tag colour (her tunic is read below, with the names hidden: Bob's
    // own tag, one row above him, lies over her sprite when he spawned below her, and with the level beside
    // the name it is wide enough to cover it whole).
    await shot(bob, "names-over-heads");
    // Three label rows over her: a tag moves up a row when it would cover a nearer one (Bob's own,
    // if they share the spawn).
    const over = { x: fb.x + 4 - 24, y: fb.y - 28, width: 48, height: 27 };
    const tagged = count(await canvasPixels(bob, over.x, over.y, over.width, over.height), NAME_TAG);
    expect(tagged).toBeGreaterThan(10);
    await shot(bob, "names-over-heads");

    await canvas.focus();
    await bob.keyboard.press("KeyN");
    await expect.poll(() => canvas.getAttribute("data-name-tags")).toBe("off");
    await bob.waitForTimeout(200);
    expect(count(await canvasPixels(bob, over.x, over.y, over.width, over.height), NAME_TAG)).toBeLessThan(tagged);
    // Ada's tile shows the green tunic.
    expect(count(await canvasPixels(bob, fb.x, fb.y, 8, 8), GREEN_TUNIC)).toBeGreaterThan(0);
    // Remembered: a page opened afterwards (the same browser profile) starts with the names hidden.
    const later = await joinAs("Cy", "gold");
    expect(await later.getByTestId("game").getAttribute("data-name-tags")).toBe("off");
    await later.getByTestId("game").focus();
    await later.keyboard.press("KeyN");
    await expect.poll(() => later.getByTestId("game").getAttribute("data-name-tags")).toBe("on");
    await later.close();
    await bob.keyboard.press("KeyN");
    await expect.poll(() => canvas.getAttribute("data-name-tags")).toBe("on");
  }, 60_000);

  it("Ada's level over her head for Bob, in her panel and her log when it rises (issue 39)", async () => {
    const bobCanvas = bob.getByTestId("game");
    const adaCanvas = ada.getByTestId("game");
    await expect.poll(() => bobCanvas.getAttribute("data-name-tags-shown"), { timeout: 10_000 }).toMatch(/\bAda L1\b/);
    await expect.poll(() => adaCanvas.getAttribute("data-level")).toBe("1");
    // 150 experience (a quest's worth, or fifteen spiders): level 3.
    const adaEntity = [...rig.server.game.sessions.values()].find((session) => session.nick === "Ada")!.entity;
    rig.server.game.experience.gain(adaEntity, 150, "test");
    await expect.poll(() => bobCanvas.getAttribute("data-name-tags-shown"), { timeout: 10_000 }).toMatch(/\bAda L3\b/);
    await expect.poll(() => adaCanvas.getAttribute("data-level")).toBe("3");
    await expect.poll(() => adaCanvas.getAttribute("data-xp")).toBe("150/300 xp");
    await expect.poll(() => logText(ada), { timeout: 10_000 }).toContain("You reached level 3.");
    // The gain itself, in the combat log beside the kills' lines.
    await expect
      .poll(async () => (await ada.getByTestId("combat-log").textContent()) ?? "", { timeout: 5000 })
      .toContain("+150 experience");
    await shot(ada, "level-3");
  }, 30_000);

  it("keeps chat in view while 50 bots pass by; their joins are in System only, nobody 'is near'", async () => {
    swarm = new Swarm({
      count: 50,
      http: rig.baseUrl,
      server: null,
      behaviour: "wander",
      goal: null,
      netsim: null,
      seed: 18,
      nickPrefix: "crowd",
      joinParallel: 8,
      updateMs: 20,
      loadCore: () => loadCore(),
    });
    swarm.start();
    await swarm.joinAll();
    expect(swarm.figures()).toMatchObject({ joined: 50 });
    // Ada speaks while the crowd arrives and walks about.
    await ada.getByTestId("game").focus();
    await ada.keyboard.press("Enter");
    await ada.keyboard.type("can anyone hear me over this crowd?");
    await ada.keyboard.press("Enter");
    const line = "Ada: can anyone hear me over this crowd?";
    await expect.poll(() => logText(bob), { timeout: 10_000 }).toContain(line);
    // The crowd's joins reach Bob (collapsed by the server into a line a second) ...
    await expect.poll(() => logText(bob), { timeout: 10_000 }).toMatch(/crowd.* joined/);
    // ... and ten seconds of them walking about later, Ada's line is still on screen in All and in Chat.
    await bob.waitForTimeout(10_000);
    const lines = bob.getByTestId("log-lines");
    const visible = async () =>
      lines.evaluate((list, text) => {
        const box = list.getBoundingClientRect();
        return [...list.querySelectorAll("p")].some((row) => {
          const rect = row.getBoundingClientRect();
          return row.textContent === text && rect.bottom <= box.bottom + 1 && rect.top >= box.top - 1;
        });
      }, line);
    expect(await bob.getByTestId("log-panel").getAttribute("data-view")).toBe("all");
    expect(await visible()).toBe(true);
    const allText = (await lines.textContent()) ?? "";
    expect(allText).not.toMatch(/joined|is near/);
    await shot(bob, "log-with-crowd");
    await bob.getByTestId("log-tab-chat").click();
    expect(await visible()).toBe(true);
    // The System tab has the crowd's arrivals; no line anywhere says someone "is near".
    await bob.getByTestId("log-tab-system").click();
    await expect.poll(async () => (await lines.textContent()) ?? "").toMatch(/crowd.* joined/);
    expect(await logText(bob)).not.toMatch(/is near/);
    // A chat line is one row: the panel is wide enough for it at this scale.
    await bob.getByTestId("log-tab-chat").click();
    const rowHeights = await lines.evaluate((list) =>
      [...list.querySelectorAll("p")].map((row) => row.getBoundingClientRect().height),
    );
    expect(Math.max(...rowHeights)).toBeLessThan(2 * Math.min(...rowHeights));
    // Scrollback holds still while reading: scrolled to the top, new lines raise the marker instead.
    await bob.getByTestId("log-tab-all").click();
    await lines.evaluate((list) => (list.scrollTop = 0));
    await ada.keyboard.press("Enter");
    await ada.keyboard.type("one more");
    await ada.keyboard.press("Enter");
    await ada.keyboard.press("Enter");
    await ada.keyboard.type("and another");
    await ada.keyboard.press("Enter");
    await expect.poll(() => logText(bob), { timeout: 10_000 }).toContain("Ada: and another");
    const scrolled = await lines.evaluate((list) => list.scrollTop);
    // Unless the list was too short to scroll at all, it stayed where the reader left it.
    if ((await lines.evaluate((list) => list.scrollHeight - list.clientHeight)) > 0) {
      expect(scrolled).toBe(0);
      await expect.poll(() => bob.getByTestId("log-new").isVisible()).toBe(true);
      await shot(bob, "log-new-messages");
      await bob.getByTestId("log-new").click();
      await expect.poll(() => bob.getByTestId("log-new").isVisible()).toBe(false);
    }
    swarm.stop();
    swarm = null;
  }, 120_000);
});
