// The browser in a cluster (issue 19: WebRTC at the gateway): Chromium opens a gateway of a real cluster
// (`ts/cluster/main.ts`: redis-server, two regions, one gateway, all on loopback), joins, and plays over
// a WebRTC data channel the gateway answers and forwards — the session handed from region 0 (where joins
// land) to region 1 (whose ground the spawn is) on the way — then walks. Needs /usr/bin/chromium and
// redis-server; without either the suite says so and is skipped.
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clusterSkipReason, startTestCluster, type TestCluster, until } from "../support/cluster-process.js";
import { builtClientDir, CHROMIUM, CHROMIUM_ARGS, HAVE_CHROMIUM, positionIn, waitForDebug } from "./browser-support.js";

const skip = !HAVE_CHROMIUM ? `no ${CHROMIUM}` : clusterSkipReason();
if (skip !== null) process.stderr.write(`test/e2e/browser-cluster.test.ts skipped: ${skip}\n`);

describe.skipIf(skip !== null)("the browser client in a cluster", () => {
  let cluster: TestCluster;
  let browser: Browser;

  beforeAll(async () => {
    cluster = await startTestCluster(1, ["--client-dir", builtClientDir()]);
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await cluster?.stop();
  }, 30_000);

  it("plays over a WebRTC data channel through the gateway, handed to the spawn's region, and walks", async () => {
    const page = await browser.newPage({ viewport: { width: 1000, height: 760 } });
    page.on("pageerror", (error) => console.error(`[cluster page] ${error.message}`));
    await page.goto(`http://127.0.0.1:${cluster.ready.gateways[0].httpPort}/?debug=1`);
    await expect.poll(() => page.getByTestId("play").isEnabled(), { timeout: 10_000 }).toBe(true);
    await page.getByTestId("nick").fill("Rtc");
    await page.getByTestId("play").click();
    await waitForDebug(page, (text) => /^state playing$/m.test(text) && positionIn(text), 15_000);
    await waitForDebug(page, (text) => /^transport webrtc$/m.test(text), 10_000);
    expect(await page.getByTestId("status").textContent()).toMatch(/^Playing as Rtc via webrtc$/);
    const gateway = async () =>
      (await (await fetch(`http://127.0.0.1:${cluster.ready.gateways[0].httpPort}/api/gateway`)).json()) as {
        webrtc: { open: number; answered: number };
      };
    expect((await gateway()).webrtc.answered).toBeGreaterThanOrEqual(1);
    await until("region 1 playing it", async () => (await cluster.regionStatus(1)).players === 1);
    // A walk west, key by key: the steps reach region 1 through the data channel, and their State comes back.
    const start = positionIn((await page.getByTestId("debug").textContent()) ?? "")!;
    await page.locator("#game").focus();
    for (let i = 0; i < 3; i++) {
      await page.keyboard.press("ArrowLeft");
      await page.waitForTimeout(250);
    }
    const moved = await waitForDebug(
      page,
      (text) => {
        const at = positionIn(text);
        return at !== null && at.x === start.x - 3 && at.y === start.y && at;
      },
      10_000,
    );
    expect(moved).toEqual({ x: start.x - 3, y: start.y });
    await page.close();
  }, 60_000);
});
