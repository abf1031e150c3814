// What is drawn in one cell: the stack of (GID with its flip bits, where the
// tile is anchored) from every visible drawn layer, bottom to top. A tile
// larger than the map's grid (sourceoftales: 96×96 trunks on a 32 px grid), or
// shifted by its tileset's tileoffset, also lies over neighbouring cells: it is
// anchored, as Tiled draws orthogonal maps, at the bottom-left of its own cell,
// and every cell it covers gets a piece of it in its stack. The flattener
// gives each distinct (stack, flags) its own world id (docs/maps.md § Stacks).
import { GID_TILE_MASK, isFreeObjectGid } from "./gid.js";
import { tileSizeOf, type Tileset } from "./tileset.js";

/** Tiled's flip bits (docs/maps.md § Formats). The diagonal flip swaps x and y before the other two apply. */
export const GID_FLIP_HORIZONTAL = 0x80000000;
export const GID_FLIP_VERTICAL = 0x40000000;
export const GID_FLIP_DIAGONAL = 0x20000000;
/** The bits a stack keeps: the three flips and the tile (the hexagonal rotation bit means nothing here). */
export const STACK_GID_BITS = 0xe0000000 | GID_TILE_MASK;

/**
 * Numbers per stack entry: the GID with its flips, the anchor cell's offset from the drawn cell (dx, dy),
 * how opaque its layer is drawn, 0 … 255 (OPAQUE: as the tile's own pixels say; Tiled's layer opacity), and
 * the colour its layer tints it with, 0xRRGGBB (NO_TINT: its own colours; Tiled's layer `tintcolor`).
 */
export const STACK_ENTRY_LENGTH = 5;
/** A stack entry's alpha for a layer drawn fully opaque. */
export const OPAQUE = 255;
/** A stack entry's tint for a layer drawn in its tiles' own colours (white multiplies nothing). */
export const NO_TINT = 0xffffff;

/** A layer's opacity (0 … 1) as a stack entry's alpha. */
export function stackAlpha(opacity: number | undefined): number {
  return opacity === undefined ? OPAQUE : Math.round(Math.min(1, Math.max(0, opacity)) * OPAQUE);
}

/** The stack of one tile drawn as its tileset has it: anchored (dx, dy) away, opaque, untinted. */
export function plainEntry(rawGid: number, dx = 0, dy = 0): number[] {
  return [rawGid, dx, dy, OPAQUE, NO_TINT];
}

/** The cells a tile covers, relative to its anchor cell (first..last, inclusive). */
export interface Footprint {
  firstDx: number;
  lastDx: number;
  firstDy: number;
  lastDy: number;
}

const ONE_CELL: Footprint = { firstDx: 0, lastDx: 0, firstDy: 0, lastDy: 0 };

/** Footprints of a map's tiles on its grid, computed once per (tile, diagonal flip). */
export class Footprints {
  private readonly byKey = new Map<number, Footprint>();
  private readonly descending: Tileset[];

  constructor(
    tilesets: readonly Tileset[],
    private readonly cellWidthPx: number,
    private readonly cellHeightPx: number,
  ) {
    this.descending = [...tilesets].sort((a, b) => b.firstGid - a.firstGid);
  }

  /** The tileset a (masked) GID belongs to, or undefined (a free-placed tile object's GID belongs to none). */
  owner(gid: number): Tileset | undefined {
    if (isFreeObjectGid(gid)) return undefined;
    return this.descending.find((tileset) => tileset.firstGid <= gid);
  }

  of(rawGid: number): Footprint {
    const gid = rawGid & GID_TILE_MASK;
    const diagonal = (rawGid & GID_FLIP_DIAGONAL) !== 0;
    const key = gid * 2 + (diagonal ? 1 : 0);
    let footprint = this.byKey.get(key);
    if (footprint === undefined) {
      footprint = this.compute(gid, diagonal);
      this.byKey.set(key, footprint);
    }
    return footprint;
  }

  private compute(gid: number, diagonal: boolean): Footprint {
    const tileset = this.owner(gid);
    const cellW = this.cellWidthPx;
    const cellH = this.cellHeightPx;
    if (!tileset || cellW <= 0 || cellH <= 0) return ONE_CELL;
    const size = tileSizeOf(tileset, gid - tileset.firstGid);
    const width = diagonal ? size.heightPx : size.widthPx;
    const height = diagonal ? size.widthPx : size.heightPx;
    if (width <= 0 || height <= 0) return ONE_CELL;
    const { offsetXPx, offsetYPx } = tileset.art;
    // The tile's box relative to its cell's top-left: bottom-left at the cell's bottom-left, then the offset.
    const left = offsetXPx;
    const bottom = cellH + offsetYPx;
    return {
      firstDx: Math.floor(left / cellW),
      lastDx: Math.floor((left + width - 1) / cellW),
      firstDy: Math.floor((bottom - height) / cellH),
      lastDy: Math.floor((bottom - 1) / cellH),
    };
  }
}

/** A stack's entries as the world description writes them: [{ gid, flips, dx, dy, alpha }]. */
export function describeStack(
  stack: readonly number[],
): { gid: number; flips: number; dx: number; dy: number; alpha: number; tint: number }[] {
  const entries = [];
  for (let at = 0; at < stack.length; at += STACK_ENTRY_LENGTH) {
    const raw = stack[at] >>> 0;
    entries.push({
      gid: raw & GID_TILE_MASK,
      flips: raw >>> 29,
      dx: stack[at + 1],
      dy: stack[at + 2],
      alpha: stack[at + 3],
      tint: stack[at + 4],
    });
  }
  return entries;
}
