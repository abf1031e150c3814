// Tiled global tile ids (GIDs) carry orientation in their top four bits:
// 0x80000000 horizontal flip, 0x40000000 vertical flip, 0x20000000 diagonal
// flip (rotation), 0x10000000 hexagonal 120° rotation. The world has no
// orientation, so all four are masked off. Flipped GIDs are >= 2^31, which JS
// bitwise operators see as negative; the mask clears bit 31, so the result of
// `&` is already a non-negative number.

/** The four orientation bits of a GID. */
export const GID_FLAG_BITS = 0xf0000000;
/** Bits of a GID that name the tile. */
export const GID_TILE_MASK = 0x0fffffff;

/** Largest tile id the wire can carry: ids are u16 and 0xFFFE/0xFFFF are reserved (border, unknown). */
export const MAX_WORLD_TILE_ID = 0xfffd;

/** A raw GID (flags included, 0..2^32-1) without its orientation bits. */
export function maskGid(rawGid: number): number {
  return rawGid & GID_TILE_MASK;
}

/**
 * Stack GIDs from here up name no tile of a tileset but a free-placed tile object (tile-objects.ts): GID
 * FREE_OBJECT_GID_BASE + i is the map's free object i, drawn at its own place and size. They appear only in
 * stacks (art), never as a cell's id; no tileset reaches them, as a drawn GID above MAX_WORLD_TILE_ID is refused.
 */
export const FREE_OBJECT_GID_BASE = 0x0f000000;

/** Whether a (masked) stack GID names a free-placed tile object rather than a tile. */
export function isFreeObjectGid(gid: number): boolean {
  return gid >= FREE_OBJECT_GID_BASE && gid <= GID_TILE_MASK;
}
