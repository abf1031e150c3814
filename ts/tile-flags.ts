// What a tile id means to the rules, in the one form every layer uses: the
// 65536-byte flags table (the wasm TILE_FLAGS region) and the free-tile
// predicate over it. The server builds the table from its map's tile data, the
// client and the bots from /api/world; both through tileFlagsTable, so both
// mark the reserved ids alike. The wasm rule (assembly/sim/step.ts, freeTileAt)
// decides free tiles the same way; test/tile-flags.test.ts holds the two to
// each other for every tile id.
import { TILE_BORDER, TILE_FLAG_COLLIDES, TILE_FLAG_OPAQUE, TILE_UNKNOWN } from "./constants.js";

/** Tile ids there are (u16): the entries of every per-id table (flags, looks). */
export const TILE_ID_COUNT = 0x10000;

/** What the flags table keeps of a tile's meaning. */
export interface TileMeaning {
  readonly id: number;
  readonly collides: boolean;
  readonly opaque: boolean;
}

/**
 * Tile meanings as the callers hold them: a list, the server's tile data (a Map
 * by id) or a world description (/api/world) with its `tiles`.
 */
export type TileMeanings = Iterable<TileMeaning> | Map<number, TileMeaning> | { readonly tiles: Iterable<TileMeaning> };

/** TILE_FLAGS bits of one tile. */
export function tileFlagsOf(tile: TileMeaning): number {
  return (tile.collides ? TILE_FLAG_COLLIDES : 0) | (tile.opaque ? TILE_FLAG_OPAQUE : 0);
}

/**
 * The 65536-byte table for the wasm TILE_FLAGS region: bit 0 collides, bit 1
 * opaque. Ids without a meaning get 0 (free, transparent); TILE_BORDER and
 * TILE_UNKNOWN always collide, whatever the meanings say.
 */
export function tileFlagsTable(meanings: TileMeanings): Uint8Array {
  const table = new Uint8Array(TILE_ID_COUNT);
  // A Map iterates [id, meaning] pairs; its values are the meanings.
  const tiles = meanings instanceof Map ? meanings.values() : "tiles" in meanings ? meanings.tiles : meanings;
  for (const tile of tiles as Iterable<TileMeaning>) table[tile.id] = tileFlagsOf(tile);
  table[TILE_BORDER] = TILE_FLAG_COLLIDES;
  table[TILE_UNKNOWN] = TILE_FLAG_COLLIDES;
  return table;
}

/**
 * Whether tile id `tile` may be stood on under the flags table `flags` (read
 * from `offset`, so a view of the whole wasm memory serves with offset
 * TILE_FLAGS): not a reserved id and no COLLIDES bit. The tile predicate of THE
 * movement rule; the rule adds the grid's bounds and the no-corner-cutting test.
 */
export function isFreeTile(flags: Uint8Array, tile: number, offset = 0): boolean {
  return tile < TILE_BORDER && (flags[offset + tile] & TILE_FLAG_COLLIDES) === 0;
}
