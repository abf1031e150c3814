// Which sprite-sheet cell shows an item (docs/art.md): the catalogue names each
// item's sprite (GET /api/world items[].sprite), ITEM_SPRITE_CELLS turns the
// name into a cell, and an unknown name is the generic sack. A pile on the
// ground (type_id 5) is drawn as its item, from the inline `item` TLV; a player
// wearing a weapon or armor (the inline `weapon` / `armor` TLVs, item ids) gets
// that item's worn overlay over its sprite. The look-ups are built once per
// world, and reading a TLV list allocates nothing, so the frame loop can ask
// for every entity of every frame. The same weapon TLV says whether a player
// carries light (a wielded torch: the catalogue's `light`).
import {
  ITEM_SPRITE_CELLS,
  SPRITE_ITEM,
  SPRITE_WORN_ARMOR,
  SPRITE_WORN_WEAPON,
  WORN_SPRITE_CELLS,
} from "../assets/sheets.js";
import type { ItemDef } from "../core/item-catalogue.js";
import type { Tlv } from "../../protocol/tlv.js";

/** No overlay / no item. */
export const NO_CELL = -1;

export class ItemLooks {
  private readonly cells = new Map<number, number>();
  private readonly worn = new Map<number, number>();
  private readonly lights = new Map<number, number>();

  constructor(items: Iterable<ItemDef>) {
    for (const item of items) {
      this.cells.set(item.id, itemSpriteCell(item.sprite));
      if (item.kind === "weapon" && item.light !== undefined && item.light > 0) this.lights.set(item.id, item.light);
      if (item.kind === "weapon" || item.kind === "armor") {
        const fallback = item.kind === "weapon" ? SPRITE_WORN_WEAPON : SPRITE_WORN_ARMOR;
        this.worn.set(
          item.id,
          Object.hasOwn(WORN_SPRITE_CELLS, item.sprite) ? WORN_SPRITE_CELLS[item.sprite] : fallback,
        );
      }
    }
  }

  /** The cell of item `itemId`; the generic sack for an item the catalogue lacks. */
  cellOf(itemId: number): number {
    return this.cells.get(itemId) ?? SPRITE_ITEM;
  }

  /** The cell a pile with this meta is drawn with, or NO_CELL when it carries no `item` TLV. */
  pileCell(meta: readonly Tlv[]): number {
    for (let index = 0; index < meta.length; index++) {
      const tlv = meta[index];
      if (tlv.kind === "item") return this.cellOf(tlv.itemId);
    }
    return NO_CELL;
  }

  /** The light radius of the weapon the `weapon` TLV in `meta` names (a torch), or 0. */
  heldLight(meta: readonly Tlv[]): number {
    for (let index = 0; index < meta.length; index++) {
      const tlv = meta[index];
      if (tlv.kind === "weapon") return this.lights.get(tlv.value) ?? 0;
    }
    return 0;
  }

  /** The worn overlay of the `weapon` (or `armor`) TLV in `meta`, or NO_CELL. */
  wornCell(meta: readonly Tlv[], kind: "weapon" | "armor"): number {
    for (let index = 0; index < meta.length; index++) {
      const tlv = meta[index];
      if (tlv.kind === kind)
        return this.worn.get(tlv.value) ?? (kind === "weapon" ? SPRITE_WORN_WEAPON : SPRITE_WORN_ARMOR);
    }
    return NO_CELL;
  }
}

/** The cell of an item sprite name; an unknown name is the generic item. */
export function itemSpriteCell(sprite: string): number {
  return Object.hasOwn(ITEM_SPRITE_CELLS, sprite) ? ITEM_SPRITE_CELLS[sprite] : SPRITE_ITEM;
}
