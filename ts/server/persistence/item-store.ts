// Items in SQLite (migration 0004-items.sql): containers (characters' bags,
// chests) with their stacks, and the piles on the ground. The item room
// (ts/server/items/item-room.ts) decides a change in memory, writes every row
// it touches here in ONE transaction, and only then applies it and answers the
// player — so an item is durable before it is acknowledged, and a kill at any
// moment leaves it in exactly one place. A pile in a dungeon level is stored
// with the level's identity and a level-relative cell (migration 0006): it
// outlives the level and comes back with it (docs/dungeons.md § Saved in a level).
import type Database from "better-sqlite3";
import type { ContentRows } from "./content-rows.js";

/** A stack in a container row: `count` of item `itemId` in `slot`. */
export interface StoredStack {
  slot: number;
  itemId: number;
  count: number;
}

export interface StoredPile {
  id: number;
  x: number;
  y: number;
  itemId: number;
  count: number;
}

/** A dungeon level as it is regenerated tile for tile: its seed, depth and edge (../dungeon/levels.ts). */
export interface LevelIdentity {
  seed: number;
  depth: number;
  size: number;
}

/** Where a new pile is stored: world x, y on a map, or a level's identity and a cell relative to its corner. */
export interface PileRow {
  x: number;
  y: number;
  itemId: number;
  count: number;
  level?: LevelIdentity | null;
}

/** A container as stored: its version (one more at every write) and its stacks. */
export interface StoredContainer {
  version: number;
  stacks: StoredStack[];
}

/**
 * A container written whole at its new `version`. `heldBy`: a character's bag whose lease another process
 * of a cluster holds (a trade across a region border, ts/cluster/trade-link.ts) — the backend id of that
 * process's store connection, which must still hold the lease, with the row still at `version - 1`, for
 * anything to be written. Only a store a cluster's processes share can check that; this one refuses it.
 */
export interface ContainerRow {
  key: string;
  version: number;
  stacks: readonly StoredStack[];
  heldBy?: number;
}

/**
 * One transaction's writes: containers replaced whole, piles added, changed or removed. A container's
 * `version` is its new one (the stored one plus one); `pilesWere` holds the count each changed or removed
 * pile had when the change was decided. A store shared by several processes (ts/cluster/pg-items.ts)
 * writes nothing when any of them no longer holds there; this process's own SQLite file has one writer.
 */
export interface ItemWrite {
  containers?: ContainerRow[];
  /** Piles to create: their ids come back from `write`, in order. */
  newPiles?: PileRow[];
  changedPiles?: { id: number; count: number }[];
  removedPiles?: number[];
  pilesWere?: { id: number; count: number }[];
  /** Rows of content that land with the items or not at all (ContentRows). */
  content?: ContentRows;
}

/**
 * Where the item room keeps items. This process's SQLite (ItemStore) answers in the same turn; a store
 * a cluster's processes share (ts/cluster/pg-items.ts) answers a write, and the load of a character's
 * bag, later — the item room then makes its changes one at a time, each applied once it is written.
 * The other reads happen at start (or as a dungeon level comes back) and are always synchronous.
 */
export interface ItemStorePort {
  load(key: string): StoredContainer | undefined | Promise<StoredContainer | undefined>;
  write(write: ItemWrite): number[] | Promise<number[]>;
  piles(): StoredPile[];
  levelPiles(level: LevelIdentity): StoredPile[];
  pileLevels(): (LevelIdentity & { piles: number })[];
  unlevelPiles(level: LevelIdentity, x: number, y: number): number;
}

export class ItemStore implements ItemStorePort {
  private readonly selectContainer: Database.Statement<[string], { version: number }>;
  private readonly selectStacks: Database.Statement<[string], { slot: number; item_id: number; count: number }>;
  private readonly upsertContainer: Database.Statement;
  private readonly deleteStacks: Database.Statement;
  private readonly insertStack: Database.Statement;
  private readonly insertPile: Database.Statement;
  private readonly updatePile: Database.Statement;
  private readonly deletePile: Database.Statement;
  private readonly selectPiles: Database.Statement<
    [string],
    { id: number; x: number; y: number; item_id: number; count: number }
  >;
  private readonly selectLevelPiles: Database.Statement<
    [string, number, number, number],
    { id: number; x: number; y: number; item_id: number; count: number }
  >;
  private readonly selectLevels: Database.Statement<
    [string],
    { seed: number; depth: number; size: number; piles: number }
  >;
  private readonly unlevel: Database.Statement;
  private readonly writeAll: (write: ItemWrite) => number[];

  constructor(
    db: Database.Database,
    /** The world the piles lie in: a database may hold several maps' worlds. */
    private readonly world: string,
    /** Writes a change's content rows (ItemWrite.content), inside its transaction; none: a write with some is refused. */
    writeContent?: (rows: ContentRows) => void,
  ) {
    this.selectContainer = db.prepare("SELECT version FROM item_containers WHERE key = ?");
    this.selectStacks = db.prepare("SELECT slot, item_id, count FROM item_stacks WHERE container = ? ORDER BY slot");
    this.upsertContainer = db.prepare(
      "INSERT INTO item_containers (key, version) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET version = excluded.version",
    );
    this.deleteStacks = db.prepare("DELETE FROM item_stacks WHERE container = ?");
    this.insertStack = db.prepare("INSERT INTO item_stacks (container, slot, item_id, count) VALUES (?, ?, ?, ?)");
    this.insertPile = db.prepare(
      "INSERT INTO item_piles (world, x, y, item_id, count, level_seed, level_depth, level_size) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
    );
    this.updatePile = db.prepare("UPDATE item_piles SET count = ? WHERE id = ?");
    this.deletePile = db.prepare("DELETE FROM item_piles WHERE id = ?");
    this.selectPiles = db.prepare(
      "SELECT id, x, y, item_id, count FROM item_piles WHERE world = ? AND level_seed IS NULL ORDER BY id",
    );
    this.selectLevelPiles = db.prepare(
      "SELECT id, x, y, item_id, count FROM item_piles WHERE world = ? AND level_seed = ? AND level_depth = ? AND level_size = ? ORDER BY id",
    );
    this.selectLevels = db.prepare(
      "SELECT level_seed AS seed, level_depth AS depth, level_size AS size, count(*) AS piles FROM item_piles WHERE world = ? AND level_seed IS NOT NULL GROUP BY level_seed, level_depth, level_size ORDER BY min(id)",
    );
    this.unlevel = db.prepare(
      "UPDATE item_piles SET level_seed = NULL, level_depth = NULL, level_size = NULL, x = ?, y = ? WHERE world = ? AND level_seed = ? AND level_depth = ? AND level_size = ?",
    );
    this.writeAll = db.transaction((write: ItemWrite): number[] => {
      if (write.content !== undefined) {
        if (writeContent === undefined) throw new Error("this item store keeps no content rows");
        writeContent(write.content);
      }
      for (const container of write.containers ?? []) {
        if (container.heldBy !== undefined) throw new Error("this item store has no other process's leases");
        this.upsertContainer.run(container.key, container.version);
        this.deleteStacks.run(container.key);
        for (const stack of container.stacks) {
          this.insertStack.run(container.key, stack.slot, stack.itemId, stack.count);
        }
      }
      const ids: number[] = [];
      for (const pile of write.newPiles ?? []) {
        const level = pile.level ?? null;
        const result = this.insertPile.run(
          this.world,
          pile.x,
          pile.y,
          pile.itemId,
          pile.count,
          level?.seed ?? null,
          level?.depth ?? null,
          level?.size ?? null,
        );
        ids.push(Number(result.lastInsertRowid));
      }
      for (const pile of write.changedPiles ?? []) this.updatePile.run(pile.count, pile.id);
      for (const id of write.removedPiles ?? []) this.deletePile.run(id);
      return ids;
    });
  }

  /** A container's version and stacks, or undefined when it was never written. */
  load(key: string): StoredContainer | undefined {
    const row = this.selectContainer.get(key);
    if (row === undefined) return undefined;
    const stacks = this.selectStacks.all(key).map((s) => ({ slot: s.slot, itemId: s.item_id, count: s.count }));
    return { version: row.version, stacks };
  }

  /** The piles of this world on its maps (not those kept with a dungeon level). */
  piles(): StoredPile[] {
    return this.selectPiles.all(this.world).map(pileOf);
  }

  /** The piles kept with `level`, at cells relative to its corner. */
  levelPiles(level: LevelIdentity): StoredPile[] {
    return this.selectLevelPiles.all(this.world, level.seed, level.depth, level.size).map(pileOf);
  }

  /** Every level some pile is kept with, and how many piles each. */
  pileLevels(): (LevelIdentity & { piles: number })[] {
    return this.selectLevels.all(this.world);
  }

  /** Puts every pile kept with `level` on the map at (x, y), in one statement: a level that can never come back. */
  unlevelPiles(level: LevelIdentity, x: number, y: number): number {
    return this.unlevel.run(x, y, this.world, level.seed, level.depth, level.size).changes;
  }

  /** Writes everything in one transaction (all of it lands or none); returns the new piles' ids. */
  write(write: ItemWrite): number[] {
    return this.writeAll(write);
  }
}

function pileOf(row: { id: number; x: number; y: number; item_id: number; count: number }): StoredPile {
  return { id: row.id, x: row.x, y: row.y, itemId: row.item_id, count: row.count };
}
