// The admin API of a cluster (ts/cluster/admin-fanout.ts), over HTTP at a gateway of a real cluster
// started with --admin-token-file: the players of both regions in one list; a mute found in whichever
// region holds the player and kept when the player crosses the border (it travels in the handoff); a kick
// reaching the region holding the player; a wrong token refused by every region; announcements heard in
// both; the regions' logs merged; a ban with a wrong token refused. (Before, /api/admin/* at a gateway went
// to region 0, which served no admin routes: 404 for everything.) And the operators' console at a gateway:
// the page behind the token, the whole world's players once each with the regions' grounds, one entity from
// the region that owns it, a message and a teleport acted on by the owner — and, in Chromium, the live map
// with both regions' players and the borders drawn.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GHOST_RADIUS_TILES, HANDOFF_MARGIN_TILES } from "../ts/cluster/layout.js";
import { ACTION_DX, ACTION_DY } from "../ts/protocol/action.js";
import { CHAT_STATUS_NAMES } from "../ts/protocol/chat-post-ack.js";
import { encodePacketToBytes } from "../ts/protocol/packet.js";
import { BORDER_X, clusterSkipReason, startTestCluster, type TestCluster, until } from "./support/cluster-process.js";
import { postJson } from "./support/game-harness.js";
import { type Joined, joinSpectator, UdpTestClient } from "./support/udp-client.js";
import { walkSteps } from "./support/walk.js";
import { ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, HAVE_CHROMIUM } from "./e2e/browser-support.js";

const skip = clusterSkipReason();
if (skip !== null) process.stderr.write(`test/cluster-admin.test.ts skipped: ${skip}\n`);

const WEST = ACTION_DX.findIndex((dx, code) => code > 0 && dx === -1 && ACTION_DY[code] === 0);
const EAST = ACTION_DX.findIndex((dx, code) => code > 0 && dx === 1 && ACTION_DY[code] === 0);
const TOKEN = "a".repeat(16) + "0123456789abcdef0123456789abcdef";
/** The test map's spawn column (test/support/test-map.ts): region 1's ground. */
const SPAWN_X = 40;

describe.skipIf(skip !== null)("the admin API of a cluster, at a gateway", () => {
  let cluster: TestCluster;
  let dir: string;
  const clients: UdpTestClient[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "caves-cluster-admin-"));
    const tokenFile = join(dir, "admin-token");
    writeFileSync(tokenFile, `${TOKEN}\n`);
    cluster = await startTestCluster(1, ["--admin-token-file", tokenFile, "--record", join(dir, "recordings")]);
  }, 120_000);

  afterAll(async () => {
    for (const client of clients) client.close();
    await cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 20_000);

  const gateway = () => cluster.ready.gateways[0].httpPort;
  async function admin(
    method: "GET" | "POST",
    path: string,
    body?: unknown,
    token = TOKEN,
  ): Promise<{ status: number; body: Record<string, unknown> }> {
    const response = await fetch(`http://127.0.0.1:${gateway()}/api/admin/${path}`, {
      method,
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }
  async function guest(nick: string): Promise<UdpTestClient> {
    const joined = await postJson(gateway(), "/api/guest", { nick });
    expect(joined.status).toBe(200);
    const client = await (await UdpTestClient.withSession(joined.body as unknown as Joined)).sign().placed();
    clients.push(client);
    return client;
  }
  /** Each client's last line: a session's lines are numbered from 1, one after another. */
  const lastLine = new Map<UdpTestClient, number>();
  /** Says `text` and resolves with the ChatPostAck's status. */
  async function say(client: UdpTestClient, text: string): Promise<string> {
    const mine = (lastLine.get(client) ?? 0) + 1;
    lastLine.set(client, mine);
    client.sendRaw(encodePacketToBytes({ type: "chat_post", clientType: 0, authToken: client.token, seq: mine, text }));
    return client.waitFor(`the ack of line ${mine}`, () => {
      for (const { packet } of client.received) {
        if (packet?.type === "chat_post_ack" && packet.seq === mine) return CHAT_STATUS_NAMES[packet.status];
      }
      return undefined;
    });
  }
  const playersNow = async () =>
    (await admin("GET", "players")).body.players as { nick: string; entityId: number; region: number }[];

  it("lists, mutes across a border, kicks, announces and logs in every region; refuses wrong tokens", async () => {
    const ann = await guest("Ann");
    // Ann walks west onto region 0's ground; Bob stays at the spawn, region 1's.
    await walkSteps(
      ann,
      Array.from({ length: SPAWN_X - BORDER_X + HANDOFF_MARGIN_TILES + 2 }, () => WEST),
    );
    const bob = await guest("Bob");
    const regionOf = async (nick: string) => (await playersNow()).find((p) => p.nick === nick)?.region;
    await until(
      "Ann in region 0 and Bob in region 1",
      async () => (await regionOf("Ann")) === 0 && (await regionOf("Bob")) === 1,
    );

    // Every region refuses a wrong token (each logs it); the gateway says so once.
    const wrong = await admin("GET", "players", undefined, "b".repeat(40));
    expect(wrong.status).toBe(401);

    // Muted by nick (any case), found in region 0.
    const muted = await admin("POST", "mute", { nick: "ann", reason: "shouting" });
    expect(muted.status).toBe(200);
    expect(muted.body.region).toBe(0);
    expect(await say(ann, "hello?")).toBe("refused");
    // Back east across the border: region 1 holds Ann now, and the mute came with her.
    await walkSteps(
      ann,
      Array.from({ length: 2 * HANDOFF_MARGIN_TILES + 4 }, () => EAST),
    );
    await until("Ann in region 1", async () => (await regionOf("Ann")) === 1);
    expect(await say(ann, "still?")).toBe("refused");
    const unmuted = await admin("POST", "unmute", { nick: "Ann" });
    expect(unmuted).toMatchObject({ status: 200, body: { lifted: true, region: 1 } });
    expect(await say(ann, "thanks")).toBe("posted");

    // A kick reaches the region holding the player; nobody else is touched.
    expect((await admin("POST", "kick", { nick: "Nobody" })).status).toBe(404);
    const kicked = await admin("POST", "kick", { entityId: bob.joined.entityId, reason: "testing" });
    expect(kicked).toMatchObject({ status: 200, body: { region: 1, nick: "Bob" } });
    await until("Bob gone", async () => (await playersNow()).every((p) => p.nick !== "Bob"));
    expect((await playersNow()).map((p) => p.nick)).toContain("Ann");

    // An announcement is said once and heard everywhere (region 0 says it; the chat relay carries it).
    expect((await admin("POST", "announce", { text: "Server restarts soon" })).status).toBe(200);
    await ann.waitFor("the announcement", () =>
      ann.received.some(({ packet }) => packet?.type === "chat" && packet.text.includes("Server restarts soon")),
    );

    // A ban's token is checked by every region too (bans themselves: test/cluster-bans.test.ts).
    expect((await admin("POST", "ban", { nick: "Ann", reason: "x" }, "c".repeat(40))).status).toBe(401);

    // The regions' logs, merged newest first, each entry naming its region.
    const log = (await admin("GET", "log?limit=20")).body.entries as { action: string; atMs: number; region: number }[];
    const actions = log.map((entry) => `${entry.action}@${entry.region}`);
    expect(actions).toEqual(expect.arrayContaining(["mute@0", "unmute@1", "kick@1", "announce@0"]));
    expect(log.map((entry) => entry.atMs)).toEqual([...log.map((entry) => entry.atMs)].sort((a, b) => b - a));
  }, 90_000);

  it("serves the console: the page behind the token, the whole world with its borders, actions at the owner", async () => {
    const base = `http://127.0.0.1:${gateway()}`;
    const basic = `Basic ${Buffer.from(`host:${TOKEN}`).toString("base64")}`;
    // The page and its files: nothing without the token, and the browser asked for it (a Basic challenge).
    const refused = await fetch(`${base}/admin`);
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toBe('Basic realm="admin"');
    expect(await refused.text()).not.toContain("<canvas");
    const page = await fetch(`${base}/admin`, { headers: { authorization: basic } });
    expect([page.status, await page.text()]).toEqual([200, expect.stringContaining("<canvas")]);
    const map = await fetch(`${base}/api/admin/map`, { headers: { authorization: basic } });
    const width = Number(map.headers.get("x-map-width"));
    expect(width).toBeGreaterThan(BORDER_X);
    expect((await map.arrayBuffer()).byteLength % width).toBe(0);

    // Cid on region 0's ground, Dee on region 1's.
    const cid = await guest("Cid");
    await walkSteps(
      cid,
      Array.from({ length: SPAWN_X - BORDER_X + HANDOFF_MARGIN_TILES + 2 }, () => WEST),
    );
    const dee = await guest("Dee");
    const regionOf = async (nick: string) => (await playersNow()).find((p) => p.nick === nick)?.region;
    await until(
      "Cid in region 0, Dee in region 1",
      async () => (await regionOf("Cid")) === 0 && (await regionOf("Dee")) === 1,
    );

    // The world: each player once (a neighbour's ghost is not listed twice), with its region; both grounds.
    const world = (await admin("GET", "world")).body as {
      players: { nick: string; region: number; x: number }[];
      regions: { region: number; rects: { x0: number; y0: number; x1: number; y1: number }[] }[];
    };
    const listed = world.players.filter((p) => p.nick === "Cid" || p.nick === "Dee");
    expect(listed.map((p) => `${p.nick}@${p.region}`).sort()).toEqual(["Cid@0", "Dee@1"]);
    expect(world.regions.map((r) => r.region).sort((a, b) => a - b)).toEqual([0, 1]);
    expect(world.regions.find((r) => r.region === 1)!.rects[0]).toMatchObject({ x0: BORDER_X, y0: 0 });
    // Ten consoles asking at once are answered with one world, put together once (shared-answer.ts); a wrong
    // login is never given it, but asked of the regions, which refuse it.
    const sharing = async () =>
      ((await (await fetch(`${base}/api/gateway`)).json()) as { consoleWorld: { asked: number; shared: number } })
        .consoleWorld;
    const before = await sharing();
    const ten = await Promise.all(Array.from({ length: 10 }, () => admin("GET", "world")));
    expect(ten.map((answer) => answer.status)).toEqual(Array(10).fill(200));
    expect(new Set(ten.map((answer) => answer.body.tick)).size).toBe(1);
    const after = await sharing();
    // Every ask is one or the other; most are shared (one put together is shared while it is, and for 500 ms).
    expect(after.asked - before.asked + (after.shared - before.shared)).toBe(10);
    expect(after.shared - before.shared).toBeGreaterThanOrEqual(5);
    expect((await admin("GET", "world", undefined, "d".repeat(40))).status).toBe(401);
    // The chat each region keeps of the lines said in it, as one list: newest first, each line's region named.
    expect(await say(cid, "from the west")).toBe("posted");
    expect(await say(dee, "from the east")).toBe("posted");
    const chat = (await admin("GET", "chat?limit=10")).body.lines as {
      nick: string;
      text: string;
      region: number;
      atMs: number;
    }[];
    expect(
      chat.filter((line) => line.text.startsWith("from the")).map((line) => `${line.nick}@${line.region}`),
    ).toEqual(["Dee@1", "Cid@0"]);
    expect(chat.map((line) => line.atMs)).toEqual([...chat.map((line) => line.atMs)].sort((a, b) => b - a));
    // Each region's health graphs, one region at a time (their samples are their own process's, on their own times).
    const history = await admin("GET", "history?region=1");
    expect(history).toMatchObject({ status: 200, body: { region: 1, intervalMs: expect.any(Number) } });
    expect(Array.isArray(history.body.atMs)).toBe(true);
    expect((await admin("GET", "history")).body.region).toBe(0);
    const nowhere = await admin("GET", "history?region=7");
    expect(nowhere).toMatchObject({ status: 400, body: { error: 'region must be one of 0, 1, got "7"' } });
    // The recordings: every region's own files of the folder they share, each with its region (docs/recording.md
    // § The Recordings tab at a gateway; test/cluster-recording.test.ts downloads, cuts and watches them).
    const recordings = await admin("GET", "recordings");
    expect(recordings.status).toBe(200);
    const recorded = recordings.body.recordings as { name: string; region: number; live: boolean }[];
    expect(recorded.filter((r) => r.live).map((r) => r.region)).toEqual(expect.arrayContaining([0, 1]));
    for (const recording of recorded) expect(recording.name.startsWith(`caves-r${recording.region}-`)).toBe(true);
    expect((await admin("GET", "recordings", undefined, "e".repeat(40))).status).toBe(401);
    // One entity, from the region that owns it.
    const entity = await admin("GET", `entity?id=${dee.joined.entityId}`);
    expect(entity).toMatchObject({ status: 200, body: { kind: "player", nick: "Dee", region: 1 } });
    expect((await admin("GET", "entity?id=999999999")).status).toBe(404);

    // A message to the player in region 1 is said by region 1; a teleport of Cid by region 0, its owner, to the
    // nearest spawn — region 1's ground, where the handoff takes it.
    const told = await admin("POST", "message", { entityId: dee.joined.entityId, text: "hello from the console" });
    expect(told).toMatchObject({ status: 200, body: { region: 1 } });
    await dee.waitFor("the console's line", () =>
      dee.received.some(({ packet }) => packet?.type === "chat" && packet.text === "hello from the console"),
    );
    const moved = await admin("POST", "teleport", { nick: "Cid" });
    expect(moved).toMatchObject({ status: 200, body: { region: 0, safeSpot: true } });
    await until("Cid handed to region 1", async () => (await regionOf("Cid")) === 1);

    if (!HAVE_CHROMIUM) return;
    // The live map at the gateway: both players, and the borders between the regions' grounds drawn.
    await walkSteps(
      cid,
      Array.from({ length: SPAWN_X - BORDER_X + HANDOFF_MARGIN_TILES + 2 }, () => WEST),
    );
    await until("Cid in region 0 again", async () => (await regionOf("Cid")) === 0);
    const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
    try {
      const context = await browser.newContext({
        httpCredentials: { username: "host", password: TOKEN },
        viewport: { width: 1024, height: 768 },
      });
      const view = await context.newPage();
      await view.goto(`${base}/admin`);
      await view.waitForFunction(() => document.getElementById("status")?.textContent === "live");
      await view.waitForFunction(() =>
        /Cid[\s\S]*Dee|Dee[\s\S]*Cid/.test(document.getElementById("players")?.textContent ?? ""),
      );
      // Region 1's ground starts at the border column: its outline's first dash, at zoom 2, in the borders' blue.
      const pixel = await view.evaluate((x) => {
        const canvas = document.getElementById("canvas") as HTMLCanvasElement;
        return [...canvas.getContext("2d")!.getImageData(x * 2 + 2, 0, 1, 1).data];
      }, BORDER_X);
      expect(pixel.slice(0, 3)).toEqual([0x5a, 0x8d, 0xee]);
      // Dee's panel says which region holds it.
      await view.click("#players li:text('Dee')");
      await view.waitForFunction(() => /region1/.test(document.getElementById("selected")?.textContent ?? ""));
      // Follow is offered at a gateway too (test/e2e/admin-console-cluster-follow.test.ts follows across a border).
      expect(await view.isVisible("#do-follow")).toBe(true);
      // The Health tab picks the region whose graphs it draws.
      await view.click("button[data-tab=health]");
      await view.waitForFunction(() => !document.getElementById("health-region")!.hidden);
      const options = await view.$$eval("#health-region option", (list) => list.map((option) => option.textContent));
      expect(options).toEqual(["region 0", "region 1"]);
      await view.selectOption("#health-region", "1");
      await view.waitForFunction(() => document.getElementById("chart-tick") !== null);
      mkdirSync(ARTIFACTS, { recursive: true });
      await view.screenshot({ path: join(ARTIFACTS, "admin-console-cluster-tablet.png") });
    } finally {
      await browser.close();
    }
  }, 120_000);

  it("hands a free camera looked at the other region's ground to that region, which shows who stands there", async () => {
    // Cam walks far onto region 0's ground: out of the ghost radius of region 1's, so only region 0 has her.
    const cam = await guest("Cam");
    const farWest = BORDER_X - GHOST_RADIUS_TILES - 4;
    await walkSteps(
      cam,
      Array.from({ length: SPAWN_X - farWest }, () => WEST),
    );
    const at = cam.position()!;
    expect(at.x).toBe(farWest);
    await until("Cam in region 0", async () => (await cluster.ownerOf(cam.joined.entityId)) === 0);
    // A spectator joins through the gateway looking at region 1's ground: region 1 serves it.
    const joined = await joinSpectator(gateway(), { adminToken: TOKEN, at: { x: SPAWN_X + 10, y: at.y } });
    const spectator = (await UdpTestClient.withSession(joined)).sign();
    clients.push(spectator);
    spectator.action(0, 0);
    await spectator.waitFor("the spectator's first state", () => {
      if (spectator.states.length === 0) spectator.action(0, 0);
      return spectator.states.length > 0;
    });
    /** Region `region`'s spectators, as its /api/status counts them. */
    const spectatorsOf = async (region: number) => {
      const entry = cluster.ready.regions.find((r) => r.region === region)!;
      const status = (await (await fetch(`http://127.0.0.1:${entry.httpPort}/api/status`)).json()) as {
        spectators: { count: number; following: number; handedIn: number };
      };
      return status.spectators;
    };
    const handedIn = async (region: number) => (await spectatorsOf(region)).handedIn;
    const before = await handedIn(0);
    // Panned onto region 0's ground, onto Cam: after a second there region 1 hands the camera to region 0,
    // whose State shows Cam — region 1 would show the tiles only (she is no ghost of its).
    spectator.camera(at.x, at.y);
    await spectator.waitFor(
      "Cam in the free camera's view",
      () => {
        spectator.action(0, 0);
        return spectator.inView().some((entity) => entity.id === cam.joined.entityId);
      },
      10_000,
    );
    expect(await handedIn(0)).toBe(before + 1);
    expect((await spectatorsOf(1)).count).toBe(0);
    expect(await spectatorsOf(0)).toMatchObject({ count: 1, following: 0 });
    spectator.close();
  }, 60_000);

  it("refuses a page of another site at the gateway, as one process does: its admin actions and its joins", async () => {
    // A browser holding the operator's login sends it with a form posted from any site; one process refuses a
    // POST from a foreign page (403) or one that is not JSON (415, what a form can send without asking first).
    // The gateway relayed both to the regions, which see no Origin from it and so took them for a native client's.
    const post = (path: string, headers: Record<string, string>, body: unknown) =>
      fetch(`http://127.0.0.1:${gateway()}${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}`, ...headers },
        body: JSON.stringify(body),
      });
    const announcements = async () =>
      ((await admin("GET", "log?limit=50")).body.entries as { action: string }[]).filter(
        (entry) => entry.action === "announce",
      ).length;
    const before = await announcements();
    const foreign = await post(
      "/api/admin/announce",
      { "content-type": "application/json", origin: "http://evil.example" },
      { text: "Free gold at the gate" },
    );
    expect(foreign.status).toBe(403);
    expect(((await foreign.json()) as { error: string }).error).toContain("http://evil.example");
    const form = await post("/api/admin/announce", { "content-type": "text/plain" }, { text: "Free gold" });
    expect(form.status).toBe(415);
    expect(await announcements()).toBe(before);
    const join = await post(
      "/api/guest",
      { "content-type": "application/json", origin: "http://evil.example" },
      {
        nick: "Lured",
      },
    );
    expect(join.status).toBe(403);
    // The console's own page, and a native client (no Origin), still act.
    const own = await post(
      "/api/admin/announce",
      { "content-type": "application/json", origin: `http://127.0.0.1:${gateway()}` },
      { text: "Maintenance at noon" },
    );
    expect(own.status).toBe(200);
    expect((await admin("POST", "announce", { text: "And again" })).status).toBe(200);
    expect(await announcements()).toBe(before + 2);
  }, 30_000);
});
