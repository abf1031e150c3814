// Narrowing a chunk for a seed-only client (seed-chunk.ts, docs/protocol.md § 7.2), alone: every cell
// keeps its tile's class, at most 64 ids remain, a dropped id becomes the kept one that draws most like it,
// and the same chunk always narrows the same way.
import { describe, expect, it } from "vitest";
import { CHUNK_TILE_COUNT, PALETTE_MAX, TILE_BORDER, TILE_FLAG_COLLIDES, TILE_FLAG_OPAQUE } from "../../constants.js";
import { ChunkNarrowing } from "./seed-chunk.js";

/** Ids 1 … 1023 in four classes by id % 4 (free, collides, opaque, both), each drawn as [ground, id]. */
function classes(): { flags: Uint8Array; drawn: Map<number, number[]> } {
  const flags = new Uint8Array(65536);
  const drawn = new Map<number, number[]>();
  for (let id = 1; id < 2000; id++) {
    flags[id] =
      (id % 4 === 1 ? TILE_FLAG_COLLIDES : 0) | (id % 4 === 2 ? TILE_FLAG_OPAQUE : 0) | (id % 4 === 3 ? 3 : 0);
    drawn.set(id, [100 + (id % 4), id]);
  }
  return { flags, drawn };
}

const classOf = (flags: Uint8Array, id: number) =>
  id === TILE_BORDER ? 4 : flags[id] & (TILE_FLAG_COLLIDES | TILE_FLAG_OPAQUE);

describe("ChunkNarrowing", () => {
  it("leaves a chunk of at most 64 ids as it is", () => {
    const { flags, drawn } = classes();
    const narrowing = new ChunkNarrowing({ flags, drawnOf: (id) => drawn.get(id) });
    const tiles = new Uint16Array(CHUNK_TILE_COUNT).map((_, index) => 1 + (index % 64));
    const before = tiles.slice();
    expect(narrowing.narrow(tiles)).toBe(0);
    expect(tiles).toEqual(before);
  });

  it("narrows 1024 distinct ids to 64, every cell of its own class, the border kept, the same way every time", () => {
    const { flags, drawn } = classes();
    const narrowing = new ChunkNarrowing({ flags, drawnOf: (id) => drawn.get(id) });
    const tiles = new Uint16Array(CHUNK_TILE_COUNT).map((_, index) => 1 + index);
    tiles[5] = TILE_BORDER;
    const before = tiles.slice();
    expect(narrowing.narrow(tiles)).toBeGreaterThan(900);
    expect(new Set(tiles).size).toBeLessThanOrEqual(PALETTE_MAX);
    for (let index = 0; index < CHUNK_TILE_COUNT; index++) {
      expect(classOf(flags, tiles[index])).toBe(classOf(flags, before[index]));
    }
    expect(tiles[5]).toBe(TILE_BORDER);
    const again = before.slice();
    narrowing.narrow(again);
    expect(again).toEqual(tiles);
  });

  it("gives a dropped id the kept id of its class that draws most like it, then the commonest", () => {
    const flags = new Uint8Array(65536);
    const drawn = new Map<number, number[]>();
    // 70 free ids: id 1 is grass (common), id 2 sand (commoner still); ids 3 … 70 single cells.
    // Id 71 is a flower on grass, on one cell: dropped, it becomes the grass, not the commoner sand.
    drawn.set(1, [500]);
    drawn.set(2, [600]);
    for (let id = 3; id <= 70; id++) drawn.set(id, [1000 + id]);
    drawn.set(71, [500, 900]);
    const tiles = new Uint16Array(CHUNK_TILE_COUNT);
    let cell = 0;
    for (let id = 3; id <= 71; id++) tiles[cell++] = id;
    while (cell < 600) tiles[cell++] = 2;
    while (cell < CHUNK_TILE_COUNT) tiles[cell++] = 1;
    const narrowing = new ChunkNarrowing({ flags, drawnOf: (id) => drawn.get(id) });
    narrowing.narrow(tiles);
    expect(tiles[71 - 3]).toBe(1);
    // An id drawn like none of the kept ones becomes the commonest of its class.
    expect(new Set(tiles).size).toBe(PALETTE_MAX);
    const dropped = [...Array(69).keys()].map((i) => tiles[i]).filter((id, i) => id !== i + 3);
    expect(dropped.filter((id) => id !== 2 && id !== 1)).toEqual([]);
  });

  it("refuses a chunk of the wrong size", () => {
    const { flags, drawn } = classes();
    const narrowing = new ChunkNarrowing({ flags, drawnOf: (id) => drawn.get(id) });
    expect(() => narrowing.narrow(new Uint16Array(10))).toThrow(/1024 tiles/);
  });
});
