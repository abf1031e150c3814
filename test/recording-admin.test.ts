// The flight recorder's recordings through the admin API (ts/server/http/recording-routes.ts, docs/recording.md
// § Through the admin API): a real server on the bundled map recording to a folder, bots walking on real
// UDP; an operator lists the recordings, cuts the seconds around a tick of the recording being written,
// downloads the cut, and the replay tool verifies the download. Nothing without the token; a name that is
// a path, a file that is not there, a moment outside the recording: clear refusals.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Swarm } from "../ts/bots/swarm.js";
import { Logger } from "../ts/server/ops/log.js";
import { type RunningServer, startServer } from "../ts/server/server.js";
import { loadCore } from "../ts/wasm/node.js";

const run = promisify(execFile);
const CAVES = fileURLToPath(new URL("../maps/caves.tmj", import.meta.url));
const TSX = fileURLToPath(new URL("../node_modules/.bin/tsx", import.meta.url));
const REPLAY_TOOL = fileURLToPath(new URL("../ts/tools/replay.ts", import.meta.url));
const TOKEN = "recordings-test-token-0123456789abcdef";
const dir = mkdtempSync(join(tmpdir(), "caves-recording-admin-"));

let server: RunningServer | null = null;
let bots: Swarm | null = null;

const url = (path: string) => `http://127.0.0.1:${server!.httpPort}${path}`;
const auth = { authorization: `Bearer ${TOKEN}` };

async function api(path: string, body?: unknown, headers: Record<string, string> = auth) {
  const response = await fetch(url(path), {
    method: body === undefined ? "GET" : "POST",
    headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

interface Listed {
  name: string;
  folder: string;
  bytes: number;
  live: boolean;
  window?: { fromTick: number; toTick: number; cutFrom: string };
}

beforeAll(async () => {
  server = await startServer({
    host: "127.0.0.1",
    httpPort: 0,
    udpPort: 0,
    mapPath: CAVES,
    logger: new Logger("silent"),
    adminToken: TOKEN,
    record: { dir: join(dir, "recordings") },
  });
  bots = new Swarm({
    count: 4,
    http: url(""),
    server: null,
    behaviour: "wander",
    goal: null,
    netsim: null,
    seed: 5,
    nickPrefix: "walker",
    joinParallel: 4,
    updateMs: 20,
    loadCore: () => loadCore(),
  });
  await bots.joinAll();
  bots.start();
}, 60_000);

afterAll(async () => {
  bots?.stop();
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("recordings through the admin API", () => {
  it("lists, cuts the live recording around a tick, serves the cut, and the cut verifies", async () => {
    // The bots in play, then some seconds of them walking to cut from.
    const game = server!.game;
    const sleep = () => new Promise((resolve) => setTimeout(resolve, 250));
    while (game.sessions.size < 4) await sleep();
    const at = game.tick + 24 * 3;
    while (game.tick < at + 24 * 3) await sleep();

    const listed = await api("/api/admin/recordings");
    expect(listed.status).toBe(200);
    const recordings = listed.body.recordings as Listed[];
    expect(recordings).toHaveLength(1);
    expect(recordings[0]).toMatchObject({ folder: "", live: true });
    expect(recordings[0].bytes).toBeGreaterThan(0);

    const cut = await api("/api/admin/recordings/cut", { atTick: at, before: 2, after: 1 });
    expect(cut.status, JSON.stringify(cut.body)).toBe(200);
    expect(cut.body).toMatchObject({ action: "recording cut", folder: "cuts", from: recordings[0].name, atTick: at });
    expect(cut.body.fromTick).toBe(at - 48);
    expect(cut.body.toTick).toBe(at + 24);

    // Listed with its window; downloaded byte for byte as it is on disk.
    const after = (await api("/api/admin/recordings")).body.recordings as Listed[];
    const listedCut = after.find((entry) => entry.name === cut.body.name)!;
    expect(listedCut).toMatchObject({ folder: "cuts", live: false, window: { fromTick: at - 48, toTick: at + 24 } });
    const download = await fetch(url(`/api/admin/recordings/file?name=${String(cut.body.name)}`), { headers: auth });
    expect(download.status).toBe(200);
    expect(download.headers.get("content-disposition")).toContain(String(cut.body.name));
    const bytes = new Uint8Array(await download.arrayBuffer());
    expect(Buffer.compare(bytes, readFileSync(join(dir, "recordings", "cuts", String(cut.body.name))))).toBe(0);

    // The download is a recording of its own: the replay tool verifies it to the window's end.
    const file = join(dir, "downloaded.fcrec");
    writeFileSync(file, bytes);
    const { stdout } = await run(TSX, [REPLAY_TOOL, "verify", file], { timeout: 120_000 });
    expect(stdout).toContain(`exact: every tick's digest matches`);
    expect(stdout).toContain(`replayed ${at + 24} ticks`);
    expect(Number(/(\d+) inputs/.exec(stdout)?.[1])).toBeGreaterThan(100); // the bots' datagrams, at least

    // A second cut of the same window never writes over the first.
    const again = await api("/api/admin/recordings/cut", { atTick: at, before: 2, after: 1 });
    expect(again.status).toBe(200);
    expect(again.body.name).not.toBe(cut.body.name);

    // In the admin log.
    const log = (await api("/api/admin/log?limit=10")).body.entries as { action: string }[];
    expect(log.filter((entry) => entry.action === "recording cut")).toHaveLength(2);
  }, 180_000);

  it("answers nothing without the token, and refuses bad names and moments clearly", async () => {
    for (const path of ["/api/admin/recordings", "/api/admin/recordings/file?name=x.fcrec"]) {
      expect((await api(path, undefined, {})).status).toBe(401);
    }
    expect((await api("/api/admin/recordings/cut", { atTick: 10 }, {})).status).toBe(401);

    const name = ((await api("/api/admin/recordings")).body.recordings as Listed[]).find((entry) => entry.live)!.name;
    const refusals: [string, unknown, number, RegExp][] = [
      ["/api/admin/recordings/file?name=../../etc/passwd", undefined, 400, /file name/],
      ["/api/admin/recordings/file?name=nothing-here.fcrec", undefined, 404, /no recording called/],
      ["/api/admin/recordings/cut", { name: "../x.fcrec", atTick: 10 }, 400, /file name/],
      ["/api/admin/recordings/cut", { name, at: "yesterday at noon" }, 400, /HH:MM/],
      ["/api/admin/recordings/cut", { name, at: "1999-01-01T00:00:00Z" }, 400, /not within the recording/],
      ["/api/admin/recordings/cut", { name }, 400, /needs a moment/],
      ["/api/admin/recordings/cut", { name, atTick: -3 }, 400, /positive whole number/],
      ["/api/admin/recordings/cut", { name, atTick: 10, before: "long" }, 400, /"before" must be a number/],
      ["/api/admin/recordings/cut", { name, atTick: 10, after: 1e9 }, 400, /from 0 to 86400/],
      [
        "/api/admin/recordings/cut",
        { name, atTick: 10_000_000, before: 1, after: 1 },
        422,
        /before the window's start/,
      ],
    ];
    for (const [path, body, status, message] of refusals) {
      const answer = await api(path, body);
      expect(answer.status, `${path} ${JSON.stringify(body)}`).toBe(status);
      expect(String(answer.body.error)).toMatch(message);
    }
  }, 60_000);
});
