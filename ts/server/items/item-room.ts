// Everything items do in the world (issue 14, docs/items.md): the players'
// bags and equipment, the map's chests, the piles on the ground, loot, and
// the ItemRequests that move items between them. This room wires its parts and
// is the door the rest of the server uses; each part has a file named for it:
//  - item-transfer.ts: the one path every change takes — decided on copies,
//    written in one transaction, only then applied and answered, in order
//    when the store answers later (a cluster's shared store);
//  - bags.ts: what each player in play carries;
//  - chests-and-piles.ts: the map's chests and the piles on the ground;
//  - item-requests.ts: the ItemRequests and stepping onto piles;
//  - loot.ts: what falls where a creature dies.
// Guests' bags are not stored (their characters are not): what a guest
// carries is dropped where it stands when its session ends. After every change
// the player's own EntityDetail (with its `inventory` TLV) goes out, and so does
// a chest's to every player next to it.
import type { ItemRequestPacket } from "../../protocol/item-request.js";
import type { ItemStack, Tlv } from "../../protocol/tlv.js";
import type { ItemCatalogue } from "../content/item-catalogue.js";
import { exchange, type Stack, stacksOf } from "../content/item-slots.js";
import type { ChestSpec, LootEntry } from "../content/item-specs.js";
import type { NpcKind } from "../content/npc-kinds.js";
import type { Egress } from "../edge/egress.js";
import type { EntityStore, StoredEntity } from "../entities/entities.js";
import type { Logger } from "../ops/log.js";
import type { ContentRows } from "../persistence/content-rows.js";
import type { ItemStorePort, LevelIdentity, StoredContainer } from "../persistence/item-store.js";
import type { Session } from "../sessions/session.js";
import type { ChatService } from "../talk/chat.js";
import { BAG_SLOTS, Bags, bagStacks, type Carried, storedStacks } from "./bags.js";
import { type Chest, CHEST_SLOTS, ChestsAndPiles, REACH, within } from "./chests-and-piles.js";
import { type ItemEvent, ItemRequests } from "./item-requests.js";
import { ItemTransfer, settle } from "./item-transfer.js";
import { Loot } from "./loot.js";

export interface ItemPorts {
  readonly entities: Pick<EntityStore, "spawn" | "remove" | "get" | "changed">;
  readonly store: ItemStorePort;
  readonly catalogue: ItemCatalogue;
  readonly egress: Egress;
  readonly chat: Pick<ChatService, "tell">;
  /** The combat room (../combat/combat-room.ts): the dead do not use items. */
  readonly combat: ItemCombat;
  /** EntityDetails, composed for a player (../broadcast/entity-detail.ts): shown again after each change. */
  readonly details: { send(session: Session, entity: StoredEntity): void };
  readonly log: Logger;
  readonly worldName: string;
  /**
   * The dungeon levels (../dungeon/levels.ts): the level a world cell lies in, with the cell relative to
   * the level's corner; null on a map. A pile dropped in a level is stored that way, so it comes back
   * with the level.
   */
  readonly levels: ItemLevels;
  /** Something happened to a player's items that content scripts watch (picked up, used, equipped). */
  readonly happened?: (session: Session, event: ItemEvent) => void;
}

/** What items ask of the combat room (CombatRoom.isDown). */
export interface ItemCombat {
  /** Whether an entity lies dead. */
  isDown(entity: StoredEntity): boolean;
}

/** What items ask of the dungeon levels (DungeonLevels.levelOf). */
export interface ItemLevels {
  levelOf(x: number, y: number): { level: LevelIdentity; x: number; y: number } | null;
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
  /** The one path every change of items takes (item-transfer.ts): shops and trades commit through it too. */
  readonly transfer: ItemTransfer;
  private readonly bags: Bags;
  private readonly ground: ChestsAndPiles;
  private readonly requests: ItemRequests;
  private readonly loot: Loot;

  constructor(
    private readonly ports: ItemPorts,
    chests: readonly ChestSpec[],
    options: { seed: number; kinds: readonly NpcKind[] },
  ) {
    const { entities, store, catalogue, log, stats } = { ...ports, stats: this.stats };
    this.transfer = new ItemTransfer({ store, log, levels: ports.levels, stats });
    const transfer = this.transfer;
    this.ground = new ChestsAndPiles(
      { entities, store, catalogue, transfer, log, worldName: ports.worldName, stats },
      chests,
    );
    const ground = this.ground;
    this.bags = new Bags({
      entities,
      store,
      catalogue,
      transfer,
      ground,
      showBag: (session) => this.sendDetail(session, session.entity),
      log,
    });
    this.requests = new ItemRequests({
      bags: this.bags,
      ground,
      transfer,
      catalogue,
      entities,
      egress: ports.egress,
      chat: ports.chat,
      combat: ports.combat,
      showChest: (chest) => this.showChest(chest),
      happened: (session, event) => ports.happened?.(session, event),
      stats,
    });
    this.loot = new Loot(
      { transfer, ground, stats },
      { kinds: options.kinds, catalogue, worldName: ports.worldName },
      options.seed,
    );
  }

  /**
   * Chests added at run time (a dungeon level coming alive, ../dungeon/levels.ts), their contents stored
   * under `keyPrefix` and the chest's id. Returns their entity ids for removeChests.
   */
  addChests(specs: readonly ChestSpec[], keyPrefix: string): number[] {
    return this.ground.addChests(specs, keyPrefix);
  }

  /** Removes chests added by addChests (their contents stay stored). */
  removeChests(entityIds: readonly number[]): void {
    this.ground.removeChests(entityIds);
  }

  /** Moves every pile lying in `area` to (x, y), in one transaction (ChestsAndPiles.movePiles). */
  movePiles(area: { x: number; y: number; width: number; height: number }, x: number, y: number): number {
    return this.ground.movePiles(area, x, y);
  }

  /** A dungeon level is dropped: the piles lying in its `area` leave the world, kept with the level. */
  stowPiles(area: { x: number; y: number; width: number; height: number }): number {
    return this.ground.stowPiles(area);
  }

  /** A dungeon level is in the world again at `corner`: the piles kept with it lie there again. */
  bringBackPiles(
    level: LevelIdentity,
    corner: { x: number; y: number },
    walkable: (x: number, y: number) => boolean,
    fallback: { x: number; y: number },
  ): number {
    return this.ground.bringBackPiles(level, corner, walkable, fallback);
  }

  /** At start: the piles kept with dungeon levels wait for them, or go to `to` (ChestsAndPiles.settleLevelPiles). */
  settleLevelPiles(comesBack: (level: LevelIdentity) => boolean, to: { x: number; y: number }): void {
    this.ground.settleLevelPiles(comesBack, to);
  }

  /** Piles kept with dungeon levels that are not in the world now (rows only). */
  get dormantPileCount(): number {
    return this.ground.dormantPileCount;
  }

  get chestCount(): number {
    return this.ground.chestCount;
  }

  get pileCount(): number {
    return this.ground.pileCount;
  }

  /** The chest entity standing for the map object `name`, for tests and tools. */
  chestNamed(name: string): StoredEntity | undefined {
    return this.ground.chestNamed(name);
  }

  /** A session starts with its bag (Bags.enter). */
  enter(session: Session, carrying: StoredContainer | null = null): void {
    this.bags.enter(session, carrying);
  }

  /** Whether `session` has no item work waiting or under way: only then may it move to another process. */
  settled(session: Session): boolean {
    return this.bags.settled(session);
  }

  /** What `session` carries and its version, for `enter` elsewhere (a cluster's handoff). */
  carrying(session: Session): StoredContainer {
    return this.bags.carrying(session);
  }

  /** The session moved to another process of a cluster with what it carries (once settled): forget it here, drop nothing. */
  forget(session: Session): void {
    this.bags.forget(session);
  }

  /** A session ends: an account's bag is already stored; a guest's items drop where it stood. */
  leave(session: Session): void {
    this.bags.leave(session);
  }

  /** The combat formula's numbers for a player: its weapon's damage (null: bare hands) and its armor. */
  weaponDamage(entity: StoredEntity): number | null {
    return this.bags.weaponDamage(entity);
  }

  armorValue(entity: StoredEntity): number {
    return this.bags.armorValue(entity);
  }

  /** Whether the player holds at least one of the item named `name` (a door's key, for example). */
  holds(session: Session, name: string): boolean {
    return this.bags.holds(session, name);
  }

  /**
   * The TLV a query of `entity` by `session` adds to its EntityDetail: the player's own bag when
   * it asks about itself, a chest's contents to a player within reach; null otherwise.
   */
  detailTlv(session: Session, entity: StoredEntity): Tlv | null {
    if (entity === session.entity) {
      const carried = this.bags.get(entity.id);
      return carried && !carried.unreadable ? inventoryTlv(carried.version, BAG_SLOTS, bagStacks(carried)) : null;
    }
    const chest = this.ground.chest(entity.id);
    if (chest === undefined || !within(session.entity, entity, REACH)) return null;
    return inventoryTlv(chest.version, CHEST_SLOTS, stacksOf(chest.slots));
  }

  /**
   * One exchange with a player's bag, for the server's own purposes (a shop, a quest's reward, a script):
   * every stack of `take` leaves the bag and every stack of `give` enters it, as one change through the
   * transfer path — durable before `done` hears "ok", and nothing changed on any other answer ("no_item":
   * it lacks something to take; "full": what is given does not fit; "unknown": no such player here;
   * "failed": the write failed). Done once, in its turn behind the player's other item work.
   */
  exchange(
    session: Session,
    take: readonly Stack[],
    give: readonly Stack[],
    done: (outcome: ExchangeOutcome) => void,
    /** Content rows written in the same transaction (ItemWrite.content). */
    content?: ContentRows,
  ): void {
    const carried = this.bags.of(session);
    if (carried === undefined) return done("unknown");
    this.transfer.runFor(carried, () => {
      if (this.bags.of(session) !== carried) return done("unknown");
      if (carried.unreadable) return done("failed");
      const planned = exchange(carried.bag, take, give, this.ports.catalogue);
      if (typeof planned === "string") return done(planned);
      return settle(
        this.transfer.commit({
          write: { containers: [this.bags.row(carried, planned.slots)], content },
          apply: () => this.bags.setBag(carried, planned.slots),
        }),
        (ok) => done(ok ? "ok" : "failed"),
      );
    });
  }

  /**
   * A trade between two players (social/trades.ts): `aGives` leaves `a`'s bag for `b`'s and `bGives` the
   * other way, as **one** change through the transfer path — both bags in one write, durable before
   * `done` hears "ok", and nothing changed anywhere on any other answer ("no_item": one of them no longer
   * has what it offered, with `who` saying which; "full": one bag cannot hold what it gets; "unknown":
   * either is no longer here; "failed": the write failed). Counted as both players' item work, so
   * neither moves to another process with the trade under way.
   */
  trade(
    a: Session,
    b: Session,
    aGives: readonly Stack[],
    bGives: readonly Stack[],
    done: (outcome: ExchangeOutcome, who: Session | null) => void,
  ): void {
    const carriedA = this.bags.of(a);
    const carriedB = this.bags.of(b);
    if (carriedA === undefined || carriedB === undefined || carriedA === carriedB) return done("unknown", null);
    carriedA.work++;
    carriedB.work++;
    let finished = false;
    const finish = (outcome: ExchangeOutcome, who: Session | null): void => {
      if (finished) return;
      finished = true;
      carriedA.work--;
      carriedB.work--;
      done(outcome, who);
    };
    const queued = this.transfer.run(() => {
      try {
        if (this.bags.of(a) !== carriedA || this.bags.of(b) !== carriedB) return finish("unknown", null);
        if (carriedA.unreadable || carriedB.unreadable) return finish("failed", null);
        const catalogue = this.ports.catalogue;
        const planA = exchange(carriedA.bag, aGives, bGives, catalogue);
        if (typeof planA === "string") return finish(planA, a);
        const planB = exchange(carriedB.bag, bGives, aGives, catalogue);
        if (typeof planB === "string") return finish(planB, b);
        return settle(
          this.transfer.commit({
            write: { containers: [this.bags.row(carriedA, planA.slots), this.bags.row(carriedB, planB.slots)] },
            apply: () => {
              this.bags.setBag(carriedA, planA.slots);
              this.bags.setBag(carriedB, planB.slots);
            },
          }),
          (ok) => finish(ok ? "ok" : "failed", null),
        );
      } catch (error) {
        finish("failed", null);
        throw error;
      }
    });
    // Shed: too much item work waits already (nothing changed).
    if (!queued) finish("failed", null);
  }

  /**
   * A trade with a player of another region of a cluster (ts/cluster/trade-link.ts), decided here: `aGives`
   * leaves `a`'s bag and `bGives` comes into it, and the other way for the other player, whose bag its own
   * region holds still for the trade and reports (`other`: the bag as stored, and the store backend holding
   * its lease). Both bags are planned here by the one rule (`exchange`) and written in **one** transaction,
   * the other's guarded by its version and its lease being held where it was reported — so nothing is
   * written if its region wrote the bag since, or died. Counted as `a`'s item work (no handoff meanwhile).
   * `who` says whose bag refused ("here": a's, "there": the other's).
   */
  tradeAcross(
    a: Session,
    aGives: readonly Stack[],
    bGives: readonly Stack[],
    other: () => Promise<HeldBag>,
    done: (outcome: ExchangeOutcome, who: "here" | "there" | null) => void,
  ): void {
    const carried = this.bags.of(a);
    if (carried === undefined || carried.key === null) return done("unknown", null);
    carried.work++;
    let finished = false;
    const finish = (outcome: ExchangeOutcome, who: "here" | "there" | null): void => {
      if (finished) return;
      finished = true;
      carried.work--;
      done(outcome, who);
    };
    const catalogue = this.ports.catalogue;
    const queued = this.transfer.run(async () => {
      try {
        if (this.bags.of(a) !== carried) return finish("unknown", null);
        if (carried.unreadable) return finish("failed", null);
        let held: HeldBag;
        try {
          held = await other();
        } catch {
          return finish("failed", null); // the other region did not hold its bag: nothing was written
        }
        const planA = exchange(carried.bag, aGives, bGives, catalogue);
        if (typeof planA === "string") return finish(planA, "here");
        const theirs = this.bags.held(held.bag, held.key);
        const planB = exchange(theirs.bag, bGives, aGives, catalogue);
        if (typeof planB === "string") return finish(planB, "there");
        const theirRow = {
          key: held.key,
          version: held.bag.version + 1,
          stacks: storedStacks(planB.slots, theirs.weapon, theirs.armor),
          heldBy: held.heldBy,
        };
        const written = await this.transfer.commit({
          write: { containers: [this.bags.row(carried, planA.slots), theirRow] },
          apply: () => this.bags.setBag(carried, planA.slots),
        });
        finish(written ? "ok" : "failed", null);
      } catch (error) {
        finish("failed", null);
        throw error;
      }
    });
    if (!queued) finish("failed", null);
  }

  /**
   * The other side of `tradeAcross`: `session`'s bag, as it stands with none of its item work before it
   * waiting, is handed to `held` (null: it cannot be — the player is gone, or its bag unreadable), and its
   * item work (and so its handoff) waits until `held` settles. `held` answers whether the other region
   * wrote the trade for sure: then the bag is read again. Otherwise it is **fenced**: written again, unchanged,
   * at the next version — a trade not yet written can then never be (it is guarded by the version held),
   * and if the fence is refused the trade was written after all, and the bag is read again. So this region
   * never plays on with a copy the trade made stale, whatever became of the region that decided it.
   */
  holdForTrade(
    session: Session,
    held: (bag: StoredContainer | null) => Promise<boolean>,
    /** Runs once the bag here is as the trade left it (or the hold came to nothing). */
    after: () => void,
  ): void {
    const carried = this.bags.of(session);
    if (carried === undefined || carried.key === null) {
      void held(null).finally(after);
      return;
    }
    const again = () =>
      this.transfer.commit({
        write: { containers: [this.bags.row(carried, carried.bag)] },
        apply: () => this.bags.setBag(carried, carried.bag),
      });
    this.transfer.runFor(carried, async () => {
      try {
        await this.holdHeld(carried, session, held, again);
      } finally {
        after();
      }
    });
  }

  /** `holdForTrade`'s work, in `carried`'s turn: report the bag, wait for the word, then read it again or fence it. */
  private async holdHeld(
    carried: Carried,
    session: Session,
    held: (bag: StoredContainer | null) => Promise<boolean>,
    again: () => boolean | Promise<boolean>,
  ): Promise<void> {
    if (this.bags.of(session) !== carried || carried.unreadable) return void (await held(null));
    // A bag never written has no row for the other region's guard to lock: it is written first.
    if (carried.version === 1 && !(await again())) return void (await held(null));
    let written = false;
    try {
      written = await held({ version: carried.version, stacks: bagStacks(carried) });
    } catch {
      // No answer: fenced below.
    }
    try {
      if (written || !(await again())) await this.bags.reload(carried);
    } catch (error) {
      carried.unreadable = true;
      this.ports.log.error(
        "a bag held for a trade could not be read again: it changes nothing until its session starts again",
        {
          container: carried.key,
          error: String(error),
        },
      );
    }
  }

  /**
   * How many of `itemId` the player carries in its bag and equipment — or in its bag alone with `bagOnly`,
   * what `exchange` can take (a wielded dagger is not for sale until it is back in the bag).
   */
  countOf(session: Session, itemId: number, bagOnly = false): number {
    const carried = this.bags.of(session);
    if (carried === undefined) return 0;
    let count = 0;
    for (const stack of bagOnly ? carried.bag : [...carried.bag, carried.weapon, carried.armor]) {
      if (stack !== null && stack.itemId === itemId) count += stack.count;
    }
    return count;
  }

  /** An ItemRequest from `session`: executed once, answered every time (item-requests.ts). */
  onRequest(session: Session, packet: ItemRequestPacket): void {
    this.requests.onRequest(session, packet);
  }

  /**
   * End of a tick: every living player that stepped onto a pile picks up what fits. Runs over the
   * players in play, one map lookup each.
   */
  endTick(): void {
    const ground = this.ground;
    if (!ground.anyPiles) {
      for (const carried of this.bags.values()) {
        carried.lastX = carried.session.entity.x;
        carried.lastY = carried.session.entity.y;
      }
      return;
    }
    for (const carried of this.bags.values()) {
      const entity = carried.session.entity;
      if (entity.x === carried.lastX && entity.y === carried.lastY) continue;
      carried.lastX = entity.x;
      carried.lastY = entity.y;
      const here = ground.pilesOn(entity.x, entity.y);
      if (here === undefined || this.ports.combat.isDown(entity)) continue;
      for (const pileId of here.slice()) this.requests.pickUp(carried, pileId);
    }
  }

  /** A creature of kind `typeId` died at (x, y): its kind's loot table rolls, and what falls lies there (loot.ts). */
  dropLootOf(typeId: number, x: number, y: number): void {
    this.loot.dropOf(typeId, x, y);
  }

  /**
   * A creature of kind `typeId` died at (x, y) in a party's shared kill: its loot goes into `taker`'s bag
   * (whose turn it was, social/parties.ts) through the one transfer path — and falls there as piles when
   * the bag cannot hold it, as any loot would. The roll is the same draw dropLootOf makes.
   */
  dropLootFor(typeId: number, x: number, y: number, taker: Session): void {
    const falls = this.loot.rollOf(typeId);
    if (falls.length === 0) return;
    this.exchange(taker, [], falls, (outcome) => {
      if (outcome === "ok") this.stats.lootDropped += falls.length;
      else this.loot.place(falls, x, y);
    });
  }

  /** `loot` rolls at (x, y), and what falls lies there (a table of the caller's: tests, and scripts to come). */
  dropLoot(loot: readonly LootEntry[], x: number, y: number): void {
    this.loot.drop(loot, x, y);
  }

  /** Every item in the world by id: bags in play, chests and piles in the world (the conservation tests sum this). */
  census(): Map<number, number> {
    const total = new Map<number, number>();
    const add = (stack: Stack | null): void => {
      if (stack !== null) total.set(stack.itemId, (total.get(stack.itemId) ?? 0) + stack.count);
    };
    for (const carried of this.bags.values()) {
      carried.bag.forEach(add);
      add(carried.weapon);
      add(carried.armor);
    }
    for (const chest of this.ground.chestValues()) chest.slots.forEach(add);
    for (const pile of this.ground.pileValues()) add({ itemId: pile.itemId, count: pile.count });
    return total;
  }

  /** A chest's contents changed: every player next to it is shown them. */
  private showChest(chest: Chest): void {
    for (const carried of this.bags.values()) {
      if (within(carried.session.entity, chest.entity, REACH)) this.sendDetail(carried.session, chest.entity);
    }
  }

  /** Sends `entity`'s EntityDetail to `session`, as a query would be answered (../broadcast/entity-detail.ts). */
  sendDetail(session: Session, entity: StoredEntity): void {
    this.ports.details.send(session, entity);
  }
}

/** A bag another region holds still for a trade (ItemRoom.holdForTrade there, tradeAcross here). */
export interface HeldBag {
  /** Its container key (`character:<account>`). */
  key: string;
  bag: StoredContainer;
  /** The store backend holding its character's lease (PgItemStore.backend). */
  heldBy: number;
}

/** What an exchange came to (ItemRoom.exchange). */
export type ExchangeOutcome = "ok" | "no_item" | "full" | "unknown" | "failed";

function inventoryTlv(version: number, capacity: number, stacks: ItemStack[]): Tlv {
  return { kind: "inventory", version: version >>> 0, capacity, stacks };
}
