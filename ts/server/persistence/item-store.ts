// Items in SQLite (migration 0004-items.sql): containers (characters' bags,
// chests) with their stacks, and the piles on the ground. The item room
// (ts/server/items/item-room.ts) decides a change in memory, writes every row
// it touches here in ONE transaction, and only then applies it and answers the
// player — so an item is durable before it is acknowledged, and a kill at any
// moment leaves it in exactly one place.
import type Database from "better-sqlite3";

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

/** One transaction's writes: containers replaced whole, piles added, changed or removed. */
export interface ItemWrite {
  containers?: { key: string; version: number; stacks: readonly StoredStack[] }[];
  /** Piles to create: their ids come back from `write`, in order. */
  newPiles?: { x: number; y: number; itemId: number; count: number }[];
  changedPiles?: { id: number; count: number }[];
  removedPiles?: number[];
}

export class ItemStore {
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
  private readonly writeAll: (write: ItemWrite) => number[];

  constructor(
    db: Database.Database,
    /** The world the piles lie in: a database may hold several maps' worlds. */
    private readonly world: string,
  ) {
    this.selectContainer = db.prepare("SELECT version FROM item_containers WHERE key = ?");
    this.selectStacks = db.prepare("SELECT slot, item_id, count FROM item_stacks WHERE container = ? ORDER BY slot");
    this.upsertContainer = db.prepare(
      "INSERT INTO item_containers (key, version) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET version = excluded.version",
    );
    this.deleteStacks = db.prepare("DELETE FROM item_stacks WHERE container = ?");
    this.insertStack = db.prepare("INSERT INTO item_stacks (container, slot, item_id, count) VALUES (?, ?, ?, ?)");
    this.insertPile = db.prepare("INSERT INTO item_piles (world, x, y, item_id, count) VALUES (?, ?, ?, ?, ?)");
    this.updatePile = db.prepare("UPDATE item_piles SET count = ? WHERE id = ?");
    this.deletePile = db.prepare("DELETE FROM item_piles WHERE id = ?");
    this.selectPiles = db.prepare("SELECT id, x, y, item_id, count FROM item_piles WHERE world = ? ORDER BY id");
    this.writeAll = db.transaction((write: ItemWrite): number[] => {
      for (const container of write.containers ?? []) {
        this.upsertContainer.run(container.key, container.version);
        this.deleteStacks.run(container.key);
        for (const stack of container.stacks) {
          this.insertStack.run(container.key, stack.slot, stack.itemId, stack.count);
        }
      }
      const ids: number[] = [];
      for (const pile of write.newPiles ?? []) {
        const result = this.insertPile.run(this.world, pile.x, pile.y, pile.itemId, pile.count);
        ids.push(Number(result.lastInsertRowid));
      }
      for (const pile of write.changedPiles ?? []) this.updatePile.run(pile.count, pile.id);
      for (const id of write.removedPiles ?? []) this.deletePile.run(id);
      return ids;
    });
  }

  /** A container's version and stacks, or undefined when it was never written. */
  load(key: string): { version: number; stacks: StoredStack[] } | undefined {
    const row = this.selectContainer.get(key);
    if (row === undefined) return undefined;
    const stacks = this.selectStacks.all(key).map((s) => ({ slot: s.slot, itemId: s.item_id, count: s.count }));
    return { version: row.version, stacks };
  }

  /** The piles of this world. */
  piles(): StoredPile[] {
    return this.selectPiles
      .all(this.world)
      .map((row) => ({ id: row.id, x: row.x, y: row.y, itemId: row.item_id, count: row.count }));
  }

  /** Writes everything in one transaction (all of it lands or none); returns the new piles' ids. */
  write(write: ItemWrite): number[] {
    return this.writeAll(write);
  }
}
