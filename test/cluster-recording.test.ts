// Issue 40's flight recorder in a cluster (docs/recording.md § In a cluster): each region records its own
// inputs — the handoffs and ghost frames it receives included — so each region's recording replays alone.
// Two real regions and a real gateway in this process on a private redis-server (no shared PostgreSQL: a
// region with it is not recorded yet), a protocol client on real UDP walking over the border and back; then
// `replay verify` on each region's file, and on one with a ghost frame taken out of it. Bounded, cleans up.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { chromium } from "playwright-core";
import { type RunningGateway, startGateway } from "../ts/cluster/gateway.js";
import { parseLayout } from "../ts/cluster/layout.js";
import { FRAME_GHOSTS, FRAME_HANDOFF } from "../ts/cluster/link-frames.js";
import { type RedisProcess, startRedis } from "../ts/cluster/redis-process.js";
import { ORIGIN_GATEWAY, ORIGIN_NEIGHBOUR } from "../ts/cluster/region-recording.js";
import { type RunningRegion, startRegion } from "../ts/cluster/region.js";
import { ACTION_DX, ACTION_DY } from "../ts/protocol/action.js";
import { Logger } from "../ts/server/ops/log.js";
import { DEFAULT_CLIENT_DIR } from "../ts/server/server.js";
import type { ByteReader } from "../ts/server/recording/bytes.js";
import { BlockReader, fileSource, RECORD, readHeader } from "../ts/server/recording/format.js";
import { BORDER_X, clusterSkipReason, until } from "./support/cluster-process.js";
import { replayTool } from "./support/replay-tool.js";
import { listRecords, withoutRecord, withRecordReplaced } from "./support/recording-edit.js";
import { deserialize, serialize } from "node:v8";
import { type PostgresProcess, postgresSkipReason, startPostgres } from "../ts/cluster/postgres-process.js";
import { ByteWriter } from "../ts/server/recording/bytes.js";
import { ENTITY_TYPE_CHEST } from "../ts/item-types.js";
import { hearLine, post } from "./support/chat-lines.js";
import { postJson } from "./support/game-harness.js";
import { bagOf, itemDef, itemRequest } from "./support/item-client.js";
import { type NpcMap, writeNpcMap } from "./support/npc-map.js";
import { type Joined } from "./support/udp-client.js";
import { TEST_MAP_HEIGHT, TEST_MAP_WIDTH, writeTestMap } from "./support/test-map.js";
import { UdpTestClient } from "./support/udp-client.js";
import { walkSteps } from "./support/walk.js";
import { CHROMIUM, CHROMIUM_ARGS, HAVE_CHROMIUM } from "./e2e/browser-support.js";

const skip = clusterSkipReason();
if (skip !== null) process.stderr.write(`test/cluster-recording.test.ts skipped: ${skip}\n`);

const WEST = ACTION_DX.findIndex((dx, code) => code > 0 && dx === -1 && ACTION_DY[code] === 0);
const EAST = ACTION_DX.findIndex((dx, code) => code > 0 && dx === 1 && ACTION_DY[code] === 0);

/** A region frame record's origin, kind and payload as text (the payload read past its other fields). */
function frameOf(payload: ByteReader): { origin: number; kind: number; body: string } {
  const origin = payload.u8();
  payload.varint();
  const kind = payload.u8();
  payload.varint();
  payload.f64();
  return { origin, kind, body: new TextDecoder().decode(payload.blob()) };
}

/** How many of a recording's records are handoffs out, handoffs in and ghost frames. */
function countInputs(path: string): { handedOn: number; handedHere: number; ghostFrames: number } {
  const counts = { handedOn: 0, handedHere: 0, ghostFrames: 0 };
  const source = fileSource(path);
  try {
    for (const { type, payload } of new BlockReader(source, readHeader(source).blocksAt).records()) {
      if (type === RECORD.handOff) counts.handedOn++;
      if (type !== RECORD.regionFrame) continue;
      const { origin, kind } = frameOf(payload);
      if (origin === ORIGIN_GATEWAY && kind === FRAME_HANDOFF) counts.handedHere++;
      if (origin === ORIGIN_NEIGHBOUR && kind === FRAME_GHOSTS) counts.ghostFrames++;
    }
  } finally {
    source.close();
  }
  return counts;
}

describe.skipIf(skip !== null)("a cluster's regions, each recorded and replayed alone", () => {
  const dir = mkdtempSync(join(tmpdir(), "caves-cluster-recording-"));
  let redis: RedisProcess | null = null;
  let map: ReturnType<typeof writeTestMap> | null = null;
  const regions: RunningRegion[] = [];
  let gateway: RunningGateway | null = null;
  let client: UdpTestClient | null = null;

  async function stopAll(): Promise<void> {
    client?.close();
    client = null;
    await gateway?.close();
    gateway = null;
    for (const region of regions.splice(0)) await region.close();
  }

  beforeAll(async () => {
    redis = await startRedis();
    map = writeTestMap();
  }, 30_000);

  afterAll(async () => {
    await stopAll();
    await redis?.stop();
    map?.dispose();
    if (process.env.KEEP_RECORDINGS === undefined) rmSync(dir, { recursive: true, force: true });
    else process.stderr.write(`recordings kept in ${dir}\n`);
  }, 30_000);

  it("records a walk over the border and back in both regions; each replays exact; a lost ghost frame or arrival is caught", async () => {
    // The test map cut in two at chunk column 1, as the cluster tests' (test/support/cluster-process.ts).
    const layout = parseLayout(
      JSON.stringify({
        regions: [
          { region: 0, chunks: [0, 0, 1, 3] },
          { region: 1, chunks: [1, 0, 3, 3] },
        ],
      }),
      Math.ceil(TEST_MAP_WIDTH / 32),
      Math.ceil(TEST_MAP_HEIGHT / 32),
    );
    const quiet = new Logger("silent");
    for (const region of [0, 1]) {
      regions.push(
        await startRegion({
          region,
          layout,
          redisUrl: redis!.url,
          mapPath: map!.path,
          host: "127.0.0.1",
          linkPort: 0,
          httpPort: 0,
          logger: quiet,
          record: { dir },
        }),
      );
    }
    gateway = await startGateway({
      id: "g0",
      host: "127.0.0.1",
      httpPort: 0,
      udpPort: 0,
      redisUrl: redis!.url,
      regionCount: 2,
      clientDir: dir,
      logger: quiet,
    });
    // Joins go to region 0; the spawn (the map's centre) is region 1's ground: handed there at once.
    client = await (await UdpTestClient.connect(gateway.httpPort, "Walker")).sign().placed();
    const start = client.position()!;
    expect(start.x).toBeGreaterThan(BORDER_X + 2);
    // Over the border into region 0 (seen there as a ghost first), and back into region 1.
    const west = await walkSteps(
      client,
      Array.from({ length: start.x - (BORDER_X - 4) }, () => WEST),
    );
    expect(west.x).toBe(BORDER_X - 4);
    const back = await walkSteps(
      client,
      Array.from({ length: 8 }, () => EAST),
    );
    expect(back.x).toBe(BORDER_X + 4);
    const [region0, region1] = regions;
    expect(region0.game.sessions.size + region1.game.sessions.size).toBe(1);
    expect(region1.game.sessions.byEntityId(client.joined.entityId)).toBeDefined();
    await stopAll();

    const files = readdirSync(dir)
      .filter((name) => name.endsWith(".fcrec"))
      .sort();
    expect(files).toHaveLength(2);
    expect(files[0]).toMatch(/^caves-r0-/);
    expect(files[1]).toMatch(/^caves-r1-/);
    // Each region's recording holds the handoffs it made and took, and the ghost frames its neighbour sent:
    // region 0 took the join and handed it on, took the walker back and handed it on again; region 1 the other way.
    const [inputs0, inputs1] = files.map((file) => countInputs(join(dir, file)));
    expect(inputs0.handedOn).toBe(2);
    expect(inputs0.handedHere).toBe(1);
    expect(inputs1.handedOn).toBe(1);
    expect(inputs1.handedHere).toBe(2);
    expect(inputs0.ghostFrames).toBeGreaterThan(10);
    expect(inputs1.ghostFrames).toBeGreaterThan(10);
    for (const file of files) {
      const verified = await replayTool("verify", join(dir, file));
      expect(verified.out).toMatch(/exact: every tick's digest matches/);
      expect(verified.code).toBe(0);
    }

    // Region 0 without a ghost frame that showed it something new (the walker near the border, on region 1's
    // ground, one step on): the first whose entries differ from the frame before it and that a tick followed before
    // the next frame came — frames that came together between two ticks, the last one's ghosts are all the tick sees.
    const records0 = listRecords(join(dir, files[0]), RECORD.tickEnd);
    let lastGhosts = "[]";
    let dropIndex = -1;
    let divergesAt = -1;
    for (const [at, record] of records0.entries()) {
      if (record.type !== RECORD.regionFrame) continue;
      const { origin, kind, body } = frameOf(record.read());
      if (origin !== ORIGIN_NEIGHBOUR || kind !== FRAME_GHOSTS) continue;
      const previous = lastGhosts;
      lastGhosts = body;
      if (body === previous) continue;
      const next = records0.slice(at + 1).find((later) => {
        if (later.type === RECORD.tickStart) return true;
        return later.type === RECORD.regionFrame && frameOf(later.read()).kind === FRAME_GHOSTS;
      });
      if (next?.type !== RECORD.tickStart) continue;
      dropIndex = record.index;
      divergesAt = next.read().varint();
      break;
    }
    expect(dropIndex).toBeGreaterThan(0);
    const lostGhost = join(dir, "lost-ghost.fcrec");
    const ghostAfter = withoutRecord(
      join(dir, files[0]),
      lostGhost,
      ({ index }) => index === dropIndex,
      RECORD.tickEnd,
    );
    expect(ghostAfter).not.toBeNull();
    const ghostCaught = await replayTool("verify", lostGhost);
    expect(ghostCaught.out).toMatch(new RegExp(`DIVERGED at tick ${divergesAt}: entities`));
    expect(ghostCaught.code).toBe(1);

    // A cut of region 0's recording around that moment replays alone too, as a region's; `info` names the region.
    const cut = join(dir, "cut.fcrec");
    const cutDone = await replayTool(
      "cut",
      join(dir, files[0]),
      "--at-tick",
      String(ghostAfter),
      "--after",
      "1",
      "--out",
      cut,
    );
    expect(cutDone.code).toBe(0);
    const cutVerified = await replayTool("verify", cut);
    expect(cutVerified.out).toMatch(/exact: every tick's digest matches/);
    expect(cutVerified.code).toBe(0);
    expect((await replayTool("info", cut)).out).toMatch(/^region +0 of 2 /m);

    // Region 1 without the walker's arrival from region 0 on its way back: the session is missing from then on.
    const lostArrival = join(dir, "lost-arrival.fcrec");
    let arrivals = 0;
    const arrivalAfter = withoutRecord(
      join(dir, files[1]),
      lostArrival,
      ({ type, payload }) => {
        if (type !== RECORD.regionFrame) return false;
        const { origin, kind } = frameOf(payload);
        return origin === ORIGIN_GATEWAY && kind === FRAME_HANDOFF && ++arrivals === 2;
      },
      RECORD.tickEnd,
    );
    expect(arrivalAfter).not.toBeNull();
    const arrivalCaught = await replayTool("verify", lostArrival);
    expect(arrivalCaught.out).toMatch(new RegExp(`DIVERGED at tick ${arrivalAfter! + 1}: `));
    expect(arrivalCaught.code).toBe(1);
  }, 120_000);
});

// The console's Recordings tab at a gateway (docs/recording.md § The Recordings tab at a gateway): two regions
// recording into one folder, with the admin token, and a gateway. Every region's recordings listed at the gateway
// with their regions; a region's recording downloaded through the gateway and verified by the replay tool; a cut
// made through the gateway in the region named, downloaded and verified; a Watch of it started in that region,
// its page's controls and its WebSocket reached through the gateway, and stopped; each action in the admin log.
describe.skipIf(skip !== null)("a cluster's recordings at a gateway", () => {
  const TOKEN = "cluster-recordings-token-0123456789abcdef";
  const auth = { authorization: `Bearer ${TOKEN}` };
  const dir = mkdtempSync(join(tmpdir(), "caves-cluster-recordings-"));
  const folder = join(dir, "recordings");
  let redis: RedisProcess | null = null;
  let map: ReturnType<typeof writeTestMap> | null = null;
  const regions: RunningRegion[] = [];
  let gateway: RunningGateway | null = null;
  let client: UdpTestClient | null = null;

  const base = () => `http://127.0.0.1:${gateway!.httpPort}`;
  async function call(
    path: string,
    body?: unknown,
    headers: Record<string, string> = auth,
  ): Promise<{ status: number; json: Record<string, unknown> }> {
    const response = await fetch(`${base()}${path}`, {
      method: body === undefined ? "GET" : "POST",
      headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json", origin: base() }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, json: text.startsWith("{") ? JSON.parse(text) : { text } };
  }

  beforeAll(async () => {
    redis = await startRedis();
    map = writeTestMap();
    const layout = parseLayout(
      JSON.stringify({
        regions: [
          { region: 0, chunks: [0, 0, 1, 3] },
          { region: 1, chunks: [1, 0, 3, 3] },
        ],
      }),
      Math.ceil(TEST_MAP_WIDTH / 32),
      Math.ceil(TEST_MAP_HEIGHT / 32),
    );
    const quiet = new Logger("silent");
    for (const region of [0, 1]) {
      regions.push(
        await startRegion({
          region,
          layout,
          redisUrl: redis.url,
          mapPath: map.path,
          host: "127.0.0.1",
          linkPort: 0,
          httpPort: 0,
          logger: quiet,
          adminToken: TOKEN,
          record: { dir: folder },
        }),
      );
    }
    gateway = await startGateway({
      id: "g0",
      host: "127.0.0.1",
      httpPort: 0,
      udpPort: 0,
      redisUrl: redis.url,
      regionCount: 2,
      // The client's files (a viewer's page loads its scripts from the gateway's root, as from one server's).
      clientDir: DEFAULT_CLIENT_DIR,
      logger: quiet,
    });
  }, 60_000);

  afterAll(async () => {
    client?.close();
    await gateway?.close();
    for (const region of regions.splice(0)) await region.close();
    await redis?.stop();
    map?.dispose();
    rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  interface Listed {
    name: string;
    folder: string;
    region: number;
    live: boolean;
    bytes: number;
    window?: { fromTick: number; toTick: number };
  }

  it("lists every region's recordings, downloads and cuts one in the region named, and both verify", async () => {
    // A walker over the border into region 0 and back: both regions' recordings have a handoff and ghosts in them.
    client = await (await UdpTestClient.connect(gateway!.httpPort, "Walker")).sign().placed();
    const start = client.position()!;
    await walkSteps(
      client,
      Array.from({ length: start.x - (BORDER_X - 3) }, () => WEST),
    );
    const back = await walkSteps(
      client,
      Array.from({ length: 6 }, () => EAST),
    );
    expect(back.x).toBe(BORDER_X + 3);

    expect((await call("/api/admin/recordings", undefined, {})).status).toBe(401);
    const listed = await call("/api/admin/recordings");
    expect(listed.status, JSON.stringify(listed.json)).toBe(200);
    const recordings = listed.json.recordings as Listed[];
    // Each region lists its own file of the folder they share, once.
    expect(recordings.map((r) => [r.region, r.folder, r.live]).sort((a, b) => Number(a[0]) - Number(b[0]))).toEqual([
      [0, "", true],
      [1, "", true],
    ]);
    for (const recording of recordings) expect(recording.name.startsWith(`caves-r${recording.region}-`)).toBe(true);

    // Region 1's recording, downloaded through the gateway as it is being written: it verifies up to its last block.
    const ofRegion1 = recordings.find((r) => r.region === 1)!;
    const refused = await fetch(`${base()}/api/admin/recordings/file?region=1&name=${ofRegion1.name}`);
    expect(refused.status).toBe(401);
    // Another region has no file of that name: each region serves its own.
    expect((await call(`/api/admin/recordings/file?region=0&name=${ofRegion1.name}`)).status).toBe(404);
    expect((await call(`/api/admin/recordings/file?region=7&name=${ofRegion1.name}`)).status).toBe(400);
    const download = await fetch(`${base()}/api/admin/recordings/file?region=1&name=${ofRegion1.name}`, {
      headers: auth,
    });
    expect(download.status).toBe(200);
    expect(download.headers.get("content-disposition")).toContain(ofRegion1.name);
    const whole = join(dir, "region1.fcrec");
    writeFileSync(whole, new Uint8Array(await download.arrayBuffer()));
    const wholeVerified = await replayTool("verify", whole);
    expect(wholeVerified.out).toMatch(/exact: every tick's digest matches/);
    expect(wholeVerified.code).toBe(0);
    expect((await replayTool("info", whole)).out).toMatch(/^region +1 of 2 /m);

    // A cut of region 0's live recording, made in region 0 through the gateway around a tick it has recorded.
    const atTick = regions[0].game.tick - 24 * 2;
    const cut = await call("/api/admin/recordings/cut?region=0", { atTick, before: 1, after: 1 });
    expect(cut.status, JSON.stringify(cut.json)).toBe(200);
    const ofRegion0 = recordings.find((r) => r.region === 0)!;
    expect(cut.json).toMatchObject({
      action: "recording cut",
      region: 0,
      folder: "cuts",
      from: ofRegion0.name,
      atTick,
    });
    const cutName = String(cut.json.name);
    const afterCut = (await call("/api/admin/recordings")).json.recordings as Listed[];
    expect(afterCut.find((r) => r.name === cutName)).toMatchObject({ region: 0, folder: "cuts", live: false });
    const cutDownload = await fetch(`${base()}/api/admin/recordings/file?region=0&name=${cutName}`, { headers: auth });
    expect(cutDownload.status).toBe(200);
    const cutFile = join(dir, "region0-cut.fcrec");
    writeFileSync(cutFile, new Uint8Array(await cutDownload.arrayBuffer()));
    const cutVerified = await replayTool("verify", cutFile);
    expect(cutVerified.out).toMatch(/exact: every tick's digest matches/);
    // It stops at the window's end.
    expect(cutVerified.out).toContain(`–${Number(cut.json.toTick)})`);
    expect(cutVerified.code).toBe(0);

    // Watch: the cut replayed by a viewer region 0 starts, its page's controls and link reached through the gateway.
    const watched = await call("/api/admin/recordings/watch?region=0", { name: cutName });
    expect(watched.status, JSON.stringify(watched.json)).toBe(200);
    const viewer = watched.json as { id: string; page: string; region: number; firstTick: number; lastTick: number };
    expect(viewer.region).toBe(0);
    expect(viewer.id).toMatch(/^r0-[0-9a-f]+$/);
    expect((await call("/api/admin/viewers")).json.viewers).toEqual([
      expect.objectContaining({ id: viewer.id, name: cutName, region: 0 }),
    ]);
    const root = `/api/admin/viewers/${viewer.id}`;
    expect((await call(`${root}/api/replay`, undefined, {})).status).toBe(401);
    const state = await call(`${root}/api/replay`);
    expect(state.status).toBe(200);
    expect(state.json).toMatchObject({ firstTick: viewer.firstTick, lastTick: viewer.lastTick, playing: false });
    const played = await call(`${root}/api/replay`, { play: true, speed: 4 });
    expect(played.status, JSON.stringify(played.json)).toBe(200);
    await expect
      .poll(async () => Number((await call(`${root}/api/replay`)).json.tick), { timeout: 20_000 })
      .toBeGreaterThan(Number(state.json.tick));
    const link = new WebSocket(`ws://127.0.0.1:${gateway!.httpPort}${root}/ws`, {
      headers: { ...auth, origin: base() },
    });
    await new Promise<void>((resolve, reject) => {
      link.once("open", () => resolve());
      link.once("error", reject);
    });
    link.close();
    const stopped = await call("/api/admin/viewers/stop", { id: viewer.id });
    expect(stopped.status, JSON.stringify(stopped.json)).toBe(200);
    expect((await call("/api/admin/viewers")).json.viewers).toEqual([]);
    expect((await call("/api/admin/viewers/stop", { id: "nobody" })).status).toBe(404);

    // The console's Recordings tab at the gateway, in Chromium: both regions' files with their regions; a cut of
    // region 1's made from the form, listed under region 1 and downloaded byte for byte; Watch on region 0's cut
    // plays it in the frame through the gateway.
    if (HAVE_CHROMIUM) {
      const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
      try {
        const context = await browser.newContext({
          httpCredentials: { username: "host", password: TOKEN },
          viewport: { width: 1200, height: 800 },
          acceptDownloads: true,
        });
        const page = await context.newPage();
        page.on("pageerror", (error) => console.error(`[console] page error: ${error.message}`));
        await page.goto(`${base()}/admin`);
        await page.click("#tabs [data-tab=recordings]");
        const row1 = page.locator(`#recording-list tbody tr[data-name="${ofRegion1.name}"]`);
        await row1.waitFor();
        expect(await row1.getAttribute("data-region")).toBe("1");
        expect(await row1.locator("td.recording-region").textContent()).toBe("1");
        expect(await page.isVisible("#recording-list th.recording-region")).toBe(true);
        expect(
          await page.locator(`#recording-list tbody tr[data-name="${cutName}"] td.recording-region`).textContent(),
        ).toBe("0");
        // Cut region 1's recording from the form: the region named in the answer, the cut listed under region 1.
        await page.selectOption("#cut-name", `1 ${ofRegion1.name}`);
        await page.fill("#cut-at", String(regions[1].game.tick - 24 * 2));
        await page.fill("#cut-before", "1");
        await page.fill("#cut-after", "1");
        await page.click("#cut-go");
        await page.waitForFunction(() =>
          document.getElementById("recordings-result")?.textContent?.startsWith("cut ticks"),
        );
        const said = (await page.textContent("#recordings-result"))!;
        expect(said).toContain(`of ${ofRegion1.name} (region 1)`);
        const cut1 = /into cuts\/(\S+\.fcrec)/.exec(said)![1];
        const cutRow1 = page.locator(`#recording-list tbody tr[data-name="${cut1}"]`);
        await cutRow1.waitFor();
        expect(await cutRow1.getAttribute("data-region")).toBe("1");
        const [download] = await Promise.all([
          page.waitForEvent("download"),
          cutRow1.locator("button:text('Download')").click(),
        ]);
        const saved = join(dir, "region1-cut.fcrec");
        await download.saveAs(saved);
        expect(Buffer.compare(readFileSync(saved), readFileSync(join(folder, "cuts", cut1)))).toBe(0);
        const cut1Verified = await replayTool("verify", saved);
        expect(cut1Verified.out).toMatch(/exact: every tick's digest matches/);
        expect(cut1Verified.code).toBe(0);
        // Watch region 0's cut: a viewer in region 0, its page in the frame through the gateway.
        await page.locator(`#recording-list tbody tr[data-name="${cutName}"]`).locator("button:text('Watch')").click();
        await page.waitForFunction(
          () => document.getElementById("recordings-result")?.textContent?.startsWith("replaying"),
          undefined,
          { timeout: 60_000 },
        );
        expect(await page.getAttribute("#follow-frame", "src")).toMatch(
          /^\/api\/admin\/viewers\/r0-[0-9a-f]+\/\?replay&transport=websocket$/,
        );
        const frame = (await (await page.waitForSelector("#follow-frame")).contentFrame())!;
        await expect.poll(() => frame.getByTestId("replay").isVisible(), { timeout: 20_000 }).toBe(true);
        // It plays: the replayed region's ticks go on in the frame.
        const time = frame.getByTestId("replay-time");
        // (Shown once the page has asked where the replay is.)
        await expect.poll(() => time.textContent(), { timeout: 20_000 }).toMatch(/tick \d+/);
        const paused = (await time.textContent())!;
        await frame.getByTestId("replay-play").click();
        await expect.poll(() => time.textContent(), { timeout: 20_000 }).not.toBe(paused);
        await page.click("#follow-close");
        await expect.poll(async () => (await call("/api/admin/viewers")).json.viewers, { timeout: 10_000 }).toEqual([]);
        await context.close();
      } finally {
        await browser.close();
      }
    }

    // Each action in the admin log of the region that did it, merged at the gateway.
    const log = (await call("/api/admin/log?limit=20")).json.entries as { action: string; region: number }[];
    const byAction = (action: string) =>
      log
        .filter((entry) => entry.action === action)
        .map((entry) => entry.region)
        .sort((a, b) => a - b);
    const browsed = HAVE_CHROMIUM ? 1 : 0;
    expect(byAction("recording cut")).toEqual(browsed === 1 ? [0, 1] : [0]);
    expect(byAction("recording watch")).toEqual(Array(1 + browsed).fill(0));
    expect(byAction("viewer stop")).toEqual(Array(1 + browsed).fill(0));
  }, 180_000);

  it("makes a viewer's controls pay the address's request budget at the gateway, as the admin API's routes do", async () => {
    // Wrong tokens posted to a viewer's controls: each region refuses them (401), and once the address has spent
    // its budget (a burst of 60, shared with this file's other POSTs) the gateway refuses them itself (429), so a
    // token cannot be guessed through a viewer's path for free. Before, every one reached a region.
    const wrong = { authorization: `Bearer ${"x".repeat(TOKEN.length)}` };
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 70; attempt++) {
      statuses.push((await call("/api/admin/viewers/r0-abcdef/api/replay", { play: true }, wrong)).status);
    }
    expect(new Set(statuses)).toEqual(new Set([401, 429]));
    const firstRefused = statuses.indexOf(429);
    expect(statuses.slice(firstRefused).every((status) => status === 429)).toBe(true);
  }, 60_000);
});

// A region on the shared PostgreSQL store (the default cluster), recorded (docs/recording.md § In a cluster): its
// Game's every call on the store numbered and its answer taped when the Game gets it (ts/cluster/store-tape.ts),
// the rows its world is made from at start among them. Two regions on a private PostgreSQL and redis-server, a
// gateway, two accounts on real UDP in region 1: one takes from a chest (a bag read and written in PostgreSQL),
// befriends the other (the friend's account and the new friendship: the store's answers) and walks. Region 1's
// recording verifies alone (exit 0) with no database; with the bag the store answered at the login edited, the
// replay diverges (exit 1) at the next checkpoint.
const pgSkip = skip ?? postgresSkipReason();
describe.skipIf(pgSkip !== null)("a region on the shared store, recorded and replayed alone", () => {
  const dir = mkdtempSync(join(tmpdir(), "caves-cluster-recording-pg-"));
  let redis: RedisProcess | null = null;
  let postgres: PostgresProcess | null = null;
  let map: NpcMap | null = null;
  const regions: RunningRegion[] = [];
  let gateway: RunningGateway | null = null;
  const clients: UdpTestClient[] = [];
  const POTION = itemDef({ id: 4, name: "potion", kind: "consumable", stack: 5, heal: 30 });
  const COIN = itemDef({ id: 5, name: "coin", kind: "treasure", stack: 100 });
  const SPAWN = { x: 40, y: 35 };

  async function stopAll(): Promise<void> {
    for (const client of clients.splice(0)) client.close();
    await gateway?.close();
    gateway = null;
    for (const region of regions.splice(0)) await region.close();
  }

  beforeAll(async () => {
    redis = await startRedis();
    postgres = await startPostgres();
    map = writeNpcMap({
      width: 80,
      height: 70,
      spawn: SPAWN,
      kinds: [],
      spawns: [],
      items: [POTION, COIN],
      chests: [{ name: "box", x: SPAWN.x + 1, y: SPAWN.y, items: "coin:40, potion:3" }],
      boards: [],
    });
  }, 90_000);

  afterAll(async () => {
    await stopAll();
    await redis?.stop();
    postgres?.stop();
    map?.dispose();
    rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  it("records a login, a chest taken from, a friend made and a walk; the file verifies alone, an edited answer is caught", async () => {
    const layout = parseLayout(
      JSON.stringify({
        regions: [
          { region: 0, chunks: [0, 0, 1, 3] },
          { region: 1, chunks: [1, 0, 3, 3] },
        ],
      }),
      3,
      3,
    );
    const quiet = new Logger("silent");
    for (const region of [0, 1]) {
      regions.push(
        await startRegion({
          region,
          layout,
          redisUrl: redis!.url,
          postgresUrl: postgres!.url,
          mapPath: map!.path,
          host: "127.0.0.1",
          linkPort: 0,
          httpPort: 0,
          logger: quiet,
          record: { dir },
        }),
      );
    }
    gateway = await startGateway({
      id: "g0",
      host: "127.0.0.1",
      httpPort: 0,
      udpPort: 0,
      redisUrl: redis!.url,
      postgresUrl: postgres!.url,
      regionCount: 2,
      clientDir: dir,
      logger: quiet,
    });
    const register = async (name: string) => {
      const answer = await postJson(gateway!.httpPort, "/api/register", { name, password: "long enough", nick: name });
      expect(answer.status).toBe(200);
      const client = (await UdpTestClient.withSession(answer.body as unknown as Joined)).sign();
      clients.push(client);
      return client.placed();
    };
    const packer = await register("Packer");
    await register("Buddy");
    await until("both in region 1", async () => regions[1].game.sessions.size === 2);
    // A chest's coins into the bag: the bag read from PostgreSQL (an answer that came later) and written back.
    const chest = await packer.waitFor("the chest in view", () => packer.inView(ENTITY_TYPE_CHEST)[0]?.id, 5000);
    expect(await itemRequest(packer, 1, "take", { container: chest, slot: 0 })).toBe("ok");
    expect(await bagOf(packer)).toEqual([{ slot: 0, itemId: COIN.id, count: 40 }]);
    // A friend: the friend's account and the friendship are the store's answers.
    post(packer, 1, "/friend Buddy");
    await hearLine(
      packer,
      "Buddy befriended",
      (line) => line.speakerEntityId === 0 && line.text.startsWith("Buddy is now your friend"),
    );
    // A walk, still on region 1's ground.
    const start = packer.position()!;
    const walked = await walkSteps(packer, [WEST, WEST, EAST]);
    expect(walked.x).toBe(start.x - 1);
    // On past a checkpoint (every 10 s of the world's ticks) after the take.
    const past = regions[1].game.tick + 24 * 11;
    await until("a checkpoint after the take", async () => regions[1].game.tick > past, 20_000);
    await stopAll();

    const files = readdirSync(dir)
      .filter((name) => name.endsWith(".fcrec"))
      .sort();
    expect(files).toHaveLength(2);
    const region1 = join(dir, files[1]);
    expect(files[1]).toMatch(/^caves-r1-/);
    const answers = listRecords(region1, RECORD.tickEnd).filter((record) => record.type === RECORD.storeAnswer);
    const methods = answers.map((record) => {
      const payload = record.read();
      const port = payload.u8();
      return `${port}:${payload.text()}:${payload.varint() > 0 ? payload.u8() : -1}`;
    });
    // The bag's read and write came later (3 at the call, 1 resolved when applied), the friendship too.
    expect(methods).toContain("0:load:3");
    expect(methods).toContain("0:load:1");
    expect(methods).toContain("0:write:1");
    expect(methods).toContain("4:addFriend:1");
    for (const file of files) {
      const verified = await replayTool("verify", join(dir, file));
      expect(verified.out, file).toMatch(/exact: every tick's digest matches/);
      expect(verified.code).toBe(0);
    }

    // Packer's bag as the store answered it at the login, with seven coins in it: the replayed bag holds them, and
    // the items' census differs at the next checkpoint (a bag is in no tick's digest).
    const edited = join(dir, "edited-answer.fcrec");
    const editedAfter = withRecordReplaced(
      region1,
      edited,
      ({ type, payload }) => {
        if (type !== RECORD.storeAnswer) return null;
        const port = payload.u8();
        const method = payload.text();
        const call = payload.varint();
        const outcome = payload.u8();
        if (port !== 0 || method !== "load" || outcome !== 1) return null;
        const bag = deserialize(payload.blob()) as { version: number } | undefined;
        const out = new ByteWriter();
        out.u8(port);
        out.text(method);
        out.varint(call);
        out.u8(outcome);
        out.blob(serialize({ version: bag?.version ?? 1, stacks: [{ slot: 5, itemId: COIN.id, count: 7 }] }));
        return out.view0();
      },
      RECORD.tickEnd,
    );
    expect(editedAfter).not.toBeNull();
    const caught = await replayTool("verify", edited);
    expect(caught.out).toMatch(/DIVERGED at tick \d+: the checkpoint/);
    expect(caught.out).toMatch(/census/);
    expect(caught.code).toBe(1);
  }, 180_000);
});
