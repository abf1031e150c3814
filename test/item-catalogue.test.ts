// The item catalogue file (issue 14, docs/maps.md § Item catalogue) and the
// chest contents a map names: validated strictly, every problem named.
import { describe, expect, it } from "vitest";
import { ItemCatalogue, parseItemCatalogue } from "../ts/server/content/item-catalogue.js";
import { chestsOf } from "../ts/server/content/item-specs.js";
import type { Interactable } from "../ts/server/content/map-object.js";

const file = (items: unknown[]) => JSON.stringify({ version: 1, items });
const parse = (items: unknown[]) => parseItemCatalogue(file(items), "test.items.json");
const dagger = { id: 2, name: "dagger", kind: "weapon", sprite: "dagger", damage: 9 };
const potion = { id: 6, name: "potion", kind: "consumable", stack: 10, sprite: "potion", heal: 30 };

describe("item catalogue", () => {
  it("reads items and fills the numbers a kind does not carry with 0, stacks with 1", () => {
    expect(parse([dagger, potion])).toEqual([
      { id: 2, name: "dagger", kind: "weapon", stack: 1, sprite: "dagger", damage: 9, armor: 0, heal: 0 },
      { id: 6, name: "potion", kind: "consumable", stack: 10, sprite: "potion", damage: 0, armor: 0, heal: 30 },
    ]);
  });

  it("reads a torch: a weapon with a light radius (issue 15); no other item has one", () => {
    const torch = { id: 9, name: "torch", kind: "weapon", sprite: "torch", damage: 7, light: 4 };
    const [read, plain] = parse([torch, dagger]);
    expect(read).toEqual({ ...torch, stack: 1, armor: 0, heal: 0 });
    expect(plain.light).toBeUndefined();
  });

  it("refuses what would make an item silently behave otherwise, naming the field", () => {
    const cases: [unknown[], RegExp][] = [
      [[{ ...dagger, damage: undefined }], /items\[0\]\.damage: missing/],
      [[{ ...potion, damage: 3 }], /items\[0\]\.damage: only a weapon has damage/],
      [[{ ...dagger, stack: 5 }], /items\[0\]\.stack: expected an integer 1\.\.1/],
      [[{ ...dagger, kind: "wand" }], /items\[0\]\.kind: expected one of weapon, armor, key, consumable, treasure/],
      [[{ ...dagger, name: "a, b" }], /may not contain "," or ":"/],
      [[{ ...dagger, colour: "red" }], /items\[0\]: unknown field "colour"/],
      [[dagger, { ...potion, id: 2 }], /items\[1\]\.id: 2 appears twice/],
      [[dagger, { ...potion, name: "dagger" }], /items\[1\]\.name: "dagger" appears twice/],
      [[{ ...dagger, sprite: "Big Sword" }], /items\[0\]\.sprite: expected 1\.\.32 of a-z 0-9 _ -/],
      [[{ ...dagger, id: 0 }], /items\[0\]\.id: expected an integer 1\.\.65535/],
      [[{ ...potion, light: 3 }], /items\[0\]\.light: only a weapon \(wielded\) gives light/],
      [[{ ...dagger, light: 9 }], /items\[0\]\.light: expected an integer 1\.\.8/],
      [[{ ...dagger, light: 0 }], /items\[0\]\.light: expected an integer 1\.\.8/],
    ];
    for (const [items, message] of cases) expect(() => parse(items), String(message)).toThrow(message);
  });

  it("checks chest contents against the catalogue and the chest's 20 slots", () => {
    const catalogue = new ItemCatalogue(parse([dagger, potion]));
    const chest = (items: string): Interactable => ({
      id: 7,
      name: "box",
      kind: "chest",
      x: 1,
      y: 1,
      properties: { kind: "chest", items },
    });
    expect(chestsOf([chest("dagger, potion:3")], catalogue, "map.tmj")[0].items.map((entry) => entry.count)).toEqual([
      1, 3,
    ]);
    expect(() => chestsOf([chest("dagger, wand")], catalogue, "map.tmj")).toThrow(
      /chest 7 \("box"\): no item named "wand"/,
    );
    expect(() => chestsOf([chest("potion:0")], catalogue, "map.tmj")).toThrow(/count of "potion" must be 1\.\.65535/);
    expect(() => chestsOf([chest("dagger:21")], catalogue, "map.tmj")).toThrow(/holds more than its 20 slots/);
  });
});
