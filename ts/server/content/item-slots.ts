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
