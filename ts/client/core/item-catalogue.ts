// The item catalogue as GET /api/world describes it (`items`): every item's id
// on the wire, name, kind, stack size, sprite and numbers. Inventories, piles
// and the inline weapon / armor TLVs carry only item ids, so this list is how
// the client names, draws and explains them. An older server sends no list:
// the catalogue is then empty and every item shows as "item #id".
import { ITEM_KINDS, type ItemKind } from "../../item-types.js";
import { LIGHT_RADIUS_MAX } from "../../blit-layout.js";

export { ITEM_KINDS, type ItemKind } from "../../item-types.js";
const KINDS: readonly string[] = ITEM_KINDS;

export interface ItemDef {
  /** 1 … 65535, what the wire carries. */
  readonly id: number;
  readonly name: string;
  readonly kind: ItemKind;
  /** How many one slot holds. */
  readonly stack: number;
  /** Sprite name in the client's sheet (docs/art.md); an unknown one is drawn as the generic item. */
  readonly sprite: string;
  /** A weapon's damage, an armor's protection, a consumable's healing (0 for the other kinds). */
  readonly damage: number;
  readonly armor: number;
  readonly heal: number;
  /** A weapon that lights the tiles around whoever wields it (a torch): a radius in tiles, 1 … 8; absent: none. */
  readonly light?: number;
}

function count(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0 && value <= 0xffff;
}

/**
 * Validates the `items` field of /api/world. `undefined` (an older server) is an empty list; anything
 * else malformed returns the reason, naming the field, so the caller can refuse the answer as a whole.
 */
export function parseItems(raw: unknown): ItemDef[] | string {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) return "items is not an array";
  const items: ItemDef[] = [];
  const seen = new Set<number>();
  for (const [index, entry] of (raw as unknown[]).entries()) {
    const where = `items[${index}]`;
    if (typeof entry !== "object" || entry === null) return `${where} is not an object`;
    const { id, name, kind, stack, sprite, damage, armor, heal, light } = entry as Record<string, unknown>;
    if (!count(id) || id === 0) return `${where}.id must be an integer 1..65535`;
    if (seen.has(id)) return `${where}.id ${id} is listed twice`;
    seen.add(id);
    if (typeof name !== "string" || name.length === 0) return `${where}.name must be a non-empty string`;
    if (typeof kind !== "string" || !KINDS.includes(kind)) return `${where}.kind must be one of ${KINDS.join(", ")}`;
    if (!count(stack) || stack === 0) return `${where}.stack must be an integer 1..65535`;
    if (typeof sprite !== "string") return `${where}.sprite must be a string`;
    for (const [field, value] of [
      ["damage", damage],
      ["armor", armor],
      ["heal", heal],
    ] as const) {
      if (value !== undefined && !count(value)) return `${where}.${field} must be an integer 0..65535`;
    }
    if (light !== undefined && (!count(light) || light > LIGHT_RADIUS_MAX))
      return `${where}.light must be an integer 0..${LIGHT_RADIUS_MAX}`;
    items.push({
      id,
      name,
      kind: kind as ItemKind,
      stack,
      sprite,
      damage: (damage as number | undefined) ?? 0,
      armor: (armor as number | undefined) ?? 0,
      heal: (heal as number | undefined) ?? 0,
      ...(light ? { light: light as number } : {}),
    });
  }
  return items;
}

/** The items by id, for the per-slot and per-pile look-ups. */
export function itemsById(items: readonly ItemDef[]): ReadonlyMap<number, ItemDef> {
  return new Map(items.map((item) => [item.id, item]));
}

/** The name of item `itemId`, or "item #id" when the catalogue lacks it. */
export function itemName(items: ReadonlyMap<number, ItemDef>, itemId: number): string {
  return items.get(itemId)?.name ?? `item #${itemId}`;
}

/** "dagger", "3 × healing potion": a stack in words. */
export function stackText(items: ReadonlyMap<number, ItemDef>, itemId: number, amount: number): string {
  const name = itemName(items, itemId);
  return amount === 1 ? name : `${amount} × ${name}`;
}

/** The numbers a tooltip shows for an item: "damage 9", "armor 3", "heals 30", a torch's "light 4", and the stack size. */
export function itemNumbers(item: ItemDef): string[] {
  const numbers: string[] = [];
  if (item.damage > 0) numbers.push(`damage ${item.damage}`);
  if (item.armor > 0) numbers.push(`armor ${item.armor}`);
  if (item.heal > 0) numbers.push(`heals ${item.heal}`);
  if (item.light !== undefined && item.light > 0) numbers.push(`light ${item.light}`);
  if (item.stack > 1) numbers.push(`stacks to ${item.stack}`);
  return numbers;
}
