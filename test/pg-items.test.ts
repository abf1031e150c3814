// Items in the cluster's shared PostgreSQL store (ts/cluster/pg-items.ts) on a real PostgreSQL
// (postgres-process.ts starts a private cluster as an unprivileged user): a change lands whole or not
// at all; a stale copy of a container (its version) or of a pile (its count) changes nothing; a bag is
// written only by the connection holding its character's lease, and read only there; a refused change
// never takes a character save on the same connection down with it; a process starts with the chests
// it places and the piles on its own ground; a bag whose lease another process holds (a trade across a
// border) is written only at the version and the backend that process reported, and read only once such a
// write is over.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { PgAccounts } from "../ts/cluster/pg-accounts.js";
import { ItemConflictError, PgItemStore } from "../ts/cluster/pg-items.js";
import { migratePostgres } from "../ts/cluster/pg-migrate.js";
import { StatementQueue } from "../ts/cluster/pg-statements.js";
import { type PostgresProcess, postgresSkipReason, startPostgres } from "../ts/cluster/postgres-process.js";
import { Logger } from "../ts/server/ops/log.js";
import { NEW_CHARACTER } from "../ts/server/persistence/character-store.js";
import { loadMigrations } from "../ts/server/persistence/migrate.js";

const quiet = new Logger("silent");
const skip = postgresSkipReason();
if (skip !== null) process.stderr.write(`test/pg-items.test.ts skipped: ${skip}\n`);

const CHEST = "chest:caves:7";
const COIN = 3;
const DAGGER = 5;

describe.skipIf(skip !== null)("items on PostgreSQL", () => {
  let server: PostgresProcess;
  let clients: pg.Client[] = [];
  /** The two processes' connections, each shared by its accounts and items as a region's is. */
  let a: StatementQueue;
  let b: StatementQueue;
  let accountsA: PgAccounts;
  let accountsB: PgAccounts;
  let accountId: number;
  const open = (client: StatementQueue, accounts: PgAccounts, owns = (_x: number, _y: number) => true) =>
    PgItemStore.open(client, { world: "caves", chestKeys: [CHEST], owns, leased: (id) => accounts.leased(id) });
  const stacksOf = async (key: string) =>
    (
      await a.query<{ slot: string; item_id: string; count: string }>(
        "SELECT slot, item_id, count FROM item_stacks WHERE container = $1 ORDER BY slot",
        [key],
      )
    ).rows.map((row) => [Number(row.slot), Number(row.item_id), Number(row.count)]);
  const versionOf = async (key: string) =>
    Number(
      (await a.query<{ version: string }>("SELECT version FROM item_containers WHERE key = $1", [key])).rows[0]
        ?.version,
    );

  beforeAll(async () => {
    server = await startPostgres();
    clients = [0, 1].map(() => new pg.Client({ connectionString: server.url }));
    await Promise.all(clients.map((client) => client.connect()));
    await migratePostgres(clients[0], loadMigrations());
    [a, b] = clients.map((client) => StatementQueue.over(client));
    accountsA = new PgAccounts(a, quiet);
    accountsB = new PgAccounts(b, quiet);
    accountId = (await accountsA.create("Ada", "Ada", "x", NEW_CHARACTER, Date.now(), null)).id;
  }, 90_000);

  afterAll(async () => {
    accountsA?.close();
    accountsB?.close();
    await Promise.all(clients.map((client) => client.end().catch(() => {})));
    server?.stop();
  }, 30_000);

  it("a change lands whole or not at all: a stale container version or a bag without its lease writes nothing", async () => {
    const store = await open(a, accountsA);
    expect(store.load(CHEST)).toBeUndefined(); // never written: the item room seeds it from the map
    await store.write({ containers: [{ key: CHEST, version: 1, stacks: [{ slot: 0, itemId: COIN, count: 5 }] }] });
    expect(await accountsA.acquire(accountId)).toBe(true);
    const bag = `character:${accountId}`;
    // Two coins from the chest into the bag: both containers in one transaction.
    const take = {
      containers: [
        { key: bag, version: 2, stacks: [{ slot: 0, itemId: COIN, count: 2 }] },
        { key: CHEST, version: 2, stacks: [{ slot: 0, itemId: COIN, count: 3 }] },
      ],
    };
    expect(await store.write(take)).toEqual([]);
    expect(await stacksOf(bag)).toEqual([[0, COIN, 2]]);
    expect(await stacksOf(CHEST)).toEqual([[0, COIN, 3]]);
    // The same change again, decided on the old versions: refused, and the bag's half is not written either.
    await expect(store.write(take)).rejects.toBeInstanceOf(ItemConflictError);
    expect(await stacksOf(bag)).toEqual([[0, COIN, 2]]);
    expect(await versionOf(CHEST)).toBe(2);
    // Another process, without the character's lease, cannot write its bag (nor, with it, the chest).
    const other = await open(b, accountsB);
    await expect(
      other.write({
        containers: [
          { key: CHEST, version: 3, stacks: [] },
          { key: bag, version: 3, stacks: [{ slot: 0, itemId: COIN, count: 5 }] },
        ],
      }),
    ).rejects.toBeInstanceOf(ItemConflictError);
    expect(await stacksOf(CHEST)).toEqual([[0, COIN, 3]]);
    expect(await stacksOf(bag)).toEqual([[0, COIN, 2]]);
    expect(store.stats.conflicts + other.stats.conflicts).toBe(2);
  }, 30_000);

  it("a bag is read where its lease is, after the last write of the process that gave it back", async () => {
    const bag = `character:${accountId}`;
    const store = await open(a, accountsA);
    const other = await open(b, accountsB);
    await expect(other.load(bag)).rejects.toThrow(/lease is not here/);
    // The holder writes once more and gives the lease back; the other process takes it and reads that write.
    await store.write({ containers: [{ key: bag, version: 3, stacks: [{ slot: 4, itemId: DAGGER, count: 1 }] }] });
    accountsA.releaseCharacter(accountId);
    expect(await accountsA.drain(5000)).toBe(true);
    expect(await accountsB.adopt(accountId)).toBe(true);
    expect(await other.load(bag)).toEqual({ version: 3, stacks: [{ slot: 4, itemId: DAGGER, count: 1 }] });
    // And the old holder can no longer write it.
    await expect(store.write({ containers: [{ key: bag, version: 4, stacks: [] }] })).rejects.toBeInstanceOf(
      ItemConflictError,
    );
    expect(await stacksOf(bag)).toEqual([[4, DAGGER, 1]]);
    accountsB.releaseCharacter(accountId);
    expect(await accountsB.drain(5000)).toBe(true);
  }, 30_000);

  it("the piles kept with a dungeon level are read by the region holding it, kept in step with its writes, and put on the map once no stairs lead there", async () => {
    const mine = { seed: 4_000_000_001, depth: 2, size: 256 };
    const theirs = { seed: 17, depth: 1, size: 256 };
    const gone = { seed: 99, depth: 3, size: 256 };
    const keeps = (level: { seed: number }) => level.seed !== theirs.seed;
    const openKeeping = (keepsLevel?: (level: { seed: number; depth: number; size: number }) => boolean) =>
      PgItemStore.open(a, {
        world: "levels",
        chestKeys: [],
        owns: () => true,
        leased: (id) => accountsA.leased(id),
        keepsLevel,
      });
    const first = await openKeeping(keeps);
    // Dropped in three levels (cells relative to each level's corner), as the item room writes them.
    const [coins, dagger, other, lost] = await first.write({
      newPiles: [
        { x: 3, y: 4, itemId: COIN, count: 5, level: mine },
        { x: 6, y: 7, itemId: DAGGER, count: 1, level: mine },
        { x: 1, y: 1, itemId: COIN, count: 2, level: theirs },
        { x: 2, y: 2, itemId: COIN, count: 9, level: gone },
      ],
    });
    // This process's own writes: two coins taken, the dagger picked up.
    await first.write({ changedPiles: [{ id: coins, count: 3 }], pilesWere: [{ id: coins, count: 5 }] });
    await first.write({ removedPiles: [dagger], pilesWere: [{ id: dagger, count: 1 }] });
    expect(first.levelPiles(mine)).toEqual([{ id: coins, x: 3, y: 4, itemId: COIN, count: 3 }]);

    // A region started again reads the rows of the levels it holds — not another region's.
    const restarted = await openKeeping(keeps);
    expect(restarted.levelPiles(mine)).toEqual([{ id: coins, x: 3, y: 4, itemId: COIN, count: 3 }]);
    expect(restarted.levelPiles(theirs)).toEqual([]);
    expect(restarted.pileLevels()).toEqual([
      { ...mine, piles: 1 },
      { ...gone, piles: 1 },
    ]);
    expect((await openKeeping(({ seed }) => seed === theirs.seed)).levelPiles(theirs)).toEqual([
      { id: other, x: 1, y: 1, itemId: COIN, count: 2 },
    ]);
    // Without levels of its own (the default), none.
    expect((await openKeeping()).pileLevels()).toEqual([]);

    // A level no stairs lead to any more: its piles go onto the map, in one statement.
    expect(restarted.unlevelPiles(gone, 40, 41)).toBe(1);
    expect(restarted.pileLevels()).toEqual([{ ...mine, piles: 1 }]);
    await vi.waitFor(async () => {
      const row = (await a.query("SELECT x, y, level_seed FROM item_piles WHERE id = $1", [lost])).rows[0];
      expect(row).toEqual({ x: "40", y: "41", level_seed: null });
    });
  });

  it("a pile two processes both hold is taken once: the second copy's count is stale", async () => {
    const store = await open(a, accountsA);
    const [id] = await store.write({ newPiles: [{ x: 10, y: 20, itemId: COIN, count: 9 }] });
    expect(id).toBeGreaterThan(0);
    // Both processes start with it (a pile dropped in one's margin on the other's ground, say).
    const here = await open(a, accountsA);
    const there = await open(b, accountsB);
    expect(here.piles().find((pile) => pile.id === id)).toEqual({ id, x: 10, y: 20, itemId: COIN, count: 9 });
    expect(there.piles().find((pile) => pile.id === id)?.count).toBe(9);
    await there.write({ changedPiles: [{ id, count: 4 }], pilesWere: [{ id, count: 9 }] });
    await expect(here.write({ removedPiles: [id], pilesWere: [{ id, count: 9 }] })).rejects.toBeInstanceOf(
      ItemConflictError,
    );
    const left = await a.query<{ count: string }>("SELECT count FROM item_piles WHERE id = $1", [id]);
    expect(left.rows.map((row) => Number(row.count))).toEqual([4]);
    // A process reads only the piles of its own ground.
    const west = await open(a, accountsA, (x) => x < 10);
    expect(west.piles().some((pile) => pile.id === id)).toBe(false);
  }, 30_000);

  it("a refused change on the connection never takes a character save queued beside it down with it", async () => {
    const store = await open(a, accountsA);
    expect(await accountsA.acquire(accountId)).toBe(true);
    const bag = `character:${accountId}`;
    // A long change (thirty new containers, then a stale bag) takes round trips; a save asked for while it
    // is under way must not fall inside its transaction, which the stale bag aborts.
    const many = Array.from({ length: 30 }, (_, index) => ({
      key: `chest:caves:many-${index}`,
      version: 1,
      stacks: [{ slot: 0, itemId: COIN, count: 1 }],
    }));
    const stale = store.write({ containers: [...many, { key: bag, version: 1, stacks: [] }] });
    await new Promise((resolve) => setTimeout(resolve, 2));
    accountsA.saveMany([{ accountId, state: { ...NEW_CHARACTER, hp: 7, x: 3, y: 4, map: null } }], Date.now());
    await expect(stale).rejects.toBeInstanceOf(ItemConflictError);
    expect(await accountsA.drain(5000)).toBe(true);
    const row = await a.query<{ hp: string; x: string }>("SELECT hp, x FROM characters WHERE account_id = $1", [
      accountId,
    ]);
    expect(row.rows.map((r) => [Number(r.hp), Number(r.x)])).toEqual([[7, 3]]);
    expect(accountsA.stats.failures).toBe(0);
    const kept = await a.query("SELECT key FROM item_containers WHERE key LIKE 'chest:caves:many-%'");
    expect(kept.rows).toEqual([]);
    accountsA.releaseCharacter(accountId);
    expect(await accountsA.drain(5000)).toBe(true);
  }, 30_000);

  it("a trade across a border writes a bag another process's lease holds only at the version and backend it reported, and a read of that bag waits for it", async () => {
    // Cid plays in process A, Dee in process B; each process has written its player's bag once.
    const cid = (await accountsA.create("Cid", "Cid", "x", NEW_CHARACTER, Date.now(), null)).id;
    const dee = (await accountsA.create("Dee", "Dee", "x", NEW_CHARACTER, Date.now(), null)).id;
    expect(await accountsA.acquire(cid)).toBe(true);
    expect(await accountsB.acquire(dee)).toBe(true);
    const [cidBag, deeBag] = [`character:${cid}`, `character:${dee}`];
    const here = await open(a, accountsA);
    const there = await open(b, accountsB);
    await here.write({ containers: [{ key: cidBag, version: 2, stacks: [{ slot: 0, itemId: COIN, count: 10 }] }] });
    await there.write({ containers: [{ key: deeBag, version: 2, stacks: [{ slot: 0, itemId: DAGGER, count: 1 }] }] });
    const deeBackend = await there.backend();
    expect(deeBackend).not.toBe(await here.backend());
    // A's trade: 4 coins for the dagger, both bags in one transaction, Dee's guarded by B's report (v2, its backend).
    const trade = (version: number, heldBy: number) => ({
      containers: [
        {
          key: cidBag,
          version: 3,
          stacks: [
            { slot: 0, itemId: COIN, count: 6 },
            { slot: 1, itemId: DAGGER, count: 1 },
          ],
        },
        { key: deeBag, version, stacks: [{ slot: 0, itemId: COIN, count: 4 }], heldBy },
      ],
    });
    // Reported by the wrong backend (this process's own): refused whole, neither bag written.
    await expect(here.write(trade(3, await here.backend()))).rejects.toBeInstanceOf(ItemConflictError);
    // Decided on a report of an older version (as if Dee's bag had been at 1): refused whole.
    await expect(here.write(trade(2, deeBackend))).rejects.toBeInstanceOf(ItemConflictError);
    expect(await stacksOf(cidBag)).toEqual([[0, COIN, 10]]);
    expect(await stacksOf(deeBag)).toEqual([[0, DAGGER, 1]]);
    // As reported: both written.
    await here.write(trade(3, deeBackend));
    expect(await stacksOf(cidBag)).toEqual([
      [0, COIN, 6],
      [1, DAGGER, 1],
    ]);
    expect(await stacksOf(deeBag)).toEqual([[0, COIN, 4]]);
    // B's fence after the trade (its bag unchanged at the version it held, 2 → 3) is refused: it reads the bag again.
    await expect(
      there.write({ containers: [{ key: deeBag, version: 3, stacks: [{ slot: 0, itemId: DAGGER, count: 1 }] }] }),
    ).rejects.toBeInstanceOf(ItemConflictError);
    expect(await there.load(deeBag)).toEqual({ version: 3, stacks: [{ slot: 0, itemId: COIN, count: 4 }] });

    // A read of Dee's bag waits for a transaction holding its row (another region's trade under way).
    const holder = new pg.Client({ connectionString: server.url });
    await holder.connect();
    try {
      await holder.query("BEGIN");
      await holder.query("UPDATE item_containers SET version = 4 WHERE key = $1", [deeBag]);
      await holder.query("UPDATE item_stacks SET count = 5 WHERE container = $1", [deeBag]);
      const read = there.load(deeBag);
      await vi.waitFor(
        async () => {
          const waiting = await a.query("SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND wait_event_type = 'Lock'", [
            deeBackend,
          ]);
          expect(waiting.rows.length).toBe(1);
        },
        { timeout: 10_000, interval: 20 },
      );
      await holder.query("COMMIT");
      expect(await read).toEqual({ version: 4, stacks: [{ slot: 0, itemId: COIN, count: 5 }] });
    } finally {
      await holder.end().catch(() => {});
    }
    accountsA.releaseCharacter(cid);
    accountsB.releaseCharacter(dee);
    expect(await accountsA.drain(5000)).toBe(true);
    expect(await accountsB.drain(5000)).toBe(true);
  }, 30_000);
});
