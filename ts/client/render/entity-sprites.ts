// Which sprite-sheet cell shows an entity: its type_id (docs/art.md), and for
// players one of the five tunic colours chosen by entity id, so two players
// standing side by side can be told apart and keep their colour for the session.
import {
  PLAYER_VARIANT_COUNT,
  PLAYER_VARIANT_FIRST,
  SPRITE_CREATURE,
  SPRITE_PLAYER,
  SPRITE_SIGN_POST,
} from "../assets/sheets.js";

const PLAYER_COLOURS = 1 + PLAYER_VARIANT_COUNT;

export function spriteCellFor(typeId: number, entityId: number): number {
  if (typeId === SPRITE_PLAYER) {
    const colour = ((entityId % PLAYER_COLOURS) + PLAYER_COLOURS) % PLAYER_COLOURS;
    return colour === 0 ? SPRITE_PLAYER : PLAYER_VARIANT_FIRST + colour - 1;
  }
  // Types without art of their own yet are shown as a creature: visible beats invisible.
  return typeId > 0 && typeId <= SPRITE_SIGN_POST ? typeId : SPRITE_CREATURE;
}
