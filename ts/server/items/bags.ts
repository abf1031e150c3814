// What each player in play carries (docs/items.md): its bag's slots and its weapon and armor slots, the
// bag's version (the client keeps the newest it was shown), and its request memory (item-requests.ts).
// An account's bag is read from the store when its session starts and written by every change
// (item-transfer.ts); a guest's lives in memory only and drops where it stands when its session ends.
// Every client sees what a player wields (the inline `weapon` / `armor` TLVs); only the player sees its bag.
import { SLOT_ARMOR, SLOT_WEAPON, type ItemStack, type Tlv } from "../../protocol/tlv.js";
import type { ItemCatalogue } from "../content/item-catalogue.js";
import { emptySlots, type Slots, type Stack, stacksOf } from "../content/item-slots.js";
import type { EntityStore, StoredEntity } from "../entities/entities.js";
import type { Logger } from "../ops/log.js";
import type { ItemStorePort, StoredContainer, StoredStack } from "../persistence/item-store.js";
import type { Session } from "../sessions/session.js";
import { type ChestsAndPiles, slotsFrom } from "./chests-and-piles.js";
import { type ItemTransfer, settle } from "./item-transfer.js";

/** Slots in a player's bag. */
export const BAG_SLOTS = 20;

/** What a player carries, and its request memory. */
export interface Carried {
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
  /** Item work of this player waiting or under way (ItemTransfer.runFor): it moves to another process only at 0. */
  work: number;
  /** Its bag could not be read from the store: it changes nothing until the session starts again. */
  unreadable: boolean;
}

export interface BagsPorts {
  readonly entities: Pick<EntityStore, "changed">;
  readonly store: Pick<ItemStorePort, "load">;
  readonly catalogue: ItemCatalogue;
  readonly transfer: Pick<ItemTransfer, "run" | "runFor" | "commit">;
  /** Where a guest's items drop when its session ends. */
  readonly ground: Pick<ChestsAndPiles, "pileRoom" | "spawnPile">;
  /** Sends a player its own EntityDetail again (its bag changed). */
  readonly showBag: (session: Session) => void;
  readonly log: Logger;
}

export class Bags {
  private readonly carried = new Map<number, Carried>();

  constructor(private readonly ports: BagsPorts) {}

  /** What the player standing as entity `entityId` carries, if it is in play here. */
  get(entityId: number): Carried | undefined {
    return this.carried.get(entityId);
  }

  /** What `session` carries, if this is still its session's record. */
  of(session: Session): Carried | undefined {
    const carried = this.carried.get(session.entity.id);
    return carried !== undefined && carried.session === session ? carried : undefined;
  }

  values(): IterableIterator<Carried> {
    return this.carried.values();
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
    this.ports.transfer.runFor(carried, () => {
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
        if (later) this.ports.showBag(carried.session);
      });
      return done instanceof Promise ? done.catch(failed) : done;
    });
  }

  /** A stored bag (and its equipment slots) into `carried`. */
  private fill(carried: Carried, stored: StoredContainer, container: string): void {
    const held = this.held(stored, container);
    carried.version = stored.version;
    carried.bag = held.bag;
    carried.weapon = held.weapon;
    carried.armor = held.armor;
  }

  /** What a stored bag holds: its slots and its equipment (an item that cannot be there is left out, and logged). */
  held(
    stored: StoredContainer,
    container: string,
  ): { bag: (Stack | null)[]; weapon: Stack | null; armor: Stack | null } {
    const bag = slotsFrom(
      stored.stacks.filter((stack) => stack.slot < BAG_SLOTS),
      BAG_SLOTS,
      container,
      this.ports.catalogue,
      this.ports.log,
    );
    let weapon: Stack | null = null;
    let armor: Stack | null = null;
    for (const stack of stored.stacks) {
      const item = this.ports.catalogue.get(stack.itemId);
      if (item === undefined) continue;
      if (stack.slot === SLOT_WEAPON && item.kind === "weapon") weapon = { itemId: stack.itemId, count: stack.count };
      if (stack.slot === SLOT_ARMOR && item.kind === "armor") armor = { itemId: stack.itemId, count: stack.count };
    }
    return { bag, weapon, armor };
  }

  /**
   * Reads `carried`'s bag from the store again and shows it: after a trade another region wrote (or may
   * have written) into it (ItemRoom.holdForTrade). Run in the player's turn of item work.
   */
  async reload(carried: Carried): Promise<void> {
    if (carried.key === null) return;
    const stored = await this.ports.store.load(carried.key);
    if (stored !== undefined) this.fill(carried, stored, carried.key);
    this.showEquipment(carried);
    this.ports.showBag(carried.session);
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
    const carried = this.of(session);
    if (carried === undefined) return { version: 1, stacks: [] };
    return { version: carried.version, stacks: bagStacks(carried) };
  }

  /** The session moved to another process of a cluster with what it carries (once settled): forget it here, drop nothing. */
  forget(session: Session): void {
    if (this.of(session) !== undefined) this.carried.delete(session.entity.id);
  }

  /** A session ends: an account's bag is already stored; a guest's items drop where it stood. */
  leave(session: Session): void {
    const carried = this.of(session);
    if (carried === undefined) return;
    this.carried.delete(session.entity.id);
    if (carried.key !== null) return;
    const { x, y } = session.entity;
    const { transfer, ground } = this.ports;
    // In its turn: a change of its own still under way lands in `carried` first.
    transfer.run(() => {
      const stacks = [...carried.bag, carried.weapon, carried.armor].filter((s): s is Stack => s !== null);
      const dropped = stacks.slice(0, Math.max(0, ground.pileRoom));
      if (dropped.length === 0) return;
      return transfer.commit({
        write: { newPiles: dropped.map((stack) => ({ x, y, itemId: stack.itemId, count: stack.count })) },
        apply: (ids) => {
          dropped.forEach((stack, index) => ground.spawnPile(ids[index], x, y, stack.itemId, stack.count));
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

  /** The player's container row for `bag` (and equipment); none for a guest, whose items live in memory. */
  row(
    carried: Carried,
    bag: Slots,
    weapon: Stack | null = carried.weapon,
    armor: Stack | null = carried.armor,
  ): { key: string; version: number; stacks: StoredStack[] } {
    // A guest's row (key "") is left out of the write by ItemTransfer.commit.
    return { key: carried.key ?? "", version: carried.version + 1, stacks: storedStacks(bag, weapon, armor) };
  }

  /** A written change's new bag is in place: its version moves on and the player is shown it. */
  setBag(carried: Carried, bag: (Stack | null)[]): void {
    this.set(carried, bag, carried.weapon, carried.armor);
  }

  /** `setBag` with new equipment too: every client is shown what the player now wields. */
  set(carried: Carried, bag: (Stack | null)[], weapon: Stack | null, armor: Stack | null): void {
    const equipmentChanged = weapon?.itemId !== carried.weapon?.itemId || armor?.itemId !== carried.armor?.itemId;
    carried.bag = bag;
    carried.weapon = weapon;
    carried.armor = armor;
    carried.version++;
    if (equipmentChanged) this.showEquipment(carried);
    this.ports.showBag(carried.session);
  }

  /** The inline `weapon` / `armor` TLVs every client sees on the player (by item id), beside its other inline TLVs (the appearance). */
  private showEquipment(carried: Carried): void {
    const meta: Tlv[] = carried.session.entity.meta.filter((tlv) => tlv.kind !== "weapon" && tlv.kind !== "armor");
    if (carried.weapon !== null) meta.push({ kind: "weapon", value: carried.weapon.itemId });
    if (carried.armor !== null) meta.push({ kind: "armor", value: carried.armor.itemId });
    carried.session.entity.meta = meta;
    this.ports.entities.changed(carried.session.entity);
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

/** A bag's stacks with its equipment in SLOT_WEAPON and SLOT_ARMOR, as the `inventory` TLV and the store hold them. */
export function bagStacks(carried: Carried): ItemStack[] {
  return storedStacks(carried.bag, carried.weapon, carried.armor);
}

/** Bag slots and equipment as stored stacks (equipment in SLOT_WEAPON and SLOT_ARMOR). */
export function storedStacks(bag: Slots, weapon: Stack | null, armor: Stack | null): StoredStack[] {
  const stacks = stacksOf(bag);
  if (weapon !== null) stacks.push({ slot: SLOT_WEAPON, ...weapon });
  if (armor !== null) stacks.push({ slot: SLOT_ARMOR, ...armor });
  return stacks;
}
