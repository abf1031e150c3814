// The item catalogue as data: `<map>.items.json` beside the map
// (maps/caves.items.json for the bundled one) names every item — its id on the
// wire (the `weapon`/`armor` TLVs, inventory stacks, piles on the ground), its
// kind, how many make a stack, the sprite clients draw, and its numbers (a
// weapon's damage, an armor's protection, a consumable's healing). Validated
// strictly like the tile data and NPC kinds files: every problem names the
// field, nothing unknown is accepted, so a typo fails at start.
import { ITEM_KINDS, type ItemKind } from "../../item-types.js";
import { LIGHT_RADIUS_MAX } from "../../blit-layout.js";
import { utf8ByteLength } from "../../protocol/text.js";
import { NAME_MAX_BYTES } from "../../protocol/tlv.js";
import { DataRecord, dataFilePathFor, parseDataFileList, readDataFile } from "./data-file.js";
import { MapError } from "./map-error.js";

export const ITEM_CATALOGUE_VERSION = 1;
export { ITEM_KINDS, type ItemKind };
/** The largest stack: counts travel as u16, and a bag of 20 such stacks stays far below that. */
export const ITEM_STACK_MAX = 999;
/** The largest damage, armor or heal number an item may carry (the NPC kinds' bound). */
export const ITEM_VALUE_MAX = 1000;

export interface ItemDef {
  /** 1 … 65535: what the wire carries. */
  id: number;
  /** Display name (an EntityDetail `name`, the inventory's tooltips). */
  name: string;
  kind: ItemKind;
  /** How many of it one slot holds (1 for weapons, armor and keys). */
  stack: number;
  /** The client's sprite for it (an unknown name is drawn as a generic item). */
  sprite: string;
  /** A weapon's damage in the combat formula (0 for every other kind). */
  damage: number;
  /** An armor's protection in the combat formula (0 for every other kind). */
  armor: number;
  /** Hit points a consumable restores when used (0 for every other kind). */
  heal: number;
  /**
   * A weapon that gives light while wielded (a torch, issue 15): its light radius in tiles, 1 …
   * LIGHT_RADIUS_MAX; absent: none. Only a weapon, because the wielded weapon is what every client
   * already sees of a player (the inline `weapon` TLV): a torch in the bag would light nothing others see.
   */
  light?: number;
}

const ITEM_KEYS = new Set(["id", "name", "kind", "stack", "sprite", "damage", "armor", "heal", "light"]);
/** Which number each kind must carry; the others are 0. */
const NUMBER_OF: Readonly<Record<ItemKind, "damage" | "armor" | "heal" | null>> = {
  weapon: "damage",
  armor: "armor",
  consumable: "heal",
  key: null,
  treasure: null,
};

/** The catalogue: items by id and by name. */
export class ItemCatalogue {
  private readonly byId = new Map<number, ItemDef>();
  private readonly byName = new Map<string, ItemDef>();

  constructor(readonly items: readonly ItemDef[]) {
    for (const item of items) {
      this.byId.set(item.id, item);
      this.byName.set(item.name, item);
    }
  }

  get(id: number): ItemDef | undefined {
    return this.byId.get(id);
  }

  named(name: string): ItemDef | undefined {
    return this.byName.get(name);
  }

  get size(): number {
    return this.items.length;
  }
}

/** `maps/caves.tmj` → `maps/caves.items.json`. */
export function itemCataloguePathFor(mapPath: string): string {
  return dataFilePathFor(mapPath, "items");
}

/** Reads and validates a catalogue file; null when there is no such file (a map without items). */
export function readItemCatalogueFile(path: string): ItemDef[] | null {
  const text = readDataFile(path, "item catalogue");
  return text === null ? null : parseItemCatalogue(text, path);
}

/** Validates catalogue text strictly: ids and names unique, every number in range and fitting its kind. */
export function parseItemCatalogue(text: string, file: string): ItemDef[] {
  const list = parseDataFileList(text, file, "item catalogue", ITEM_CATALOGUE_VERSION, "items");
  const names = new Set<string>();
  const ids = new Set<number>();
  return list.map((value, index) => {
    const where = `items[${index}]`;
    const item = parseItem(value, where, file);
    if (names.has(item.name)) throw new MapError(file, `${where}.name: "${item.name}" appears twice`);
    if (ids.has(item.id)) throw new MapError(file, `${where}.id: ${item.id} appears twice`);
    names.add(item.name);
    ids.add(item.id);
    return item;
  });
}

function parseItem(value: unknown, where: string, file: string): ItemDef {
  const record = DataRecord.of(value, where, file, ITEM_KEYS);
  const name = record.displayName("name", NAME_MAX_BYTES, utf8ByteLength);
  if (name.includes(",") || name.includes(":")) {
    record.fail("name", 'may not contain "," or ":" (chest contents list items by name)');
  }
  const kind = record.choice("kind", ITEM_KINDS);
  const sprite = record.sprite("sprite");
  const carries = NUMBER_OF[kind];
  const number = (key: "damage" | "armor" | "heal"): number => {
    if (key === carries) return record.integer(key, 1, ITEM_VALUE_MAX);
    if (record.fields[key] !== undefined) record.fail(key, `only a ${kindCarrying(key)} has ${key}`);
    return 0;
  };
  const singles = kind === "weapon" || kind === "armor" || kind === "key";
  if (record.fields.light !== undefined && kind !== "weapon")
    record.fail("light", "only a weapon (wielded) gives light");
  const light = record.integer("light", 1, LIGHT_RADIUS_MAX, 0);
  return {
    id: record.integer("id", 1, 0xffff),
    name,
    kind,
    stack: singles ? record.integer("stack", 1, 1, 1) : record.integer("stack", 1, ITEM_STACK_MAX, 1),
    sprite,
    damage: number("damage"),
    armor: number("armor"),
    heal: number("heal"),
    ...(light > 0 ? { light } : {}),
  };
}

function kindCarrying(key: "damage" | "armor" | "heal"): ItemKind {
  return key === "damage" ? "weapon" : key === "armor" ? "armor" : "consumable";
}
