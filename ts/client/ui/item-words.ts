// What the item windows say (docs/client.md § Items), DOM-free: a refusal in
// words, a stack's tooltip with its numbers, and which actions a stack offers
// where it lies. The windows (item-panels.ts) and their tests read these.
import { itemName, itemNumbers, type ItemDef } from "../core/item-catalogue.js";
import type { ItemOp, ItemRequestInfo, ItemStatus } from "../core/items.js";
import { SLOT_ARMOR, SLOT_WEAPON, type ItemStack } from "../core/items.js";

/** Why a request did nothing, as the player reads it; null for "ok". */
export function itemStatusText(op: ItemOp, status: ItemStatus): string | null {
  switch (status) {
    case "ok":
      return null;
    case "stale":
      return "That request was too old to answer; nothing changed. Try again.";
    case "no_item":
      return op === "take_all" ? "There is nothing left to take." : "There is nothing there.";
    case "too_far":
      return "Too far away.";
    case "full":
      if (op === "put") return "The chest is full.";
      if (op === "drop") return "There is no room to drop anything here.";
      return "Your bag is full.";
    case "wrong_kind":
      if (op === "equip") return "You can't wield or wear that.";
      if (op === "use") return "You can't use that.";
      return "That does not go there.";
    case "no_container":
      return "That is gone.";
    case "dead":
      return "The dead carry nothing.";
    case "locked":
      return "It is locked.";
    case "not_written":
      return "The world could not keep that change just now; nothing changed. Try again in a moment.";
  }
}

/** The words for a request that got no answer. */
export function gaveUpText(request: ItemRequestInfo, by: "timeout" | "session"): string {
  const what = ACTION_WORDS[request.op];
  return by === "session"
    ? `The connection was renewed before the server answered your ${what}; look in your bag before trying again.`
    : `The server did not answer your ${what}; look in your bag before trying again.`;
}

const ACTION_WORDS: Readonly<Record<ItemOp, string>> = {
  take: "take",
  take_all: "take all",
  put: "put",
  drop: "drop",
  equip: "equip",
  unequip: "unequip",
  use: "use",
  move: "move",
};

/** What a stack in a slot can do. */
export type SlotAction = "equip" | "unequip" | "use" | "drop" | "put" | "take" | "move";

/** The actions the stack in bag or equipment `slot` offers; `chestOpen`: a chest is open, so it can be put in. */
export function bagActions(slot: number, item: ItemDef | undefined, chestOpen: boolean): SlotAction[] {
  const actions: SlotAction[] = [];
  const equipped = slot === SLOT_WEAPON || slot === SLOT_ARMOR;
  if (equipped) actions.push("unequip");
  else if (item?.kind === "weapon" || item?.kind === "armor") actions.push("equip");
  if (!equipped && item?.kind === "consumable") actions.push("use");
  if (!equipped && chestOpen) actions.push("put");
  if (!equipped) actions.push("move");
  actions.push("drop");
  return actions;
}

export const ACTION_LABELS: Readonly<Record<SlotAction, string>> = {
  equip: "Equip",
  unequip: "Unequip",
  use: "Use",
  drop: "Drop",
  put: "Put in chest",
  take: "Take",
  move: "Move",
};

/** A stack's tooltip: its name and count, its kind, and its numbers ("dagger — weapon, damage 9"). */
export function stackTooltip(items: ReadonlyMap<number, ItemDef>, stack: ItemStack): string {
  const item = items.get(stack.itemId);
  const name = itemName(items, stack.itemId);
  const head = stack.count > 1 ? `${stack.count} × ${name}` : name;
  if (!item) return head;
  return `${head} — ${[item.kind, ...itemNumbers(item)].join(", ")}`;
}

/** The label of a bag or equipment slot for screen readers and tests: "slot 3", "weapon", "armor". */
export function slotLabel(slot: number): string {
  if (slot === SLOT_WEAPON) return "weapon";
  if (slot === SLOT_ARMOR) return "armor";
  return `slot ${slot + 1}`;
}
