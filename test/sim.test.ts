// The grid, THE movement rule and prediction replay: wasm (real module) against
// hand-made cases and against the JS reference (ts/ref/sim.ts).
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { TILE_BORDER, TILE_FLAG_COLLIDES, TILE_UNKNOWN } from "../ts/constants.js";
import { ACTION_DX, ACTION_DY } from "../ts/protocol/action.js";
import { RefGrid, type PendingStep } from "../ts/ref/sim.js";
import type { Core } from "../ts/wasm/core.js";
import { loadCore } from "../ts/wasm/node.js";
import { WasmSim } from "../ts/wasm/sim.js";
import { mulberry32 } from "../ts/random.js";

const FLOOR = 1;
const WALL = 5;
const WATER = 9;
const N = 1, E = 2, S = 3, W = 4, NE = 5, SE = 6, SW = 7, NW = 8; // prettier-ignore

/** Tile data of the default map for the ids these tests use. */
const FLAGS = new Map([
  [WALL, TILE_FLAG_COLLIDES | 2],
  [WATER, TILE_FLAG_COLLIDES],
]);

let core: Core;
let sim: WasmSim;

beforeAll(async () => {
  core = await loadCore();
  sim = new WasmSim(core);
});

/** A grid in wasm and in the reference from rows of characters: . floor, # wall, ? unknown, B border, ~ water. */
function loadRows(rows: string[], originX: number, originY: number): RefGrid {
  const height = rows.length;
  const width = rows[0].length;
  const ref = new RefGrid(width, height, originX, originY);
  for (const [tile, bits] of FLAGS) ref.flags[tile] = bits;
  expect(sim.initGrid(width, height, originX, originY)).toBe(true);
  sim.setFlags(FLAGS);
  const ids: Record<string, number> = { ".": FLOOR, "#": WALL, "?": TILE_UNKNOWN, B: TILE_BORDER, "~": WATER };
  rows.forEach((row, y) =>
    [...row].forEach((ch, x) => {
      sim.setTile(originX + x, originY + y, ids[ch]);
      ref.setTile(originX + x, originY + y, ids[ch]);
    }),
  );
  return ref;
}

/** Copies a reference grid (tiles and flags) into the wasm module. */
function mirror(ref: RefGrid): void {
  expect(sim.initGrid(ref.width, ref.height, ref.originX, ref.originY)).toBe(true);
  sim.tiles.set(ref.tiles);
  sim.setFlags(ref.flags);
}

/** A random grid whose tiles are floor, wall, water, unknown or border. */
function randomGrid(seed: number, width: number, height: number, originX: number, originY: number): RefGrid {
  const random = mulberry32(seed);
  const ref = new RefGrid(width, height, originX, originY);
  for (const [tile, bits] of FLAGS) ref.flags[tile] = bits;
  const palette = [FLOOR, FLOOR, FLOOR, FLOOR, WALL, WATER, TILE_UNKNOWN, TILE_BORDER];
  for (let i = 0; i < ref.tiles.length; i++) ref.tiles[i] = palette[Math.floor(random() * palette.length)];
  return ref;
}

const gridArbitrary = fc.record({
  seed: fc.integer(),
  width: fc.integer({ min: 1, max: 12 }),
  height: fc.integer({ min: 1, max: 12 }),
  originX: fc.integer({ min: -100, max: 100 }),
  originY: fc.integer({ min: -100, max: 100 }),
});

describe("movement rule", () => {
  it("allows each of the 8 directions onto free ground, with the action's offset", () => {
    const ref = loadRows([".....", ".....", ".....", ".....", "....."], 100, -50);
    const expected = [
      [N, 0, -1],
      [E, 1, 0],
      [S, 0, 1],
      [W, -1, 0],
      [NE, 1, -1],
      [SE, 1, 1],
      [SW, -1, 1],
      [NW, -1, -1],
    ];
    for (const [action, dx, dy] of expected) {
      expect(sim.stepAllowed(102, -48, action)).toBe(true);
      expect(ref.stepAllowed(102, -48, action)).toBe(true);
      expect([sim.actionDx(action), sim.actionDy(action)]).toEqual([dx, dy]);
      expect([ACTION_DX[action], ACTION_DY[action]]).toEqual([dx, dy]);
    }
    expect(sim.allowedSteps(102, -48)).toBe(0x1ff);
    expect([sim.actionDx(0), sim.actionDy(0), sim.actionDx(9), sim.actionDy(-3)]).toEqual([0, 0, 0, 0]);
  });

  it("blocks a step into a colliding tile", () => {
    loadRows(["...", ".#~", "..."], 0, 0);
    expect(sim.stepAllowed(0, 1, E)).toBe(false); // wall
    expect(sim.stepAllowed(1, 2, NE)).toBe(false); // water
    expect(sim.stepAllowed(0, 1, N)).toBe(true);
  });

  it("blocks a diagonal when either orthogonal neighbour collides (no corner cutting)", () => {
    loadRows(["...", "#..", "..."], 0, 0);
    // From (0,0) SE to (1,1): neighbours (1,0) free, (0,1) wall.
    expect(sim.stepAllowed(0, 0, SE)).toBe(false);
    // From (1,0) SW to (0,1) is the wall itself.
    expect(sim.stepAllowed(1, 0, SW)).toBe(false);
    // From (1,2) NW to (0,1): target wall.
    expect(sim.stepAllowed(1, 2, NW)).toBe(false);
    // From (0,2) NE to (1,1): (1,2) free, (0,1) wall.
    expect(sim.stepAllowed(0, 2, NE)).toBe(false);
    // Both orthogonals free.
    expect(sim.stepAllowed(1, 1, NE)).toBe(true);
    loadRows(["..", ".."], 0, 0);
    expect(sim.stepAllowed(0, 0, SE)).toBe(true);
    sim.setTile(1, 0, WALL);
    expect(sim.stepAllowed(0, 0, SE)).toBe(false);
  });

  it("treats unknown cells and cells outside the grid as blocked", () => {
    loadRows([".?.", "...", "..."], 10, 10);
    expect(sim.stepAllowed(10, 11, NE)).toBe(false); // unknown at (11,10) is an orthogonal neighbour
    expect(sim.stepAllowed(11, 11, N)).toBe(false);
    expect(sim.stepAllowed(10, 10, W)).toBe(false); // off the grid
    expect(sim.stepAllowed(10, 10, N)).toBe(false);
    expect(sim.stepAllowed(12, 12, SE)).toBe(false);
    expect(sim.stepAllowed(9, 11, E)).toBe(true); // from outside into the grid: only the target counts
    expect(sim.getTile(9, 9)).toBe(TILE_UNKNOWN);
    // A fresh grid is all unknown.
    expect(sim.initGrid(4, 4, 0, 0)).toBe(true);
    expect(sim.allowedSteps(1, 1)).toBe(1);
  });

  it("blocks border and unknown tiles even if the host clears their flags", () => {
    loadRows(["...", ".B.", "..."], 0, 0);
    expect(sim.stepAllowed(0, 1, E)).toBe(false);
    const base = core.layout.TILE_FLAGS;
    core.u8[base + TILE_BORDER] = 0;
    core.u8[base + TILE_UNKNOWN] = 0;
    expect(sim.stepAllowed(0, 1, E)).toBe(false);
    expect(sim.stepAllowed(0, 0, N)).toBe(false);
    // The wrapper keeps the reserved ids colliding whatever table it is given.
    sim.setFlags(new Uint8Array(65536));
    expect([core.u8[base + TILE_BORDER], core.u8[base + TILE_UNKNOWN]]).toEqual([1, 1]);
    sim.setFlags(new Map([[TILE_BORDER, 0], [WALL, 3]])); // prettier-ignore
    expect([core.u8[base + TILE_BORDER], core.u8[base + WALL]]).toEqual([1, 3]);
    expect(() => sim.setFlags(new Uint8Array(100))).toThrow();
    expect(() => sim.putChunk(0, 0, new Uint16Array(1000))).toThrow();
    sim.resetFlags();
    expect(core.u8[base + TILE_BORDER]).toBe(TILE_FLAG_COLLIDES);
    expect(core.u8[base + TILE_UNKNOWN]).toBe(TILE_FLAG_COLLIDES);
    expect(core.u8[base + WALL]).toBe(0);
  });

  it("always allows NOOP and never a code above 8", () => {
    loadRows(["#"], 0, 0);
    expect(sim.stepAllowed(0, 0, 0)).toBe(true);
    expect(sim.stepAllowed(-5000, 7, 0)).toBe(true);
    loadRows(["...", "...", "..."], 0, 0);
    for (const code of [9, 10, 255, 256, 0x7fffffff, -1]) {
      expect(sim.stepAllowed(1, 1, code)).toBe(false);
      expect(new RefGrid(1, 1).stepAllowed(1, 1, code)).toBe(false);
    }
  });

  it("does not wrap positions far from the grid onto it", () => {
    loadRows(["...", "...", "..."], -2147483648, 0);
    expect(sim.stepAllowed(2147483647, 0, E)).toBe(false);
    expect(sim.allowedSteps(2147483647, 1)).toBe(1);
    expect(sim.stepAllowed(-2147483648, 0, E)).toBe(true);
  });

  it("agrees with the reference on random grids (property)", () => {
    fc.assert(
      fc.property(
        gridArbitrary,
        fc.array(fc.tuple(fc.integer(), fc.integer(), fc.integer({ min: -1, max: 10 }))),
        (g, probes) => {
          const ref = randomGrid(g.seed, g.width, g.height, g.originX, g.originY);
          mirror(ref);
          for (const [px, py, action] of probes) {
            const x = g.originX - 2 + (Math.abs(px) % (g.width + 4));
            const y = g.originY - 2 + (Math.abs(py) % (g.height + 4));
            const expected = ref.stepAllowed(x, y, action);
            if (sim.stepAllowed(x, y, action) !== expected) return false;
            if (action >= 0 && action <= 8 && ((sim.allowedSteps(x, y) >> action) & 1) !== Number(expected))
              return false;
          }
          return true;
        },
      ),
      { seed: 20260101, numRuns: 300 },
    );
  });
});

describe("grid", () => {
  it("rejects sizes out of range and keeps the previous grid", () => {
    expect(sim.initGrid(3, 2, 7, 8)).toBe(true);
    sim.setTile(8, 9, FLOOR);
    expect(sim.initGrid(0, 5, 0, 0)).toBe(false);
    expect(sim.initGrid(5, -1, 0, 0)).toBe(false);
    expect(sim.initGrid(4097, 1, 0, 0)).toBe(false);
    expect(sim.initGrid(1, 4097, 0, 0)).toBe(false);
    expect([sim.width, sim.height, sim.originX, sim.originY]).toEqual([3, 2, 7, 8]);
    expect(sim.getTile(8, 9)).toBe(FLOOR);
  });

  it("grows memory for a large grid and starts it all unknown", () => {
    const before = core.memory.buffer.byteLength;
    expect(sim.initGrid(2048, 1024, -1024, -512)).toBe(true);
    expect(core.memory.buffer.byteLength).toBeGreaterThan(before);
    const tiles = sim.tiles;
    expect(tiles.length).toBe(2048 * 1024);
    expect(tiles.every((t) => t === TILE_UNKNOWN)).toBe(true);
    // The grid region starts on a 64 KiB boundary past the fixed regions.
    expect(tiles.byteOffset % 0x10000).toBe(0);
    expect(tiles.byteOffset).toBeGreaterThanOrEqual(core.layout.FIXED_END);
    sim.setTile(1023, 511, WALL);
    expect(sim.tiles[sim.tiles.length - 1]).toBe(WALL);
  });

  it("puts and fills chunks clipped to the grid, like the reference", () => {
    fc.assert(
      fc.property(
        gridArbitrary.map((g) => ({ ...g, width: g.width * 7, height: g.height * 5 })),
        fc.array(fc.tuple(fc.integer({ min: -6, max: 6 }), fc.integer({ min: -6, max: 6 }), fc.boolean()), {
          maxLength: 12,
        }),
        (g, chunks) => {
          const ref = new RefGrid(g.width, g.height, g.originX, g.originY);
          expect(sim.initGrid(g.width, g.height, g.originX, g.originY)).toBe(true);
          const random = mulberry32(g.seed);
          for (const [chunkX, chunkY, fill] of chunks) {
            if (fill) {
              const tile = Math.floor(random() * 65536);
              ref.fillChunk(chunkX, chunkY, tile);
              sim.fillChunk(chunkX, chunkY, tile);
            } else {
              const chunk = new Uint16Array(1024).map(() => Math.floor(random() * 65536));
              ref.putChunk(chunkX, chunkY, chunk);
              sim.putChunk(chunkX, chunkY, chunk);
            }
          }
          expect(sim.tiles).toEqual(ref.tiles);
        },
      ),
      { seed: 77, numRuns: 150 },
    );
  });

  it("places a chunk's tile (x, y) at world (32 cx + x, 32 cy + y)", () => {
    expect(sim.initGrid(64, 64, -32, -32)).toBe(true);
    const chunk = new Uint16Array(1024).map((_, i) => i);
    sim.putChunk(-1, 0, chunk);
    expect(sim.getTile(-32, 0)).toBe(0);
    expect(sim.getTile(-32 + 5, 3)).toBe(3 * 32 + 5);
    expect(sim.getTile(-1, 31)).toBe(1023);
    expect(sim.getTile(0, 0)).toBe(TILE_UNKNOWN);
    expect(sim.getTile(-1, -1)).toBe(TILE_UNKNOWN);
  });
});

describe("replay", () => {
  const stepsArbitrary = fc.array(
    fc.record({ window: fc.integer({ min: 0, max: 40 }), action: fc.integer({ min: 0, max: 12 }) }),
    { maxLength: 40 },
  );

  it("equals the reference and applying the pending steps one by one (property)", () => {
    fc.assert(
      fc.property(gridArbitrary, stepsArbitrary, fc.integer({ min: 0, max: 40 }), fc.nat(), (g, steps, ack, p) => {
        const ref = randomGrid(g.seed, g.width, g.height, g.originX, g.originY);
        mirror(ref);
        let x = g.originX + (p % g.width);
        let y = g.originY + (Math.floor(p / g.width) % g.height);
        const result = sim.replay(x, y, ack, steps);
        expect(result).toEqual(ref.replay(x, y, ack, steps));
        let moved = 0;
        for (const step of steps) {
          if (step.window <= ack || step.action === 0 || !sim.stepAllowed(x, y, step.action)) continue;
          x += sim.actionDx(step.action);
          y += sim.actionDy(step.action);
          moved++;
        }
        expect(result).toEqual({ x, y, moved });
      }),
      { seed: 4242, numRuns: 400 },
    );
  });

  it("skips acknowledged windows and does not move through a rejected step", () => {
    loadRows(["....", ".#..", "...."], 0, 0);
    const steps: PendingStep[] = [
      { window: 10, action: E }, // acknowledged: already in the confirmed position
      { window: 11, action: S }, // into the wall: the server will reject it
      { window: 12, action: E },
      { window: 13, action: SE }, // (2,0) -> (3,1)
      { window: 14, action: 0 },
      { window: 15, action: 9 },
    ];
    expect(sim.replay(1, 0, 10, steps)).toEqual({ x: 3, y: 1, moved: 2 });
    expect(sim.replay(1, 0, 15, steps)).toEqual({ x: 1, y: 0, moved: 0 });
  });

  it("compares windows as u32", () => {
    loadRows(["..."], 0, 0);
    const steps = [{ window: 0xfffffffe, action: E }];
    expect(sim.replay(0, 0, 0x80000000, steps)).toEqual({ x: 1, y: 0, moved: 1 });
    expect(sim.replay(0, 0, 0xffffffff, steps)).toEqual({ x: 0, y: 0, moved: 0 });
  });

  it("clamps count to [0, PENDING_MAX]", () => {
    expect(sim.initGrid(600, 1, 0, 0)).toBe(true);
    sim.setFlags(FLAGS);
    for (let x = 0; x < 600; x++) sim.setTile(x, 0, FLOOR);
    const steps = Array.from({ length: core.layout.PENDING_MAX }, (_, i) => ({ window: i + 1, action: E }));
    expect(sim.replay(0, 0, 0, steps)).toEqual({ x: 256, y: 0, moved: 256 });
    const raw = core.fn<(x: number, y: number, ack: number, count: number) => number>("replay");
    expect(raw(0, 0, 0, 100000)).toBe(256);
    expect(raw(5, 0, 0, -3)).toBe(0);
    expect([core.i32[core.layout.RESULT >>> 2], core.i32[(core.layout.RESULT >>> 2) + 1]]).toEqual([5, 0]);
    expect(() => sim.replay(0, 0, 0, [...steps, { window: 1, action: E }])).toThrow();
  });
});
