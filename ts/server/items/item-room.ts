// Everything items do in the world (issue 14, docs/items.md): the players'
// bags and equipment, the map's chests, the piles on the ground, loot, and
// the ItemRequests that move items between them.
//
// One rule makes items safe: a change is decided in memory on copies
// (../content/item-slots.ts), written to SQLite in one transaction over every row it touches
// (persistence/item-store.ts), and only then applied and answered. So an item
// is durable before the player hears "ok", and a kill at any moment leaves it
// in exactly one place. Guests' bags are not stored (their characters are
// not): what a guest carries is dropped where it stands when its session ends.
//
// With a store a cluster's processes share (ts/cluster/pg-items.ts) a write
// answers later: then the room makes its changes one at a time, in the order
// they came (`run`), each decided on the state the one before left and
// applied once written — the same rule, waiting its turn. With SQLite every
// change is done in the turn it came, as before.
//
// Every request has an id: the first copy executes, every later copy gets the
// same answer (the last REMEMBERED_ANSWERS per player), one older than those
// gets `stale` and changes nothing — a lost or duplicated datagram never
// duplicates or loses an item. After every change the player's own
// EntityDetail (with its `inventory` TLV) goes out, and so does a chest's to
// every player next to it.
import { ENTITY_FLAG_INTERACTABLE, ENTITY_FLAG_STATIC } from "../../protocol/entity.js";
import { encodeEntityDetail } from "../../protocol/entity-detail.js";
import { MAX_DATAGRAM_BYTES } from "../../protocol/header.js";
import { ITEM_OPS, type ItemRequestPacket } from "../../protocol/item-request.js";
import { ITEM_STATUSES, type ItemStatus, encodeItemResult, ITEM_RESULT_BYTES } from "../../protocol/item-result.js";
import { SLOT_ARMOR, SLOT_WEAPON, type ItemStack, type Tlv } from "../../protocol/tlv.js";
import { mulberry32 } from "../../random.js";
import { ENTITY_TYPE_CHEST, ENTITY_TYPE_ITEM } from "../../item-types.js";
import type { Clock } from "../clock.js";
import type { ChatService } from "../talk/chat.js";
import type { Egress } from "../edge/egress.js";
import type { EntityStore, StoredEntity } from "../entities/entities.js";
import type { Logger } from "../ops/log.js";
import type {
  ItemStorePort,
  ItemWrite,
  LevelIdentity,
  StoredContainer,
  StoredStack,
} from "../persistence/item-store.js";
import type { Session } from "../sessions/session.js";
import { addTo, emptySlots, type Slots, type Stack, takeFrom } from "../content/item-slots.js";
import type { ItemCatalogue, ItemDef } from "../content/item-catalogue.js";
import type { ChestSpec, LootEntry } from "../content/item-specs.js";

/** Built-in type_ids of the things items live in (docs/protocol.md § 18.3), shared with the client. */
export { ENTITY_TYPE_CHEST, ENTITY_TYPE_ITEM } from "../../item-types.js";
/** Slots in a player's bag and in a chest. */
export const BAG_SLOTS = 20;
export const CHEST_SLOTS = 20;
/** Answers each player's recent requests are remembered for (a re-sent copy gets the same one). */
export const REMEMBERED_ANSWERS = 64;
/**
 * Piles a world holds at most, counting those kept with a dropped dungeon level (in the database only): a
 * drop beyond is refused (`full`), so dropping cannot grow memory or the database without end.
 */
export const PILES_MAX = 4096;
/**
 * Item work waiting for a write in flight (a shared store's): beyond this, requests are dropped unanswered
 * (the client sends them again) and pickups wait for the next step, so a flood cannot grow memory.
 */
export const MAX_WAITING_WORK = 4096;
/** How far (Chebyshev) a player reaches into a chest or a pile. */
const REACH = 1;

const STATUS = Object.fromEntries(ITEM_STATUSES.map((name, code) => [name, code])) as Record<ItemStatus, number>;

/** What a player carries, and its request memory. */
interface Carried {
  readonly session: Session;
  /** Its container key in the store; null for a guest (kept in memory only). */
  readonly key: string | null;
  bag: (Stack | null)[];
  weapon: Stack | null;
  armor: Stack | null;
  version: number;
  /** Where it stood at the last end of tick: a step onto a pile picks it up. */
  lastX: number;
  lastY: number;
  readonly answers: Map<number, { status: number; version: number }>;
  /** Request ids up to this one were forgotten: a copy of one gets `stale`. */
  forgottenUpTo: number;
  /** Item work of this player waiting or under way (`run`): it moves to another process only at 0. */
  work: number;
  /** Its bag could not be read from the store: it changes nothing until the session starts again. */
  unreadable: boolean;
}

interface Chest {
  readonly entity: StoredEntity;
  readonly key: string;
  slots: (Stack | null)[];
  version: number;
}

interface Pile {
  readonly entity: StoredEntity;
  /** Its row in item_piles. */
  readonly rowId: number;
  readonly itemId: number;
  count: number;
}

/** A change decided on copies: what to write, then what to apply once it is written. */
interface Change {
  write: ItemWrite;
  apply: (newPileIds: readonly number[]) => void;
}

export interface ItemPorts {
  readonly entities: Pick<EntityStore, "spawn" | "remove" | "get" | "changed">;
  readonly store: ItemStorePort;
  readonly catalogue: ItemCatalogue;
  readonly egress: Egress;
  readonly chat: Pick<ChatService, "tell">;
  /** Whether an entity lies dead (combat): the dead do not use items. */
  readonly isDown: (entity: StoredEntity) => boolean;
  readonly clock: Pick<Clock, "tick">;
  readonly log: Logger;
  readonly worldName: string;
  /**
   * The dungeon level a world cell lies in, with the cell relative to the level's corner; null on a map.
   * A pile dropped in a level is stored that way, so it comes back with the level (../dungeon/levels.ts).
   */
  readonly levelOf: (x: number, y: number) => { level: LevelIdentity; x: number; y: number } | null;
}

export interface ItemStats {
  requests: number;
  repeated: number;
  stale: number;
  refused: number;
  done: number;
  pickedUp: number;
  dropped: number;
  lootDropped: number;
  writeFailures: number;
  /** Work dropped because MAX_WAITING_WORK waited already. */
  shed: number;
}

export class ItemRoom {
  private readonly carried = new Map<number, Carried>();
  private readonly chests = new Map<number, Chest>();
  private readonly piles = new Map<number, Pile>();
  /** Pile entity ids by tile (x * 65536 + y, map coordinates are below 32768): what a step lands on. */
  private readonly pilesAt = new Map<number, number[]>();
  /** Piles kept with dungeon levels not in the world now: rows only, counted against PILES_MAX. */
  private dormantPiles = 0;
  private readonly random: () => number;
  readonly stats: ItemStats = {
    requests: 0,
    repeated: 0,
    stale: 0,
    refused: 0,
    done: 0,
    pickedUp: 0,
    dropped: 0,
    lootDropped: 0,
    writeFailures: 0,
    shed: 0,
  };
  /** A change is being written to a store that answers later: further work waits here, in order. */
  private busy = false;
  private readonly waiting: (() => unknown)[] = [];

  constructor(
    private readonly ports: ItemPorts,
    chests: readonly ChestSpec[],
    options: { seed: number },
  ) {
    this.random = mulberry32(options.seed ^ 0x17e45);
    const seeds: NonNullable<ItemWrite["containers"]> = [];
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

  /**
   * Chests added at run time (a dungeon level coming alive, ../dungeon/levels.ts), their contents stored
   * under `keyPrefix` and the chest's id: a level that comes back has its chests as players left them.
   * Returns their entity ids for removeChests.
   */
  addChests(specs: readonly ChestSpec[], keyPrefix: string): number[] {
    const seeds: NonNullable<ItemWrite["containers"]> = [];
    const ids = specs.map((spec) =>
      this.placeChest(spec, chestKey(this.ports.worldName, `${keyPrefix}:${spec.id}`), seeds),
    );
    this.seed(seeds);
    return ids;
  }

  /** Stores new chests' first contents (what their specs say); a failure is logged, and tried again at the next start. */
  private seed(seeds: NonNullable<ItemWrite["containers"]>): void {
    if (seeds.length === 0) return;
    const failed = (error: unknown) => {
      this.stats.writeFailures++;
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
    const moved = this.commit({
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
        this.stats.writeFailures++;
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
  private get pileRoom(): number {
    return PILES_MAX - this.piles.size - this.dormantPiles;
  }

  /** A chest's entity, with what the store holds under `key` or, the first time, what its spec says. */
  private placeChest(spec: ChestSpec, key: string, seeds: NonNullable<ItemWrite["containers"]>): number {
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
      slots = this.slotsFrom(stored.stacks, CHEST_SLOTS, key);
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

  /**
   * A session starts: an account's bag comes from the store (a shared store answers once the character's
   * lease is here: pg-items.ts), a guest's starts empty — or, handed over by another process of a
   * cluster, with what it carried there (`carrying`, as `carrying()` gave it).
   */
  enter(session: Session, carrying: StoredContainer | null = null): void {
    const key = session.accountId === null ? null : bagKey(session.accountId);
    const carried: Carried = {
      session,
      key,
      bag: emptySlots(BAG_SLOTS),
      weapon: null,
      armor: null,
      version: 1,
      lastX: session.entity.x,
      lastY: session.entity.y,
      answers: new Map(),
      forgottenUpTo: 0,
      work: 0,
      unreadable: false,
    };
    this.carried.set(session.entity.id, carried);
    if (key === null) {
      if (carrying !== null) this.fill(carried, carrying, "a guest's handed-over bag");
      this.showEquipment(carried);
      return;
    }
    // In its turn: a change of this character's bag made by its previous session here is written first.
    this.runFor(carried, () => {
      const failed = (error: unknown) => {
        carried.unreadable = true;
        this.ports.log.error("a bag could not be read: its items stay stored, untouched", {
          container: key,
          error: String(error),
        });
      };
      let loaded: ReturnType<ItemStorePort["load"]>;
      try {
        loaded = this.ports.store.load(key);
      } catch (error) {
        return failed(error);
      }
      const later = loaded instanceof Promise;
      if (later) carried.unreadable = true; // until it is read: no detail shows an empty bag meanwhile
      const done = settle(loaded, (stored) => {
        carried.unreadable = false;
        if (stored !== undefined) this.fill(carried, stored, key);
        this.showEquipment(carried);
        if (later) this.sendDetail(carried.session, carried.session.entity);
      });
      return done instanceof Promise ? done.catch(failed) : done;
    });
  }

  /** A stored bag (and its equipment slots) into `carried`. */
  private fill(carried: Carried, stored: StoredContainer, container: string): void {
    carried.version = stored.version;
    carried.bag = this.slotsFrom(
      stored.stacks.filter((stack) => stack.slot < BAG_SLOTS),
      BAG_SLOTS,
      container,
    );
    for (const stack of stored.stacks) {
      const item = this.ports.catalogue.get(stack.itemId);
      if (item === undefined) continue;
      if (stack.slot === SLOT_WEAPON && item.kind === "weapon")
        carried.weapon = { itemId: stack.itemId, count: stack.count };
      if (stack.slot === SLOT_ARMOR && item.kind === "armor")
        carried.armor = { itemId: stack.itemId, count: stack.count };
    }
  }

  /** Whether `session` has no item work waiting or under way: only then may it move to another process. */
  settled(session: Session): boolean {
    const carried = this.carried.get(session.entity.id);
    return carried === undefined || carried.session !== session || carried.work === 0;
  }

  /**
   * What `session` carries — bag slots and equipment slots (SLOT_WEAPON, SLOT_ARMOR) — and its version
   * (the client keeps the newest version it was shown), for `enter` elsewhere.
   */
  carrying(session: Session): StoredContainer {
    const carried = this.carried.get(session.entity.id);
    if (carried === undefined || carried.session !== session) return { version: 1, stacks: [] };
    return { version: carried.version, stacks: bagStacks(carried) };
  }

  /** The session moved to another process of a cluster with what it carries (once settled): forget it here, drop nothing. */
  forget(session: Session): void {
    if (this.carried.get(session.entity.id)?.session === session) this.carried.delete(session.entity.id);
  }

  /** A session ends: an account's bag is already stored; a guest's items drop where it stood. */
  leave(session: Session): void {
    const carried = this.carried.get(session.entity.id);
    if (carried === undefined || carried.session !== session) return;
    this.carried.delete(session.entity.id);
    if (carried.key !== null) return;
    const { x, y } = session.entity;
    // In its turn: a change of its own still under way lands in `carried` first.
    this.run(() => {
      const stacks = [...carried.bag, carried.weapon, carried.armor].filter((s): s is Stack => s !== null);
      const dropped = stacks.slice(0, Math.max(0, this.pileRoom));
      if (dropped.length === 0) return;
      return this.commit({
        write: { newPiles: dropped.map((stack) => ({ x, y, itemId: stack.itemId, count: stack.count })) },
        apply: (ids) => {
          dropped.forEach((stack, index) => this.spawnPile(ids[index], x, y, stack.itemId, stack.count));
        },
      });
    });
  }

  /** The combat formula's numbers for a player: its weapon's damage (null: bare hands) and its armor. */
  weaponDamage(entity: StoredEntity): number | null {
    const weapon = this.carried.get(entity.id)?.weapon;
    return weapon ? (this.ports.catalogue.get(weapon.itemId)?.damage ?? null) : null;
  }

  armorValue(entity: StoredEntity): number {
    const armor = this.carried.get(entity.id)?.armor;
    return armor ? (this.ports.catalogue.get(armor.itemId)?.armor ?? 0) : 0;
  }

  /** Whether the player holds at least one of the item named `name` (a door's key, for example). */
  holds(session: Session, name: string): boolean {
    const item = this.ports.catalogue.named(name);
    const carried = this.carried.get(session.entity.id);
    if (item === undefined || carried === undefined) return false;
    if (carried.weapon?.itemId === item.id || carried.armor?.itemId === item.id) return true;
    return carried.bag.some((stack) => stack !== null && stack.itemId === item.id);
  }

  /**
   * The TLV a query of `entity` by `session` adds to its EntityDetail: the player's own bag when
   * it asks about itself, a chest's contents to a player within reach; null otherwise.
   */
  detailTlv(session: Session, entity: StoredEntity): Tlv | null {
    if (entity === session.entity) {
      const carried = this.carried.get(entity.id);
      return carried && !carried.unreadable ? inventoryTlv(carried.version, BAG_SLOTS, bagStacks(carried)) : null;
    }
    const chest = this.chests.get(entity.id);
    if (chest === undefined || !within(session.entity, entity, REACH)) return null;
    return inventoryTlv(chest.version, CHEST_SLOTS, stacksOf(chest.slots));
  }

  /** An ItemRequest from `session`: executed once, answered every time. */
  onRequest(session: Session, packet: ItemRequestPacket): void {
    const carried = this.carried.get(session.entity.id);
    if (carried === undefined || carried.session !== session) return;
    this.stats.requests++;
    if (this.answeredBefore(carried, packet.requestId)) return;
    this.runFor(carried, () => {
      // Its turn came: the session may have ended meanwhile, or a copy before this one been answered.
      if (this.carried.get(session.entity.id) !== carried || this.answeredBefore(carried, packet.requestId)) return;
      return settle(this.execute(carried, packet), (status) => {
        if (status === STATUS.ok) this.stats.done++;
        else this.stats.refused++;
        carried.answers.set(packet.requestId, { status, version: carried.version });
        if (carried.answers.size > REMEMBERED_ANSWERS) {
          const oldest = carried.answers.keys().next().value as number;
          carried.answers.delete(oldest);
          carried.forgottenUpTo = Math.max(carried.forgottenUpTo, oldest);
        }
        this.answer(session, packet.requestId, status, carried.version);
      });
    });
  }

  /** Answers a copy of a request answered before (the same answer), or one too old to know (`stale`). */
  private answeredBefore(carried: Carried, requestId: number): boolean {
    const known = carried.answers.get(requestId);
    if (known !== undefined) {
      this.stats.repeated++;
      this.answer(carried.session, requestId, known.status, known.version);
      return true;
    }
    if (requestId <= carried.forgottenUpTo) {
      this.stats.stale++;
      this.answer(carried.session, requestId, STATUS.stale, carried.version);
      return true;
    }
    return false;
  }

  /**
   * Runs `work` now — or, while a change is being written to a store that answers later, after it and
   * everything that came before, in order. False when MAX_WAITING_WORK waits already (`work` dropped).
   */
  private run(work: () => unknown): boolean {
    if (this.busy) {
      if (this.waiting.length >= MAX_WAITING_WORK) {
        this.stats.shed++;
        return false;
      }
      this.waiting.push(work);
      return true;
    }
    this.start(work);
    return true;
  }

  private start(work: () => unknown): void {
    const result = work();
    if (!(result instanceof Promise)) return;
    this.busy = true;
    const next = () => {
      this.busy = false;
      while (!this.busy && this.waiting.length > 0) {
        try {
          this.start(this.waiting.shift()!);
        } catch (error) {
          this.ports.log.error("item work failed", { error: String(error) });
        }
      }
    };
    result.then(next, (error: unknown) => {
      this.ports.log.error("item work failed", { error: String(error) });
      next();
    });
  }

  /** `run`, counted as `carried`'s work while it waits or is under way (see `settled`). */
  private runFor(carried: Carried, work: () => unknown): void {
    carried.work++;
    const done = () => void carried.work--;
    const queued = this.run(() => {
      let result: unknown;
      try {
        result = work();
      } catch (error) {
        done();
        throw error;
      }
      if (result instanceof Promise) return result.finally(done);
      done();
      return result;
    });
    if (!queued) done();
  }

  /**
   * End of a tick: every living player that stepped onto a pile picks up what fits. Runs over the
   * players in play, one map lookup each.
   */
  endTick(): void {
    if (this.pilesAt.size === 0) {
      for (const carried of this.carried.values()) {
        carried.lastX = carried.session.entity.x;
        carried.lastY = carried.session.entity.y;
      }
      return;
    }
    for (const carried of this.carried.values()) {
      const entity = carried.session.entity;
      if (entity.x === carried.lastX && entity.y === carried.lastY) continue;
      carried.lastX = entity.x;
      carried.lastY = entity.y;
      const here = this.pilesAt.get(tileKey(entity.x, entity.y));
      if (here === undefined || this.ports.isDown(entity)) continue;
      for (const pileId of here.slice()) this.pickUp(carried, pileId);
    }
  }

  /** A creature died at (x, y): its kind's loot table rolls, and what falls lies there. */
  dropLoot(loot: readonly LootEntry[], x: number, y: number): void {
    const falls: { itemId: number; count: number }[] = [];
    for (const entry of loot) {
      if (this.random() >= entry.chance) continue;
      const count = entry.min + Math.floor(this.random() * (entry.max - entry.min + 1));
      falls.push({ itemId: entry.item.id, count });
    }
    if (falls.length === 0) return;
    this.run(() => {
      if (falls.length > this.pileRoom) return;
      return this.commit({
        write: { newPiles: falls.map((fall) => ({ x, y, ...fall })) },
        apply: (ids) => {
          falls.forEach((fall, index) => this.spawnPile(ids[index], x, y, fall.itemId, fall.count));
          this.stats.lootDropped += falls.length;
        },
      });
    });
  }

  /** Every item in the world by id: bags in play, chests and piles in the world (the conservation tests sum this). */
  census(): Map<number, number> {
    const total = new Map<number, number>();
    const add = (stack: Stack | null): void => {
      if (stack !== null) total.set(stack.itemId, (total.get(stack.itemId) ?? 0) + stack.count);
    };
    for (const carried of this.carried.values()) {
      carried.bag.forEach(add);
      add(carried.weapon);
      add(carried.armor);
    }
    for (const chest of this.chests.values()) chest.slots.forEach(add);
    for (const pile of this.piles.values()) add({ itemId: pile.itemId, count: pile.count });
    return total;
  }

  private execute(carried: Carried, packet: ItemRequestPacket): Status {
    const entity = carried.session.entity;
    if (carried.unreadable) return STATUS.full;
    if (this.ports.isDown(entity)) return STATUS.dead;
    const op = ITEM_OPS[packet.op];
    switch (op) {
      case "take":
      case "take_all":
        return this.take(carried, packet.container, op === "take_all" ? -1 : packet.slot, packet.count);
      case "put":
        return this.put(carried, packet.container, packet.slot, packet.count);
      case "drop":
        return this.drop(carried, packet.slot, packet.count);
      case "equip":
        return this.equip(carried, packet.slot);
      case "unequip":
        return this.unequip(carried, packet.slot);
      case "use":
        return this.use(carried, packet.slot);
      case "move":
        return this.move(carried, packet.slot, packet.toSlot);
    }
  }

  /** Take from a chest (one slot, or every slot for `slot` −1) or from a pile, as much as fits. */
  private take(carried: Carried, containerId: number, slot: number, count: number): Status {
    const pile = this.piles.get(containerId);
    if (pile !== undefined) {
      if (!within(carried.session.entity, pile.entity, REACH)) return STATUS.too_far;
      return this.takePile(carried, pile, count === 0 ? pile.count : Math.min(count, pile.count));
    }
    const chest = this.chests.get(containerId);
    if (chest === undefined) return STATUS.no_container;
    if (!within(carried.session.entity, chest.entity, REACH)) return STATUS.too_far;
    let bag: Slots = carried.bag;
    let slots: Slots = chest.slots;
    let moved = 0;
    const from = slot < 0 ? chest.slots.map((_, index) => index) : [slot];
    for (const index of from) {
      const stack = slots[index] ?? null;
      if (stack === null) continue;
      const wanted = slot < 0 || count === 0 ? stack.count : Math.min(count, stack.count);
      const added = addTo(bag, stack.itemId, wanted, this.ports.catalogue);
      if (added.added === 0) continue;
      bag = added.slots;
      slots = takeFrom(slots, index, added.added);
      moved += added.added;
    }
    if (moved === 0) return from.some((index) => chest.slots[index] != null) ? STATUS.full : STATUS.no_item;
    const newBag = bag as (Stack | null)[];
    const newSlots = slots as (Stack | null)[];
    return this.commitStatus({
      write: { containers: [this.containerRow(carried, newBag), chestRow(chest, newSlots)] },
      apply: () => {
        this.setBag(carried, newBag);
        chest.slots = newSlots;
        chest.version++;
        this.showChest(chest);
      },
    });
  }

  private takePile(carried: Carried, pile: Pile, count: number): Status {
    const added = addTo(carried.bag, pile.itemId, count, this.ports.catalogue);
    if (added.added === 0) return STATUS.full;
    const left = pile.count - added.added;
    return this.commitStatus({
      write: {
        containers: [this.containerRow(carried, added.slots)],
        ...(left === 0 ? { removedPiles: [pile.rowId] } : { changedPiles: [{ id: pile.rowId, count: left }] }),
        pilesWere: [{ id: pile.rowId, count: pile.count }],
      },
      apply: () => {
        this.setBag(carried, added.slots);
        this.setPileCount(pile, left);
      },
    });
  }

  private pickUp(carried: Carried, pileId: number): void {
    this.runFor(carried, () => {
      const pile = this.piles.get(pileId);
      const entity = carried.session.entity;
      if (pile === undefined || this.carried.get(entity.id) !== carried) return;
      // Its turn came after a write: the player may have walked on, or died.
      if (entity.x !== pile.entity.x || entity.y !== pile.entity.y || this.ports.isDown(entity)) return;
      const before = pile.count;
      return settle(this.takePile(carried, pile, pile.count), (status) => {
        if (status !== STATUS.ok) return;
        this.stats.pickedUp++;
        const taken = before - pile.count;
        this.ports.chat.tell(carried.session, `You pick up ${amount(this.item(pile.itemId), taken)}.`);
      });
    });
  }

  private put(carried: Carried, containerId: number, slot: number, count: number): Status {
    const chest = this.chests.get(containerId);
    if (chest === undefined) return STATUS.no_container;
    if (!within(carried.session.entity, chest.entity, REACH)) return STATUS.too_far;
    const stack = carried.bag[slot] ?? null;
    if (slot >= BAG_SLOTS || stack === null) return STATUS.no_item;
    const wanted = count === 0 ? stack.count : Math.min(count, stack.count);
    const added = addTo(chest.slots, stack.itemId, wanted, this.ports.catalogue);
    if (added.added === 0) return STATUS.full;
    const bag = takeFrom(carried.bag, slot, added.added);
    return this.commitStatus({
      write: { containers: [this.containerRow(carried, bag), chestRow(chest, added.slots)] },
      apply: () => {
        this.setBag(carried, bag);
        chest.slots = added.slots;
        chest.version++;
        this.showChest(chest);
      },
    });
  }

  /** Drops (part of) a bag stack, or the equipped weapon or armor, as a pile on the player's tile. */
  private drop(carried: Carried, slot: number, count: number): Status {
    const equipped = slot === SLOT_WEAPON ? carried.weapon : slot === SLOT_ARMOR ? carried.armor : null;
    const stack = slot < BAG_SLOTS ? (carried.bag[slot] ?? null) : equipped;
    if (stack === null) return STATUS.no_item;
    const dropped = count === 0 ? stack.count : Math.min(count, stack.count);
    const { x, y } = carried.session.entity;
    // Onto a pile of the same item on this tile, so dropping one by one does not make a pile each.
    const same = (this.pilesAt.get(tileKey(x, y)) ?? [])
      .map((id) => this.piles.get(id) as Pile)
      .find((pile) => pile.itemId === stack.itemId && pile.count + dropped <= 0xffff);
    if (same === undefined && this.pileRoom <= 0) return STATUS.full;
    const next = this.withoutStack(carried, slot, dropped);
    return this.commitStatus({
      write: {
        containers: [this.containerRow(carried, next.bag, next.weapon, next.armor)],
        ...(same !== undefined
          ? {
              changedPiles: [{ id: same.rowId, count: same.count + dropped }],
              pilesWere: [{ id: same.rowId, count: same.count }],
            }
          : { newPiles: [{ x, y, itemId: stack.itemId, count: dropped }] }),
      },
      apply: (ids) => {
        this.setCarried(carried, next.bag, next.weapon, next.armor);
        if (same !== undefined) this.setPileCount(same, same.count + dropped);
        else this.spawnPile(ids[0], x, y, stack.itemId, dropped);
        this.stats.dropped++;
      },
    });
  }

  private equip(carried: Carried, slot: number): Status {
    const stack = slot < BAG_SLOTS ? (carried.bag[slot] ?? null) : null;
    if (stack === null) return STATUS.no_item;
    const kind = this.item(stack.itemId)?.kind;
    if (kind !== "weapon" && kind !== "armor") return STATUS.wrong_kind;
    return this.move(carried, slot, kind === "weapon" ? SLOT_WEAPON : SLOT_ARMOR);
  }

  private unequip(carried: Carried, slot: number): Status {
    const stack = slot === SLOT_WEAPON ? carried.weapon : slot === SLOT_ARMOR ? carried.armor : null;
    if (stack === null) return STATUS.no_item;
    const free = carried.bag.indexOf(null);
    if (free < 0) return STATUS.full;
    return this.move(carried, slot, free);
  }

  /** Uses a consumable: it heals, one of the stack is gone. */
  private use(carried: Carried, slot: number): Status {
    const stack = slot < BAG_SLOTS ? (carried.bag[slot] ?? null) : null;
    if (stack === null) return STATUS.no_item;
    const item = this.item(stack.itemId);
    if (item === undefined || item.kind !== "consumable") return STATUS.wrong_kind;
    const bag = takeFrom(carried.bag, slot, 1);
    const entity = carried.session.entity;
    return this.commitStatus({
      write: { containers: [this.containerRow(carried, bag)] },
      apply: () => {
        this.setBag(carried, bag);
        entity.hp = Math.min(entity.hpMax, entity.hp + item.heal);
        this.ports.entities.changed(entity);
      },
    });
  }

  /**
   * Moves the stack in `from` to `to` (bag slots, SLOT_WEAPON, SLOT_ARMOR): onto an empty slot,
   * onto the same item (merging up to a stack), or swapping with what is there. An equipment slot
   * only takes its kind, so a swap that would put a potion into the weapon slot is `wrong_kind`.
   */
  private move(carried: Carried, from: number, to: number): Status {
    const read = (slot: number): Stack | null | undefined =>
      slot === SLOT_WEAPON ? carried.weapon : slot === SLOT_ARMOR ? carried.armor : carried.bag[slot];
    const moving = read(from);
    const there = read(to);
    if (moving === undefined || there === undefined) return STATUS.no_item;
    if (moving === null) return STATUS.no_item;
    if (from === to) return STATUS.ok;
    const fits = (stack: Stack | null, slot: number): boolean =>
      stack === null ||
      (slot !== SLOT_WEAPON && slot !== SLOT_ARMOR) ||
      this.item(stack.itemId)?.kind === (slot === SLOT_WEAPON ? "weapon" : "armor");
    let movingTo: Stack | null = moving;
    let left: Stack | null = there;
    if (there !== null && there.itemId === moving.itemId) {
      const stackMax = this.item(moving.itemId)?.stack ?? 1;
      const merged = Math.min(stackMax, there.count + moving.count);
      movingTo = { itemId: moving.itemId, count: merged };
      const rest = moving.count - (merged - there.count);
      left = rest > 0 ? { itemId: moving.itemId, count: rest } : null;
    }
    if (!fits(movingTo, to) || !fits(left, from)) return STATUS.wrong_kind;
    const bag = carried.bag.slice();
    let weapon = carried.weapon;
    let armor = carried.armor;
    const write = (slot: number, stack: Stack | null): void => {
      if (slot === SLOT_WEAPON) weapon = stack;
      else if (slot === SLOT_ARMOR) armor = stack;
      else bag[slot] = stack;
    };
    write(to, movingTo);
    write(from, left);
    return this.commitStatus({
      write: { containers: [this.containerRow(carried, bag, weapon, armor)] },
      apply: () => this.setCarried(carried, bag, weapon, armor),
    });
  }

  /** The carried bag and equipment with `count` fewer in `slot`. */
  private withoutStack(
    carried: Carried,
    slot: number,
    count: number,
  ): { bag: (Stack | null)[]; weapon: Stack | null; armor: Stack | null } {
    const less = (stack: Stack | null): Stack | null =>
      stack === null || stack.count <= count ? null : { itemId: stack.itemId, count: stack.count - count };
    if (slot === SLOT_WEAPON) return { bag: carried.bag, weapon: less(carried.weapon), armor: carried.armor };
    if (slot === SLOT_ARMOR) return { bag: carried.bag, weapon: carried.weapon, armor: less(carried.armor) };
    return { bag: takeFrom(carried.bag, slot, count), weapon: carried.weapon, armor: carried.armor };
  }

  /** Writes, then applies; false (and nothing applied) when the write failed — now, or once the store answers. */
  private commit(change: Change): boolean | Promise<boolean> {
    // A guest's bag has no row (key ""): it lives in memory only.
    const containers = change.write.containers?.filter((row) => row.key !== "");
    // A pile in a dungeon level is stored with the level and its level-relative cell, so it outlives the level.
    const newPiles = change.write.newPiles?.map((pile) => {
      const inLevel = this.ports.levelOf(pile.x, pile.y);
      return inLevel === null ? pile : { ...pile, x: inLevel.x, y: inLevel.y, level: inLevel.level };
    });
    // A full disk, a broken file, a shared store's refusal: the change did not happen, anywhere.
    const notWritten = (error: unknown): false => {
      this.stats.writeFailures++;
      this.ports.log.error("item change not written", { error: String(error) });
      return false;
    };
    let written: number[] | Promise<number[]>;
    try {
      written = this.ports.store.write({ ...change.write, containers, newPiles });
    } catch (error) {
      return notWritten(error);
    }
    const apply = (ids: number[]): true => {
      change.apply(ids);
      return true;
    };
    return written instanceof Promise ? written.then(apply, notWritten) : apply(written);
  }

  private commitStatus(change: Change): Status {
    return settle(this.commit(change), (ok) => (ok ? STATUS.ok : STATUS.full));
  }

  /** The player's container row for `bag` (and equipment); none for a guest, whose items live in memory. */
  private containerRow(
    carried: Carried,
    bag: Slots,
    weapon: Stack | null = carried.weapon,
    armor: Stack | null = carried.armor,
  ): { key: string; version: number; stacks: StoredStack[] } {
    const stacks = stacksOf(bag);
    if (weapon !== null) stacks.push({ slot: SLOT_WEAPON, ...weapon });
    if (armor !== null) stacks.push({ slot: SLOT_ARMOR, ...armor });
    // A guest's row (key "") is left out of the write by commit.
    return { key: carried.key ?? "", version: carried.version + 1, stacks };
  }

  private setBag(carried: Carried, bag: (Stack | null)[]): void {
    this.setCarried(carried, bag, carried.weapon, carried.armor);
  }

  private setCarried(carried: Carried, bag: (Stack | null)[], weapon: Stack | null, armor: Stack | null): void {
    const equipmentChanged = weapon?.itemId !== carried.weapon?.itemId || armor?.itemId !== carried.armor?.itemId;
    carried.bag = bag;
    carried.weapon = weapon;
    carried.armor = armor;
    carried.version++;
    if (equipmentChanged) this.showEquipment(carried);
    this.sendDetail(carried.session, carried.session.entity);
  }

  /** The inline `weapon` / `armor` TLVs every client sees on the player (by item id), beside its other inline TLVs (the appearance). */
  private showEquipment(carried: Carried): void {
    const meta: Tlv[] = carried.session.entity.meta.filter((tlv) => tlv.kind !== "weapon" && tlv.kind !== "armor");
    if (carried.weapon !== null) meta.push({ kind: "weapon", value: carried.weapon.itemId });
    if (carried.armor !== null) meta.push({ kind: "armor", value: carried.armor.itemId });
    carried.session.entity.meta = meta;
    this.ports.entities.changed(carried.session.entity);
  }

  private showChest(chest: Chest): void {
    for (const carried of this.carried.values()) {
      if (within(carried.session.entity, chest.entity, REACH)) this.sendDetail(carried.session, chest.entity);
    }
  }

  private spawnPile(rowId: number, x: number, y: number, itemId: number, count: number): void {
    const item = this.item(itemId) as ItemDef;
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

  private setPileCount(pile: Pile, count: number): void {
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

  private item(id: number): ItemDef | undefined {
    return this.ports.catalogue.get(id);
  }

  /** Stored stacks as slots; a stack of an item the catalogue no longer has is logged and left out. */
  private slotsFrom(stacks: readonly StoredStack[], size: number, key: string): (Stack | null)[] {
    const slots = emptySlots(size);
    for (const stack of stacks) {
      if (stack.slot >= size || this.item(stack.itemId) === undefined) {
        this.ports.log.warn("stored stack skipped", { container: key, slot: stack.slot, itemId: stack.itemId });
        continue;
      }
      slots[stack.slot] = { itemId: stack.itemId, count: stack.count };
    }
    return slots;
  }

  private answer(session: Session, requestId: number, status: number, version: number): void {
    const out = new Uint8Array(ITEM_RESULT_BYTES);
    encodeItemResult({ type: "item_result", clientType: 0, requestId, status, version }, out);
    this.ports.egress.send(session, out);
  }

  /** Sends `entity`'s EntityDetail to `session`, as a query would be answered. */
  sendDetail(session: Session, entity: StoredEntity): void {
    if (session.peer === null) return;
    const meta: Tlv[] = entity.name ? [...entity.meta, { kind: "name", value: entity.name }] : [...entity.meta];
    const extra = this.detailTlv(session, entity);
    if (extra !== null) meta.push(extra);
    const out = new Uint8Array(MAX_DATAGRAM_BYTES);
    const size = encodeEntityDetail(
      { type: "entity_detail", clientType: 0, tick: this.ports.clock.tick, entityId: entity.id, meta },
      out,
    );
    this.ports.egress.send(session, out.slice(0, size));
  }
}

/** The container key of account `accountId`'s character's bag (and its equipment slots). */
export function bagKey(accountId: number): string {
  return `character:${accountId}`;
}

/** The account whose character's bag container `key` is, or null for any other container (a chest). */
export function accountOfBag(key: string): number | null {
  const match = /^character:(\d+)$/.exec(key);
  return match === null ? null : Number(match[1]);
}

/** The container key of the chest `id` (a map object's id, or a level's prefix and id) of world `world`. */
export function chestKey(world: string, id: number | string): string {
  return `chest:${world}:${id}`;
}

/** A request's status: now, or once a store that answers later has written its change. */
type Status = number | Promise<number>;

/** `then` of `value` now, or once it resolves: with a synchronous store everything stays in the same turn. */
function settle<T, R>(value: T | Promise<T>, then: (value: T) => R): R | Promise<R> {
  return value instanceof Promise ? value.then(then) : then(value);
}

function tileKey(x: number, y: number): number {
  return x * 65536 + y;
}

function within(a: StoredEntity, b: StoredEntity, reach: number): boolean {
  return Math.max(Math.abs(a.x - b.x), Math.abs(a.y - b.y)) <= reach;
}

function stacksOf(slots: Slots): StoredStack[] {
  const stacks: StoredStack[] = [];
  slots.forEach((stack, slot) => {
    if (stack !== null) stacks.push({ slot, itemId: stack.itemId, count: stack.count });
  });
  return stacks;
}

function bagStacks(carried: Carried): ItemStack[] {
  const stacks = stacksOf(carried.bag);
  if (carried.weapon !== null) stacks.push({ slot: SLOT_WEAPON, ...carried.weapon });
  if (carried.armor !== null) stacks.push({ slot: SLOT_ARMOR, ...carried.armor });
  return stacks;
}

function chestRow(chest: Chest, slots: Slots): { key: string; version: number; stacks: StoredStack[] } {
  return { key: chest.key, version: chest.version + 1, stacks: stacksOf(slots) };
}

function inventoryTlv(version: number, capacity: number, stacks: ItemStack[]): Tlv {
  return { kind: "inventory", version: version >>> 0, capacity, stacks };
}

/** "3 gold coins"-style text for chat lines: "a dagger" for one, "3 × gold coin" for more. */
function amount(item: ItemDef | undefined, count: number): string {
  const name = item?.name ?? "item";
  return count === 1 ? `the ${name}` : `${count} × ${name}`;
}
