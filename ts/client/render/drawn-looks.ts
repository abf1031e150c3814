// How the inline TLVs change an entity's look, for whoever draws the world (the play session, the
// spectate session): a pile is its item's sprite, a player is drawn in the look it chose (the
// appearance TLV, issue 18), shows what it wears and carries the light of a wielded torch.
import { ENTITY_TYPE_PLAYER } from "../../entity-types.js";
import { ENTITY_TYPE_ITEM } from "../../item-types.js";
import type { Tlv } from "../../protocol/tlv.js";
import type { ItemDef } from "../core/item-catalogue.js";
import { playerLookCell } from "./entity-sprites.js";
import { ItemLooks, NO_CELL } from "./item-sprites.js";

export interface ItemLook {
  cell: number;
  wornArmor: number;
  wornWeapon: number;
  /** The light its wielded weapon gives (a torch), 0 for none. */
  light: number;
}

export class DrawnLooks {
  private readonly itemLooks: ItemLooks;
  private readonly scratch: ItemLook = { cell: NO_CELL, wornArmor: NO_CELL, wornWeapon: NO_CELL, light: 0 };

  constructor(items: readonly ItemDef[]) {
    this.itemLooks = new ItemLooks(items);
  }

  /**
   * The look of an entity of `typeId` with inline TLVs `meta`, written into one scratch object the caller
   * spreads at once, so a frame allocates nothing more for it.
   */
  of(typeId: number, meta: readonly Tlv[]): ItemLook {
    const looks = this.itemLooks;
    const look = this.scratch;
    const pile = typeId === ENTITY_TYPE_ITEM;
    look.cell = pile ? looks.pileCell(meta) : typeId === ENTITY_TYPE_PLAYER ? chosenLookCell(meta) : NO_CELL;
    look.wornArmor = pile || meta.length === 0 ? NO_CELL : looks.wornCell(meta, "armor");
    look.wornWeapon = pile || meta.length === 0 ? NO_CELL : looks.wornCell(meta, "weapon");
    look.light = pile || meta.length === 0 ? 0 : looks.heldLight(meta);
    return look;
  }
}

/** The cell of the look a player's appearance TLV names, or NO_CELL (none, or one this sheet lacks: drawn by its id). */
function chosenLookCell(meta: readonly Tlv[]): number {
  for (let index = 0; index < meta.length; index++) {
    const tlv = meta[index];
    if (tlv.kind === "appearance") return playerLookCell(tlv.value);
  }
  return NO_CELL;
}
