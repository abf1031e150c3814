// Built-in entity type_ids the server and the clients agree on beyond the seed's
// four (0 player, 1 creature, 2 chest, 3 sign post; docs/protocol.md § 18). NPC
// kinds start at NPC_TYPE_ID_MIN (ts/npc-types.ts).

/**
 * A door (docs/protocol.md § 18): a static interactable on its tile. Clients draw no sprite for it —
 * the tile shows whether it is open or closed — but name it on hover and offer its use.
 */
export const ENTITY_TYPE_DOOR = 4;

/** A player (docs/protocol.md § 18): the seed's type_id 0, for the server and the clients alike. */
export const ENTITY_TYPE_PLAYER = 0;
