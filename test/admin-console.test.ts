// The start of the operators' console (issue 43): GET /admin and the two routes its page reads, on a real
// server on the bundled map (its creatures) with a player joined over UDP. Nothing is served without the
// admin token — 401, with the Basic challenge that makes a browser ask for it — and the page, in Debian's
// Chromium logged in with the token, draws the player where the server has it and keeps updating.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodePacketToBytes } from "../ts/protocol/packet.js";
import { Logger } from "../ts/server/ops/log.js";
import { type RunningServer, startServer } from "../ts/server/server.js";
import { UdpTestClient } from "./support/udp-client.js";
import { ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, HAVE_CHROMIUM, MAP_PATH, skipNotice } from "./e2e/browser-support.js";

const TOKEN = "console-test-token-0123456789abcdef";
/** The health history's interval here: fast, so a graph has samples within a second or two. */
const HEALTH_SAMPLE_MS = 250;
interface HealthBody {
  intervalMs: number;
  capacity: number;
  atMs: number[];
  series: Record<string, (number | null)[]>;
}
const basic = (password: string) => `Basic ${Buffer.from(`admin:${password}`).toString("base64")}`;

let server: RunningServer;
let client: UdpTestClient;
let base: string;
let keepAlive: NodeJS.Timeout | undefined;

beforeAll(async () => {
  server = await startServer({
    host: "127.0.0.1",
    httpPort: 0,
    udpPort: 0,
    mapPath: MAP_PATH,
    logger: new Logger("silent"),
    adminToken: TOKEN,
    healthSampleMs: HEALTH_SAMPLE_MS,
  });
  base = `http://127.0.0.1:${server.httpPort}`;
  client = await UdpTestClient.connect(server.httpPort, "Watched");
  client.action(0, 0);
  await client.waitFor("its position", () => client.position());
  // A player that plays: an idle action each second, so its session is not ended for silence (10 s) while
  // the browser tests run, however slow the machine.
  keepAlive = setInterval(() => client.action(0, 0), 1000);
});

afterAll(async () => {
  clearInterval(keepAlive);
  client?.close();
  await server?.close();
});

describe("/admin and its routes", () => {
  it("serve nothing without the token, or with a wrong one: 401, asking a browser for it", async () => {
    for (const path of [
      "/admin",
      "/admin/uplot.js",
      "/admin/uplot.css",
      "/api/admin/world",
      "/api/admin/map",
      "/api/admin/entity?id=1",
      "/api/admin/history",
    ]) {
      for (const authorization of [
        undefined,
        basic("wrong-token-wrong-token-wrong-token"),
        `Bearer ${TOKEN}x`,
        "Basic !!",
      ]) {
        const response = await fetch(`${base}${path}`, { headers: authorization ? { authorization } : {} });
        expect(response.status, `${path} ${authorization}`).toBe(401);
        expect(response.headers.get("www-authenticate")).toBe('Basic realm="admin"');
        const body = await response.text();
        expect(body).not.toContain("<canvas");
        expect(body).not.toContain("Watched");
      }
    }
    // Each refusal is in the admin log.
    const log = (await (
      await fetch(`${base}/api/admin/log?limit=20`, { headers: { authorization: `Bearer ${TOKEN}` } })
    ).json()) as {
      entries: { action: string }[];
    };
    expect(log.entries.some((entry) => entry.action === "console refused")).toBe(true);
  });

  it("answer the token as a Basic password or a Bearer token: the page, the map's cells, everyone's place", async () => {
    const page = await fetch(`${base}/admin`, { headers: { authorization: basic(TOKEN) } });
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
    expect(await page.text()).toContain("<canvas");

    const map = await fetch(`${base}/api/admin/map`, { headers: { authorization: `Bearer ${TOKEN}` } });
    const width = Number(map.headers.get("x-map-width"));
    const cells = new Uint8Array(await map.arrayBuffer());
    const world = server.game.world;
    expect(width).toBe(world.mapWidth);
    expect(cells.length).toBe(world.mapWidth * world.mapHeight);
    const at = client.position()!;
    expect(cells[at.y * width + at.x]).toBe(1);
    expect(cells.reduce((sum, cell) => sum + cell, 0)).toBeLessThan(cells.length);

    const answer = (await (
      await fetch(`${base}/api/admin/world`, { headers: { authorization: basic(TOKEN) } })
    ).json()) as {
      players: { nick: string; entityId: number; x: number; y: number }[];
      creatures: number[][];
      creatureCount: number;
      kinds: Record<string, string>;
    };
    const entity = server.game.entities.get(answer.players[0].entityId)!;
    expect(answer.players).toEqual([expect.objectContaining({ nick: "Watched", x: entity.x, y: entity.y })]);
    expect(answer.creatureCount).toBe(server.game.entities.size - 1);
    expect(answer.creatureCount).toBeGreaterThan(0);
    const [id, x, y, , , typeId] = answer.creatures[0];
    const creature = server.game.entities.get(id)!;
    expect([creature.typeId, answer.kinds[typeId]]).toEqual([typeId, creature.name]);
    expect(Math.abs(creature.x - x) + Math.abs(creature.y - y)).toBeLessThanOrEqual(4);
  });

  it("keep the last samples of the server's health, and answer only the newer ones when asked", async () => {
    const get = async (query = "") => {
      const response = await fetch(`${base}/api/admin/history${query}`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      return { status: response.status, body: (await response.json()) as HealthBody };
    };
    let answer = (await get()).body;
    while (answer.atMs.length < 3) {
      await new Promise((resolve) => setTimeout(resolve, HEALTH_SAMPLE_MS));
      answer = (await get()).body;
    }
    expect(answer).toMatchObject({ intervalMs: HEALTH_SAMPLE_MS, capacity: 3_600_000 / HEALTH_SAMPLE_MS });
    const newest = answer.atMs.length - 1;
    expect(answer.series.players[newest]).toBe(1);
    expect(answer.series.creatures[newest]).toBe(server.game.npcs.size);
    expect(answer.series.tickP99Ms[newest]).toBeGreaterThan(0);
    expect(answer.series.tickP99Ms[newest]).toBeGreaterThanOrEqual(answer.series.tickP50Ms[newest]!);
    expect(answer.series.bytesOutPerSecond[newest]).toBeGreaterThan(0);
    expect(answer.series.residentMemoryBytes[newest]).toBeGreaterThan(0);
    const later = (await get(`?since=${answer.atMs[newest - 1]}`)).body;
    expect(later.atMs[0]).toBe(answer.atMs[newest]);
    for (const bad of ["?since=soon", "?since=-1", "?since=1.5"]) expect((await get(bad)).status, bad).toBe(400);
    // uPlot's own files, behind the token like the page.
    const script = await fetch(`${base}/admin/uplot.js`, { headers: { authorization: basic(TOKEN) } });
    expect(script.headers.get("content-type")).toContain("javascript");
    expect(await script.text()).toContain("uPlot");
  });

  it("describe one entity: a player as the admin API lists it, a creature by its kind; a bad or gone id is said so", async () => {
    const get = async (query: string) => {
      const response = await fetch(`${base}/api/admin/entity${query}`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    const session = [...server.game.sessions.values()][0];
    const player = await get(`?id=${session.entity.id}`);
    expect(player.body).toMatchObject({
      kind: "player",
      nick: "Watched",
      transport: "udp",
      address: "127.0.0.1",
      level: 1,
      hpMax: session.entity.hpMax,
      muted: false,
    });
    expect(player.body.lastHeardMsAgo).toEqual(expect.any(Number));
    const creature = [...server.game.entities.values()].find((entity) => entity.id !== session.entity.id)!;
    expect((await get(`?id=${creature.id}`)).body).toMatchObject({
      kind: "creature",
      entityId: creature.id,
      name: creature.name,
      level: 1,
      hpMax: creature.hpMax,
    });
    expect((await get("?id=99999999")).status).toBe(404);
    for (const bad of ["", "?id=", "?id=-3", "?id=abc", "?id=0", "?id=99999999999"]) {
      expect((await get(bad)).status, bad).toBe(400);
    }
  });
});

skipNotice("test/admin-console.test.ts (its browser part)");

describe.skipIf(!HAVE_CHROMIUM)("/admin in Chromium", () => {
  it("logs in with the token, draws the player where the server has it, and keeps updating", async () => {
    const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
    try {
      // Without the token the page is not there (Chromium, with no one to type at its prompt, gives up).
      const refused = await browser.newContext();
      expect((await refused.request.get(`${base}/admin`)).status()).toBe(401);
      const failure = await (await refused.newPage()).goto(`${base}/admin`).then(
        () => "loaded",
        (error: Error) => error.message,
      );
      expect(failure).toContain("ERR_INVALID_AUTH_CREDENTIALS");

      const context = await browser.newContext({
        httpCredentials: { username: "host", password: TOKEN },
        viewport: { width: 1200, height: 800 },
      });
      const page = await context.newPage();
      expect((await page.goto(`${base}/admin`))!.status()).toBe(200);
      await page.waitForFunction(() => document.getElementById("status")?.textContent === "live");
      expect(await page.textContent("#player-count")).toBe("1");
      expect(await page.textContent("#players")).toContain("Watched");
      const firstTick = Number(await page.textContent("#tick"));
      await page.waitForFunction((tick) => Number(document.getElementById("tick")?.textContent) > tick, firstTick);
      // The player's square, at zoom 2, in the players' green.
      const at = client.position()!;
      const pixel = await page.evaluate(({ x, y }) => {
        const canvas = document.getElementById("canvas") as HTMLCanvasElement;
        return [...canvas.getContext("2d")!.getImageData(x * 2, y * 2, 1, 1).data];
      }, at);
      expect(pixel.slice(0, 3)).toEqual([0x4e, 0xe0, 0x6a]);
      // A click on it shows who it is (as the server says it: the panel asks for the entity).
      await page.click("#canvas", { position: { x: at.x * 2 + 1, y: at.y * 2 + 1 } });
      await page.waitForFunction(() => document.getElementById("selected")?.textContent?.includes("Watched"));
      mkdirSync(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: join(ARTIFACTS, "admin-console-desktop.png") });
    } finally {
      await browser.close();
    }
  });

  it("draws the health graphs with the server's samples, and adds the new ones", async () => {
    const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
    try {
      const context = await browser.newContext({
        httpCredentials: { username: "host", password: TOKEN },
        viewport: { width: 1200, height: 800 },
      });
      const page = await context.newPage();
      await page.goto(`${base}/admin`);
      await page.click("#tabs [data-tab=health]");
      await page.waitForSelector("#chart-population canvas");
      const samples = async () => Number((await page.textContent("#health-samples"))!.split(" ")[0]);
      const first = await samples();
      expect(first).toBeGreaterThanOrEqual(3);
      await page.waitForFunction(
        (n) => Number(document.getElementById("health-samples")!.textContent!.split(" ")[0]) > n,
        first,
      );
      // The players' line, in its green, drawn on the population chart's canvas: the one player is plotted.
      const green = await page.evaluate(() => {
        const canvas = document.querySelector("#chart-population canvas") as HTMLCanvasElement;
        const data = canvas.getContext("2d")!.getImageData(0, 0, canvas.width, canvas.height).data;
        let count = 0;
        for (let i = 0; i < data.length; i += 4) if (data[i + 1] > 180 && data[i] < 120 && data[i + 2] < 140) count++;
        return count;
      });
      expect(green).toBeGreaterThan(20);
      expect(await page.locator(".uplot").count()).toBe(7);
      mkdirSync(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: join(ARTIFACTS, "admin-console-health-desktop.png") });
    } finally {
      await browser.close();
    }
  });

  it("People: the player online, its chat line with a mute beside it, the search, and the admin log", async () => {
    client.sendRaw(
      encodePacketToBytes({ type: "chat_post", clientType: 0, authToken: client.token, seq: 1, text: "buy gold now" }),
    );
    await client.waitFor("its line posted", () => server.game.chat.said.recent(1).length === 1);
    const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
    try {
      const context = await browser.newContext({
        httpCredentials: { username: "host", password: TOKEN },
        viewport: { width: 1200, height: 800 },
      });
      const page = await context.newPage();
      await page.goto(`${base}/admin`);
      await page.click("#tabs [data-tab=people]");
      await page.waitForSelector("#chat-log li");
      expect(await page.textContent("#chat-log")).toContain("Watched");
      expect(await page.textContent("#online tbody")).toContain("Watched");
      // The search narrows every list: the line holds "gold", the player's nick and address do not.
      await page.fill("#people-search", "gold");
      await page.waitForFunction(() => document.querySelectorAll("#online tbody tr").length === 0);
      expect(await page.locator("#chat-log li").count()).toBe(1);

      await page.click("#chat-log li button:text('Mute')");
      await page.waitForFunction(() => document.getElementById("people-result")?.textContent?.startsWith("muted"));
      const session = [...server.game.sessions.values()][0];
      expect(await page.textContent("#people-result")).toBe(`muted Watched (entity ${session.entity.id}) until lifted`);
      expect(server.game.admin.isMuted(session)).toBe(true);
      await page.waitForFunction(() => document.getElementById("chat-log")?.textContent?.includes("(muted)"));
      await page.fill("#people-search", "");
      await page.waitForFunction(() => document.getElementById("admin-log-full")?.textContent?.includes("for saying"));
      await page.click("#online tbody button:text('Unmute')");
      await page.waitForFunction(() => document.getElementById("people-result")?.textContent?.startsWith("lifted"));
      expect(server.game.admin.isMuted(session)).toBe(false);
      mkdirSync(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: join(ARTIFACTS, "admin-console-people-desktop.png") });
    } finally {
      await browser.close();
    }
  });

  it("fits a tablet (1024×768) and a phone (390×844): every tab within the width, screenshots to look at", async () => {
    const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
    try {
      mkdirSync(ARTIFACTS, { recursive: true });
      for (const [name, width, height] of [
        ["tablet", 1024, 768],
        ["phone", 390, 844],
      ] as const) {
        const context = await browser.newContext({
          httpCredentials: { username: "host", password: TOKEN },
          viewport: { width, height },
          hasTouch: true,
        });
        const page = await context.newPage();
        await page.goto(`${base}/admin`);
        await page.waitForFunction(() => document.getElementById("status")?.textContent === "live");
        const session = [...server.game.sessions.values()][0];
        // Nothing selected yet: nothing to follow.
        expect(await page.isHidden("#do-follow")).toBe(true);
        await page.click("#players li");
        await page.waitForFunction(() => document.getElementById("selected")?.textContent?.includes("Watched"));
        for (const tab of ["view", "health", "people", "recordings"]) {
          await page.click(`#tabs [data-tab=${tab}]`);
          if (tab === "health") await page.waitForSelector("#chart-memory canvas");
          if (tab === "people") await page.waitForSelector("#online tbody tr");
          // This server records nothing (no --record): the tab says so, and offers no cut.
          if (tab === "recordings") {
            await page.waitForFunction(() => document.getElementById("recordings-result")?.textContent !== "");
            expect(await page.textContent("#recordings-result")).toMatch(
              /^this server keeps no recordings: .*--record/,
            );
            expect(await page.isHidden("#recordings-served")).toBe(true);
          }
          // The page itself never scrolls sideways (a wide map or table scrolls in its own box).
          const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
          expect(overflow, `${name} ${tab}`).toBeLessThanOrEqual(0);
          await page.screenshot({ path: join(ARTIFACTS, `admin-console-${name}-${tab}.png`) });
        }
        // The panel's buttons are on the screen and answer a tap.
        await page.click("#tabs [data-tab=view]");
        await page.tap("#do-message");
        expect(await page.textContent("#action-result")).toBe("type the message first");
        expect(session.nick).toBe("Watched");
        await context.close();
      }
    } finally {
      await browser.close();
    }
  });

  it("acts on the player from the map: its panel, a mute, a teleport, a kick, each said on the page and in the admin log", async () => {
    const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
    try {
      const context = await browser.newContext({
        httpCredentials: { username: "host", password: TOKEN },
        viewport: { width: 1200, height: 800 },
      });
      const page = await context.newPage();
      await page.goto(`${base}/admin`);
      await page.waitForFunction(() => document.getElementById("status")?.textContent === "live");
      const session = [...server.game.sessions.values()].find((s) => s.nick === "Watched")!;
      const entity = session.entity;
      // Found on the live map where the server has it, and clicked: who it is and its link.
      await page.click("#canvas", { position: { x: entity.x * 2 + 1, y: entity.y * 2 + 1 } });
      await page.waitForFunction(() => document.getElementById("selected")?.textContent?.includes("udp"));
      const panel = await page.textContent("#selected");
      for (const shown of ["Watched", `${entity.id}`, "127.0.0.1", `${entity.hp} / ${entity.hpMax}`, "level"]) {
        expect(panel).toContain(shown);
      }

      await page.fill("#action-text", "spamming the chat");
      await page.click("#do-mute");
      await page.waitForFunction(() => document.getElementById("action-result")?.textContent?.startsWith("muted"));
      expect(await page.textContent("#action-result")).toBe(`muted Watched (entity ${entity.id}) until lifted`);
      await page.waitForFunction(() => document.getElementById("admin-log")?.textContent?.includes("mute Watched"));
      expect(server.game.admin.isMuted(session)).toBe(true);
      await client.waitFor("told of the mute", () =>
        client.received.some((r) => r.packet?.type === "chat" && r.packet.text === "You are muted: spamming the chat"),
      );
      await page.waitForFunction(() => document.getElementById("selected")?.textContent?.includes("muted"));

      await page.click("#do-teleport");
      await page.waitForFunction(() => document.getElementById("action-result")?.textContent?.startsWith("moved"));
      expect(await page.textContent("#action-result")).toContain("the nearest spawn point");
      expect(server.game.world.spawns).toContainEqual({ x: entity.x, y: entity.y });

      // A creature far from the player, clicked: what it is.
      const creature = [...server.game.entities.values()].find(
        (e) => e.id !== entity.id && Math.abs(e.x - entity.x) + Math.abs(e.y - entity.y) > 10,
      )!;
      await page.click("#canvas", { position: { x: creature.x * 2 + 1, y: creature.y * 2 + 1 } });
      await page.waitForFunction(() => document.getElementById("selected")?.textContent?.includes("creature"));
      expect(await page.isHidden("#actions")).toBe(true);

      // Back to the player by its line in the list, and kicked: the page and the log say so, the session ends.
      await page.click("#players li");
      await page.waitForFunction(() => document.getElementById("selected")?.textContent?.includes("Watched"));
      await page.fill("#action-text", "");
      await page.click("#do-kick");
      await page.waitForFunction(() => document.getElementById("action-result")?.textContent?.startsWith("kicked"));
      expect(await page.textContent("#action-result")).toBe(`kicked Watched (entity ${entity.id})`);
      await page.waitForFunction(() => document.getElementById("admin-log")?.textContent?.includes("kick Watched"));
      expect(server.game.sessions.size).toBe(0);
      await page.waitForFunction(() => document.getElementById("selected")?.textContent?.includes("gone"));
      const log = server.game.admin.recent(10).map((entry) => entry.action);
      expect(log.slice(0, 3)).toEqual(["kick", "teleport", "mute"]);
    } finally {
      await browser.close();
    }
  });
});
