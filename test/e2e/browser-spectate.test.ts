// Spectating in Chromium (issue 40, docs/client.md § Spectating): the page at /?spectate, given the admin
// token, watches the live world with no body through the normal renderer — a player's name over its head,
// its sprite — with a free camera: the arrow keys and a drag pan it, a click on the player follows it as
// it walks, Esc lets go. The player's own page never sees the spectator, and the server counts it apart.
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CAMERA_ENTITY_ID } from "../../ts/server/spectators/camera.js";
import {
  ARTIFACTS,
  type BrowserRig,
  HAVE_CHROMIUM,
  openAndJoin,
  pointOfTile,
  positionIn,
  skipNotice,
  startRig,
  type Tile,
  waitForDebug,
} from "./browser-support.js";

skipNotice("browser spectator tests");

const ADMIN_TOKEN = "browser-spectator-admin-token-0123456789";

/** The spectator page's camera tile (data-camera). */
async function cameraOf(page: Page): Promise<Tile | null> {
  const text = await page.getByTestId("game").getAttribute("data-camera");
  const match = text === null ? null : /^(-?\d+),(-?\d+)$/.exec(text);
  return match ? { x: Number(match[1]), y: Number(match[2]) } : null;
}

describe.skipIf(!HAVE_CHROMIUM)("spectating in Chromium", () => {
  let rig: BrowserRig;
  beforeAll(async () => {
    rig = await startRig({ adminToken: ADMIN_TOKEN });
  }, 120_000);
  afterAll(async () => rig?.close());

  it("watches with a free camera, follows a walking player by a click, and is never seen", async () => {
    const player = await openAndJoin(rig, "Watched", "debug=1");
    const game = rig.server.game;
    const playerId = [...game.sessions.values()][0].entity.id;

    const page = await rig.context.newPage();
    page.on("pageerror", (error) => console.error(`[spectator] page error: ${error.message}`));
    await page.goto(`${rig.baseUrl}/?spectate&debug=1`);
    await expect.poll(() => page.getByTestId("watch").isEnabled(), { timeout: 10_000 }).toBe(true);
    expect(await page.getByTestId("play").isVisible()).toBe(false);
    // Without the token the host's default (admins only) refuses, and says so.
    await page.getByTestId("watch").click();
    await expect.poll(() => page.getByTestId("spectate-error").textContent(), { timeout: 5000 }).toMatch(/admin/i);
    await page.getByTestId("admin-token").fill(ADMIN_TOKEN);
    await page.getByTestId("watch").click();
    await waitForDebug(page, (text) => /^state playing$/m.test(text), 10_000);
    expect(await page.getByTestId("spectate").isVisible()).toBe(false);

    // The player is drawn with its name over its head, as a player's page shows it.
    const canvas = page.getByTestId("game");
    await expect.poll(() => canvas.getAttribute("data-name-tags-shown"), { timeout: 8000 }).toMatch(/Watched/);
    // The server counts it apart; the player's page has nobody else in view.
    expect(game.spectators.size).toBe(1);
    expect(game.sessions.size).toBe(1);
    expect(game.entities.get(CAMERA_ENTITY_ID)).toBeUndefined();
    const playerSees = (await player.getByTestId("game").getAttribute("data-name-tags-shown")) ?? "";
    expect(playerSees.split("|")).toHaveLength(1);
    expect(playerSees).toMatch(/^Watched/);

    // A click on the player follows it; the player walks south, the camera goes with it.
    const camera = (await cameraOf(page))!;
    const start = positionIn((await player.getByTestId("debug").textContent()) ?? "")!;
    const at = await pointOfTile(page, camera, start);
    await page.mouse.click(at.x, at.y);
    await expect.poll(() => canvas.getAttribute("data-following"), { timeout: 5000 }).toBe(String(playerId));
    await player.getByTestId("game").focus();
    // Held until the player has left its tile (however slowly a busy machine runs the page), then let go.
    await player.keyboard.down("ArrowDown");
    await waitForDebug(player, (text) => (positionIn(text)?.y ?? start.y) !== start.y, 10_000);
    await player.keyboard.up("ArrowDown");
    const walked = await waitForDebug(
      player,
      (text) => /^pending 0$/m.test(text) && positionIn(text)?.y !== start.y && positionIn(text),
      8000,
    );
    await expect.poll(() => cameraOf(page), { timeout: 5000 }).toEqual(walked);
    const [watcher] = [...game.spectators.sessions.values()];
    expect({ x: watcher.entity.x, y: watcher.entity.y }).toEqual(walked);

    // Esc lets go; the arrow keys pan the free camera east, and the server's camera goes there too.
    await canvas.focus();
    await page.keyboard.press("Escape");
    await expect.poll(() => canvas.getAttribute("data-following"), { timeout: 3000 }).toBe("");
    await page.keyboard.down("ArrowRight");
    await expect.poll(async () => (await cameraOf(page))!.x > walked.x + 3, { timeout: 10_000 }).toBe(true);
    await page.keyboard.up("ArrowRight");
    const panned = (await cameraOf(page))!;
    expect(panned.y).toBe(walked.y);
    await expect.poll(() => watcher.entity.x, { timeout: 3000 }).toBe(panned.x);

    // A drag pans it as well: the world follows the pointer, the camera goes the other way.
    const box = (await canvas.boundingBox())!;
    const scale = box.width / 320;
    await page.mouse.move(box.x + 100 * scale, box.y + 100 * scale);
    await page.mouse.down();
    await page.mouse.move(box.x + 140 * scale, box.y + 100 * scale, { steps: 5 });
    await page.mouse.up();
    const dragged = (await cameraOf(page))!;
    // 40 framebuffer pixels are 5 tiles of 8 (the camera's fraction of a tile may round either way).
    expect(Math.abs(dragged.x - (panned.x - 5))).toBeLessThanOrEqual(1);
    await expect.poll(() => watcher.entity.x, { timeout: 3000 }).toBe(dragged.x);

    // Back over the player (a drag the other way), for a picture of what a spectator sees.
    await page.keyboard.down("ArrowLeft");
    await expect.poll(async () => (await cameraOf(page))!.x <= walked.x + 1, { timeout: 5000 }).toBe(true);
    await page.keyboard.up("ArrowLeft");
    await page.waitForTimeout(500);
    await page.screenshot({ path: join(ARTIFACTS, "spectate.png") });
    expect(game.sessions.size).toBe(1);
    await page.close();
    await expect.poll(() => game.spectators.size, { timeout: 5000 }).toBe(0);
    await player.close();
  }, 90_000);
});
