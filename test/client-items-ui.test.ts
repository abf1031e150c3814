// What the item windows say (ts/client/ui/item-words.ts): every status of every
// op has words (none for "ok"), refusals name the right thing for the op,
// tooltips carry the numbers, and each slot offers the actions its stack has.
import { describe, expect, it } from "vitest";
import type { ItemDef } from "../ts/client/core/item-catalogue.js";
import { SLOT_ARMOR, SLOT_WEAPON } from "../ts/client/core/items.js";
import { bagActions, gaveUpText, itemStatusText, slotLabel, stackTooltip } from "../ts/client/ui/item-words.js";
import { ITEM_OPS } from "../ts/protocol/item-request.js";
import { ITEM_STATUSES } from "../ts/protocol/item-result.js";

const DAGGER: ItemDef = {
  id: 2,
  name: "dagger",
  kind: "weapon",
  stack: 1,
  sprite: "dagger",
  damage: 9,
  armor: 0,
  heal: 0,
};
const MAIL: ItemDef = {
  id: 5,
  name: "chain mail",
  kind: "armor",
  stack: 1,
  sprite: "mail",
  damage: 0,
  armor: 6,
  heal: 0,
};
const POTION: ItemDef = {
  id: 6,
  name: "healing potion",
  kind: "consumable",
  stack: 10,
  sprite: "potion",
  damage: 0,
  armor: 0,
  heal: 30,
};
const COIN: ItemDef = {
  id: 7,
  name: "gold coin",
  kind: "treasure",
  stack: 999,
  sprite: "coin",
  damage: 0,
  armor: 0,
  heal: 0,
};
const CATALOGUE = new Map([DAGGER, MAIL, POTION, COIN].map((item) => [item.id, item]));

describe("item words", () => {
  it("has a sentence for every refusal of every op, and none for ok", () => {
    for (const op of ITEM_OPS) {
      expect(itemStatusText(op, "ok")).toBeNull();
      for (const status of ITEM_STATUSES.filter((name) => name !== "ok")) {
        expect(itemStatusText(op, status), `${op} ${status}`).toMatch(/^[A-Z].*\.$/);
      }
    }
    expect(itemStatusText("take", "full")).toBe("Your bag is full.");
    expect(itemStatusText("put", "full")).toBe("The chest is full.");
    expect(itemStatusText("take", "too_far")).toBe("Too far away.");
    expect(itemStatusText("take", "not_written")).toContain("nothing changed");
    expect(itemStatusText("equip", "wrong_kind")).toBe("You can't wield or wear that.");
    expect(itemStatusText("use", "wrong_kind")).toBe("You can't use that.");
    expect(
      gaveUpText({ requestId: 1, op: "take_all", container: 3, slot: 0, toSlot: 0, count: 0 }, "timeout"),
    ).toContain("take all");
  });

  it("tooltips carry the kind and the numbers", () => {
    expect(stackTooltip(CATALOGUE, { slot: 0, itemId: 2, count: 1 })).toBe("dagger — weapon, damage 9");
    expect(stackTooltip(CATALOGUE, { slot: 1, itemId: 5, count: 1 })).toBe("chain mail — armor, armor 6");
    expect(stackTooltip(CATALOGUE, { slot: 2, itemId: 6, count: 3 })).toBe(
      "3 × healing potion — consumable, heals 30, stacks to 10",
    );
    expect(stackTooltip(CATALOGUE, { slot: 3, itemId: 99, count: 1 })).toBe("item #99");
    expect([slotLabel(0), slotLabel(SLOT_WEAPON), slotLabel(SLOT_ARMOR)]).toEqual(["slot 1", "weapon", "armor"]);
  });

  it("offers what a stack can do where it lies", () => {
    expect(bagActions(0, DAGGER, false)).toEqual(["equip", "move", "drop"]);
    expect(bagActions(0, MAIL, true)).toEqual(["equip", "put", "move", "drop"]);
    expect(bagActions(4, POTION, false)).toEqual(["use", "move", "drop"]);
    expect(bagActions(4, COIN, true)).toEqual(["put", "move", "drop"]);
    expect(bagActions(SLOT_WEAPON, DAGGER, true)).toEqual(["unequip", "drop"]);
    expect(bagActions(SLOT_ARMOR, MAIL, false)).toEqual(["unequip", "drop"]);
  });
});
