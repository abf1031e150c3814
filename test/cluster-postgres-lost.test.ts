// Issue 41, PostgreSQL lost (docs/scaling.md § Healing), for real: a cluster (redis-server, two regions,
// a gateway) whose shared store is a PostgreSQL this test starts, kills with SIGKILL and starts again.
// While it is down the regions play on — the same processes, a player still walking — and a durable
// change is refused with its reason, never answered as done: an item taken answers not_written and the
// bag is as it was, a registration answers 503 saying why. Once it is back each region has connected
// again and taken its characters' leases again, and the same player's next item change is written.
import pg from "pg";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACTION_DX, ACTION_DY } from "../ts/protocol/action.js";
import type { ItemStack } from "../ts/protocol/tlv.js";
import { CHARACTER_LOCK_SPACE } from "../ts/cluster/pg-accounts.js";
import { type PostgresProcess, postgresSkipReason, startPostgres } from "../ts/cluster/postgres-process.js";
import { ENTITY_TYPE_CHEST } from "../ts/item-types.js";
import { clusterSkipReason, startTestCluster, type TestCluster, until } from "./support/cluster-process.js";
import { postJson } from "./support/game-harness.js";
import { bagOf, itemDef, itemRequest } from "./support/item-client.js";
import { writeNpcMap } from "./support/npc-map.js";
import { type Joined, UdpTestClient } from "./support/udp-client.js";
import { walkSteps } from "./support/walk.js";

const skip = clusterSkipReason() ?? postgresSkipReason();
if (skip !== null) process.stderr.write(`test/cluster-postgres-lost.test.ts skipped: ${skip}\n`);

const EAST = ACTION_DX.findIndex((dx, code) => code > 0 && dx === 1 && ACTION_DY[code] === 0);
const DAGGER = itemDef({ id: 2, name: "dagger", kind: "weapon", damage: 9 });
const COIN = itemDef({ id: 5, name: "coin", kind: "treasure", stack: 100 });
const SPAWN = { x: 40, y: 35 };
const stack = (slot: number, itemId: number, count: number): ItemStack => ({ slot, itemId, count });

describe.skipIf(skip !== null)("a cluster whose PostgreSQL is lost and comes back", () => {
  let postgres: PostgresProcess;
  let cluster: TestCluster;
  const clients: UdpTestClient[] = [];
  const http = () => cluster.ready.gateways[0].httpPort;
  /** Region `region`'s connection to the store, from its /api/cluster. */
  const storeOf = async (region: number) => {
    const entry = cluster.ready.regions.find((r) => r.region === region)!;
    const status = (await (await fetch(`http://127.0.0.1:${entry.httpPort}/api/cluster`)).json()) as {
      store: { up: boolean; lost: number; back: number };
      accounts: { refused: number };
    };
    return { ...status.store, refused: status.accounts.refused };
  };

  beforeAll(async () => {
    postgres = await startPostgres();
    const map = writeNpcMap({
      width: 80,
      height: 70,
      spawn: SPAWN,
      kinds: [],
      spawns: [],
      items: [DAGGER, COIN],
      chests: [{ name: "box", x: SPAWN.x + 1, y: SPAWN.y, items: "dagger, coin:40" }],
    });
    cluster = await startTestCluster(1, ["--postgres", postgres.url], map);
  }, 120_000);

  afterAll(async () => {
    for (const client of clients) client.close();
    await cluster?.stop();
    postgres?.stop();
  }, 30_000);

  it("regions play on, refuse a durable change with its reason, and carry on once it is back", async () => {
    const registered = await postJson(http(), "/api/register", {
      name: "Keeper",
      password: "long enough",
      nick: "Keeper",
    });
    expect(registered.status).toBe(200);
    const player = await (await UdpTestClient.withSession(registered.body as unknown as Joined)).sign().placed();
    clients.push(player);
    const chest = await player.waitFor("the chest in view", () => player.inView(ENTITY_TYPE_CHEST)[0]?.id, 5000);
    expect(await itemRequest(player, 1, "take", { container: chest, slot: 0 })).toBe("ok");
    const redis = new Redis(cluster.ready.redis);
    const pids = async () => (await redis.mget("fc:region:0", "fc:region:1")).map((v) => JSON.parse(v!).pid as number);
    try {
      const regionPids = await pids();
      const logBefore = cluster.process.stderr().length;
      process.kill(postgres.pid!, "SIGKILL");
      await until("both regions without their store", async () => !(await storeOf(0)).up && !(await storeOf(1)).up);

      // A durable change is refused, saying why; nothing changed.
      expect(await itemRequest(player, 2, "take", { container: chest, slot: 1 })).toBe("not_written");
      expect(await bagOf(player)).toEqual([stack(0, DAGGER.id, 1)]);
      const refused = await postJson(http(), "/api/register", {
        name: "Latecomer",
        password: "long enough",
        nick: "Late",
      });
      expect(refused.status).toBe(503);
      expect(String(refused.body.error)).toContain("store cannot be reached");
      // The regions play on: the same processes, the player still walks.
      const at = player.position()!;
      expect(await walkSteps(player, [EAST])).toEqual({ x: at.x + 1, y: at.y });
      expect(await pids()).toEqual(regionPids);

      // Back: both regions connected again (a postmaster killed may leave its backends a moment).
      postgres = await until("PostgreSQL started again", () => postgres.restart().catch(() => null), 30_000);
      await until(
        "both regions with their store again",
        async () => (await storeOf(0)).up && (await storeOf(1)).up,
        20_000,
      );
      // The character's lease was taken again on the new connection: its bag's change is written.
      expect(await itemRequest(player, 3, "take", { container: chest, slot: 1 })).toBe("ok");
      expect(await bagOf(player)).toEqual([stack(0, DAGGER.id, 1), stack(1, COIN.id, 40)]);
      const db = new pg.Client({ connectionString: postgres.url });
      await db.connect();
      try {
        const account = (await db.query<{ id: string }>("SELECT id FROM accounts WHERE name_key = 'keeper'")).rows[0]
          .id;
        const leases = await db.query(
          "SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted AND classid = $1::bigint::oid AND objid = $2::oid",
          [CHARACTER_LOCK_SPACE, account],
        );
        expect(leases.rowCount).toBe(1);
        const stacks = await db.query<{ item_id: string; count: string }>(
          "SELECT item_id, count FROM item_stacks WHERE container = $1 ORDER BY slot",
          [`character:${account}`],
        );
        expect(stacks.rows.map((row) => [Number(row.item_id), Number(row.count)])).toEqual([
          [DAGGER.id, 1],
          [COIN.id, 40],
        ]);
      } finally {
        await db.end();
      }
      const joined = await postJson(http(), "/api/register", {
        name: "Latecomer",
        password: "long enough",
        nick: "Late",
      });
      expect(joined.status).toBe(200);
      expect((await storeOf(0)).refused + (await storeOf(1)).refused).toBe(0);
      // The log: a line per process when the store went, one when it was back — not one per refused save.
      const log = cluster.process.stderr().slice(logBefore);
      // Every process that uses the store says it: both regions, and each gateway (it reads the address bans).
      const storeUsers = 2 + cluster.ready.gateways.length;
      expect(log.split("\n").filter((line) => line.includes("(PostgreSQL) is unreachable")).length).toBe(storeUsers);
      expect(log.split("\n").filter((line) => line.includes("(PostgreSQL) is back")).length).toBe(storeUsers);
    } finally {
      redis.disconnect();
    }
  }, 90_000);
});
