// What the server's item room and the clients agree on about items beyond the
// packet layouts (docs/protocol.md § Items): the built-in type_ids of the
// things items live in and the item kinds the catalogue may name. The client
// reads /api/world's `items` with these (ts/client/core/item-catalogue.ts);
// the server's item room uses the same numbers (ts/server/items/item-room.ts).

/** A chest: static | interactable; its EntityDetail carries `inventory` to a player within reach. */
export const ENTITY_TYPE_CHEST = 2;
/** A pile on the ground: static | interactable; its EntityEntry carries the inline `item` TLV. */
export const ENTITY_TYPE_ITEM = 5;

export const ITEM_KINDS = ["weapon", "armor", "key", "consumable", "treasure"] as const;
export type ItemKind = (typeof ITEM_KINDS)[number];
