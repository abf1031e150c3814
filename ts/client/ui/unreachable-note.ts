// What the page says when a click cannot be walked to (issue 18 item 9: a
// click on water or a walled-off tile showed the target bracket and nothing
// else). The tile's own name comes from the world's tile data, so a host's
// map reads as itself: "You can't walk on deep water."
import { TILE_BORDER, TILE_UNKNOWN } from "../../constants.js";

/** The tile table entries the note reads (GET /api/world `tiles`). */
export interface NamedTile {
  readonly id: number;
  readonly name?: string;
  readonly collides: boolean;
}

/** The line for a click on tile id `tileId` that no route reaches. */
export function unreachableNote(tileId: number, tiles: readonly NamedTile[]): string {
  if (tileId === TILE_UNKNOWN) return "You can't see a way there yet.";
  if (tileId === TILE_BORDER) return "That is the edge of the world.";
  const tile = tiles.find((entry) => entry.id === tileId);
  if (tile?.collides) return tile.name ? `You can't walk on ${tile.name}.` : "You can't walk there.";
  return "There is no way there from here.";
}

/** At most one note per this many ms: a click-and-hold over water must not fill the log. */
export const UNREACHABLE_NOTE_EVERY_MS = 1500;
