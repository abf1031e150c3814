// ItemRequests (docs/protocol.md § 18): take from a chest or a pile, put into a chest, drop, equip,
// unequip, use, move — each decided on copies and committed through the one transfer path
// (item-transfer.ts), durable before it is answered. Every request has an id: the first copy executes,
// every later copy gets the same answer (the last REMEMBERED_ANSWERS per player), one older than those
// gets `stale` and changes nothing — a lost or duplicated datagram never duplicates or loses an item.
// Stepping onto a pile picks it up the same way (pickUp).
import { ITEM_OPS, type ItemRequestPacket } from "../../protocol/item-request.js";
import { encodeItemResult, ITEM_RESULT_BYTES } from "../../protocol/item-result.js";
import { SLOT_ARMOR, SLOT_WEAPON } from "../../protocol/tlv.js";
import type { ItemCatalogue, ItemDef } from "../content/item-catalogue.js";
import { addTo, type Slots, type Stack, takeFrom } from "../content/item-slots.js";
import type { Egress } from "../edge/egress.js";
import type { EntityStore, StoredEntity } from "../entities/entities.js";
import type { Session } from "../sessions/session.js";
import type { ChatService } from "../talk/chat.js";
import { BAG_SLOTS, type Bags, type Carried } from "./bags.js";
import { type Chest, type ChestsAndPiles, chestRow, type Pile, REACH, within } from "./chests-and-piles.js";
import { type ItemTransfer, settle, STATUS, type Status } from "./item-transfer.js";

/**
 * What happened to a player's items that content scripts may watch (scripting/script-room.ts): told once
 * the change is durable and applied, never for a refused request or a re-sent copy.
 */
export interface ItemEvent {
  readonly kind: "pickup" | "use" | "equip";
  readonly itemId: number;
  readonly count: number;
}

/** Answers each player's recent requests are remembered for (a re-sent copy gets the same one). */
export const REMEMBERED_ANSWERS = 64;

export interface ItemRequestPorts {
  readonly bags: Bags;
  readonly ground: ChestsAndPiles;
  readonly transfer: Pick<ItemTransfer, "runFor" | "commitStatus">;
  readonly catalogue: ItemCatalogue;
  readonly entities: Pick<EntityStore, "changed">;
  readonly egress: Egress;
  readonly chat: Pick<ChatService, "tell">;
  /** The combat room: the dead do not use items. */
  readonly combat: { isDown(entity: StoredEntity): boolean };
  /** A chest's contents changed: the players next to it are shown them. */
  readonly showChest: (chest: Chest) => void;
  /** Something happened to a player's items (picked up, used, equipped). */
  readonly happened: (session: Session, event: ItemEvent) => void;
  readonly stats: {
    requests: number;
    repeated: number;
    stale: number;
    refused: number;
    done: number;
    pickedUp: number;
    dropped: number;
  };
}

export class ItemRequests {
  constructor(private readonly ports: ItemRequestPorts) {}

  /** An ItemRequest from `session`: executed once, answered every time. */
  onRequest(session: Session, packet: ItemRequestPacket): void {
    const carried = this.ports.bags.get(session.entity.id);
    if (carried === undefined || carried.session !== session) return;
    this.ports.stats.requests++;
    if (this.answeredBefore(carried, packet.requestId)) return;
    this.ports.transfer.runFor(carried, () => {
      // Its turn came: the session may have ended meanwhile, or a copy before this one been answered.
      if (this.ports.bags.get(session.entity.id) !== carried || this.answeredBefore(carried, packet.requestId)) return;
      return settle(this.execute(carried, packet), (status) => {
        if (status === STATUS.ok) this.ports.stats.done++;
        else this.ports.stats.refused++;
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
      this.ports.stats.repeated++;
      this.answer(carried.session, requestId, known.status, known.version);
      return true;
    }
    if (requestId <= carried.forgottenUpTo) {
      this.ports.stats.stale++;
      this.answer(carried.session, requestId, STATUS.stale, carried.version);
      return true;
    }
    return false;
  }

  private execute(carried: Carried, packet: ItemRequestPacket): Status {
    const entity = carried.session.entity;
    if (carried.unreadable) return STATUS.full;
    if (this.ports.combat.isDown(entity)) return STATUS.dead;
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
    const pile = this.ports.ground.pile(containerId);
    if (pile !== undefined) {
      if (!within(carried.session.entity, pile.entity, REACH)) return STATUS.too_far;
      return this.takePile(carried, pile, count === 0 ? pile.count : Math.min(count, pile.count));
    }
    const chest = this.ports.ground.chest(containerId);
    if (chest === undefined) return STATUS.no_container;
    if (!within(carried.session.entity, chest.entity, REACH)) return STATUS.too_far;
    let bag: Slots = carried.bag;
    let slots: Slots = chest.slots;
    let moved = 0;
    const taken = new Map<number, number>();
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
      taken.set(stack.itemId, (taken.get(stack.itemId) ?? 0) + added.added);
    }
    if (moved === 0) return from.some((index) => chest.slots[index] != null) ? STATUS.full : STATUS.no_item;
    const newBag = bag as (Stack | null)[];
    const newSlots = slots as (Stack | null)[];
    return this.ports.transfer.commitStatus({
      write: { containers: [this.ports.bags.row(carried, newBag), chestRow(chest, newSlots)] },
      apply: () => {
        this.ports.bags.setBag(carried, newBag);
        chest.slots = newSlots;
        chest.version++;
        this.ports.showChest(chest);
        for (const [itemId, count] of taken) this.ports.happened(carried.session, { kind: "pickup", itemId, count });
      },
    });
  }

  private takePile(carried: Carried, pile: Pile, count: number): Status {
    const added = addTo(carried.bag, pile.itemId, count, this.ports.catalogue);
    if (added.added === 0) return STATUS.full;
    const left = pile.count - added.added;
    return this.ports.transfer.commitStatus({
      write: {
        containers: [this.ports.bags.row(carried, added.slots)],
        ...(left === 0 ? { removedPiles: [pile.rowId] } : { changedPiles: [{ id: pile.rowId, count: left }] }),
        pilesWere: [{ id: pile.rowId, count: pile.count }],
      },
      apply: () => {
        this.ports.bags.setBag(carried, added.slots);
        this.ports.ground.setPileCount(pile, left);
        this.ports.happened(carried.session, { kind: "pickup", itemId: pile.itemId, count: added.added });
      },
    });
  }

  /** A step onto pile `pileId`: the player picks up what fits, in its turn (pickups wait for writes like requests). */
  pickUp(carried: Carried, pileId: number): void {
    this.ports.transfer.runFor(carried, () => {
      const pile = this.ports.ground.pile(pileId);
      const entity = carried.session.entity;
      if (pile === undefined || this.ports.bags.get(entity.id) !== carried) return;
      // Its turn came after a write: the player may have walked on, or died.
      if (entity.x !== pile.entity.x || entity.y !== pile.entity.y || this.ports.combat.isDown(entity)) return;
      const before = pile.count;
      return settle(this.takePile(carried, pile, pile.count), (status) => {
        if (status !== STATUS.ok) return;
        this.ports.stats.pickedUp++;
        const taken = before - pile.count;
        this.ports.chat.tell(carried.session, `You pick up ${amount(this.ports.catalogue.get(pile.itemId), taken)}.`);
      });
    });
  }

  private put(carried: Carried, containerId: number, slot: number, count: number): Status {
    const chest = this.ports.ground.chest(containerId);
    if (chest === undefined) return STATUS.no_container;
    if (!within(carried.session.entity, chest.entity, REACH)) return STATUS.too_far;
    const stack = carried.bag[slot] ?? null;
    if (slot >= BAG_SLOTS || stack === null) return STATUS.no_item;
    const wanted = count === 0 ? stack.count : Math.min(count, stack.count);
    const added = addTo(chest.slots, stack.itemId, wanted, this.ports.catalogue);
    if (added.added === 0) return STATUS.full;
    const bag = takeFrom(carried.bag, slot, added.added);
    return this.ports.transfer.commitStatus({
      write: { containers: [this.ports.bags.row(carried, bag), chestRow(chest, added.slots)] },
      apply: () => {
        this.ports.bags.setBag(carried, bag);
        chest.slots = added.slots;
        chest.version++;
        this.ports.showChest(chest);
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
    const same = (this.ports.ground.pilesOn(x, y) ?? [])
      .map((id) => this.ports.ground.pile(id)!)
      .find((pile) => pile.itemId === stack.itemId && pile.count + dropped <= 0xffff);
    if (same === undefined && this.ports.ground.pileRoom <= 0) return STATUS.full;
    const next = this.withoutStack(carried, slot, dropped);
    return this.ports.transfer.commitStatus({
      write: {
        containers: [this.ports.bags.row(carried, next.bag, next.weapon, next.armor)],
        ...(same !== undefined
          ? {
              changedPiles: [{ id: same.rowId, count: same.count + dropped }],
              pilesWere: [{ id: same.rowId, count: same.count }],
            }
          : { newPiles: [{ x, y, itemId: stack.itemId, count: dropped }] }),
      },
      apply: (ids) => {
        this.ports.bags.set(carried, next.bag, next.weapon, next.armor);
        if (same !== undefined) this.ports.ground.setPileCount(same, same.count + dropped);
        else this.ports.ground.spawnPile(ids[0], x, y, stack.itemId, dropped);
        this.ports.stats.dropped++;
      },
    });
  }

  private equip(carried: Carried, slot: number): Status {
    const stack = slot < BAG_SLOTS ? (carried.bag[slot] ?? null) : null;
    if (stack === null) return STATUS.no_item;
    const kind = this.ports.catalogue.get(stack.itemId)?.kind;
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
    const item = this.ports.catalogue.get(stack.itemId);
    if (item === undefined || item.kind !== "consumable") return STATUS.wrong_kind;
    const bag = takeFrom(carried.bag, slot, 1);
    const entity = carried.session.entity;
    return this.ports.transfer.commitStatus({
      write: { containers: [this.ports.bags.row(carried, bag)] },
      apply: () => {
        this.ports.bags.setBag(carried, bag);
        entity.hp = Math.min(entity.hpMax, entity.hp + item.heal);
        this.ports.entities.changed(entity);
        this.ports.happened(carried.session, { kind: "use", itemId: stack.itemId, count: 1 });
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
      this.ports.catalogue.get(stack.itemId)?.kind === (slot === SLOT_WEAPON ? "weapon" : "armor");
    let movingTo: Stack | null = moving;
    let left: Stack | null = there;
    if (there !== null && there.itemId === moving.itemId) {
      const stackMax = this.ports.catalogue.get(moving.itemId)?.stack ?? 1;
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
    const wielded = [carried.weapon, carried.armor];
    return this.ports.transfer.commitStatus({
      write: { containers: [this.ports.bags.row(carried, bag, weapon, armor)] },
      apply: () => {
        this.ports.bags.set(carried, bag, weapon, armor);
        // Whatever came into an equipment slot was equipped (by `equip`, or a move or swap onto it).
        for (const [index, now] of [weapon, armor].entries()) {
          if (now !== null && now.itemId !== wielded[index]?.itemId) {
            this.ports.happened(carried.session, { kind: "equip", itemId: now.itemId, count: now.count });
          }
        }
      },
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

  private answer(session: Session, requestId: number, status: number, version: number): void {
    const out = new Uint8Array(ITEM_RESULT_BYTES);
    encodeItemResult({ type: "item_result", clientType: 0, requestId, status, version }, out);
    this.ports.egress.send(session, out);
  }
}

/** "3 gold coins"-style text for chat lines: "a dagger" for one, "3 × gold coin" for more. */
function amount(item: ItemDef | undefined, count: number): string {
  const name = item?.name ?? "item";
  return count === 1 ? `the ${name}` : `${count} × ${name}`;
}
