// Accounts when the world is served by several processes (issue 19): a real cluster (redis-server,
// PostgreSQL, two region processes, a gateway) and a protocol client on real UDP. An account's
// character crosses borders like a guest, its lease with it; it is saved by whichever region plays
// it; a second login through the gateway takes it over from the region playing it; a region killed
// with SIGKILL gives its leases up with its connection, and the restarted region saves on. Its
// experience (issue 39) is read from PostgreSQL at login and crosses the border with it.
import pg from "pg";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACTION_DX, ACTION_DY } from "../ts/protocol/action.js";
import { HANDOFF_MARGIN_TILES } from "../ts/cluster/layout.js";
import { postgresSkipReason } from "../ts/cluster/postgres-process.js";
import {
  BORDER_X,
  clusterSkipReason,
  connectStore,
  type RegionStatus,
  startTestCluster,
  until,
  type TestCluster,
} from "./support/cluster-process.js";
import { postJson } from "./support/game-harness.js";
import { type Joined, UdpTestClient } from "./support/udp-client.js";
import { walkSteps } from "./support/walk.js";

const skip = clusterSkipReason() ?? postgresSkipReason();
if (skip !== null) process.stderr.write(`test/cluster-accounts.test.ts skipped: ${skip}\n`);

const WEST = ACTION_DX.findIndex((dx, code) => code > 0 && dx === -1 && ACTION_DY[code] === 0);
const EAST = ACTION_DX.findIndex((dx, code) => code > 0 && dx === 1 && ACTION_DY[code] === 0);

describe.skipIf(skip !== null)("accounts in a cluster, kept in PostgreSQL", () => {
  let cluster: TestCluster;
  let db: pg.Client;
  const clients: UdpTestClient[] = [];
  const http = () => cluster.ready.gateways[0].httpPort;
  const saved = async () =>
    (
      await db.query<{ x: string | null; y: string | null; xp: string }>(
        "SELECT c.x, c.y, c.xp FROM characters c JOIN accounts a ON a.id = c.account_id WHERE a.name_key = 'rover'",
      )
    ).rows.map((row) => ({ x: Number(row.x), y: Number(row.y), xp: Number(row.xp) }))[0];
  const owner = (entityId: number) => cluster.ownerOf(entityId);

  async function playing(joined: Joined): Promise<UdpTestClient> {
    const client = (await UdpTestClient.withSession(joined)).sign();
    clients.push(client);
    return client.placed();
  }

  beforeAll(async () => {
    cluster = await startTestCluster();
    db = await connectStore(cluster);
  }, 120_000);

  afterAll(async () => {
    for (const client of clients) client.close();
    await db?.end().catch(() => {});
    await cluster?.stop();
  }, 20_000);

  it("an account's character crosses the border with its lease, saved by the region playing it; a second login takes it over", async () => {
    const registered = await postJson(http(), "/api/register", {
      name: "Rover",
      password: "long enough",
      nick: "Rover",
    });
    expect(registered.status).toBe(200);
    const first = await playing(registered.body as unknown as Joined);
    const id = first.joined.entityId;
    // Joins go to region 0; the spawn is region 1's ground: handed off at once, the lease following.
    expect(await until("region 1 playing it", async () => (await owner(id)) === 1)).toBe(true);
    const spawn = first.position()!;
    expect(spawn.x).toBeGreaterThan(BORDER_X);
    // Region 1 saves it as it walks (a save interval and a round trip).
    await walkSteps(first, [WEST]);
    await until("the step saved by region 1", async () => (await saved())?.x === spawn.x - 1);
    // Across the border into region 0, which takes the lease and saves on.
    const end = await walkSteps(
      first,
      Array.from({ length: 17 }, () => WEST),
    );
    expect(end.x).toBeLessThan(BORDER_X);
    expect(await until("region 0 playing it", async () => (await owner(id)) === 0)).toBe(true);
    await until("the walk saved by region 0", async () => {
      const at = await saved();
      return at?.x === end.x && at.y === end.y;
    });
    const [status0, status1] = await Promise.all([cluster.regionStatus(0), cluster.regionStatus(1)]);
    expect(status0.accounts!.refused + status1.accounts!.refused).toBe(0);
    expect(status0.accounts!.failures + status1.accounts!.failures).toBe(0);
    expect(status1.accounts!.rows).toBeGreaterThan(0);
    expect(status0.accounts!.rows).toBeGreaterThan(0);

    // Walk back onto region 1's ground, then log in again: region 0 (where logins run) asks region 1 to
    // let the character go, and the new session starts where it stood.
    const back = await walkSteps(
      first,
      Array.from({ length: BORDER_X + HANDOFF_MARGIN_TILES + 1 - end.x }, () => EAST),
    );
    expect(await until("region 1 playing it again", async () => (await owner(id)) === 1)).toBe(true);
    // Its experience as the row holds it (issue 39): written here behind the playing region's back, which
    // has nothing new to save when it lets the character go (it stands still at full hp), so the login
    // reads it from PostgreSQL.
    await db.query(
      "UPDATE characters SET xp = 170 WHERE account_id = (SELECT id FROM accounts WHERE name_key = 'rover')",
    );
    const again = await postJson(http(), "/api/login", { name: "rover", password: "long enough" });
    expect(again.status).toBe(200);
    const second = await playing(again.body as unknown as Joined);
    expect(second.position()).toEqual(back);
    expect(second.joined.entityId).not.toBe(id);
    const kicks = (await cluster.regionStatus(1)).kicks!;
    expect(kicks.ended).toBeGreaterThanOrEqual(1);
    // The first session is over: its entity is gone from every region.
    expect(await until("the old entity gone", async () => (await owner(id)) === null)).toBe(true);
    // 170 experience: level 3 over its head, and its hp max.
    const own = () => second.inView(0).find((entity) => entity.id === second.joined.entityId);
    await second.waitFor("level 3", () => own()?.meta.some((tlv) => tlv.kind === "level" && tlv.value === 3));
    expect(own()!.hpMax).toBe(110);
    // Across the border once more: the handoff carries the experience, and region 0 saves it with the walk.
    const west = await walkSteps(
      second,
      Array.from({ length: back.x - BORDER_X + HANDOFF_MARGIN_TILES + 1 }, () => WEST),
    );
    expect(await until("region 0 playing it", async () => (await owner(second.joined.entityId)) === 0)).toBe(true);
    await until("the walk and the experience saved by region 0", async () => {
      const at = await saved();
      return at?.x === west.x && at.xp === 170;
    });
  }, 60_000);

  it("a region killed with SIGKILL frees the leases it held; restarted, it plays the account on and saves it", async () => {
    const player = clients[clients.length - 1];
    const id = player.joined.entityId;
    // Region 0 or 1 (the last test left it on region 0's ground): a number, 0 included.
    const { region } = await until("an owner", async () => {
      const found = await owner(id);
      return found === null ? null : { region: found };
    });
    const redis = new Redis(cluster.ready.redis);
    try {
      const endpoint = async () =>
        JSON.parse((await redis.get(`fc:region:${region}`)) ?? "null") as { pid: number; httpPort: number } | null;
      const tokenHex = player.token.toString(16).padStart(16, "0");
      await until(
        "a checkpoint of the session",
        async () => (await redis.hexists(`fc:checkpoint:${region}`, tokenHex)) === 1,
      );
      const before = (await endpoint())!;
      const at = player.position()!;
      const statesAtKill = player.states.length;
      process.kill(before.pid, "SIGKILL");
      const keepAlive = setInterval(() => player.action(0, 0), 200);
      try {
        await until("the region restarted", async () => (await endpoint())?.pid !== before.pid, 30_000);
        await player.waitFor(
          "back in play",
          () => player.states.length > statesAtKill + 5 && player.position(),
          20_000,
        );
      } finally {
        clearInterval(keepAlive);
      }
      expect(player.position()).toEqual(at);
      // Its new connection took the lease the dead one held: a step is saved.
      const end = await walkSteps(player, [WEST]);
      expect(end).toEqual({ x: at.x - 1, y: at.y });
      await until("the step after the restart saved", async () => (await saved())?.x === end.x);
      // Its experience came back with it from the checkpoint (the handoff state), and was saved with the step.
      expect((await saved())?.xp).toBe(170);
      // The restarted region answers on a port of its own.
      const restarted = (await endpoint())!;
      const status = (await (await fetch(`http://127.0.0.1:${restarted.httpPort}/api/cluster`)).json()) as RegionStatus;
      expect(status.accounts!.refused).toBe(0);
      expect(status.accounts!.acquired).toBeGreaterThanOrEqual(1);
    } finally {
      redis.disconnect();
    }
  }, 60_000);
});
