// The console's replay viewers through the admin API (docs/recording.md § Watching from the console), on a
// real server recording to a temp folder: a recording made by an earlier run, started as a viewer — a real
// process serving the replay on 127.0.0.1 — and reached only through the server, behind the admin login:
// its page, its controls (the replay plays: its tick moves) and its WebSocket link; listed with its process;
// stopped by the API (its process ends), and a second start refused in words while one runs (at most one
// here); a file that is not a recording, a name that is not a file of the folder and an unknown one refused
// in words; a viewer left unused stopped by itself; and every viewer ends with the server.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { ACTION_E, ACTION_W } from "../ts/protocol/action.js";
import { Logger } from "../ts/server/ops/log.js";
import { type RunningServer, startServer } from "../ts/server/server.js";
import type { ReplayState } from "../ts/replay-control.js";
import { writeTestMap } from "./support/test-map.js";
import { joinGuest, UdpTestClient } from "./support/udp-client.js";
import { walkSteps } from "./support/walk.js";

const TOKEN = "replay-viewers-token-0123456789abcdef";
const dir = mkdtempSync(join(tmpdir(), "caves-replay-viewers-"));
const recordings = join(dir, "recordings");
const map = writeTestMap();
let server: RunningServer;
/** The recording of the first run: done, whole. */
let recorded = "";

interface Viewer {
  id: string;
  name: string;
  pid: number;
  page: string;
  firstTick: number;
  lastTick: number;
  idleSeconds: number;
}

const base = () => `http://127.0.0.1:${server.httpPort}`;
const auth = { authorization: `Bearer ${TOKEN}` };

async function call(
  path: string,
  body?: unknown,
  headers: Record<string, string> = auth,
): Promise<{ status: number; json: Record<string, unknown> & { error?: string } }> {
  const response = await fetch(`${base()}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, json: text.startsWith("{") ? JSON.parse(text) : { text } };
}

/** Whether process `pid` is alive. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function startRecordingServer(viewers?: { max?: number; idleMs?: number }): Promise<RunningServer> {
  return startServer({
    host: "127.0.0.1",
    httpPort: 0,
    udpPort: 0,
    mapPath: map.path,
    logger: new Logger("silent"),
    adminToken: TOKEN,
    record: { dir: recordings },
    ...(viewers === undefined ? {} : { replayViewers: viewers }),
  });
}

beforeAll(async () => {
  // A first run: a player walks; its recording is whole once the server stops.
  const first = await startRecordingServer();
  try {
    const walker = (await UdpTestClient.withSession(await joinGuest(first.httpPort, "Walker"))).sign();
    await walker.placed();
    await walkSteps(walker, [ACTION_E, ACTION_E, ACTION_W, ACTION_W]);
    walker.close();
  } finally {
    await first.close();
  }
  recorded = readdirSync(recordings).find((name) => name.endsWith(".fcrec"))!;
  writeFileSync(join(recordings, "junk.fcrec"), "this is not a recording at all");
  server = await startRecordingServer({ max: 1 });
}, 60_000);

afterAll(async () => {
  await server?.close();
  map.dispose();
  rmSync(dir, { recursive: true, force: true });
});

describe("the console's replay viewers", () => {
  let viewer: Viewer;

  it("refuse anyone without the admin login: the start, the list and a viewer's paths", async () => {
    expect((await call("/api/admin/recordings/watch", { name: recorded }, {})).status).toBe(401);
    expect((await call("/api/admin/viewers", undefined, {})).status).toBe(401);
    expect((await call("/api/admin/viewers/0123456789abcdef/api/replay", undefined, {})).status).toBe(401);
  });

  it("starts a viewer of a recording, reached through the server: its page, its controls, its link", async () => {
    const started = await call("/api/admin/recordings/watch", { name: recorded });
    expect(started.status, started.json.error).toBe(200);
    viewer = started.json as unknown as Viewer;
    expect(viewer).toMatchObject({
      name: recorded,
      page: `/api/admin/viewers/${viewer.id}/?replay&transport=websocket`,
    });
    expect(viewer.lastTick).toBeGreaterThan(viewer.firstTick);
    expect(alive(viewer.pid)).toBe(true);
    const listed = await call("/api/admin/viewers");
    expect(listed.json.viewers).toEqual([expect.objectContaining({ id: viewer.id, name: recorded, pid: viewer.pid })]);

    // The page (the game's own client), from the viewer, through the server; without the login, refused.
    const root = `/api/admin/viewers/${viewer.id}`;
    const page = await fetch(`${base()}${viewer.page}`, { headers: auth });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("<canvas");
    expect((await fetch(`${base()}${viewer.page}`)).status).toBe(401);

    // The replay's own controls: the replay opens paused at its start, and plays when told.
    const state = (await call(`${root}/api/replay`)).json as unknown as ReplayState;
    expect(state).toMatchObject({ firstTick: viewer.firstTick, lastTick: viewer.lastTick, playing: false });
    const played = await call(`${root}/api/replay`, { play: true, speed: 4 }, { ...auth, origin: base() });
    expect(played.status, played.json.error).toBe(200);
    await expect
      .poll(async () => ((await call(`${root}/api/replay`)).json as unknown as ReplayState).tick, { timeout: 10_000 })
      .toBeGreaterThan(state.tick);
    // A bad control is the viewer's refusal, passed back as it is.
    const bad = await call(`${root}/api/replay`, { speed: 100 }, { ...auth, origin: base() });
    expect(bad).toMatchObject({ status: 400, json: { error: expect.stringMatching(/between 0.25 and 8/) } });

    // The page's link: a WebSocket through the server, only with the login.
    const wsUrl = `ws://127.0.0.1:${server.httpPort}${root}/ws`;
    const refused = await new Promise<number>((resolve) => {
      const socket = new WebSocket(wsUrl);
      socket.on("unexpected-response", (_request, response) => resolve(response.statusCode ?? 0));
      socket.on("open", () => resolve(101));
      socket.on("error", () => {});
    });
    expect(refused).toBe(401);
    // A page of another site, the operator's saved login sent along (a browser sends it on an upgrade): refused,
    // as the server's POSTs refuse it — no page elsewhere may open the operator's view of a recording.
    const foreign = await new Promise<number>((resolve) => {
      const socket = new WebSocket(wsUrl, { headers: { ...auth, origin: "http://evil.example" } });
      socket.on("unexpected-response", (_request, response) => resolve(response.statusCode ?? 0));
      socket.on("open", () => {
        socket.close();
        resolve(101);
      });
      socket.on("error", () => {});
    });
    expect(foreign).toBe(403);
    const link = new WebSocket(wsUrl, { headers: { ...auth, origin: base() } });
    await new Promise<void>((resolve, reject) => {
      link.once("open", () => resolve());
      link.once("error", reject);
    });
    link.close();
  }, 60_000);

  it("refuses a second viewer while the most run, in words", async () => {
    const second = await call("/api/admin/recordings/watch", { name: recorded });
    expect(second.status).toBe(503);
    expect(second.json.error).toMatch(/1 replay viewer runs already, the most this server runs at once/);
  });

  it("refuses a file that is not a recording, a name that is not a file's and an unknown one, in words", async () => {
    const stopped = await call("/api/admin/viewers/stop", { id: viewer.id }, { ...auth, origin: base() });
    expect(stopped.status).toBe(200);
    await expect.poll(() => alive(viewer.pid), { timeout: 10_000 }).toBe(false);
    expect((await call("/api/admin/viewers")).json.viewers).toEqual([]);
    expect((await call(`${viewer.page}`)).status).toBe(404);

    const junk = await call("/api/admin/recordings/watch", { name: "junk.fcrec" });
    expect(junk.status).toBe(422);
    expect(junk.json.error).toMatch(/not a recording/);
    expect((await call("/api/admin/viewers")).json.viewers).toEqual([]);
    const path = await call("/api/admin/recordings/watch", { name: "../secret.fcrec" });
    expect(path.status).toBe(400);
    const unknown = await call("/api/admin/recordings/watch", { name: "nothing-here.fcrec" });
    expect(unknown).toMatchObject({ status: 404, json: { error: "no recording called nothing-here.fcrec" } });
    expect((await call("/api/admin/viewers/stop", { id: "nobody" })).status).toBe(404);
  }, 30_000);

  it("stops a viewer left unused, and every viewer with the server", async () => {
    const other = await startRecordingServer({ max: 2, idleMs: 1500 });
    try {
      const call2 = async (name: string) =>
        (await (
          await fetch(`http://127.0.0.1:${other.httpPort}/api/admin/recordings/watch`, {
            method: "POST",
            headers: { ...auth, "content-type": "application/json" },
            body: JSON.stringify({ name }),
          })
        ).json()) as Viewer;
      const list = async () =>
        (
          (await (await fetch(`http://127.0.0.1:${other.httpPort}/api/admin/viewers`, { headers: auth })).json()) as {
            viewers: Viewer[];
          }
        ).viewers;
      // Left alone, a viewer is stopped: its process ends and it is no longer listed.
      const unused = await call2(recorded);
      expect(alive(unused.pid)).toBe(true);
      await expect.poll(() => alive(unused.pid), { timeout: 15_000 }).toBe(false);
      expect(await list()).toEqual([]);
      // Used (its page asks where the replay is, as an open page does four times a second), it stays.
      const kept = await call2(recorded);
      const usedUntil = Date.now() + 4000;
      while (Date.now() < usedUntil) {
        await fetch(`http://127.0.0.1:${other.httpPort}/api/admin/viewers/${kept.id}/api/replay`, { headers: auth });
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      expect(alive(kept.pid)).toBe(true);
      expect((await list()).map((one) => one.id)).toEqual([kept.id]);
      await other.close();
      await expect.poll(() => alive(kept.pid), { timeout: 10_000 }).toBe(false);
    } finally {
      await other.close();
    }
  }, 60_000);
});
