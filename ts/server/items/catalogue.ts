// The item catalogue as data: `<map>.items.json` beside the map
// (maps/caves.items.json for the bundled one) names every item — its id on the
// wire (the `weapon`/`armor` TLVs, inventory stacks, piles on the ground), its
// kind, how many make a stack, the sprite clients draw, and its numbers (a
// weapon's damage, an armor's protection, a consumable's healing). Validated
// strictly like the tile data and NPC kinds files: every problem names the
// field, nothing unknown is accepted, so a typo fails at start.
import { ITEM_KINDS, type ItemKind } from "../../item-types.js";
import { utf8ByteLength } from "../../protocol/text.js";
import { NAME_MAX_BYTES } from "../../protocol/tlv.js";
import { dataFilePathFor, parseDataFileList, readDataFile } from "../map/data-file.js";
import { MapError } from "../map/map-error.js";

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
}

const ITEM_KEYS = new Set(["id", "name", "kind", "stack", "sprite", "damage", "armor", "heal"]);
const SPRITE_NAME = /^[a-z0-9_-]{1,32}$/;
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
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new MapError(file, `${where}: expected an object`);
  }
  const fields = value as Record<string, unknown>;
  for (const key of Object.keys(fields)) {
    if (!ITEM_KEYS.has(key)) throw new MapError(file, `${where}: unknown field "${key}"`);
  }
  const integer = (key: string, min: number, max: number, fallback?: number): number => {
    const field = fields[key];
    if (field === undefined && fallback !== undefined) return fallback;
    if (field === undefined) throw new MapError(file, `${where}.${key}: missing`);
    if (typeof field !== "number" || !Number.isInteger(field) || field < min || field > max) {
      throw new MapError(file, `${where}.${key}: expected an integer ${min}..${max}, got ${JSON.stringify(field)}`);
    }
    return field;
  };
  const name = fields.name;
  if (typeof name !== "string" || name.trim() === "" || name !== name.trim()) {
    throw new MapError(file, `${where}.name: expected a non-empty string without outer spaces`);
  }
  if (utf8ByteLength(name) > NAME_MAX_BYTES) {
    throw new MapError(file, `${where}.name: at most ${NAME_MAX_BYTES} bytes of UTF-8 (an EntityDetail name)`);
  }
  if (name.includes(",") || name.includes(":")) {
    throw new MapError(file, `${where}.name: may not contain "," or ":" (chest contents list items by name)`);
  }
  const kind = fields.kind;
  if (typeof kind !== "string" || !ITEM_KINDS.includes(kind as ItemKind)) {
    throw new MapError(file, `${where}.kind: expected one of ${ITEM_KINDS.join(", ")}, got ${JSON.stringify(kind)}`);
  }
  const sprite = fields.sprite;
  if (typeof sprite !== "string" || !SPRITE_NAME.test(sprite)) {
    throw new MapError(file, `${where}.sprite: expected 1..32 of a-z 0-9 _ -, got ${JSON.stringify(sprite)}`);
  }
  const itemKind = kind as ItemKind;
  const carries = NUMBER_OF[itemKind];
  const number = (key: "damage" | "armor" | "heal"): number => {
    if (key === carries) return integer(key, 1, ITEM_VALUE_MAX);
    if (fields[key] !== undefined) throw new MapError(file, `${where}.${key}: only a ${kindCarrying(key)} has ${key}`);
    return 0;
  };
  const singles = itemKind === "weapon" || itemKind === "armor" || itemKind === "key";
  return {
    id: integer("id", 1, 0xffff),
    name,
    kind: itemKind,
    stack: singles ? integer("stack", 1, 1, 1) : integer("stack", 1, ITEM_STACK_MAX, 1),
    sprite,
    damage: number("damage"),
    armor: number("armor"),
    heal: number("heal"),
  };
}

function kindCarrying(key: "damage" | "armor" | "heal"): ItemKind {
  return key === "damage" ? "weapon" : key === "armor" ? "armor" : "consumable";
}
