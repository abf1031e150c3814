// Items in the PostgreSQL store a cluster's processes share (docs/scaling.md § Items): the bags of
// accounts' characters, the chests and the piles, in the tables the SQLite store uses (migrations
// 0004 and 0006, run by pg-migrate.ts). The item room (ts/server/items/item-room.ts) decides each
// change on its copies, hands it here, and applies it only once it is written — with this store a
// turn later, so the room makes its changes one at a time.
//
// A change is one transaction, and writes nothing unless every row it touches is as the deciding
// process saw it: a container's version must be the one before the change (and a character's bag
// is written only by the connection holding that character's lease: pg-accounts.ts), a changed or
// taken pile must still hold the count it had. So a process whose copy went stale — a pile another
// region also loaded, a bag written after its lease moved on — changes nothing, and no item is ever
// in two places or in none. A transaction has the connection to itself while it runs (pg-statements.ts),
// so the character saves and lease releases sharing it never fall inside one; a guard that fails raises
// an error (a division by zero over the rows it matched), which ends the transaction there, rolled back.
// A COMMIT whose answer the connection lost is looked up, not guessed: the change is answered written
// exactly when the store holds it, so this process's copy never parts from the store's.
//
// What a process reads: at start, the chests and piles of its own ground (so the item room starts
// as it does over SQLite, synchronously); a character's bag when its session starts here, once the
// character's lease is here — after the process it came from wrote its last change.
import type {
  ItemStorePort,
  ItemWrite,
  LevelIdentity,
  StoredContainer,
  StoredPile,
} from "../server/persistence/item-store.js";
import { accountOfBag } from "../server/items/bags.js";
import { CHARACTER_LOCK_SPACE, leaseHeld } from "./pg-accounts.js";
import type { Queryable, Transactional } from "./pg-connection.js";

/** PostgreSQL's division_by_zero: a guard's way of saying a row is not as the change expected. */
const GUARD_FAILED = "22012";

/** A change refused because a row it touches changed since it was decided (or the bag's lease is elsewhere). */
export class ItemConflictError extends Error {}

export interface PgItemStats {
  /** Changes written, refused by a guard, failed otherwise; bags read. */
  writes: number;
  conflicts: number;
  failures: number;
  bags: number;
}

export interface PgItemStoreOptions {
  /** The world the piles lie in (the map's name, as the item room's). */
  world: string;
  /** The containers of the chests this process places (`chest:<world>:<id>`): read at start. */
  chestKeys: readonly string[];
  /** Whether world cell (x, y) is this process's ground: the piles lying there are read at start. */
  owns(x: number, y: number): boolean;
  /** Whether this process holds (or, once a taking under way ends, will hold) a character's lease (PgAccounts.leased). */
  leased(accountId: number): Promise<boolean>;
}

const UPSERT_CONTAINER = `
  WITH lease AS (SELECT ($3::bigint IS NULL OR ${leaseHeld("$3::bigint", "$4")}) AS ok),
  u AS (
    INSERT INTO item_containers (key, version) SELECT $1, $2 FROM lease WHERE lease.ok
    ON CONFLICT (key) DO UPDATE SET version = excluded.version
      WHERE item_containers.version = excluded.version - 1
    RETURNING 1
  )
  SELECT 1 / count(*) FROM u`;
// A bag whose lease another region holds (a trade across a border): its row is locked at the version that
// region reported, then the lease is checked against that region's backend. Locked first, so a region that
// takes the lease after that backend died reads the bag only once this transaction ended (BAG_SETTLED).
const LOCK_REMOTE_BAG = `
  WITH locked AS (SELECT 1 FROM item_containers WHERE key = $1 AND version = $2::bigint - 1 FOR UPDATE)
  SELECT 1 / count(*) FROM locked`;
const REMOTE_LEASE_HELD = `
  SELECT 1 / count(*) FROM pg_locks l
  WHERE l.locktype = 'advisory' AND l.granted AND l.pid = $3
    AND l.classid = $2::bigint::oid AND l.objid = ($1::bigint)::oid AND l.objsubid = 2`;
// Waits for a transaction writing the bag (another region's trade) to end before the bag is read.
const BAG_SETTLED = "SELECT 1 FROM item_containers WHERE key = $1 FOR SHARE";
const CHANGE_PILE = `
  WITH u AS (UPDATE item_piles SET count = $2 WHERE id = $1 AND ($3::bigint IS NULL OR count = $3) RETURNING 1)
  SELECT 1 / count(*) FROM u`;
const REMOVE_PILE = `
  WITH u AS (DELETE FROM item_piles WHERE id = $1 AND ($2::bigint IS NULL OR count = $2) RETURNING 1)
  SELECT 1 / count(*) FROM u`;
const INSERT_PILE = `
  INSERT INTO item_piles (world, x, y, item_id, count, level_seed, level_depth, level_size)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id`;

/** A character's quest, written only by the connection holding its lease (pg-quests.ts writes them too). */
export const UPSERT_QUEST = `
  WITH u AS (
    INSERT INTO character_quests (account_id, quest, state, progress)
    SELECT $1::bigint, $2::text, $3::text, $4::bigint WHERE ${leaseHeld("$1::bigint", "$5")}
    ON CONFLICT (account_id, quest) DO UPDATE SET state = excluded.state, progress = excluded.progress
    RETURNING 1
  )
  SELECT 1 / count(*) FROM u`;
const UPDATE_XP = `
  WITH u AS (UPDATE characters SET xp = $2::bigint WHERE account_id = $1::bigint AND ${leaseHeld("$1::bigint", "$3")} RETURNING 1)
  SELECT 1 / count(*) FROM u`;
export const UPSERT_VALUE = `
  INSERT INTO world_values (world, key, value) VALUES ($1, $2, $3)
  ON CONFLICT (world, key) DO UPDATE SET value = excluded.value`;

export class PgItemStore implements ItemStorePort {
  readonly stats: PgItemStats = { writes: 0, conflicts: 0, failures: 0, bags: 0 };

  private constructor(
    private readonly client: Transactional,
    private readonly options: PgItemStoreOptions,
    /** The chests read at start, given to the item room once each. */
    private readonly chests: Map<string, StoredContainer>,
    private readonly ground: StoredPile[],
  ) {
    this.unplaced = new Set(options.chestKeys);
  }

  /** The chests read at start that the item room has not placed yet: it asks for each once. */
  private readonly unplaced: Set<string>;

  /** Reads this process's chests and the piles on its ground. */
  static async open(client: Transactional, options: PgItemStoreOptions): Promise<PgItemStore> {
    const chests = await readContainers(client, options.chestKeys);
    const piles = await client.query<{ id: string; x: string; y: string; item_id: string; count: string }>(
      "SELECT id, x, y, item_id, count FROM item_piles WHERE world = $1 AND level_seed IS NULL ORDER BY id",
      [options.world],
    );
    const ground = piles.rows
      .map((row) => ({
        id: Number(row.id),
        x: Number(row.x),
        y: Number(row.y),
        itemId: Number(row.item_id),
        count: Number(row.count),
      }))
      .filter((pile) => options.owns(pile.x, pile.y));
    return new PgItemStore(client, options, chests, ground);
  }

  load(key: string): StoredContainer | undefined | Promise<StoredContainer | undefined> {
    if (this.unplaced.delete(key)) return this.chests.get(key); // undefined: never written (seeded from the map)
    const accountId = accountOfBag(key);
    if (accountId === null) return readContainers(this.client, [key]).then((found) => found.get(key));
    return this.options.leased(accountId).then(async (held) => {
      if (!held) throw new Error(`the bag of character ${accountId} is not read: its lease is not here`);
      this.stats.bags++;
      await this.client.query(BAG_SETTLED, [key]);
      return (await readContainers(this.client, [key])).get(key);
    });
  }

  write(write: ItemWrite): Promise<number[]> {
    const written = this.client.transaction(async (tx) => {
      for (const container of write.containers ?? []) {
        const held = container.heldBy;
        if (held !== undefined) {
          await tx.query(LOCK_REMOTE_BAG, [container.key, container.version]);
          await tx.query(REMOTE_LEASE_HELD, [accountOfBag(container.key), CHARACTER_LOCK_SPACE, held]);
        }
        await tx.query(UPSERT_CONTAINER, [
          container.key,
          container.version,
          held === undefined ? accountOfBag(container.key) : null,
          CHARACTER_LOCK_SPACE,
        ]);
        await tx.query("DELETE FROM item_stacks WHERE container = $1", [container.key]);
        if (container.stacks.length > 0) {
          await tx.query(
            `INSERT INTO item_stacks (container, slot, item_id, count)
             SELECT $1, * FROM unnest($2::bigint[], $3::bigint[], $4::bigint[])`,
            [
              container.key,
              container.stacks.map((stack) => stack.slot),
              container.stacks.map((stack) => stack.itemId),
              container.stacks.map((stack) => stack.count),
            ],
          );
        }
      }
      const was = new Map((write.pilesWere ?? []).map((pile) => [pile.id, pile.count]));
      for (const pile of write.changedPiles ?? [])
        await tx.query(CHANGE_PILE, [pile.id, pile.count, was.get(pile.id) ?? null]);
      for (const id of write.removedPiles ?? []) await tx.query(REMOVE_PILE, [id, was.get(id) ?? null]);
      const inserted: number[] = [];
      for (const pile of write.newPiles ?? []) {
        const result = await tx.query<{ id: string }>(INSERT_PILE, [
          this.options.world,
          pile.x,
          pile.y,
          pile.itemId,
          pile.count,
          pile.level?.seed ?? null,
          pile.level?.depth ?? null,
          pile.level?.size ?? null,
        ]);
        inserted.push(Number(result.rows[0].id));
      }
      // Content rows (a quest handed in with its reward, a shop's stock): in the same transaction, a
      // character's rows only where its lease is, as its bag's.
      const content = write.content;
      for (const row of content?.quests ?? []) {
        await tx.query(UPSERT_QUEST, [row.accountId, row.quest, row.state, row.progress, CHARACTER_LOCK_SPACE]);
      }
      for (const row of content?.xp ?? []) await tx.query(UPDATE_XP, [row.accountId, row.xp, CHARACTER_LOCK_SPACE]);
      for (const row of content?.values ?? []) {
        await tx.query(UPSERT_VALUE, [this.options.world, row.key, JSON.stringify(row.value)]);
      }
      return inserted;
    });
    return written.then(
      (inserted) => {
        this.stats.writes++;
        return inserted;
      },
      (error: Error & { code?: string }) => {
        // Rolled back at the statement that failed — or its COMMIT's answer was lost and it did not commit.
        if (error.code === GUARD_FAILED) {
          this.stats.conflicts++;
          throw new ItemConflictError("a row this change touches changed since it was decided: nothing written");
        }
        this.stats.failures++;
        throw error;
      },
    );
  }

  /** This process's backend on the store connection: whose leases another region's trade checks (heldBy). */
  async backend(): Promise<number> {
    const result = await this.client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
    return result.rows[0].pid;
  }

  piles(): StoredPile[] {
    return this.ground;
  }

  // Dungeon levels are not played in a cluster (docs/scaling.md § Not built yet): no level keeps piles here.
  levelPiles(_level: LevelIdentity): StoredPile[] {
    return [];
  }

  pileLevels(): (LevelIdentity & { piles: number })[] {
    return [];
  }

  unlevelPiles(_level: LevelIdentity, _x: number, _y: number): number {
    return 0;
  }
}

/** The containers `keys` that were ever written, with their stacks. */
async function readContainers(client: Queryable, keys: readonly string[]): Promise<Map<string, StoredContainer>> {
  const found = new Map<string, StoredContainer>();
  if (keys.length === 0) return found;
  const result = await client.query<{
    key: string;
    version: string;
    slot: string | null;
    item_id: string | null;
    count: string | null;
  }>(
    `SELECT c.key, c.version, s.slot, s.item_id, s.count
     FROM item_containers c LEFT JOIN item_stacks s ON s.container = c.key
     WHERE c.key = ANY($1::text[]) ORDER BY c.key, s.slot`,
    [keys],
  );
  for (const row of result.rows) {
    let container = found.get(row.key);
    if (container === undefined) {
      container = { version: Number(row.version), stacks: [] };
      found.set(row.key, container);
    }
    if (row.slot !== null) {
      container.stacks.push({ slot: Number(row.slot), itemId: Number(row.item_id), count: Number(row.count) });
    }
  }
  return found;
}
