// Deterministic inputs shared by the suites: seeded generators only, so every
// run (and every other host) sees the same bytes.

/** xorshift32 in [0, 1). */
export function xorshift(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 4294967296;
  };
}

/**
 * Cellular-automaton cave walls (1 = wall): `wallShare` noise from `random`,
 * then `rounds` of the 5-of-9 rule, outside the grid counting as wall. The
 * pathfinding suite and the golden vectors (test/support/make-vectors.ts) both draw
 * their caves with it.
 */
export function caveWalls(size: number, random: () => number, wallShare: number, rounds: number): Uint8Array {
  let wall = Uint8Array.from({ length: size * size }, () => (random() < wallShare ? 1 : 0));
  for (let round = 0; round < rounds; round++) {
    const next = new Uint8Array(size * size);
    for (let y = 0; y < size; y++) {
      for (let x = 0; x < size; x++) {
        let walls = 0;
        for (let dy = -1; dy <= 1; dy++) {
          for (let dx = -1; dx <= 1; dx++) {
            const nx = x + dx;
            const ny = y + dy;
            walls += nx < 0 || ny < 0 || nx >= size || ny >= size ? 1 : wall[ny * size + nx];
          }
        }
        next[y * size + x] = walls >= 5 ? 1 : 0;
      }
    }
    wall = next;
  }
  return wall;
}

/** mulberry32 in [0, 1): better low bits than xorshift, used for grids and bots (the project's one copy). */
export { mulberry32 } from "../../ts/random.js";

/** A cave chunk with the default tile ids: walls from a cellular automaton, floor speckled with variants (6 ids). */
export function caveChunk(seed: number): Uint16Array {
  const random = xorshift(seed);
  let wall = Uint8Array.from({ length: 34 * 34 }, () => (random() < 0.45 ? 1 : 0));
  for (let step = 0; step < 4; step++) {
    const next = new Uint8Array(34 * 34);
    for (let y = 0; y < 34; y++) {
      for (let x = 0; x < 34; x++) {
        let walls = 0;
        for (let dy = -1; dy <= 1; dy++) {
          for (let dx = -1; dx <= 1; dx++) {
            const nx = x + dx;
            const ny = y + dy;
            walls += nx < 0 || ny < 0 || nx >= 34 || ny >= 34 ? 1 : wall[ny * 34 + nx];
          }
        }
        next[y * 34 + x] = walls >= 5 ? 1 : 0;
      }
    }
    wall = next;
  }
  const tiles = new Uint16Array(1024);
  for (let y = 0; y < 32; y++) {
    for (let x = 0; x < 32; x++) {
      const roll = random();
      const isWall = wall[(y + 1) * 34 + x + 1] === 1;
      tiles[y * 32 + x] = isWall ? (roll < 0.15 ? 6 : 5) : roll < 0.08 ? 2 : roll < 0.14 ? 3 : roll < 0.16 ? 11 : 1;
    }
  }
  return tiles;
}

/** 64 distinct large ids scattered at random: the worst case the chunk format allows. */
export function scatteredChunk(seed: number): Uint16Array {
  const random = xorshift(seed);
  return Uint16Array.from({ length: 1024 }, (_, i) => 1000 + 977 * (i < 64 ? i : Math.floor(random() * 64)));
}

/**
 * A chunk of `ids` distinct scattered ids (the first `ids` cells hold each once), like the
 * multi-layer Tiled maps' chunks (island.tmx 119 ids, sourceoftales 248): a ChunkWidePacket.
 */
export function wideChunk(seed: number, ids: number): Uint16Array {
  const random = xorshift(seed);
  return Uint16Array.from({ length: 1024 }, (_, i) => 3000 + 13 * (i < ids ? i : Math.floor(random() * ids)));
}

/** Random bytes. */
export function randomBytes(seed: number, length: number): Uint8Array {
  const random = xorshift(seed);
  return Uint8Array.from({ length }, () => Math.floor(random() * 256));
}

/**
 * A perfect maze (one path between any two cells) on the odd lattice of a
 * size × size grid, corridors one cell wide: 1 = open. "kruskal" joins random
 * edges of a spanning tree (many short dead ends, shortest paths of ~1,000
 * steps at 256²); "backtracker" is a depth-first walk (long winding corridors:
 * shortest paths past 10,000 steps at 256², beyond A*'s old 4,096-step cap).
 */
export function perfectMazeOpen(size: number, random: () => number, kind: "kruskal" | "backtracker"): Uint8Array {
  const cells = (size - 1) >> 1; // cells at odd coordinates 1, 3, ..., 2*cells-1
  const open = new Uint8Array(size * size);
  const carve = (cell: number, other: number) => {
    const [ax, ay, bx, by] = [cell % cells, Math.floor(cell / cells), other % cells, Math.floor(other / cells)];
    open[(ay + by + 1) * size + ax + bx + 1] = 1; // the wall cell between the two
  };
  for (let cy = 0; cy < cells; cy++) for (let cx = 0; cx < cells; cx++) open[(2 * cy + 1) * size + 2 * cx + 1] = 1;
  if (kind === "kruskal") {
    const parent = Int32Array.from({ length: cells * cells }, (_, i) => i);
    const find = (i: number): number => {
      while (parent[i] !== i) i = parent[i] = parent[parent[i]];
      return i;
    };
    const edges: number[] = [];
    for (let cy = 0; cy < cells; cy++) {
      for (let cx = 0; cx < cells; cx++) {
        if (cx + 1 < cells) edges.push((cy * cells + cx) * 2);
        if (cy + 1 < cells) edges.push((cy * cells + cx) * 2 + 1);
      }
    }
    for (let i = edges.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [edges[i], edges[j]] = [edges[j], edges[i]];
    }
    for (const edge of edges) {
      const cell = edge >> 1;
      const other = edge & 1 ? cell + cells : cell + 1;
      const a = find(cell);
      const b = find(other);
      if (a === b) continue;
      parent[a] = b;
      carve(cell, other);
    }
    return open;
  }
  const seen = new Uint8Array(cells * cells);
  const stack = [0];
  seen[0] = 1;
  const next: number[] = [];
  while (stack.length > 0) {
    const cell = stack[stack.length - 1];
    const cx = cell % cells;
    const cy = Math.floor(cell / cells);
    next.length = 0;
    if (cy > 0 && !seen[cell - cells]) next.push(cell - cells);
    if (cx + 1 < cells && !seen[cell + 1]) next.push(cell + 1);
    if (cy + 1 < cells && !seen[cell + cells]) next.push(cell + cells);
    if (cx > 0 && !seen[cell - 1]) next.push(cell - 1);
    if (next.length === 0) {
      stack.pop();
      continue;
    }
    const other = next[Math.floor(random() * next.length)];
    seen[other] = 1;
    carve(cell, other);
    stack.push(other);
  }
  return open;
}
