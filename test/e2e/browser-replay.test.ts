// Watching a recording in Chromium (docs/recording.md § Watch, docs/client.md § Watching a recording): a
// player's page walks on a recorded server; the recording is replayed by the watch server and its page
// (/?replay) shows it through the normal renderer — the walker's name over its head — with the replay
// bar: play, the player list (a click follows the walker), pause (the ticks stop), a seek backwards (the
// world made again: the page rejoins on its own) and forwards, each landing on the asked tick.
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { summarize } from "../../ts/server/recording/cut.js";
import { fileSource } from "../../ts/server/recording/format.js";
import { Logger } from "../../ts/server/ops/log.js";
import { ReplayPlayer } from "../../ts/server/replay-viewer/replay-player.js";
import { serveReplay, type ViewerServer } from "../../ts/server/replay-viewer/viewer-server.js";
import {
  ARTIFACTS,
  type BrowserRig,
  builtClientDir,
  HAVE_CHROMIUM,
  openAndJoin,
  positionIn,
  skipNotice,
  startRig,
  waitForDebug,
} from "./browser-support.js";

skipNotice("browser replay tests");

/** The replay bar's tick (data-tick), as the page last showed it. */
async function tickOf(page: Page): Promise<number> {
  return Number(await page.getByTestId("replay").getAttribute("data-tick"));
}

/** Moves the seek slider to `tick` and lets it go, as a drag would. */
async function seekTo(page: Page, tick: number): Promise<void> {
  await page.getByTestId("replay-seek").evaluate((slider, value) => {
    const input = slider as HTMLInputElement;
    input.value = String(value);
    input.dispatchEvent(new Event("input", { bubbles: true }));
    input.dispatchEvent(new Event("change", { bubbles: true }));
  }, tick);
}

describe.skipIf(!HAVE_CHROMIUM)("watching a recording in Chromium", () => {
  const dir = mkdtempSync(join(tmpdir(), "caves-browser-replay-"));
  let rig: BrowserRig;
  let player: ReplayPlayer | null = null;
  let viewer: ViewerServer | null = null;
  let walkerId = 0;

  beforeAll(async () => {
    rig = await startRig({ record: { dir } });
  }, 120_000);

  afterAll(async () => {
    await viewer?.close();
    await player?.close();
    await rig?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A recording of a player's page walking south and back: served by the watch server. */
  async function recordAndServe(): Promise<void> {
    // The walker: a player's page walking south and back on the recorded server.
    const walker = await openAndJoin(rig, "Walker", "debug=1");
    walkerId = [...rig.server.game.sessions.values()][0].entity.id;
    await walker.getByTestId("game").focus();
    const start = positionIn((await walker.getByTestId("debug").textContent()) ?? "")!;
    await walker.keyboard.down("ArrowDown");
    await waitForDebug(walker, (text) => (positionIn(text)?.y ?? start.y) > start.y + 1, 10_000);
    await walker.keyboard.up("ArrowDown");
    await walker.keyboard.down("ArrowUp");
    await waitForDebug(walker, (text) => (positionIn(text)?.y ?? start.y + 2) <= start.y, 10_000);
    await walker.keyboard.up("ArrowUp");
    await walker.waitForTimeout(3000); // seconds of the world standing on, to seek about in
    await walker.close();
    await rig.server.close(); // the recording ends
    const file = join(
      dir,
      readdirSync(dir).find((name) => name.endsWith(".fcrec"))!,
    );
    const source = fileSource(file);
    const { lastTick } = summarize(source);
    source.close();
    player = await ReplayPlayer.open({ file, lastTick, log: new Logger("silent") });
    viewer = await serveReplay(player, {
      host: "127.0.0.1",
      httpPort: 0,
      udpPort: 0,
      clientDir: builtClientDir(),
      log: new Logger("silent"),
    });
  }

  it("plays the recording, follows the walker from the list, pauses and seeks both ways", async () => {
    await recordAndServe();
    const page = await rig.context.newPage();
    page.on("pageerror", (error) => console.error(`[replay] page error: ${error.message}`));
    await page.goto(`http://127.0.0.1:${viewer!.httpPort}/?replay&debug=1`);
    // No card: the page watches at once, with the bar, paused at the start.
    const bar = page.getByTestId("replay");
    await expect.poll(() => bar.isVisible(), { timeout: 15_000 }).toBe(true);
    expect(await page.locator("#join").isVisible()).toBe(false);
    await expect.poll(() => page.getByTestId("replay-play").textContent(), { timeout: 5000 }).toBe("Play");
    expect(await page.getByTestId("replay-time").textContent()).toMatch(/^0:00\.0 \/ \d+:\d\d\.\d · tick 0$/);

    // Play (at 1×: the speed is chosen on the bar): the world moves, the walker is in it and in the list; a click there follows it.
    await page.getByTestId("replay-speed").selectOption("1");
    await page.getByTestId("replay-play").click();
    await waitForDebug(page, (text) => /^state playing$/m.test(text), 15_000);
    const walkerButton = page.getByTestId("replay-players").getByRole("button", { name: "Walker" });
    await expect.poll(() => walkerButton.count(), { timeout: 15_000 }).toBe(1);
    await walkerButton.click();
    const seenAt = player!.world.tick; // the walker is in the world from here on
    const canvas = page.getByTestId("game");
    await expect.poll(() => canvas.getAttribute("data-following"), { timeout: 5000 }).toBe(String(walkerId));
    await expect.poll(() => canvas.getAttribute("data-name-tags-shown"), { timeout: 8000 }).toMatch(/Walker/);
    await expect.poll(() => walkerButton.getAttribute("aria-pressed"), { timeout: 3000 }).toBe("true");

    // Pause: the ticks stop (the bar and the world agree).
    await expect.poll(() => player!.world.tick, { timeout: 10_000 }).toBeGreaterThan(seenAt + 30);
    await page.getByTestId("replay-play").click();
    await expect.poll(() => bar.getAttribute("data-playing"), { timeout: 5000 }).toBe("false");
    const pausedAt = player!.world.tick;
    await page.waitForTimeout(600);
    expect(player!.world.tick).toBe(pausedAt);
    await expect.poll(() => tickOf(page), { timeout: 3000 }).toBe(pausedAt);

    // Seek backwards: the world is made again and run to the tick; the page rejoins on its own.
    const back = seenAt + 5;
    const epoch = player!.state().epoch;
    await seekTo(page, back);
    await expect.poll(() => tickOf(page), { timeout: 30_000 }).toBe(back);
    expect(player!.state().epoch).toBe(epoch + 1);
    // Still paused, the page has rejoined the world made again and is shown where it stands: the walker.
    await expect.poll(() => player!.world.spectators.size, { timeout: 10_000 }).toBe(1);
    // (The debug overlay's "ack" is the tick of the last entity update the page took: the tick sought.)
    await waitForDebug(page, (text) => /^state playing$/m.test(text) && text.includes(`(ack ${back})`), 15_000);
    await expect.poll(() => canvas.getAttribute("data-name-tags-shown"), { timeout: 8000 }).toMatch(/Walker/);
    expect(player!.world.tick).toBe(back);
    // Forwards again, while playing: it lands, and the page plays on from there with the walker followed.
    await page.getByTestId("replay-play").click();
    const forward = Math.min(player!.lastTick - 24, back + 60);
    await seekTo(page, forward);
    await expect.poll(async () => (await tickOf(page)) >= forward, { timeout: 30_000 }).toBe(true);
    await waitForDebug(page, (text) => /^state playing$/m.test(text), 15_000);
    await expect.poll(() => canvas.getAttribute("data-name-tags-shown"), { timeout: 8000 }).toMatch(/Walker/);
    await page.getByTestId("replay-play").click();
    await page.waitForTimeout(400);
    await page.screenshot({ path: join(ARTIFACTS, "replay.png") });
    expect(player!.state().divergence).toBeNull();
    await page.close();
  }, 180_000);
});
