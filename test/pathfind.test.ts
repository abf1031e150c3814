// A* click-to-move: the wasm searches (bucket default, heap variant) and the JS
// reference against an independent breadth-first search under the movement rule.
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { TILE_FLAG_COLLIDES, TILE_UNKNOWN } from "../ts/constants.js";
import { ASTAR_BAD_ENDPOINTS, ASTAR_BUDGET_EXHAUSTED, ASTAR_NO_PATH, PATH_MAX } from "../ts/ref/pathfind.js";
import { ACTION_DX, ACTION_DY } from "../ts/protocol/action.js";
import { RefGrid } from "../ts/ref/sim.js";
import type { Core } from "../ts/wasm/core.js";
import { loadCore } from "../ts/wasm/node.js";
import { WasmSim, type PathResult } from "../ts/wasm/sim.js";
import { mulberry32 } from "../ts/random.js";
import { perfectMazeOpen } from "../bench/lib/data.js";

const FLOOR = 1;
const WALL = 5;
const UNLIMITED = 0x7fffffff;

let core: Core;
let sim: WasmSim;

beforeAll(async () => {
  core = await loadCore();
  sim = new WasmSim(core);
});

/** Random walls (and some unknown cells) over floor. */
function randomGrid(
  seed: number,
  width: number,
  height: number,
  wallDensity: number,
  unknownDensity = 0,
  originX = 0,
  originY = 0,
): RefGrid {
  const random = mulberry32(seed);
  const ref = new RefGrid(width, height, originX, originY);
  ref.flags[WALL] = TILE_FLAG_COLLIDES;
  for (let i = 0; i < ref.tiles.length; i++) {
    const r = random();
    ref.tiles[i] = r < wallDensity ? WALL : r < wallDensity + unknownDensity ? TILE_UNKNOWN : FLOOR;
  }
  return ref;
}

/** A depth-first perfect maze (bench/lib/data.ts): one-wide corridors, shortest paths past 4096 steps. */
function backtrackerMaze(size: number, seed: number): RefGrid {
  const open = perfectMazeOpen(size, mulberry32(seed), "backtracker");
  const ref = new RefGrid(size, size);
  ref.flags[WALL] = TILE_FLAG_COLLIDES;
  for (let i = 0; i < open.length; i++) ref.tiles[i] = open[i] ? FLOOR : WALL;
  return ref;
}

function mirror(ref: RefGrid): void {
  expect(sim.initGrid(ref.width, ref.height, ref.originX, ref.originY)).toBe(true);
  sim.tiles.set(ref.tiles);
  sim.setFlags(ref.flags);
}

/** Step distances from world (x, y) by breadth-first search under ref.stepAllowed; -1 unreachable. */
function bfsDistances(ref: RefGrid, x: number, y: number): Int32Array {
  const distance = new Int32Array(ref.width * ref.height).fill(-1);
  const index = (wx: number, wy: number) => (wy - ref.originY) * ref.width + (wx - ref.originX);
  distance[index(x, y)] = 0;
  const queue = [[x, y]];
  for (let head = 0; head < queue.length; head++) {
    const [cx, cy] = queue[head];
    for (let action = 1; action <= 8; action++) {
      if (!ref.stepAllowed(cx, cy, action)) continue;
      const nx = cx + ACTION_DX[action];
      const ny = cy + ACTION_DY[action];
      if (distance[index(nx, ny)] !== -1) continue;
      distance[index(nx, ny)] = distance[index(cx, cy)] + 1;
      queue.push([nx, ny]);
    }
  }
  return distance;
}

/** Whether `path` walks from start to goal, every step allowed by the reference rule. */
function walks(ref: RefGrid, path: Uint8Array, sx: number, sy: number, gx: number, gy: number): boolean {
  let x = sx;
  let y = sy;
  for (const action of path) {
    if (action < 1 || action > 8 || !ref.stepAllowed(x, y, action)) return false;
    x += ACTION_DX[action];
    y += ACTION_DY[action];
  }
  return x === gx && y === gy;
}

/** Checks one search result against the BFS answer; returns a failure description or null. */
function judge(
  ref: RefGrid,
  result: PathResult,
  sx: number,
  sy: number,
  gx: number,
  gy: number,
  distance: number,
): string | null {
  if (distance < 0) return result.status === ASTAR_NO_PATH ? null : `expected no path, got ${result.status}`;
  if (result.status !== distance) return `expected length ${distance}, got ${result.status}`;
  if (result.path.length !== distance) return `path has ${result.path.length} actions`;
  return walks(ref, result.path, sx, sy, gx, gy) ? null : "path is not walkable to the goal";
}

describe("A*", () => {
  it("finds step-optimal, walkable paths on random grids; wasm bucket = JS reference (property)", () => {
    fc.assert(
      fc.property(
        fc.record({
          seed: fc.integer(),
          width: fc.integer({ min: 1, max: 40 }),
          height: fc.integer({ min: 1, max: 40 }),
          walls: fc.double({ min: 0, max: 0.5, noNaN: true }),
          unknown: fc.double({ min: 0, max: 0.1, noNaN: true }),
          originX: fc.integer({ min: -1000, max: 1000 }),
          originY: fc.integer({ min: -1000, max: 1000 }),
        }),
        fc.array(fc.tuple(fc.nat(), fc.nat()), { minLength: 1, maxLength: 8 }),
        (g, pairs) => {
          const ref = randomGrid(g.seed, g.width, g.height, g.walls, g.unknown, g.originX, g.originY);
          mirror(ref);
          const cells = g.width * g.height;
          for (const [a, b] of pairs) {
            const sx = g.originX + ((a % cells) % g.width);
            const sy = g.originY + Math.floor((a % cells) / g.width);
            const gx = g.originX + ((b % cells) % g.width);
            const gy = g.originY + Math.floor((b % cells) / g.width);
            const bucket = sim.astar(sx, sy, gx, gy, UNLIMITED);
            const heap = sim.astar(sx, sy, gx, gy, UNLIMITED, "heap");
            const reference = ref.astar(sx, sy, gx, gy, UNLIMITED);
            if (!ref.isFree(gx, gy) && (sx !== gx || sy !== gy)) {
              expect([bucket.status, heap.status, reference.status]).toEqual([-4, -4, -4]);
              continue;
            }
            const distance = bfsDistances(ref, sx, sy)[(gy - g.originY) * g.width + (gx - g.originX)];
            expect(judge(ref, bucket, sx, sy, gx, gy, distance)).toBeNull();
            expect(judge(ref, heap, sx, sy, gx, gy, distance)).toBeNull();
            expect(judge(ref, reference, sx, sy, gx, gy, distance)).toBeNull();
            expect(bucket.path).toEqual(reference.path);
          }
        },
      ),
      { seed: 1337, numRuns: 400 },
    );
  });

  it("stays correct over many consecutive searches on one grid, across edits and re-inits", () => {
    const random = mulberry32(99);
    for (let round = 0; round < 3; round++) {
      const width = 24 + round * 9;
      const height = 31 - round * 5;
      const ref = randomGrid(1000 + round, width, height, 0.3);
      mirror(ref);
      for (let search = 0; search < 700; search++) {
        if (search % 50 === 49) {
          // Edit the grid between searches: stale search state must not leak into the next one.
          const x = Math.floor(random() * width);
          const y = Math.floor(random() * height);
          const tile = random() < 0.5 ? WALL : FLOOR;
          ref.setTile(x, y, tile);
          sim.setTile(x, y, tile);
        }
        const sx = Math.floor(random() * width);
        const sy = Math.floor(random() * height);
        const gx = Math.floor(random() * width);
        const gy = Math.floor(random() * height);
        if (!ref.isFree(gx, gy) || (sx === gx && sy === gy)) continue;
        const distance = bfsDistances(ref, sx, sy)[gy * width + gx];
        const queue = search % 2 === 0 ? "bucket" : "heap";
        expect(judge(ref, sim.astar(sx, sy, gx, gy, UNLIMITED, queue), sx, sy, gx, gy, distance)).toBeNull();
      }
    }
  });

  it("returns 0 for start == goal and -4 for endpoints outside the grid or a blocked goal", () => {
    const ref = randomGrid(5, 10, 10, 0);
    ref.setTile(7, 7, WALL);
    mirror(ref);
    for (const queue of ["bucket", "heap"] as const) {
      expect(sim.astar(3, 3, 3, 3, UNLIMITED, queue)).toEqual({ status: 0, path: new Uint8Array(0) });
      expect(sim.astar(3, 3, 7, 7, UNLIMITED, queue).status).toBe(ASTAR_BAD_ENDPOINTS);
      expect(sim.astar(-1, 3, 5, 5, UNLIMITED, queue).status).toBe(ASTAR_BAD_ENDPOINTS);
      expect(sim.astar(3, 3, 10, 5, UNLIMITED, queue).status).toBe(ASTAR_BAD_ENDPOINTS);
      expect(sim.astar(3, 3, 5, 2147483647, UNLIMITED, queue).status).toBe(ASTAR_BAD_ENDPOINTS);
    }
    expect(ref.astar(3, 3, 7, 7, UNLIMITED).status).toBe(ASTAR_BAD_ENDPOINTS);
    expect(ref.astar(3, 3, 3, 3, UNLIMITED).status).toBe(0);
  });

  it("returns -1 when the goal is walled in, also through diagonal gaps (no corner cutting)", () => {
    const rows = ["..........", "..........", "...#......", "..#.#.....", "...#......", ".........."];
    const ref = new RefGrid(10, 6);
    ref.flags[WALL] = TILE_FLAG_COLLIDES;
    rows.forEach((row, y) => [...row].forEach((ch, x) => ref.setTile(x, y, ch === "#" ? WALL : FLOOR)));
    mirror(ref);
    expect(sim.astar(0, 0, 3, 3, UNLIMITED).status).toBe(ASTAR_NO_PATH);
    expect(sim.astar(0, 0, 3, 3, UNLIMITED, "heap").status).toBe(ASTAR_NO_PATH);
    expect(ref.astar(0, 0, 3, 3, UNLIMITED).status).toBe(ASTAR_NO_PATH);
    expect(sim.astar(3, 3, 0, 0, UNLIMITED).status).toBe(ASTAR_NO_PATH);
    // Unknown cells block too: the only gap in this wall is unknown ground.
    const gapRef = new RefGrid(5, 3);
    gapRef.flags[WALL] = TILE_FLAG_COLLIDES;
    ["..#..", "..?..", "..#.."].forEach((row, y) =>
      [...row].forEach((ch, x) => gapRef.setTile(x, y, ch === "#" ? WALL : ch === "?" ? TILE_UNKNOWN : FLOOR)),
    );
    mirror(gapRef);
    expect(sim.astar(0, 0, 4, 0, UNLIMITED).status).toBe(ASTAR_NO_PATH);
    expect(sim.astar(0, 0, 4, 0, UNLIMITED, "heap").status).toBe(ASTAR_NO_PATH);
    expect(gapRef.astar(0, 0, 4, 0, UNLIMITED).status).toBe(ASTAR_NO_PATH);
    sim.setTile(2, 1, FLOOR);
    expect(sim.astar(0, 0, 4, 0, UNLIMITED).status).toBe(4);
  });

  it("returns -2 when the node budget runs out, and succeeds with exactly the nodes it needs", () => {
    const ref = randomGrid(31, 60, 60, 0.3);
    mirror(ref);
    const random = mulberry32(8);
    let checked = 0;
    while (checked < 40) {
      const sx = Math.floor(random() * 60);
      const sy = Math.floor(random() * 60);
      const gx = Math.floor(random() * 60);
      const gy = Math.floor(random() * 60);
      if (!ref.isFree(gx, gy) || (sx === gx && sy === gy)) continue;
      checked++;
      for (const queue of ["bucket", "heap"] as const) {
        const full = sim.astar(sx, sy, gx, gy, UNLIMITED, queue);
        const needed = sim.lastExpanded;
        expect(needed).toBeGreaterThan(0);
        expect(sim.astar(sx, sy, gx, gy, needed, queue)).toEqual(full);
        expect(sim.astar(sx, sy, gx, gy, needed - 1, queue).status).toBe(ASTAR_BUDGET_EXHAUSTED);
        expect(sim.lastExpanded).toBe(needed - 1);
        expect(sim.astar(sx, sy, gx, gy, 0, queue).status).toBe(ASTAR_BUDGET_EXHAUSTED);
      }
      // The reference runs the same search, so it needs exactly as many nodes as wasm astar.
      const full = sim.astar(sx, sy, gx, gy, UNLIMITED);
      const needed = sim.lastExpanded;
      expect(ref.astar(sx, sy, gx, gy, needed)).toEqual(full);
      expect(ref.astar(sx, sy, gx, gy, needed - 1).status).toBe(ASTAR_BUDGET_EXHAUSTED);
    }
  });

  it("delivers paths longer than PATH_MAX whole, step-optimal, in PATH_OUT's first PATH_MAX steps too", () => {
    expect(core.layout.PATH_MAX).toBe(PATH_MAX);
    // A serpentine: walls on every odd row with a gap alternating between the ends.
    const width = 100;
    const height = 101;
    const ref = new RefGrid(width, height);
    ref.flags[WALL] = TILE_FLAG_COLLIDES;
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const gap = (y >> 1) % 2 === 0 ? width - 1 : 0;
        ref.setTile(x, y, y % 2 === 1 && x !== gap ? WALL : FLOOR);
      }
    }
    mirror(ref);
    const length = bfsDistances(ref, 0, 0)[100 * width];
    expect(length).toBeGreaterThan(PATH_MAX);
    for (const queue of ["bucket", "heap"] as const) {
      const result = sim.astar(0, 0, 0, 100, UNLIMITED, queue);
      expect(judge(ref, result, 0, 0, 0, 100, length)).toBeNull();
      // PATH_OUT keeps the old contract for hosts that read it: the path's first PATH_MAX steps.
      const out = core.layout.PATH_OUT;
      expect(core.u8.slice(out, out + PATH_MAX)).toEqual(result.path.subarray(0, PATH_MAX));
      // readPath reads the whole path, not just PATH_OUT.
      const copy = new Uint8Array(length + 5);
      expect(sim.readPath(copy, length)).toBe(length);
      expect(copy.subarray(0, length)).toEqual(result.path);
    }
    const reference = ref.astar(0, 0, 0, 100, UNLIMITED);
    expect(judge(ref, reference, 0, 0, 0, 100, length)).toBeNull();
    expect(sim.astar(0, 0, 0, 100, UNLIMITED).path).toEqual(reference.path);
    // A failed search leaves nothing to read.
    expect(sim.astar(0, 0, 0, 100, 10).status).toBe(ASTAR_BUDGET_EXHAUSTED);
    expect(sim.readPath(new Uint8Array(8), 8)).toBe(0);
  });

  it("finds paths of more than 4096 steps through a 256² perfect maze, step-optimal, equal to the reference", () => {
    const size = 256;
    const ref = backtrackerMaze(size, 11);
    mirror(ref);
    const random = mulberry32(12);
    const open: number[] = [];
    for (let i = 0; i < size * size; i++) if (ref.tiles[i] === FLOOR) open.push(i);
    let long = 0;
    for (let attempt = 0; attempt < 40 && long < 6; attempt++) {
      const a = open[Math.floor(random() * open.length)];
      const distances = bfsDistances(ref, a % size, Math.floor(a / size));
      // The farthest cell from a: the longest shortest path from here.
      let b = a;
      for (const cell of open) if (distances[cell] > distances[b]) b = cell;
      if (distances[b] <= PATH_MAX) continue;
      long++;
      const [sx, sy, gx, gy] = [a % size, Math.floor(a / size), b % size, Math.floor(b / size)];
      const result = sim.astar(sx, sy, gx, gy, UNLIMITED);
      expect(judge(ref, result, sx, sy, gx, gy, distances[b])).toBeNull();
      expect(result.path).toEqual(ref.astar(sx, sy, gx, gy, UNLIMITED).path);
      expect(judge(ref, sim.astar(sx, sy, gx, gy, UNLIMITED, "heap"), sx, sy, gx, gy, distances[b])).toBeNull();
    }
    expect(long).toBe(6);
  });

  it("keeps its step mask exact through tile, chunk and flag writes between searches (property)", () => {
    const TILES = [FLOOR, WALL, 7, 8, TILE_UNKNOWN];
    fc.assert(
      fc.property(
        fc.record({
          seed: fc.integer(),
          width: fc.integer({ min: 1, max: 48 }),
          height: fc.integer({ min: 1, max: 48 }),
          originX: fc.integer({ min: -100, max: 100 }),
          originY: fc.integer({ min: -100, max: 100 }),
        }),
        fc.array(fc.nat({ max: 5 }), { minLength: 1, maxLength: 30 }),
        (g, writes) => {
          const random = mulberry32(g.seed);
          const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
          const ref = randomGrid(g.seed, g.width, g.height, 0.3, 0.05, g.originX, g.originY);
          ref.flags[7] = TILE_FLAG_COLLIDES; // 7 collides at first, 8 does not; flag writes may swap them
          mirror(ref);
          const worldX = () => g.originX - 2 + Math.floor(random() * (g.width + 4));
          const worldY = () => g.originY - 2 + Math.floor(random() * (g.height + 4));
          for (const kind of writes) {
            if (kind === 0) {
              const [x, y, tile] = [worldX(), worldY(), pick(TILES)];
              ref.setTile(x, y, tile);
              sim.setTile(x, y, tile);
            } else if (kind === 1) {
              // A chunk that may hang over any edge of the grid.
              const cx = Math.floor((worldX() - 16) / 32);
              const cy = Math.floor((worldY() - 16) / 32);
              const chunk = Uint16Array.from({ length: 1024 }, () => pick(TILES));
              ref.putChunk(cx, cy, chunk);
              sim.putChunk(cx, cy, chunk);
            } else if (kind === 2) {
              const [cx, cy, tile] = [Math.floor(worldX() / 32), Math.floor(worldY() / 32), pick(TILES)];
              ref.fillChunk(cx, cy, tile);
              sim.fillChunk(cx, cy, tile);
            } else if (kind === 3) {
              // Flags change: every cell of tile 7 or 8 changes its answer at once.
              const tile = pick([7, 8, FLOOR]);
              ref.flags[tile] ^= TILE_FLAG_COLLIDES;
              sim.setFlags(ref.flags);
            } else if (kind === 4) {
              // A host writing tiles directly through the view, then saying so.
              const cell = Math.floor(random() * ref.tiles.length);
              ref.tiles[cell] = pick(TILES);
              sim.tiles[cell] = ref.tiles[cell];
              sim.gridChanged();
            } else {
              sim.resetFlags();
              ref.flagsReset();
              sim.setFlags(ref.flags);
            }
            // Every cell's allowed steps, through the searches: from each probe to a few goals.
            for (let probe = 0; probe < 3; probe++) {
              const [sx, sy, gx, gy] = [worldX(), worldY(), worldX(), worldY()];
              const reference = ref.astar(sx, sy, gx, gy, UNLIMITED);
              expect(sim.astar(sx, sy, gx, gy, UNLIMITED)).toEqual(reference);
              expect(sim.astar(sx, sy, gx, gy, UNLIMITED, "heap").status).toBe(reference.status);
            }
          }
          // And the mask itself, cell by cell: one-step searches see exactly the rule's neighbours.
          for (let y = 0; y < g.height; y++) {
            for (let x = 0; x < g.width; x++) {
              const wx = g.originX + x;
              const wy = g.originY + y;
              for (let action = 1; action <= 8; action++) {
                const tx = wx + ACTION_DX[action];
                const ty = wy + ACTION_DY[action];
                if (!ref.isFree(tx, ty)) continue;
                const adjacent = sim.astar(wx, wy, tx, ty, 1).status === 1;
                expect(adjacent).toBe(ref.stepAllowed(wx, wy, action));
              }
            }
          }
        },
      ),
      { seed: 2020, numRuns: 100 },
    );
  });

  it("walks straight and diagonally on open ground", () => {
    const ref = randomGrid(1, 16, 16, 0, 0, -8, -8);
    mirror(ref);
    expect(Array.from(sim.astar(-8, -8, 7, 7, UNLIMITED).path)).toEqual(new Array(15).fill(6));
    expect(Array.from(sim.astar(0, 0, 0, -5, UNLIMITED).path)).toEqual(new Array(5).fill(1));
    expect(sim.astar(-8, 0, 7, 3, UNLIMITED).status).toBe(15);
  });
});
