// Chat, names, dialogs, run-time tile changes and accounts in a real browser:
// the client built by Vite, the real server in-process on maps/caves.tmj (its
// accounts in a temp SQLite file), Debian's Chromium through playwright-core.
// Two pages chat; a hovered sign shows its name on the framebuffer; a click on
// the sign walks next to it and opens its dialog; E and Escape; the notice
// board's line reaches both chats and is shown to the next reader; a tile changed by the server shows; an
// account is registered, refused in plain words, and logged into again where it
// was left, its password never in a datagram. Screenshots go to test-artifacts/.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CELL_SIZE_PX, SHEET_COLUMNS } from "../../ts/client/assets/sheets.js";
import { decodeTga } from "../../ts/client/assets/tga.js";
import { openGameDatabase } from "../../ts/server/persistence/database.js";
import {
  ARTIFACTS,
  type BrowserRig,
  canvasPixels,
  clickTile,
  framebufferOfTile,
  HAVE_CHROMIUM,
  logText,
  openAndJoin,
  restingCamera,
  openPage,
  pointOfTile,
  REPO,
  settledPosition,
  skipNotice,
  startRig,
  type Tile,
  waitForDebug,
} from "./browser-support.js";

skipNotice("browser chat, dialog and account tests");

const MUSHROOMS = 12;
const WHITE = 0xffffff;
/** An RGB332 colour as the canvas shows it: the framebuffer's expansion (RefBlitter.lutInit), 0xRRGGBB. */
function canvasColour(colour: number): number {
  const red = (((colour >> 5) * 255) / 7) | 0;
  const green = ((((colour >> 2) & 7) * 255) / 7) | 0;
  const blue = (((colour & 3) * 255) / 3) | 0;
  return (red << 16) | (green << 8) | blue;
}

/** RGB332 0x01, the label box. */
const LABEL_BOX = canvasColour(0x01);

let rig: BrowserRig;
let databaseDir: string;

function interactable(name: string): Tile {
  const entity = rig.server.game.interactables.entityNamed(name);
  if (!entity) throw new Error(`no interactable named ${name} on the map`);
  return { x: entity.x, y: entity.y };
}

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`) });
}

async function dialogCount(page: Page): Promise<number> {
  return page.getByTestId("dialog").count();
}

describe.skipIf(!HAVE_CHROMIUM)("chat, dialogs and accounts in Chromium", () => {
  let ada: Page;
  let bob: Page;

  beforeAll(async () => {
    databaseDir = mkdtempSync(join(tmpdir(), "caves-e2e-db-"));
    rig = await startRig({ database: openGameDatabase(join(databaseDir, "caves.sqlite")) });
  }, 90_000);

  afterAll(async () => {
    await rig?.close();
    if (databaseDir) rmSync(databaseDir, { recursive: true, force: true });
  }, 30_000);

  it("chats between two pages: Enter opens the box, typing never moves the player, Enter sends", async () => {
    ada = await openAndJoin(rig, "Ada", "debug=1");
    bob = await openAndJoin(rig, "Bob", "debug=1");
    const start = await settledPosition(ada);
    await ada.getByTestId("game").focus();
    await ada.keyboard.press("Enter");
    await expect.poll(() => ada.getByTestId("chat-input").isVisible()).toBe(true);
    expect(await ada.evaluate(() => document.activeElement?.id)).toBe("chat-input");
    // Movement keys while typing: letters go into the line, arrows move the caret, the player stays.
    await ada.keyboard.type("hello from Ada, wasd");
    await ada.keyboard.press("ArrowLeft");
    await ada.keyboard.press("ArrowRight");
    await ada.keyboard.press("Enter");
    await expect.poll(() => ada.getByTestId("chat-input").isVisible()).toBe(false);
    await expect.poll(() => logText(bob), { timeout: 10_000 }).toContain("Ada: hello from Ada, wasd");
    await expect.poll(() => logText(ada), { timeout: 5000 }).toContain("Ada: hello from Ada, wasd");
    expect(await settledPosition(ada)).toEqual(start);
    expect(await ada.evaluate(() => document.activeElement?.id)).toBe("game");

    // Escape closes the box and keeps the draft.
    await ada.keyboard.press("Enter");
    await ada.keyboard.type("a draft");
    await ada.keyboard.press("Escape");
    await expect.poll(() => ada.getByTestId("chat-input").isVisible()).toBe(false);
    await ada.keyboard.press("Enter");
    expect(await ada.getByTestId("chat-input").inputValue()).toBe("a draft");

    // Over 200 bytes is refused in the box, with the count, and never sent.
    await ada.getByTestId("chat-input").fill("é".repeat(101));
    await ada.keyboard.press("Enter");
    await expect.poll(() => ada.getByTestId("chat-note").textContent()).toContain("Too long: 202 bytes");
    expect(await ada.getByTestId("chat-input").isVisible()).toBe(true);
    await shot(ada, "chat-too-long");
    await ada.keyboard.press("Escape");
    await bob.waitForTimeout(500);
    expect(await logText(bob)).not.toContain("éé");
    await shot(bob, "chat-received");
  }, 60_000);

  it("shows the name of a hovered entity on the framebuffer", async () => {
    const at = await restingCamera(ada);
    const sign = interactable("welcome sign");
    const fb = framebufferOfTile(at, sign);
    // The label box: "welcome sign" (12 glyphs of 6 px, + 3) centred over the sign, 10 px above it.
    const box = { x: fb.x + 4 - 37, y: fb.y - 10, width: 75, height: 9 };
    const count = (pixels: number[], colour: number) => pixels.filter((pixel) => pixel === colour).length;
    const before = await canvasPixels(ada, box.x, box.y, box.width, box.height);
    const point = await pointOfTile(ada, at, sign);
    await ada.mouse.move(point.x, point.y);
    await expect
      .poll(async () => count(await canvasPixels(ada, box.x, box.y, box.width, box.height), WHITE), { timeout: 5000 })
      .toBeGreaterThan(count(before, WHITE) + 60); // the name, not just "sign" while it is looked up
    const after = await canvasPixels(ada, box.x, box.y, box.width, box.height);
    expect(count(after, LABEL_BOX)).toBeGreaterThan(count(before, LABEL_BOX) + 100);
    await shot(ada, "hover-sign");
    await ada.mouse.move(5, 5);
  }, 30_000);

  it("walks next to the sign when it is clicked and opens its dialog; OK closes it, E reopens, Escape dismisses", async () => {
    const at = await restingCamera(ada);
    const sign = interactable("welcome sign");
    await clickTile(ada, at, sign);
    const dialog = ada.getByTestId("dialog");
    await expect.poll(() => dialog.count(), { timeout: 15_000 }).toBe(1);
    await expect.poll(() => dialog.textContent()).toContain("The Forgotten Caves.");
    expect(await dialog.textContent()).toContain("welcome sign");
    const here = await settledPosition(ada);
    expect(Math.max(Math.abs(here.x - sign.x), Math.abs(here.y - sign.y))).toBe(1);
    await ada.waitForTimeout(300);
    await shot(ada, "dialog-sign");
    await ada.getByRole("button", { name: "OK" }).click();
    await expect.poll(() => dialogCount(ada)).toBe(0);
    expect(await ada.evaluate(() => document.activeElement?.id)).toBe("game");

    // E uses the sign within reach; the dialog's button has the focus, so Enter presses it.
    await ada.keyboard.press("e");
    await expect.poll(() => dialogCount(ada), { timeout: 5000 }).toBe(1);
    expect(await ada.evaluate(() => document.activeElement?.textContent)).toBe("OK");
    await ada.keyboard.press("Enter");
    await expect.poll(() => dialogCount(ada)).toBe(0);
    expect(await ada.getByTestId("chat-input").isVisible()).toBe(false);
    await ada.keyboard.press("e");
    await expect.poll(() => dialogCount(ada), { timeout: 5000 }).toBe(1);
    await ada.keyboard.press("Escape");
    await expect.poll(() => dialogCount(ada)).toBe(0);
    // Every reply was confirmed by the server: nothing is left open there.
    const session = [...rig.server.game.sessions.values()].find((each) => each.nick === "Ada")!;
    await expect.poll(() => session.dialogs.open.size).toBe(0);
  }, 45_000);

  it("posts the notice board's line to every chat (Enter in its text input posts)", async () => {
    const at = await restingCamera(ada);
    await clickTile(ada, at, interactable("notice board"));
    const dialog = ada.getByTestId("dialog");
    await expect.poll(() => dialog.count(), { timeout: 15_000 }).toBe(1);
    await expect.poll(() => ada.evaluate(() => document.activeElement?.className)).toBe("dialog-input");
    await ada.keyboard.type("Meet at the bridge");
    await ada.waitForTimeout(200);
    await shot(ada, "dialog-notice-board");
    // Enter in the text input presses the dialog's first button, Post.
    await ada.keyboard.press("Enter");
    await expect.poll(() => dialogCount(ada)).toBe(0);
    for (const page of [ada, bob]) {
      await expect.poll(() => logText(page), { timeout: 10_000 }).toContain("notice board: Ada: Meet at the bridge");
    }
    await ada.waitForTimeout(300);
    await shot(ada, "notice-posted");
    // The board keeps it: Bob, opening the board next, reads it in the dialog.
    const bobAt = await restingCamera(bob);
    await clickTile(bob, bobAt, interactable("notice board"));
    await expect.poll(() => bob.getByTestId("dialog").count(), { timeout: 15_000 }).toBe(1);
    await expect.poll(() => bob.getByTestId("dialog").textContent()).toMatch(/Ada, .*: Meet at the bridge/);
    // Clicking the board is a use: nothing says it cannot be walked on.
    expect(await logText(bob)).not.toContain("can't walk on notice board");
    await shot(bob, "notice-board-read");
    await bob.keyboard.press("Escape");
  }, 60_000);

  it("draws a tile the server changes at run time", async () => {
    const cy = await openAndJoin(rig, "Cy", "debug=1");
    const at = await restingCamera(cy);
    const occupied = (tile: Tile) =>
      [...rig.server.game.entities.values()].some((entity) => entity.x === tile.x && entity.y === tile.y);
    const tile = [
      { x: at.x + 2, y: at.y },
      { x: at.x - 2, y: at.y },
      { x: at.x, y: at.y + 2 },
      { x: at.x, y: at.y - 2 },
    ].find((each) => rig.sim.getTile(each.x, each.y) !== MUSHROOMS && !occupied(each));
    if (!tile) throw new Error(`no free tile two steps from ${at.x},${at.y}`);
    const sheet = decodeTga(readFileSync(join(REPO, "ts/client/assets/tiles.tga")));
    const expected: (number | null)[] = [];
    for (let y = 0; y < CELL_SIZE_PX; y++) {
      for (let x = 0; x < CELL_SIZE_PX; x++) {
        const sx = (MUSHROOMS % SHEET_COLUMNS) * CELL_SIZE_PX + x;
        const sy = Math.floor(MUSHROOMS / SHEET_COLUMNS) * CELL_SIZE_PX + y;
        const colour = sheet.pixels[sy * sheet.width + sx];
        expected.push(colour === 0 ? null : canvasColour(colour));
      }
    }
    const fb = framebufferOfTile(at, tile);
    const shows = async () => {
      const pixels = await canvasPixels(cy, fb.x, fb.y, CELL_SIZE_PX, CELL_SIZE_PX);
      return expected.every((colour, index) => colour === null || pixels[index] === colour);
    };
    expect(await shows()).toBe(false);
    const original = rig.server.game.world.tileAt(tile.x, tile.y);
    expect(rig.server.game.setTile(tile.x, tile.y, MUSHROOMS)).toBe(true);
    try {
      await expect.poll(shows, { timeout: 5000 }).toBe(true);
      await shot(cy, "tile-update");
    } finally {
      rig.server.game.setTile(tile.x, tile.y, original);
      await cy.close();
    }
  }, 30_000);

  it("registers an account, refuses bad logins in plain words, and logs in again where the character was left", async () => {
    const name = "ada_e2e";
    const password = "correct horse battery";
    const first = await openPage(rig, "register", "debug=1");
    await first.getByTestId("mode-register").click();
    expect(await first.getByTestId("play").textContent()).toBe("Register");
    await first.getByTestId("account-name").fill(name);
    await first.getByTestId("password").fill(password);
    await first.getByTestId("nick").fill("Ada E");
    await shot(first, "register-card");
    await first.getByTestId("play").click();
    await waitForDebug(first, (text) => /^state playing$/m.test(text), 10_000);
    expect(await first.getByTestId("status").textContent()).toBe("Playing as Ada E via webrtc");
    await expect.poll(() => logText(first), { timeout: 5000 }).toContain("Ada E joined");
    expect(rig.server.game.accountStore.findByName(name)?.nick).toBe("Ada E");
    // Walk a few tiles, so logging in again has a place to come back to.
    const start = await restingCamera(first);
    const target = [
      { x: start.x + 3, y: start.y + 1 },
      { x: start.x - 3, y: start.y + 1 },
      { x: start.x + 1, y: start.y + 3 },
    ].find((tile) => rig.sim.astar(start.x, start.y, tile.x, tile.y, 10_000).status > 0)!;
    await clickTile(first, start, target);
    await waitForDebug(
      first,
      (text) => /^pos (-?\d+),(-?\d+)$/m.exec(text)?.slice(1).join(",") === `${target.x},${target.y}`,
      10_000,
    );
    await first.close();

    const second = await openPage(rig, "login", "transport=websocket&debug=1");
    const framesSent: Buffer[] = [];
    second.on("websocket", (socket) =>
      socket.on("framesent", (frame) => framesSent.push(Buffer.from(frame.payload as string | Buffer))),
    );
    await second.getByTestId("mode-login").click();
    await second.getByTestId("account-name").fill(name);
    await second.getByTestId("password").fill("wrong password");
    await second.getByTestId("play").click();
    await expect
      .poll(() => second.getByTestId("join-error").textContent(), { timeout: 10_000 })
      .toBe("Wrong account name or password. Check both and try again.");
    await shot(second, "login-refused");

    await second.getByTestId("mode-register").click();
    await second.getByTestId("account-name").fill(name.toUpperCase());
    await second.getByTestId("password").fill(password);
    await second.getByTestId("nick").fill("Someone");
    await second.getByTestId("play").click();
    await expect
      .poll(() => second.getByTestId("join-error").textContent(), { timeout: 10_000 })
      .toBe("That account name is taken. Choose another, or log in if it is yours.");

    await second.getByTestId("mode-register").click();
    await second.getByTestId("account-name").fill("x");
    await second.getByTestId("play").click();
    await expect
      .poll(() => second.getByTestId("join-error").textContent(), { timeout: 10_000 })
      .toBe("The server did not accept that: Name must be 3-20 characters.");

    await second.getByTestId("mode-login").click();
    await second.getByTestId("account-name").fill(name);
    await second.getByTestId("password").fill(password);
    await second.getByTestId("play").click();
    await waitForDebug(second, (text) => /^state playing$/m.test(text) && /^transport websocket$/m.test(text), 10_000);
    // The login replaced the first page's session, which saved the character where it stood.
    expect(await settledPosition(second)).toEqual(target);
    await expect.poll(() => logText(second), { timeout: 5000 }).toContain("Ada E joined");
    await second.waitForTimeout(300);
    await shot(second, "login-resumed");
    expect(framesSent.length).toBeGreaterThan(3);
    expect(framesSent.some((frame) => frame.includes(Buffer.from(password)))).toBe(false);
    expect(await second.getByTestId("password").inputValue()).toBe("");
    await second.close();
  }, 90_000);
});
