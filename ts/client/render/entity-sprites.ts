// Which sprite-sheet cell shows an entity: its type_id (docs/art.md), and for
// players one of the five tunic colours chosen by entity id, so two players
// standing side by side can be told apart and keep their colour for the session.
// NPC kinds name their sprite (GET /api/world kinds[].sprite); spriteCellsOfKinds
// turns those names into cells once, when the world is known.
import {
  KIND_SPRITE_CELLS,
  PLAYER_VARIANT_COUNT,
  PLAYER_VARIANT_FIRST,
  SPRITE_CREATURE,
  SPRITE_PLAYER,
  SPRITE_SIGN_POST,
} from "../assets/sheets.js";
import type { NpcKind } from "../core/kinds.js";

const PLAYER_COLOURS = 1 + PLAYER_VARIANT_COUNT;
const NO_KINDS: ReadonlyMap<number, number> = new Map();

/** type_id → sprite cell for every kind; a sprite name this sheet has no art for gets the generic creature. */
export function spriteCellsOfKinds(kinds: readonly NpcKind[]): ReadonlyMap<number, number> {
  return new Map(
    kinds.map((kind) => [
      kind.typeId,
      Object.hasOwn(KIND_SPRITE_CELLS, kind.sprite) ? KIND_SPRITE_CELLS[kind.sprite] : SPRITE_CREATURE,
    ]),
  );
}

/**
 * The cell of player look `look` (ts/appearance.ts: 0 the blue tunic of cell 0, then the variants in
 * the sheet's order), or -1 for a look this sheet has no art for.
 */
export function playerLookCell(look: number): number {
  if (!Number.isInteger(look) || look < 0 || look >= PLAYER_COLOURS) return -1;
  return look === 0 ? SPRITE_PLAYER : PLAYER_VARIANT_FIRST + look - 1;
}

/** The cell for entity `entityId` of `typeId` (a player without an appearance TLV by its id); `kindCells` from spriteCellsOfKinds. */
export function spriteCellFor(
  typeId: number,
  entityId: number,
  kindCells: ReadonlyMap<number, number> = NO_KINDS,
): number {
  if (typeId === SPRITE_PLAYER) {
    const colour = ((entityId % PLAYER_COLOURS) + PLAYER_COLOURS) % PLAYER_COLOURS;
    return colour === 0 ? SPRITE_PLAYER : PLAYER_VARIANT_FIRST + colour - 1;
  }
  if (typeId > 0 && typeId <= SPRITE_SIGN_POST) return typeId;
  // Types without art of their own (or not listed as a kind) are shown as a creature: visible beats invisible.
  return kindCells.get(typeId) ?? SPRITE_CREATURE;
}
