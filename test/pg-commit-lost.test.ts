// An item change whose connection dies around its COMMIT (ts/cluster/pg-statements.ts): its outcome is
// asked of PostgreSQL on the next connection, never guessed, so the change is answered written exactly
// when the store holds it — and the process's copy of the container (its version) stays the store's, so
// the next change to it is taken. On a real PostgreSQL, through the region's own connection (PgConnection,
// which makes a lost connection again) behind a loopback proxy that cuts the link around a COMMIT; and with
// the backend ended by pg_terminate_backend while its COMMIT runs. And a link cut while its backend waits on
// a row lock (so it outlives the link, holding the character leases): the new connection ends it before it
// takes the leases again, and no session's lease is lost to it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PgAccounts } from "../ts/cluster/pg-accounts.js";
import { PgConnection } from "../ts/cluster/pg-connection.js";
import { PgItemStore } from "../ts/cluster/pg-items.js";
import { postgresSkipReason } from "../ts/cluster/postgres-process.js";
import { Logger } from "../ts/server/ops/log.js";
import type { ItemWrite } from "../ts/server/persistence/item-store.js";
import { PgCutProxy } from "./support/pg-cut-proxy.js";
import { usePostgres } from "./support/postgres-rig.js";

const quiet = new Logger("silent");
const skip = postgresSkipReason();
if (skip !== null) process.stderr.write(`test/pg-commit-lost.test.ts skipped: ${skip}\n`);

const COIN = 3;

describe.skipIf(skip !== null)("an item change whose connection dies around its COMMIT", () => {
  const postgres = usePostgres();
  let proxy: PgCutProxy;
  let connection: PgConnection;
  let store: PgItemStore;
  let accounts: PgAccounts;

  /** A chest's change from `version - 1` to `version`, holding `coins`. */
  const chestAt = (key: string, version: number, coins: number): ItemWrite => ({
    containers: [{ key, version, stacks: [{ slot: 0, itemId: COIN, count: coins }] }],
  });
  const versionOf = async (key: string): Promise<number | undefined> => {
    const db = await postgres.connect();
    const result = await db.query<{ version: string }>("SELECT version FROM item_containers WHERE key = $1", [key]);
    await db.end();
    return result.rows.length === 0 ? undefined : Number(result.rows[0].version);
  };

  beforeAll(async () => {
    const port = Number(new URL(postgres.url()).port);
    proxy = await PgCutProxy.start(port);
    const url = new URL(postgres.url());
    url.port = String(proxy.port);
    connection = new PgConnection(url.toString(), quiet);
    await connection.connect();
    accounts = new PgAccounts(connection, quiet);
    connection.reopened = (client) => accounts.relock(client);
    store = await PgItemStore.open(connection, {
      world: "caves",
      chestKeys: [],
      owns: () => true,
      leased: (accountId) => accounts.leased(accountId),
    });
  });

  afterAll(async () => {
    await connection?.end();
    await proxy?.close();
  });

  it("committed but its answer lost: answered written, and the next change to the container is taken", async () => {
    const key = "chest:caves:answer-lost";
    await store.write(chestAt(key, 1, 5));
    proxy.cutNextCommit("after");
    // The link dies as PostgreSQL answers the COMMIT: the store holds the change, so it is written.
    await expect(store.write(chestAt(key, 2, 4))).resolves.toEqual([]);
    expect(proxy.cuts).toBe(1);
    expect(await versionOf(key)).toBe(2);
    expect(connection.commits).toMatchObject({ commitsLost: 1, foundCommitted: 1 });
    // The process's copy is at version 2, as the store's: its next change (2 → 3) is taken.
    await expect(store.write(chestAt(key, 3, 3))).resolves.toEqual([]);
    expect(await versionOf(key)).toBe(3);
    expect(connection.stats.lost).toBe(1);
  }, 30_000);

  it("never reached the server: answered not written, and the container is still the process's copy", async () => {
    const key = "chest:caves:commit-lost";
    await store.write(chestAt(key, 1, 5));
    const before = { ...connection.commits };
    proxy.cutNextCommit("before");
    await expect(store.write(chestAt(key, 2, 4))).rejects.toThrow();
    expect(await versionOf(key)).toBe(1);
    expect(connection.commits.commitsLost).toBe(before.commitsLost + 1);
    expect(connection.commits.foundAborted).toBe(before.foundAborted + 1);
    // The process still holds version 1, as the store does: the change asked again is taken.
    await expect(store.write(chestAt(key, 2, 4))).resolves.toEqual([]);
    expect(await versionOf(key)).toBe(2);
  }, 30_000);

  it("its backend ended by pg_terminate_backend while its COMMIT runs: answered as the store says, the copy kept in step", async () => {
    const key = "chest:caves:terminated";
    await store.write(chestAt(key, 1, 5));
    // A COMMIT that takes a while (a deferred trigger sleeping on this one container), to be ended mid-way.
    const admin = await postgres.connect();
    await admin.query(`CREATE FUNCTION slow_commit() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN PERFORM pg_sleep(30); RETURN NULL; END $$`);
    await admin.query(`CREATE CONSTRAINT TRIGGER slow_commit AFTER UPDATE ON item_containers
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (NEW.key = '${key}') EXECUTE FUNCTION slow_commit()`);
    const before = { ...connection.commits };
    const written = store.write(chestAt(key, 2, 4));
    const outcome = written.then(
      () => "written",
      () => "not written",
    );
    // Its backend, sleeping in the COMMIT's trigger, is ended.
    let ended = false;
    for (let tries = 0; tries < 400 && !ended; tries++) {
      const sleeping = await admin.query<{ pid: number }>(
        "SELECT pid FROM pg_stat_activity WHERE wait_event = 'PgSleep' AND query = 'COMMIT'",
      );
      if (sleeping.rows.length === 1) {
        await admin.query("SELECT pg_terminate_backend($1)", [sleeping.rows[0].pid]);
        ended = true;
      } else await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(ended).toBe(true);
    await admin.query("DROP TRIGGER slow_commit ON item_containers");
    await admin.end();
    // Ended inside its COMMIT, the transaction rolled back: not written, and the store says the same.
    expect(await outcome).toBe("not written");
    expect(await versionOf(key)).toBe(1);
    expect(connection.commits.commitsLost).toBe(before.commitsLost + 1);
    expect(connection.commits.foundAborted).toBe(before.foundAborted + 1);
    await expect(store.write(chestAt(key, 2, 4))).resolves.toEqual([]);
    expect(await versionOf(key)).toBe(2);
  }, 30_000);

  it("a backend that outlives its cut link is ended before the leases are taken again: no lease is lost to it", async () => {
    const lostLeases: number[] = [];
    accounts.onLeaseLost = (accountId) => lostLeases.push(accountId);
    const character = 4242;
    expect(await accounts.acquire(character)).toBe(true);
    const key = "chest:caves:outlived";
    await store.write(chestAt(key, 1, 5));
    // The test holds the chest's row: the region's next change to it waits on the lock, in its backend.
    const blocker = await postgres.connect();
    await blocker.query("BEGIN");
    await blocker.query("SELECT 1 FROM item_containers WHERE key = $1 FOR UPDATE", [key]);
    const outcome = store.write(chestAt(key, 2, 4)).then(
      () => "written",
      () => "not written",
    );
    let waiting = false;
    for (let tries = 0; tries < 400 && !waiting; tries++) {
      const rows = await blocker.query(
        "SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND pid <> pg_backend_pid()",
      );
      waiting = rows.rows.length > 0;
      if (!waiting) await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(waiting).toBe(true);
    const back = connection.stats.back;
    // The link is cut; its backend, waiting on the lock, does not notice and holds the lease on.
    proxy.cutNow();
    for (let tries = 0; tries < 400 && connection.stats.back === back; tries++)
      await new Promise((resolve) => setTimeout(resolve, 25));
    expect(connection.stats.back).toBe(back + 1);
    await blocker.query("ROLLBACK");
    await blocker.end();
    // Before, the lease stayed with the old backend and its session was ended as if taken elsewhere.
    expect(lostLeases).toEqual([]);
    expect(accounts.holds(character)).toBe(true);
    expect(await outcome).toBe("not written");
    expect(await versionOf(key)).toBe(1);
    await expect(store.write(chestAt(key, 2, 4))).resolves.toEqual([]);
    expect(await versionOf(key)).toBe(2);
  }, 30_000);
});
