// The places items lie in the world outside bags (docs/items.md): the map's chests — and a dungeon level's,
// while it is in the world — with their contents kept in the store under the chest's key, and the piles
// on the ground, one row each, that a step picks up. A chest's first contents are what its map object
// says; after that, what players left in it. Piles are bounded (PILES_MAX), counting those kept with a
// dungeon level that is not in the world now. Every change of them goes through item-transfer.ts.
import { ENTITY_FLAG_INTERACTABLE, ENTITY_FLAG_STATIC } from "../../protocol/entity.js";
import { ENTITY_TYPE_CHEST, ENTITY_TYPE_ITEM } from "../../item-types.js";
import type { ItemCatalogue } from "../content/item-catalogue.js";
import { addTo, emptySlots, type Slots, type Stack, stacksOf } from "../content/item-slots.js";
import { CHEST_CAPACITY, type ChestSpec } from "../content/item-specs.js";
import type { EntityStore, StoredEntity } from "../entities/entities.js";
import type { Logger } from "../ops/log.js";
import type { ItemStorePort, ItemWrite, LevelIdentity, StoredStack } from "../persistence/item-store.js";
import type { ItemTransfer } from "./item-transfer.js";

/** Slots in a chest: the map check validates chests' first contents against the same number. */
export const CHEST_SLOTS = CHEST_CAPACITY;
/**
 * Piles a world holds at most, counting those kept with a dropped dungeon level (in the database only): a
 * drop beyond is refused (`full`), so dropping cannot grow memory or the database without end.
 */
export const PILES_MAX = 4096;
/** How far (Chebyshev) a player reaches into a chest or a pile. */
export const REACH = 1;

export interface Chest {
  readonly entity: StoredEntity;
  readonly key: string;
  slots: (Stack | null)[];
  version: number;
}

export interface Pile {
  readonly entity: StoredEntity;
  /** Its row in item_piles. */
  readonly rowId: number;
  readonly itemId: number;
  count: number;
}

type ContainerSeeds = NonNullable<ItemWrite["containers"]>;

export interface ChestsAndPilesPorts {
  readonly entities: Pick<EntityStore, "spawn" | "remove" | "changed">;
  readonly store: ItemStorePort;
  readonly catalogue: ItemCatalogue;
  readonly transfer: Pick<ItemTransfer, "commit">;
  readonly log: Logger;
  readonly worldName: string;
  /** The item room's failure counter. */
  readonly stats: { writeFailures: number };
}

export class ChestsAndPiles {
  private readonly chests = new Map<number, Chest>();
  private readonly piles = new Map<number, Pile>();
  /** Pile entity ids by tile (x * 65536 + y, map coordinates are below 32768): what a step lands on. */
  private readonly pilesAt = new Map<number, number[]>();
  /** Piles kept with dungeon levels not in the world now: rows only, counted against PILES_MAX. */
  private dormantPiles = 0;

  constructor(
    private readonly ports: ChestsAndPilesPorts,
    chests: readonly ChestSpec[],
  ) {
    const seeds: ContainerSeeds = [];
    for (const spec of chests) this.placeChest(spec, chestKey(ports.worldName, spec.id), seeds);
    this.seed(seeds);
    for (const pile of ports.store.piles()) {
      if (ports.catalogue.get(pile.itemId) === undefined) {
        ports.log.warn("pile of an item the catalogue no longer has is left in the database", { pile: pile.id });
        continue;
      }
      this.spawnPile(pile.id, pile.x, pile.y, pile.itemId, pile.count);
    }
  }

  /** The chest standing as entity `id`, if any. */
  chest(id: number): Chest | undefined {
    return this.chests.get(id);
  }

  /** The pile lying as entity `id`, if any. */
  pile(id: number): Pile | undefined {
    return this.piles.get(id);
  }

  /** The entity ids of the piles on tile (x, y); undefined for none. */
  pilesOn(x: number, y: number): readonly number[] | undefined {
    return this.pilesAt.get(tileKey(x, y));
  }

  /** Whether any pile lies anywhere (end of tick skips the step checks when none does). */
  get anyPiles(): boolean {
    return this.pilesAt.size > 0;
  }

  chestValues(): IterableIterator<Chest> {
    return this.chests.values();
  }

  pileValues(): IterableIterator<Pile> {
    return this.piles.values();
  }

  /**
   * Chests added at run time (a dungeon level coming alive, ../dungeon/levels.ts), their contents stored
   * under `keyPrefix` and the chest's id: a level that comes back has its chests as players left them.
   * Returns their entity ids for removeChests.
   */
  addChests(specs: readonly ChestSpec[], keyPrefix: string): number[] {
    const seeds: ContainerSeeds = [];
    const ids = specs.map((spec) =>
      this.placeChest(spec, chestKey(this.ports.worldName, `${keyPrefix}:${spec.id}`), seeds),
    );
    this.seed(seeds);
    return ids;
  }

  /** Stores new chests' first contents (what their specs say); a failure is logged, and tried again at the next start. */
  private seed(seeds: ContainerSeeds): void {
    if (seeds.length === 0) return;
    const failed = (error: unknown) => {
      this.ports.stats.writeFailures++;
      this.ports.log.error("chests' first contents not written", { error: String(error) });
    };
    try {
      const written = this.ports.store.write({ containers: seeds });
      if (written instanceof Promise) written.catch(failed);
    } catch (error) {
      failed(error);
    }
  }

  /** Removes chests added by addChests (their contents stay stored). */
  removeChests(entityIds: readonly number[]): void {
    for (const id of entityIds) {
      const chest = this.chests.get(id);
      if (chest === undefined) continue;
      this.chests.delete(id);
      this.ports.entities.remove(chest.entity);
    }
  }

  /**
   * Moves every pile lying in `area` to (x, y), in one transaction. At start, for piles in a level slot
   * whose rows predate migration 0006 (they name no level, so cannot go back to one): up to the map's
   * first stairs down. Returns how many moved; a failed write moves none (they stay, logged).
   */
  movePiles(area: { x: number; y: number; width: number; height: number }, x: number, y: number): number {
    const moving = [...this.piles.values()].filter(
      ({ entity }) =>
        entity.x >= area.x && entity.y >= area.y && entity.x < area.x + area.width && entity.y < area.y + area.height,
    );
    if (moving.length === 0) return 0;
    const moved = this.ports.transfer.commit({
      write: {
        removedPiles: moving.map((pile) => pile.rowId),
        pilesWere: moving.map((pile) => ({ id: pile.rowId, count: pile.count })),
        newPiles: moving.map(({ itemId, count }) => ({ x, y, itemId, count })),
      },
      apply: (ids) =>
        moving.forEach((pile, index) => {
          const count = pile.count;
          this.setPileCount(pile, 0);
          this.spawnPile(ids[index], x, y, pile.itemId, count);
        }),
    });
    if (moved instanceof Promise) throw new Error("movePiles needs a store that answers in the same turn");
    return moved ? moving.length : 0;
  }

  /**
   * A dungeon level is dropped: the piles lying in its `area` leave the world. Their rows already name
   * the level and their level-relative cells, so nothing is written and a crash at any moment keeps them;
   * they come back with the level (bringBackPiles). Returns how many left.
   */
  stowPiles(area: { x: number; y: number; width: number; height: number }): number {
    let stowed = 0;
    for (const pile of [...this.piles.values()]) {
      const { x, y } = pile.entity;
      if (x < area.x || y < area.y || x >= area.x + area.width || y >= area.y + area.height) continue;
      this.setPileCount(pile, 0);
      stowed++;
    }
    this.dormantPiles += stowed;
    return stowed;
  }

  /**
   * A dungeon level is in the world again at `corner`: the piles kept with it lie at their cells again —
   * or at `fallback` (its stairs up) for a cell that is no longer walkable, which only a generator changed
   * since they were left makes happen. Returns how many came back.
   */
  bringBackPiles(
    level: LevelIdentity,
    corner: { x: number; y: number },
    walkable: (x: number, y: number) => boolean,
    fallback: { x: number; y: number },
  ): number {
    const rows = this.ports.store.levelPiles(level);
    let back = 0;
    for (const row of rows) {
      if (this.ports.catalogue.get(row.itemId) === undefined) {
        this.ports.log.warn("pile of an item the catalogue no longer has is left in the database", { pile: row.id });
        continue;
      }
      const x = corner.x + row.x;
      const y = corner.y + row.y;
      const at = walkable(x, y) ? { x, y } : fallback;
      this.spawnPile(row.id, at.x, at.y, row.itemId, row.count);
      back++;
    }
    this.dormantPiles = Math.max(0, this.dormantPiles - back);
    return back;
  }

  /**
   * At start: the piles kept with dungeon levels. Those of a level that can come back (`comesBack`: its
   * seed and depth follow from the map's stairs and the world's dungeon seed, its size is the world's) wait
   * for it; those of one that never can (the map's stairs moved, the dungeon seed or level size changed, the
   * world lost its level slots) are put on the map at `to`, each level's in one statement, so none is lost.
   */
  settleLevelPiles(comesBack: (level: LevelIdentity) => boolean, to: { x: number; y: number }): void {
    for (const { piles, ...level } of this.ports.store.pileLevels()) {
      if (comesBack(level)) {
        this.dormantPiles += piles;
        continue;
      }
      const rows = this.ports.store.levelPiles(level);
      try {
        this.ports.store.unlevelPiles(level, to.x, to.y);
      } catch (error) {
        this.ports.stats.writeFailures++;
        this.ports.log.error("piles of a level that cannot come back not moved", { error: String(error) });
        this.dormantPiles += piles;
        continue;
      }
      this.ports.log.info("piles of a dungeon level that cannot come back put on the map", {
        level: `${level.seed}:${level.depth}:${level.size}`,
        piles: rows.length,
        x: to.x,
        y: to.y,
      });
      for (const row of rows) {
        if (this.ports.catalogue.get(row.itemId) !== undefined)
          this.spawnPile(row.id, to.x, to.y, row.itemId, row.count);
      }
    }
  }

  /** Piles kept with dungeon levels that are not in the world now (rows only). */
  get dormantPileCount(): number {
    return this.dormantPiles;
  }

  /** Room for new piles under PILES_MAX, counting the dormant ones. */
  get pileRoom(): number {
    return PILES_MAX - this.piles.size - this.dormantPiles;
  }

  get chestCount(): number {
    return this.chests.size;
  }

  get pileCount(): number {
    return this.piles.size;
  }

  /** The chest entity standing for the map object `name`, for tests and tools. */
  chestNamed(name: string): StoredEntity | undefined {
    for (const chest of this.chests.values()) if (chest.entity.name === name) return chest.entity;
    return undefined;
  }

  /** A chest's entity, with what the store holds under `key` or, the first time, what its spec says. */
  private placeChest(spec: ChestSpec, key: string, seeds: ContainerSeeds): number {
    const ports = this.ports;
    const stored = ports.store.load(key);
    // A shared store holds the chests of this process's ground in memory from its start (pg-items.ts).
    if (stored instanceof Promise) throw new Error(`chest ${key} was not read before the item room started`);
    let slots = emptySlots(CHEST_SLOTS);
    let version = 1;
    if (stored === undefined) {
      // First start with this chest: it holds what the map says, and from now on what players leave in it.
      for (const { item, count } of spec.items) slots = addTo(slots, item.id, count, ports.catalogue).slots;
      seeds.push({ key, version, stacks: stacksOf(slots) });
    } else {
      version = stored.version;
      slots = slotsFrom(stored.stacks, CHEST_SLOTS, key, ports.catalogue, ports.log);
    }
    const entity = ports.entities.spawn({
      typeId: ENTITY_TYPE_CHEST,
      x: spec.x,
      y: spec.y,
      hp: 0,
      hpMax: 0,
      elo: 0,
      flags: ENTITY_FLAG_STATIC | ENTITY_FLAG_INTERACTABLE,
      name: spec.name,
      meta: [],
    });
    this.chests.set(entity.id, { entity, key, slots, version });
    return entity.id;
  }

  /** A pile of `count` × `itemId` lies at (x, y) as row `rowId`. */
  spawnPile(rowId: number, x: number, y: number, itemId: number, count: number): void {
    const item = this.ports.catalogue.get(itemId)!;
    const entity = this.ports.entities.spawn({
      typeId: ENTITY_TYPE_ITEM,
      x,
      y,
      hp: 0,
      hpMax: 0,
      elo: 0,
      flags: ENTITY_FLAG_STATIC | ENTITY_FLAG_INTERACTABLE,
      name: item.name,
      meta: [{ kind: "item", itemId, count }],
    });
    this.piles.set(entity.id, { entity, rowId, itemId, count });
    const key = tileKey(x, y);
    const here = this.pilesAt.get(key);
    if (here === undefined) this.pilesAt.set(key, [entity.id]);
    else here.push(entity.id);
  }

  /** A pile now holds `count`; at 0 it is gone from the world. */
  setPileCount(pile: Pile, count: number): void {
    pile.count = count;
    if (count > 0) {
      pile.entity.meta = [{ kind: "item", itemId: pile.itemId, count }];
      this.ports.entities.changed(pile.entity);
      return;
    }
    this.piles.delete(pile.entity.id);
    const key = tileKey(pile.entity.x, pile.entity.y);
    const here = this.pilesAt.get(key);
    if (here !== undefined) {
      here.splice(here.indexOf(pile.entity.id), 1);
      if (here.length === 0) this.pilesAt.delete(key);
    }
    this.ports.entities.remove(pile.entity);
  }
}

/** The container key of the chest `id` (a map object's id, or a level's prefix and id) of world `world`. */
export function chestKey(world: string, id: number | string): string {
  return `chest:${world}:${id}`;
}

/** A chest's row with `slots` as its contents, at its next version. */
export function chestRow(chest: Chest, slots: Slots): { key: string; version: number; stacks: StoredStack[] } {
  return { key: chest.key, version: chest.version + 1, stacks: stacksOf(slots) };
}

/** Whether `a` and `b` stand within `reach` tiles (Chebyshev) of each other. */
export function within(a: StoredEntity, b: StoredEntity, reach: number): boolean {
  return Math.max(Math.abs(a.x - b.x), Math.abs(a.y - b.y)) <= reach;
}

/** Stored stacks as slots; a stack of an item the catalogue no longer has is logged and left out. */
export function slotsFrom(
  stacks: readonly StoredStack[],
  size: number,
  key: string,
  catalogue: ItemCatalogue,
  log: Logger,
): (Stack | null)[] {
  const slots = emptySlots(size);
  for (const stack of stacks) {
    if (stack.slot >= size || catalogue.get(stack.itemId) === undefined) {
      log.warn("stored stack skipped", { container: key, slot: stack.slot, itemId: stack.itemId });
      continue;
    }
    slots[stack.slot] = { itemId: stack.itemId, count: stack.count };
  }
  return slots;
}

function tileKey(x: number, y: number): number {
  return x * 65536 + y;
}
