// Loot: what falls where a creature dies (docs/items.md § Loot). Its kind's loot table (the kinds file,
// ../content/item-specs.ts lootOf) rolls on the room's own seeded stream — the same seed, the same drops —
// and what falls lies there as piles, written before they appear like every item change (item-transfer.ts).
import { mulberry32 } from "../../random.js";
import type { ItemCatalogue } from "../content/item-catalogue.js";
import { type LootEntry, lootOf } from "../content/item-specs.js";
import type { NpcKind } from "../content/npc-kinds.js";
import type { ChestsAndPiles } from "./chests-and-piles.js";
import type { ItemTransfer } from "./item-transfer.js";

export interface LootPorts {
  readonly transfer: Pick<ItemTransfer, "run" | "commit">;
  readonly ground: Pick<ChestsAndPiles, "pileRoom" | "spawnPile">;
  readonly stats: { lootDropped: number };
}

/** The creatures' loot tables, by type id, with their items looked up in the catalogue. */
export interface LootTables {
  readonly kinds: readonly NpcKind[];
  readonly catalogue: ItemCatalogue;
  /** The world's name: where a table names an item the catalogue lacks (MapError). */
  readonly worldName: string;
}

export class Loot {
  private readonly random: () => number;
  private readonly byType = new Map<number, LootEntry[]>();

  constructor(
    private readonly ports: LootPorts,
    tables: LootTables,
    seed: number,
  ) {
    this.random = mulberry32(seed ^ 0x17e45);
    for (const kind of tables.kinds) {
      if (kind.loot.length > 0)
        this.byType.set(kind.typeId, lootOf(kind.loot, tables.catalogue, tables.worldName, kind.name));
    }
  }

  /** A creature of kind `typeId` died at (x, y): its kind's loot table rolls, and what falls lies there. */
  dropOf(typeId: number, x: number, y: number): void {
    const loot = this.byType.get(typeId);
    if (loot !== undefined) this.drop(loot, x, y);
  }

  /** `loot` rolls at (x, y), and what falls lies there. */
  drop(loot: readonly LootEntry[], x: number, y: number): void {
    this.place(this.roll(loot), x, y);
  }

  /** What a creature of kind `typeId` drops: its table rolled on the room's stream (empty: nothing, or no table). */
  rollOf(typeId: number): { itemId: number; count: number }[] {
    const loot = this.byType.get(typeId);
    return loot === undefined ? [] : this.roll(loot);
  }

  /** `loot` rolled once on the room's seeded stream. */
  private roll(loot: readonly LootEntry[]): { itemId: number; count: number }[] {
    const falls: { itemId: number; count: number }[] = [];
    for (const entry of loot) {
      if (this.random() >= entry.chance) continue;
      const count = entry.min + Math.floor(this.random() * (entry.max - entry.min + 1));
      falls.push({ itemId: entry.item.id, count });
    }
    return falls;
  }

  /** What fell lies at (x, y), as piles (as many as the ground has room for: none of it, or all). */
  place(falls: readonly { itemId: number; count: number }[], x: number, y: number): void {
    if (falls.length === 0) return;
    const { transfer, ground, stats } = this.ports;
    transfer.run(() => {
      if (falls.length > ground.pileRoom) return;
      return transfer.commit({
        write: { newPiles: falls.map((fall) => ({ x, y, ...fall })) },
        apply: (ids) => {
          falls.forEach((fall, index) => ground.spawnPile(ids[index], x, y, fall.itemId, fall.count));
          stats.lootDropped += falls.length;
        },
      });
    });
  }
}
