// What the map says about items, checked against the catalogue at load:
// chests (objects of kind "chest" in the interactables layer, with an `items`
// property such as "rusty key, healing potion:3") and the NPC kinds' loot
// tables. A name the catalogue lacks, a count out of range or a chest that
// cannot hold its contents stops the load with a message naming the place.
import { MapError } from "./map-error.js";
import type { Interactable } from "./map-object.js";
import { addTo, emptySlots } from "./item-slots.js";
import type { ItemCatalogue, ItemDef } from "./item-catalogue.js";

/** Slots of a chest: what its first contents must fit, and the size the item room gives it. */
export const CHEST_CAPACITY = 20;
export const CHEST_KIND = "chest";

export interface ChestSpec {
  /** The map object's id: a chest's contents are stored under it. */
  id: number;
  name: string;
  x: number;
  y: number;
  items: { item: ItemDef; count: number }[];
}

/** One line of a kind's loot table: with probability `chance`, min … max of `item` fall where it died. */
export interface LootEntry {
  item: ItemDef;
  chance: number;
  min: number;
  max: number;
}

/** The loot table as the kinds file writes it, before the catalogue is known. */
export interface RawLootEntry {
  item: string;
  chance: number;
  min: number;
  max: number;
}

/** The map's chests; throws MapError for contents the catalogue or the chest cannot hold. */
export function chestsOf(interactables: readonly Interactable[], catalogue: ItemCatalogue, file: string): ChestSpec[] {
  const chests: ChestSpec[] = [];
  for (const object of interactables) {
    if (object.kind !== CHEST_KIND) continue;
    const where = `chest ${object.id}${object.name ? ` ("${object.name}")` : ""}`;
    const raw = object.properties.items;
    if (raw !== undefined && typeof raw !== "string") {
      throw new MapError(file, `${where}: the "items" property must be a string like "dagger, healing potion:3"`);
    }
    const items = parseContents(raw ?? "", catalogue, file, where);
    let slots = emptySlots(CHEST_CAPACITY);
    for (const { item, count } of items) {
      const added = addTo(slots, item.id, count, catalogue);
      if (added.added < count) throw new MapError(file, `${where}: holds more than its ${CHEST_CAPACITY} slots`);
      slots = added.slots;
    }
    chests.push({ id: object.id, name: object.name || "chest", x: object.x, y: object.y, items });
  }
  return chests;
}

function parseContents(
  text: string,
  catalogue: ItemCatalogue,
  file: string,
  where: string,
): { item: ItemDef; count: number }[] {
  const items: { item: ItemDef; count: number }[] = [];
  for (const part of text.split(",")) {
    const entry = part.trim();
    if (entry === "") continue;
    const match = /^(.+?)(?:\s*:\s*(\d+))?$/.exec(entry) as RegExpExecArray;
    const name = match[1].trim();
    const count = match[2] === undefined ? 1 : Number(match[2]);
    const item = catalogue.named(name);
    if (item === undefined) throw new MapError(file, `${where}: no item named "${name}" in the catalogue`);
    if (!Number.isInteger(count) || count < 1 || count > 0xffff) {
      throw new MapError(file, `${where}: count of "${name}" must be 1..65535`);
    }
    items.push({ item, count });
  }
  return items;
}

/** Checks a kind's raw loot table against the catalogue. */
export function lootOf(
  raw: readonly RawLootEntry[],
  catalogue: ItemCatalogue,
  file: string,
  where: string,
): LootEntry[] {
  return raw.map((entry, index) => {
    const item = catalogue.named(entry.item);
    if (item === undefined) {
      throw new MapError(file, `${where}.loot[${index}].item: no item named "${entry.item}" in the catalogue`);
    }
    return { item, chance: entry.chance, min: entry.min, max: entry.max };
  });
}
