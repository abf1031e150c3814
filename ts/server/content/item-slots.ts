// The slots of a container (a player's bag, a chest) and the pure moves over
// them. Every function returns new slot arrays and leaves its input alone: the
// item room computes a change, makes it durable, and only then swaps the new
// arrays in, so a failed write changes nothing in memory.
import type { ItemCatalogue } from "./item-catalogue.js";

export interface Stack {
  readonly itemId: number;
  readonly count: number;
}

export type Slots = readonly (Stack | null)[];

/** `slots` with `count` more of `itemId` where it fits (partial stacks first, then empty slots); `added` ≤ count. */
export function addTo(
  slots: Slots,
  itemId: number,
  count: number,
  catalogue: ItemCatalogue,
): { slots: (Stack | null)[]; added: number } {
  const stackMax = catalogue.get(itemId)?.stack ?? 1;
  const next = slots.slice();
  let left = count;
  for (let slot = 0; slot < next.length && left > 0; slot++) {
    const stack = next[slot];
    if (stack === null || stack.itemId !== itemId || stack.count >= stackMax) continue;
    const moved = Math.min(left, stackMax - stack.count);
    next[slot] = { itemId, count: stack.count + moved };
    left -= moved;
  }
  for (let slot = 0; slot < next.length && left > 0; slot++) {
    if (next[slot] !== null) continue;
    const moved = Math.min(left, stackMax);
    next[slot] = { itemId, count: moved };
    left -= moved;
  }
  return { slots: next, added: count - left };
}

/** `slots` with `count` fewer in `slot` (which must hold at least that many). */
export function takeFrom(slots: Slots, slot: number, count: number): (Stack | null)[] {
  const next = slots.slice();
  const stack = next[slot];
  if (stack === null || stack.count < count) throw new RangeError(`slot ${slot} holds fewer than ${count}`);
  next[slot] = stack.count === count ? null : { itemId: stack.itemId, count: stack.count - count };
  return next;
}

/** How many of `itemId` the slots hold in all. */
export function countOf(slots: Slots, itemId: number): number {
  let total = 0;
  for (const stack of slots) if (stack !== null && stack.itemId === itemId) total += stack.count;
  return total;
}

/** `size` empty slots. */
export function emptySlots(size: number): (Stack | null)[] {
  return new Array<Stack | null>(size).fill(null);
}

/** A stack with the slot it lies in: how a container's contents are stored and shown. */
export interface SlotStack {
  slot: number;
  itemId: number;
  count: number;
}

/** The filled slots of `slots`, each with its slot number, in slot order. */
export function stacksOf(slots: Slots): SlotStack[] {
  const stacks: SlotStack[] = [];
  slots.forEach((stack, slot) => {
    if (stack !== null) stacks.push({ slot, itemId: stack.itemId, count: stack.count });
  });
  return stacks;
}

/** `slots` with `count` fewer of `itemId`, taken from the last stacks first; null when they hold fewer. */
export function takeItem(slots: Slots, itemId: number, count: number): (Stack | null)[] | null {
  if (countOf(slots, itemId) < count) return null;
  const next = slots.slice();
  let left = count;
  for (let slot = next.length - 1; slot >= 0 && left > 0; slot--) {
    const stack = next[slot];
    if (stack === null || stack.itemId !== itemId) continue;
    const taken = Math.min(left, stack.count);
    next[slot] = stack.count === taken ? null : { itemId, count: stack.count - taken };
    left -= taken;
  }
  return next;
}

/**
 * One exchange with a container, decided on copies: every stack of `take` leaves it, then every stack
 * of `give` enters it — all or nothing. "no_item" when it lacks something to take, "full" when what is
 * given does not fit once the taking is done.
 */
export function exchange(
  slots: Slots,
  take: readonly Stack[],
  give: readonly Stack[],
  catalogue: ItemCatalogue,
): { slots: (Stack | null)[] } | "no_item" | "full" {
  let next: (Stack | null)[] = slots.slice();
  for (const stack of take) {
    const taken = takeItem(next, stack.itemId, stack.count);
    if (taken === null) return "no_item";
    next = taken;
  }
  for (const stack of give) {
    const added = addTo(next, stack.itemId, stack.count, catalogue);
    if (added.added < stack.count) return "full";
    next = added.slots;
  }
  return { slots: next };
}
