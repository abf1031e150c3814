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
// as it does over SQLite, synchronously), and the piles kept with the dungeon levels it holds (a level
// comes back from its seed with them: ts/cluster/cluster-levels.ts); a character's bag when its session
// starts here, once the character's lease is here — after the process it came from wrote its last change.
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
  /**
   * Whether the piles kept with dungeon level `level` are this process's (ClusterLevels.keepsLevel: the region
   * holding the level): read at start and kept in step with this process's own writes. Absent: none are.
   */
  keepsLevel?(level: LevelIdentity): boolean;
}

/** The piles kept with the dungeon levels this process holds, as the store has them (levelPiles answers in the same turn). */
class LevelPiles {
  private readonly byLevel = new Map<string, { level: LevelIdentity; piles: StoredPile[] }>();
  /** Each kept pile's level key, by row id. */
  private readonly levelOfRow = new Map<number, string>();

  add(level: LevelIdentity, pile: StoredPile): void {
    const key = `${level.seed}:${level.depth}:${level.size}`;
    let entry = this.byLevel.get(key);
    if (entry === undefined) {
      entry = { level: { seed: level.seed, depth: level.depth, size: level.size }, piles: [] };
      this.byLevel.set(key, entry);
    }
    entry.piles.push(pile);
    this.levelOfRow.set(pile.id, key);
  }

  of(level: LevelIdentity): StoredPile[] {
    return (this.byLevel.get(`${level.seed}:${level.depth}:${level.size}`)?.piles ?? []).map((pile) => ({ ...pile }));
  }

  levels(): (LevelIdentity & { piles: number })[] {
    return [...this.byLevel.values()]
      .filter((entry) => entry.piles.length > 0)
      .map((entry) => ({ ...entry.level, piles: entry.piles.length }));
  }

  /** A written change's piles: a kept pile's new count, or its row gone. */
  changed(id: number, count: number): void {
    const key = this.levelOfRow.get(id);
    const pile = key === undefined ? undefined : this.byLevel.get(key)?.piles.find((each) => each.id === id);
    if (pile !== undefined) pile.count = count;
  }

  removed(id: number): void {
    const key = this.levelOfRow.get(id);
    if (key === undefined) return;
    this.levelOfRow.delete(id);
    const entry = this.byLevel.get(key)!;
    entry.piles = entry.piles.filter((pile) => pile.id !== id);
  }

  /** Forgets a level's piles (put on the map); returns how many. */
  drop(level: LevelIdentity): number {
    const key = `${level.seed}:${level.depth}:${level.size}`;
    const entry = this.byLevel.get(key);
    if (entry === undefined) return 0;
    this.byLevel.delete(key);
    for (const pile of entry.piles) this.levelOfRow.delete(pile.id);
    return entry.piles.length;
  }
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
    private readonly kept: LevelPiles,
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
    const kept = new LevelPiles();
    const keepsLevel = options.keepsLevel;
    if (keepsLevel !== undefined) {
      const rows = await client.query<{
        id: string;
        x: string;
        y: string;
        item_id: string;
        count: string;
        seed: string;
        depth: string;
        size: string;
      }>(
        `SELECT id, x, y, item_id, count, level_seed AS seed, level_depth AS depth, level_size AS size
         FROM item_piles WHERE world = $1 AND level_seed IS NOT NULL ORDER BY id`,
        [options.world],
      );
      for (const row of rows.rows) {
        const level = { seed: Number(row.seed), depth: Number(row.depth), size: Number(row.size) };
        if (!keepsLevel(level)) continue;
        const pile = { id: Number(row.id), x: Number(row.x), y: Number(row.y), itemId: Number(row.item_id) };
        kept.add(level, { ...pile, count: Number(row.count) });
      }
    }
    return new PgItemStore(client, options, chests, ground, kept);
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
        // The piles of this process's levels, as written: what a level brings back when it comes again.
        for (const pile of write.changedPiles ?? []) this.kept.changed(pile.id, pile.count);
        for (const id of write.removedPiles ?? []) this.kept.removed(id);
        (write.newPiles ?? []).forEach((pile, index) => {
          if (pile.level)
            this.kept.add(pile.level, {
              id: inserted[index],
              x: pile.x,
              y: pile.y,
              itemId: pile.itemId,
              count: pile.count,
            });
        });
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

  /** The piles kept with `level`, at cells relative to its corner (read at start, then as this process wrote them). */
  levelPiles(level: LevelIdentity): StoredPile[] {
    return this.kept.of(level);
  }

  /** The levels of this process some pile is kept with, and how many each. */
  pileLevels(): (LevelIdentity & { piles: number })[] {
    return this.kept.levels();
  }

  /**
   * Puts every pile kept with `level` (one no stairs lead to any more) on the map at (x, y), in one statement.
   * The item room places them at once; should the statement fail, the rows still name the level and the
   * next start puts them there again (a take of one meanwhile is guarded by its count as always).
   */
  unlevelPiles(level: LevelIdentity, x: number, y: number): number {
    this.client
      .query(
        `UPDATE item_piles SET level_seed = NULL, level_depth = NULL, level_size = NULL, x = $1, y = $2
         WHERE world = $3 AND level_seed = $4 AND level_depth = $5 AND level_size = $6`,
        [x, y, this.options.world, level.seed, level.depth, level.size],
      )
      .catch(() => this.stats.failures++);
    return this.kept.drop(level);
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
