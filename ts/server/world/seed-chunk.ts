// A chunk for a client that reads only the seed's ChunkPacket (docs/protocol.md § 7.2). A chunk of more
// than 64 tile ids is sent as ChunkWidePackets, which such a client drops: the chunk never completed for
// it, its area stayed unknown and solid, and a player on 6 of the 10 real test maps stood in a void. So
// for a session that has not said it reads them, the chunk is narrowed to 64 ids and sent as one standard
// ChunkPacket: every cell keeps its tile's **class** — whether it collides, whether it is opaque (the
// TILE_FLAGS bits), and TILE_BORDER stays itself — so THE movement rule, prediction and A* see exactly
// the grid a full client sees; only the look is approximated.
//
// Which 64: the most common id of each class present, then the most common of the rest. A dropped id
// becomes the kept id of its class that draws most like it — the longest common run of its drawn stack
// from the bottom (a flower on grass becomes the grass; a stack id of a real map lists its layers'
// tiles, any other id its one look), then the commoner, then the lower id. Deterministic: the same
// chunk narrows to the same bytes on every server.
import { CHUNK_TILE_COUNT, PALETTE_MAX, TILE_BORDER, TILE_FLAG_COLLIDES, TILE_FLAG_OPAQUE } from "../../constants.js";

/** What the narrowing reads of a tile id: its TILE_FLAGS bits, and what it draws, bottom to top. */
export interface TileClasses {
  /** 65536 TILE_FLAGS bytes, by tile id. */
  readonly flags: Uint8Array;
  /** The tiles a cell of this id draws, bottom to top (a stack's tiles, or its one look); absent: none known. */
  readonly drawnOf: (id: number) => readonly number[] | undefined;
}

/** The class a cell's id must keep: its collision and opacity bits; TILE_BORDER its own. */
const BORDER_CLASS = 4;
const CLASS_BITS = TILE_FLAG_COLLIDES | TILE_FLAG_OPAQUE;

export class ChunkNarrowing {
  private readonly counts = new Map<number, number>();

  constructor(private readonly classes: TileClasses) {}

  /** The class of tile id `id` (0 … 3: its flag bits; 4: TILE_BORDER). */
  classOf(id: number): number {
    return id === TILE_BORDER ? BORDER_CLASS : this.classes.flags[id] & CLASS_BITS;
  }

  /**
   * Rewrites the chunk's 1024 tile ids in place so that at most PALETTE_MAX distinct ids remain, each
   * cell keeping its class. Returns the number of distinct ids replaced (0: the chunk already fitted).
   */
  narrow(tiles: Uint16Array): number {
    if (tiles.length !== CHUNK_TILE_COUNT)
      throw new RangeError(`a chunk has ${CHUNK_TILE_COUNT} tiles, got ${tiles.length}`);
    const counts = this.counts;
    counts.clear();
    for (let index = 0; index < tiles.length; index++) counts.set(tiles[index], (counts.get(tiles[index]) ?? 0) + 1);
    if (counts.size <= PALETTE_MAX) return 0;
    // Commonest first; equal counts by id, so the choice never depends on the cells' order.
    const byUse = [...counts.keys()].sort((a, b) => counts.get(b)! - counts.get(a)! || a - b);
    const kept = new Set<number>();
    const keptByClass = new Map<number, number[]>();
    const keep = (id: number) => {
      kept.add(id);
      const klass = this.classOf(id);
      const list = keptByClass.get(klass);
      if (list) list.push(id);
      else keptByClass.set(klass, [id]);
    };
    // Every class present first (at most 5 of them), so every dropped id has a kept one of its class.
    for (const id of byUse) if (!keptByClass.has(this.classOf(id))) keep(id);
    for (const id of byUse) {
      if (kept.size >= PALETTE_MAX) break;
      if (!kept.has(id)) keep(id);
    }
    const replacement = new Map<number, number>();
    for (const id of byUse) {
      if (kept.has(id)) continue;
      // Candidates in the order `byUse` kept them: commonest first, so the first best likeness wins ties.
      let best = -1;
      let bestLikeness = -1;
      const drawn = this.classes.drawnOf(id);
      for (const candidate of keptByClass.get(this.classOf(id))!) {
        const likeness = commonBase(drawn, this.classes.drawnOf(candidate));
        if (likeness > bestLikeness) {
          best = candidate;
          bestLikeness = likeness;
        }
      }
      replacement.set(id, best);
    }
    for (let index = 0; index < tiles.length; index++) {
      const to = replacement.get(tiles[index]);
      if (to !== undefined) tiles[index] = to;
    }
    return replacement.size;
  }
}

/** How many tiles two drawn stacks share from the bottom up (0 when either is unknown). */
function commonBase(a: readonly number[] | undefined, b: readonly number[] | undefined): number {
  if (a === undefined || b === undefined) return 0;
  const length = Math.min(a.length, b.length);
  let shared = 0;
  while (shared < length && a[shared] === b[shared]) shared++;
  return shared;
}
