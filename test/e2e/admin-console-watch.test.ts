// Watching from the operators' console (issue 43), in Debian's Chromium against a real server recording to a
// temp folder, with a real bot wandering over UDP. The entity panel's Follow opens the game's own page in a
// frame over the main area, watching as a spectator with the credentials the browser holds (the console's
// login; no token in a URL) and following the bot server-side — its sprite, drawn with its name over it, stays
// in view while it walks; closing the frame ends the spectator's session. The Recordings tab lists the live
// recording, cuts it around a tick (the answer said on the page, the cut listed) and downloads the cut byte for
// byte; a bad moment is refused in words. At desktop and tablet sizes, with screenshots to look at.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, chromium, type Frame, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Swarm } from "../../ts/bots/swarm.js";
import { Logger } from "../../ts/server/ops/log.js";
import { type RunningServer, startServer } from "../../ts/server/server.js";
import { loadCore } from "../../ts/wasm/node.js";
import {
  ARTIFACTS,
  builtClientDir,
  CHROMIUM,
  CHROMIUM_ARGS,
  HAVE_CHROMIUM,
  MAP_PATH,
  skipNotice,
} from "./browser-support.js";

skipNotice("test/e2e/admin-console-watch.test.ts");

const TOKEN = "console-follow-token-0123456789abcdef";

describe.skipIf(!HAVE_CHROMIUM)("the console's Follow, in Chromium", () => {
  let server: RunningServer;
  let bots: Swarm;
  let browser: Browser;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "caves-console-follow-"));
    server = await startServer({
      host: "127.0.0.1",
      httpPort: 0,
      udpPort: 0,
      mapPath: MAP_PATH,
      logger: new Logger("silent"),
      adminToken: TOKEN,
      clientDir: builtClientDir(),
      record: { dir: join(dir, "recordings") },
    });
    bots = new Swarm({
      count: 1,
      http: `http://127.0.0.1:${server.httpPort}`,
      server: null,
      behaviour: "wander",
      goal: null,
      netsim: null,
      seed: 7,
      nickPrefix: "walker",
      joinParallel: 1,
      updateMs: 20,
      loadCore: () => loadCore(),
    });
    await bots.joinAll();
    bots.start();
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  }, 120_000);

  afterAll(async () => {
    bots?.stop();
    await browser?.close();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The console, logged in, with the walker selected from the players' list. */
  async function consoleWithWalker(viewport: { width: number; height: number }, touch: boolean): Promise<Page> {
    const context = await browser.newContext({
      httpCredentials: { username: "host", password: TOKEN },
      viewport,
      hasTouch: touch,
    });
    const page = await context.newPage();
    page.on("pageerror", (error) => console.error(`[console] page error: ${error.message}`));
    await page.goto(`http://127.0.0.1:${server.httpPort}/admin`);
    await page.waitForFunction(() => document.getElementById("status")?.textContent === "live");
    await page.waitForFunction(() => document.getElementById("players")?.textContent?.includes("walker1"));
    await page.click("#players li");
    await page.waitForFunction(() => document.getElementById("selected")?.textContent?.includes("walker1"));
    return page;
  }

  /** The spectator page inside the console's frame, once it is there. */
  async function followFrame(page: Page): Promise<Frame> {
    const handle = await page.waitForSelector("#follow-frame");
    const frame = await handle.contentFrame();
    if (frame === null) throw new Error("the follow frame has no document");
    return frame;
  }

  const walker = () => [...server.game.sessions.values()].find((session) => session.nick === "walker1")!;

  it("follows the walking bot: its sprite stays in view as it walks, and closing ends the session", async () => {
    const page = await consoleWithWalker({ width: 1200, height: 800 }, false);
    const id = walker().entity.id;
    // Its session's figures: the transport, and the round trip the server timed from its acknowledgements.
    await page.waitForFunction(() => /rtt[\d.]+ ms/.test(document.getElementById("selected")?.textContent ?? ""));
    expect(await page.textContent("#selected")).toContain("transportudp");
    await page.click("#do-follow");
    expect(await page.getAttribute("#follow", "data-entity-id")).toBe(String(id));
    expect(await page.textContent("#follow-title")).toContain("walker1");
    // The frame's address names the entity and its tile, never the token.
    const source = (await page.getAttribute("#follow-frame", "src"))!;
    expect(source).toMatch(new RegExp(`^/\\?spectate&follow=${id}&x=\\d+&y=\\d+$`));
    expect(source).not.toContain(TOKEN);

    const frame = await followFrame(page);
    const canvas = frame.getByTestId("game");
    await expect.poll(() => canvas.getAttribute("data-following"), { timeout: 15_000 }).toBe(String(id));
    expect(server.game.spectators.size).toBe(1);
    expect(await frame.getByTestId("spectate").isVisible()).toBe(false);

    // While the bot walks (its tile, as the server has it, changes several times), the page keeps following it:
    // its name tag is drawn (it is in view), the page's camera stays near it, the server's camera is on it.
    const [watcher] = [...server.game.spectators.sessions.values()];
    const seen = new Set<string>();
    for (let look = 0; seen.size < 4; look++) {
      expect(look, `the bot walked over ${seen.size} tiles only`).toBeLessThan(150);
      await page.waitForTimeout(200);
      const entity = walker().entity;
      const at = { x: entity.x, y: entity.y };
      if (seen.has(`${at.x},${at.y}`)) continue;
      seen.add(`${at.x},${at.y}`);
      await expect.poll(() => canvas.getAttribute("data-name-tags-shown"), { timeout: 3000 }).toContain("walker1");
      expect(await canvas.getAttribute("data-following")).toBe(String(id));
      const camera = (await canvas.getAttribute("data-camera"))!.split(",").map(Number);
      // The page's camera glides after the bot: within a few tiles of where the server has it now.
      expect(
        Math.max(Math.abs(camera[0] - walker().entity.x), Math.abs(camera[1] - walker().entity.y)),
      ).toBeLessThanOrEqual(4);
      await expect
        .poll(
          () =>
            Math.max(Math.abs(watcher.entity.x - walker().entity.x), Math.abs(watcher.entity.y - walker().entity.y)),
          {
            timeout: 3000,
          },
        )
        .toBeLessThanOrEqual(1);
    }
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, "admin-console-follow-desktop.png") });

    // Closing the frame closes the spectator's link: the server ends its session at once.
    await page.click("#follow-close");
    expect(await page.isHidden("#follow")).toBe(true);
    await expect.poll(() => server.game.spectators.size, { timeout: 5000 }).toBe(0);
    expect(server.game.sessions.size).toBe(1);
    await page.context().close();
  }, 90_000);

  it("fits a tablet: Follow by a tap, the view over the main area, and Close", async () => {
    const page = await consoleWithWalker({ width: 1024, height: 768 }, true);
    await page.tap("#do-follow");
    const frame = await followFrame(page);
    await expect
      .poll(() => frame.getByTestId("game").getAttribute("data-following"), { timeout: 15_000 })
      .toBe(String(walker().entity.id));
    await expect
      .poll(() => frame.getByTestId("game").getAttribute("data-name-tags-shown"), { timeout: 5000 })
      .toContain("walker1");
    // The view is on the screen, beside the side panel, and the page does not scroll sideways.
    const box = (await page.locator("#follow-frame").boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(1024);
    expect(box.height).toBeGreaterThan(400);
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, "admin-console-follow-tablet.png") });
    await page.tap("#follow-close");
    await expect.poll(() => server.game.spectators.size, { timeout: 5000 }).toBe(0);
    await page.context().close();
  }, 60_000);

  it("Recordings: the live recording listed, a cut made around a tick and listed, the cut downloaded byte for byte", async () => {
    const context = await browser.newContext({
      httpCredentials: { username: "host", password: TOKEN },
      viewport: { width: 1200, height: 800 },
      acceptDownloads: true,
    });
    const page = await context.newPage();
    page.on("pageerror", (error) => console.error(`[console] page error: ${error.message}`));
    await page.goto(`http://127.0.0.1:${server.httpPort}/admin`);
    // Some seconds of the bot walking, to cut from.
    const at = server.game.tick + 24;
    await expect.poll(() => server.game.tick, { timeout: 20_000 }).toBeGreaterThan(at + 48);

    await page.click("#tabs [data-tab=recordings]");
    await page.waitForSelector("#recording-list tbody tr");
    // The one recording in the folder: the one being written.
    const [live] = readdirSync(join(dir, "recordings")).filter((name) => name.endsWith(".fcrec"));
    const row = page.locator(`#recording-list tbody tr[data-name="${live}"]`);
    expect(await row.locator("td").nth(4).textContent()).toBe("live");
    expect(await page.inputValue("#cut-name")).toBe(live);

    // A moment the recording cannot be cut at is refused, in the API's own words.
    await page.fill("#cut-at", "yesterday at noon");
    await page.click("#cut-go");
    await page.waitForFunction(() =>
      document.getElementById("recordings-result")?.textContent?.startsWith("cut refused"),
    );
    expect(await page.textContent("#recordings-result")).toMatch(/^cut refused \(400\): .*HH:MM/);

    // Cut around a tick, a second before and a second after: the answer says what was cut, and it is listed.
    await page.fill("#cut-at", String(at));
    await page.fill("#cut-before", "1");
    await page.fill("#cut-after", "1");
    await page.click("#cut-go");
    await page.waitForFunction(() =>
      document.getElementById("recordings-result")?.textContent?.startsWith("cut ticks"),
    );
    const said = (await page.textContent("#recordings-result"))!;
    expect(said).toContain(`cut ticks ${at - 24}–${at + 24} of ${live} (around tick ${at}) into cuts/`);
    const cutName = /into cuts\/(\S+\.fcrec)/.exec(said)![1];
    const cutRow = page.locator(`#recording-list tbody tr[data-name="${cutName}"]`);
    await cutRow.waitFor();
    expect(await cutRow.locator("td").nth(5).textContent()).toBe(`ticks ${at - 24}–${at + 24} of ${live}`);
    expect(await cutRow.locator("td").nth(4).textContent()).toBe("done");

    // Downloaded through the page (fetch and a blob: the address names the file only), the bytes on disk.
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      cutRow.locator("button:text('Download')").click(),
    ]);
    expect(download.suggestedFilename()).toBe(cutName);
    const saved = join(dir, "downloaded.fcrec");
    await download.saveAs(saved);
    expect(Buffer.compare(readFileSync(saved), readFileSync(join(dir, "recordings", "cuts", cutName)))).toBe(0);
    await page.waitForFunction(() =>
      document.getElementById("recordings-result")?.textContent?.startsWith("downloaded"),
    );
    // The cut is in the admin log beside the map.
    await page.waitForFunction(() => document.getElementById("admin-log")?.textContent?.includes("recording cut"));
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, "admin-console-recordings-desktop.png") });
    await page.setViewportSize({ width: 1024, height: 768 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
    await page.screenshot({ path: join(ARTIFACTS, "admin-console-recordings-tablet.png") });
    await context.close();
  }, 90_000);

  it("Recordings: Watch plays the cut in the frame, through the server — the walker in the replayed world; Close stops the viewer", async () => {
    const context = await browser.newContext({
      httpCredentials: { username: "host", password: TOKEN },
      viewport: { width: 1200, height: 800 },
    });
    const page = await context.newPage();
    page.on("pageerror", (error) => console.error(`[console] page error: ${error.message}`));
    await page.goto(`http://127.0.0.1:${server.httpPort}/admin`);
    await page.click("#tabs [data-tab=recordings]");
    // The cut the test before made: a whole recording of its own.
    const [cutName] = readdirSync(join(dir, "recordings", "cuts")).filter((name) => name.endsWith(".fcrec"));
    const cutRow = page.locator(`#recording-list tbody tr[data-name="${cutName}"]`);
    await cutRow.waitFor();
    await cutRow.locator("button:text('Watch')").click();
    await page.waitForFunction(
      () => document.getElementById("recordings-result")?.textContent?.startsWith("replaying"),
      undefined,
      { timeout: 60_000 },
    );
    // The frame shows the viewer's page through this server (its own path under /api/admin/viewers/), never the token.
    const source = (await page.getAttribute("#follow-frame", "src"))!;
    expect(source).toMatch(/^\/api\/admin\/viewers\/[0-9a-f]+\/\?replay&transport=websocket$/);
    expect(source).not.toContain(TOKEN);
    const frame = await followFrame(page);
    const bar = frame.getByTestId("replay");
    await expect.poll(() => bar.isVisible(), { timeout: 20_000 }).toBe(true);
    // Play: the replayed world moves, the walker is in it and in the list; a click there follows it, its name drawn.
    await frame.getByTestId("replay-speed").selectOption("1");
    await frame.getByTestId("replay-play").click();
    const walkerButton = frame.getByTestId("replay-players").getByRole("button", { name: "walker1" });
    await expect.poll(() => walkerButton.count(), { timeout: 20_000 }).toBe(1);
    await walkerButton.click();
    const canvas = frame.getByTestId("game");
    await expect.poll(() => canvas.getAttribute("data-name-tags-shown"), { timeout: 15_000 }).toMatch(/walker1/);
    expect(await frame.getByTestId("replay-time").textContent()).toMatch(/tick \d+/);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, "admin-console-watch-replay.png") });
    // The live world has no spectator of it: the viewer is a world of its own.
    expect(server.game.spectators.size).toBe(0);

    // Closing the frame stops the viewer: the admin API lists none.
    await page.click("#follow-close");
    expect(await page.isHidden("#follow")).toBe(true);
    await expect
      .poll(
        async () =>
          (
            (await (
              await fetch(`http://127.0.0.1:${server.httpPort}/api/admin/viewers`, {
                headers: { authorization: `Bearer ${TOKEN}` },
              })
            ).json()) as { viewers: unknown[] }
          ).viewers.length,
        { timeout: 10_000 },
      )
      .toBe(0);
    await page.waitForFunction(() => document.getElementById("admin-log")?.textContent?.includes("viewer stop"));
    await context.close();
  }, 120_000);
});
