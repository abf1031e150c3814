// The console's Follow at a cluster's gateway (issue 43): in Debian's Chromium against a real cluster
// (ts/cluster/main.ts: redis-server, two regions, one gateway, on loopback) started with an admin token, the
// operator logs in at the gateway's /admin, selects a player standing on region 1's ground and follows it with
// the spectator camera. The player then walks west over the border onto region 0's ground and back: the view
// goes on without the operator doing anything — the page keeps its link and keeps following the player, its
// name tag drawn and the page's camera on it — while the spectator's session moves from region to region with
// the player (docs/scaling.md § Following across regions). Closing the frame ends the spectator's session.
// Before, the gateway served no spectators and the console hid Follow there.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, chromium, type Frame } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HANDOFF_MARGIN_TILES } from "../../ts/cluster/layout.js";
import { ACTION_DX, ACTION_DY } from "../../ts/protocol/action.js";
import { BORDER_X, clusterSkipReason, startTestCluster, type TestCluster, until } from "../support/cluster-process.js";
import { postJson } from "../support/game-harness.js";
import { type Joined, UdpTestClient } from "../support/udp-client.js";
import { walkSteps } from "../support/walk.js";
import { ARTIFACTS, builtClientDir, CHROMIUM, CHROMIUM_ARGS, HAVE_CHROMIUM } from "./browser-support.js";

const skip = !HAVE_CHROMIUM ? `no ${CHROMIUM}` : clusterSkipReason();
if (skip !== null) process.stderr.write(`test/e2e/admin-console-cluster-follow.test.ts skipped: ${skip}\n`);

const WEST = ACTION_DX.findIndex((dx, code) => code > 0 && dx === -1 && ACTION_DY[code] === 0);
const EAST = ACTION_DX.findIndex((dx, code) => code > 0 && dx === 1 && ACTION_DY[code] === 0);
const TOKEN = "cluster-follow-token-0123456789abcdef";
/** The test map's spawn column (test/support/test-map.ts): region 1's ground. */
const SPAWN_X = 40;

interface SpectatorFigures {
  count: number;
  following: number;
  handedIn: number;
  handedOut: number;
}

describe.skipIf(skip !== null)("the console's Follow at a cluster's gateway, in Chromium", () => {
  let cluster: TestCluster;
  let browser: Browser;
  let dir: string;
  let ann: UdpTestClient | null = null;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "caves-cluster-follow-"));
    const tokenFile = join(dir, "admin-token");
    writeFileSync(tokenFile, `${TOKEN}\n`);
    cluster = await startTestCluster(1, ["--admin-token-file", tokenFile, "--client-dir", builtClientDir()]);
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  }, 120_000);

  afterAll(async () => {
    ann?.close();
    await browser?.close();
    await cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  const gateway = () => cluster.ready.gateways[0].httpPort;
  /** Region `region`'s spectators, as its /api/status counts them. */
  async function spectatorsOf(region: number): Promise<SpectatorFigures> {
    const entry = cluster.ready.regions.find((r) => r.region === region)!;
    const status = (await (await fetch(`http://127.0.0.1:${entry.httpPort}/api/status`)).json()) as {
      spectators: SpectatorFigures;
    };
    return status.spectators;
  }

  it("follows a player over the border and back: the view goes on from the other region by itself", async () => {
    const joined = await postJson(gateway(), "/api/guest", { nick: "Ann" });
    expect(joined.status).toBe(200);
    ann = await (await UdpTestClient.withSession(joined.body as unknown as Joined)).sign().placed();
    const id = ann.joined.entityId;
    await until("Ann held by region 1", async () => (await cluster.ownerOf(id)) === 1);

    const context = await browser.newContext({
      httpCredentials: { username: "host", password: TOKEN },
      viewport: { width: 1200, height: 800 },
    });
    const page = await context.newPage();
    page.on("pageerror", (error) => console.error(`[console] page error: ${error.message}`));
    await page.goto(`http://127.0.0.1:${gateway()}/admin`);
    await page.waitForFunction(() => document.getElementById("status")?.textContent === "live");
    await page.waitForFunction(() => document.getElementById("players")?.textContent?.includes("Ann"));
    await page.click("#players li:text('Ann')");
    await page.waitForFunction(() => /region1/.test(document.getElementById("selected")?.textContent ?? ""));
    // Follow is offered at a gateway now.
    expect(await page.isVisible("#do-follow")).toBe(true);
    await page.click("#do-follow");
    const handle = await page.waitForSelector("#follow-frame");
    const frame: Frame = (await handle.contentFrame())!;
    const canvas = frame.getByTestId("game");
    await expect.poll(() => canvas.getAttribute("data-following"), { timeout: 15_000 }).toBe(String(id));
    // Region 1, which holds Ann, serves the view.
    await until("region 1 serving the spectator", async () => (await spectatorsOf(1)).following === 1);
    expect((await spectatorsOf(0)).count).toBe(0);

    /** The page still follows Ann, draws her name and has its camera within a few tiles of where she is. */
    async function stillOnAnn(): Promise<void> {
      await expect.poll(() => canvas.getAttribute("data-following"), { timeout: 5000 }).toBe(String(id));
      await expect.poll(() => canvas.getAttribute("data-name-tags-shown"), { timeout: 5000 }).toContain("Ann");
      const at = ann!.position()!;
      await expect
        .poll(
          async () => {
            const camera = (await canvas.getAttribute("data-camera"))!.split(",").map(Number);
            return Math.max(Math.abs(camera[0] - at.x), Math.abs(camera[1] - at.y));
          },
          { timeout: 5000 },
        )
        .toBeLessThanOrEqual(2);
    }
    await stillOnAnn();

    // West over the border onto region 0's ground: Ann is handed to region 0, and the spectator with her.
    await walkSteps(
      ann,
      Array.from({ length: SPAWN_X - BORDER_X + HANDOFF_MARGIN_TILES + 2 }, () => WEST),
    );
    await until("Ann held by region 0", async () => (await cluster.ownerOf(id)) === 0);
    await until("region 0 serving the spectator", async () => (await spectatorsOf(0)).following === 1);
    expect((await spectatorsOf(1)).count).toBe(0);
    expect((await spectatorsOf(1)).handedOut).toBe(1);
    expect(ann.position()!.x).toBeLessThan(BORDER_X - HANDOFF_MARGIN_TILES);
    await stillOnAnn();
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, "admin-console-cluster-follow.png") });

    // And back east: region 1 serves it again.
    await walkSteps(
      ann,
      Array.from({ length: 2 * HANDOFF_MARGIN_TILES + 4 }, () => EAST),
    );
    await until("Ann held by region 1 again", async () => (await cluster.ownerOf(id)) === 1);
    await until("region 1 serving the spectator again", async () => (await spectatorsOf(1)).following === 1);
    expect((await spectatorsOf(0)).count).toBe(0);
    await stillOnAnn();
    // One link all along: the page never joined again (one spectator joined through the gateway).
    const gatewayStatus = (await (await fetch(`http://127.0.0.1:${gateway()}/api/gateway`)).json()) as {
      spectatorsJoined: number;
    };
    expect(gatewayStatus.spectatorsJoined).toBe(1);

    // Closing the frame ends the spectator's session in the region serving it.
    await page.click("#follow-close");
    await until("the spectator ended", async () => (await spectatorsOf(1)).count === 0);
    await context.close();
  }, 120_000);

  it("refuses a spectator without the admin login at the gateway, and one from another site's page", async () => {
    const post = (headers: Record<string, string>) =>
      fetch(`http://127.0.0.1:${gateway()}/api/spectate`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify({ x: SPAWN_X, y: 10 }),
      });
    expect((await post({})).status).toBe(401);
    expect((await post({ authorization: `Bearer ${"b".repeat(40)}` })).status).toBe(401);
    const foreign = await post({ authorization: `Bearer ${TOKEN}`, origin: "http://evil.example" });
    expect(foreign.status).toBe(403);
    const allowed = await post({ authorization: `Bearer ${TOKEN}` });
    expect(allowed.status).toBe(200);
    const body = (await allowed.json()) as { token: string; udpPort: number; spectator: boolean };
    expect(body).toMatchObject({ spectator: true, udpPort: cluster.ready.gateways[0].udpPort });
  }, 30_000);
});
