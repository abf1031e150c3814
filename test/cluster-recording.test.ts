// Issue 40's flight recorder in a cluster (docs/recording.md § In a cluster): each region records its own
// inputs — the handoffs and ghost frames it receives included — so each region's recording replays alone.
// Two real regions and a real gateway in this process on a private redis-server (no shared PostgreSQL: a
// region with it is not recorded yet), a protocol client on real UDP walking over the border and back; then
// `replay verify` on each region's file, and on one with a ghost frame taken out of it. Bounded, cleans up.
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningGateway, startGateway } from "../ts/cluster/gateway.js";
import { parseLayout } from "../ts/cluster/layout.js";
import { FRAME_GHOSTS, FRAME_HANDOFF } from "../ts/cluster/link-frames.js";
import { type RedisProcess, startRedis } from "../ts/cluster/redis-process.js";
import { ORIGIN_GATEWAY, ORIGIN_NEIGHBOUR } from "../ts/cluster/region-recording.js";
import { type RunningRegion, startRegion } from "../ts/cluster/region.js";
import { ACTION_DX, ACTION_DY } from "../ts/protocol/action.js";
import { Logger } from "../ts/server/ops/log.js";
import type { ByteReader } from "../ts/server/recording/bytes.js";
import { BlockReader, fileSource, RECORD, readHeader } from "../ts/server/recording/format.js";
import { BORDER_X, clusterSkipReason } from "./support/cluster-process.js";
import { listRecords, withoutRecord } from "./support/recording-edit.js";
import { TEST_MAP_HEIGHT, TEST_MAP_WIDTH, writeTestMap } from "./support/test-map.js";
import { UdpTestClient } from "./support/udp-client.js";
import { walkSteps } from "./support/walk.js";

const skip = clusterSkipReason();
if (skip !== null) process.stderr.write(`test/cluster-recording.test.ts skipped: ${skip}\n`);

const TSX = fileURLToPath(new URL("../node_modules/.bin/tsx", import.meta.url));
const REPLAY_TOOL = fileURLToPath(new URL("../ts/tools/replay.ts", import.meta.url));
const run = promisify(execFile);
const WEST = ACTION_DX.findIndex((dx, code) => code > 0 && dx === -1 && ACTION_DY[code] === 0);
const EAST = ACTION_DX.findIndex((dx, code) => code > 0 && dx === 1 && ACTION_DY[code] === 0);

/** `npm run -s replay -- ARGS` (the tool itself, under tsx): its exit status and what it printed. */
async function replayTool(...args: string[]): Promise<{ code: number; out: string }> {
  try {
    const { stdout, stderr } = await run(TSX, [REPLAY_TOOL, ...args], { timeout: 60_000 });
    return { code: 0, out: stdout + stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, out: failed.stdout + failed.stderr };
  }
}

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
