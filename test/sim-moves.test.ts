// The per-window move kernel (apply_moves over the MOVES table): the real wasm
// module against the JS oracle (RefGrid.applyMoves) on random tables over random
// grids, and its edges — action codes that would wrap the rule's bit shift,
// positions far off the grid, clamped counts, the host's entity tag.
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { TILE_BORDER, TILE_FLAG_COLLIDES, TILE_UNKNOWN } from "../ts/constants.js";
import { mulberry32 } from "../ts/random.js";
import { type MoveRow, RefGrid } from "../ts/ref/sim.js";
import { type Core, CoreError } from "../ts/wasm/core.js";
import { loadCore } from "../ts/wasm/node.js";
import { WasmSim } from "../ts/wasm/sim.js";

const FLOOR = 1;
const WALL = 5;
const WATER = 9;
const E = 2;

let core: Core;
let sim: WasmSim;

beforeAll(async () => {
  core = await loadCore();
  sim = new WasmSim(core);
});

/** A random grid of floor, wall, water, unknown and border tiles, in the reference and (copied) in wasm. */
function randomGrid(seed: number, width: number, height: number, originX: number, originY: number): RefGrid {
  const random = mulberry32(seed);
  const ref = new RefGrid(width, height, originX, originY);
  ref.flags[WALL] = TILE_FLAG_COLLIDES;
  ref.flags[WATER] = TILE_FLAG_COLLIDES;
  const palette = [FLOOR, FLOOR, FLOOR, FLOOR, FLOOR, WALL, WATER, TILE_UNKNOWN, TILE_BORDER];
  for (let i = 0; i < ref.tiles.length; i++) ref.tiles[i] = palette[Math.floor(random() * palette.length)];
  expect(sim.initGrid(width, height, originX, originY)).toBe(true);
  sim.tiles.set(ref.tiles);
  sim.setFlags(ref.flags);
  return ref;
}

/** Writes `rows` into the MOVES table, applies them in wasm, and returns what wasm made of them. */
function applyInWasm(rows: readonly MoveRow[]): { moved: number; rows: MoveRow[] } {
  rows.forEach((row, index) => sim.setMove(index, row.entity, row.x, row.y, row.action));
  const moved = sim.applyMoves(rows.length);
  const out = rows.map((row, index) => ({
    entity: sim.moveEntity(index),
    x: sim.moveX(index),
    y: sim.moveY(index),
    action: row.action,
    moved: sim.moved(index),
  }));
  return { moved, rows: out };
}

/** A row near the grid (inside, on its rim, just outside) or, now and then, anywhere in i32. */
function rowArbitrary(width: number, height: number, originX: number, originY: number) {
  const near = (origin: number, edge: number) => fc.integer({ min: origin - 2, max: origin + edge + 1 });
  const coordinate = (origin: number, edge: number) =>
    fc.oneof({ weight: 9, arbitrary: near(origin, edge) }, { weight: 1, arbitrary: fc.integer() });
  return fc.record({
    entity: fc.integer(),
    x: coordinate(originX, width),
    y: coordinate(originY, height),
    // Mostly real steps; also NOOP, undefined codes that fit a byte, and codes that do not.
    action: fc.oneof(
      { weight: 8, arbitrary: fc.integer({ min: 0, max: 8 }) },
      { weight: 1, arbitrary: fc.integer({ min: 9, max: 255 }) },
      { weight: 1, arbitrary: fc.constantFrom(-1, 256, 264, 300, 2.5, 0x7fffffff) },
    ),
    moved: fc.constant(false),
  });
}

const tableArbitrary = fc
  .record({
    seed: fc.integer(),
    width: fc.integer({ min: 1, max: 24 }),
    height: fc.integer({ min: 1, max: 24 }),
    originX: fc.integer({ min: -200, max: 200 }),
    originY: fc.integer({ min: -200, max: 200 }),
  })
  .chain((grid) =>
    fc.record({
      grid: fc.constant(grid),
      rows: fc.array(rowArbitrary(grid.width, grid.height, grid.originX, grid.originY), { maxLength: 256 }),
    }),
  );

describe("per-window move kernel", () => {
  it("equals the JS oracle on random tables over random grids (property)", () => {
    fc.assert(
      fc.property(tableArbitrary, ({ grid, rows }) => {
        const ref = randomGrid(grid.seed, grid.width, grid.height, grid.originX, grid.originY);
        const wasm = applyInWasm(rows);
        const expected = rows.map((row) => ({ ...row }));
        const expectedMoved = ref.applyMoves(expected);
        expect(wasm.rows).toEqual(expected);
        expect(wasm.moved).toBe(expectedMoved);
      }),
      { numRuns: 300 },
    );
  });

  it("moves a row exactly when step_allowed holds, by the action's offset", () => {
    const ref = randomGrid(7, 16, 12, 30, -5);
    const rows: MoveRow[] = [];
    for (let y = -6; y < 8; y++) {
      for (let x = 29; x < 47; x++)
        rows.push({ entity: rows.length, x, y, action: 1 + (rows.length % 8), moved: false });
    }
    expect(rows.length).toBe(252);
    const wasm = applyInWasm(rows);
    rows.forEach((row, index) => {
      const allowed = sim.stepAllowed(row.x, row.y, row.action);
      expect(wasm.rows[index].moved).toBe(allowed);
      expect([wasm.rows[index].x, wasm.rows[index].y]).toEqual(
        allowed ? [row.x + sim.actionDx(row.action), row.y + sim.actionDy(row.action)] : [row.x, row.y],
      );
    });
    expect(wasm.moved).toBe(wasm.rows.filter((row) => row.moved).length);
    expect(wasm.moved).toBeGreaterThan(50); // the grid is mostly floor: many rows do move
    expect(ref.applyMoves(rows.map((row) => ({ ...row })))).toBe(wasm.moved);
  });

  it("never moves NOOP or a code above 8, not even codes whose low 5 bits name a step (32 + 2, 64 + 2, 255)", () => {
    randomGrid(1, 8, 8, 0, 0);
    sim.tiles.fill(FLOOR); // all free: any real step from (3, 3) is allowed
    const codes = [0, 9, 31, 32, 33, 34, 64 + 2, 128 + 5, 255, -1, 300, 2.5];
    const wasm = applyInWasm(codes.map((action, entity) => ({ entity, x: 3, y: 3, action, moved: false })));
    expect(wasm.moved).toBe(0);
    for (const row of wasm.rows) expect([row.x, row.y, row.moved]).toEqual([3, 3, false]);
    expect(applyInWasm([{ entity: 0, x: 3, y: 3, action: E, moved: false }]).rows[0]).toMatchObject({
      x: 4,
      moved: true,
    });
  });

  it("clamps the raw count to [0, MOVES_MAX] and leaves what lies beyond the table alone", () => {
    randomGrid(2, 8, 8, 0, 0);
    sim.tiles.fill(FLOOR);
    const capacity = sim.moveCapacity;
    expect(capacity).toBe(core.layout.MOVES_MAX);
    for (let row = 0; row < capacity; row++) sim.setMove(row, row, 3, 3, E);
    const after = core.layout.MOVES + capacity * 16;
    const beyond = core.u8.slice(after, after + 64);
    const raw = core.fn<(count: number) => number>("apply_moves");
    expect(raw(-5)).toBe(0);
    expect(sim.moveX(0)).toBe(3);
    expect(raw(capacity + 100)).toBe(capacity);
    expect(sim.moveX(capacity - 1)).toBe(4);
    expect(core.u8.slice(after, after + 64)).toEqual(beyond);
    expect(() => sim.applyMoves(capacity + 1)).toThrow(CoreError);
    expect(() => sim.setMove(capacity, 0, 0, 0, E)).toThrow(CoreError);
    expect(() => sim.setMove(-1, 0, 0, 0, E)).toThrow(CoreError);
  });

  it("keeps reading and writing the table after initGrid has grown memory (and detached the old buffer)", async () => {
    const own = new WasmSim(await loadCore());
    expect(own.initGrid(8, 8, 0, 0)).toBe(true);
    own.tiles.fill(FLOOR);
    own.setMove(0, 7, 3, 3, E);
    expect(own.applyMoves(1)).toBe(1);
    expect(own.moveX(0)).toBe(4);
    const before = own.tiles.buffer;
    expect(own.initGrid(1500, 1500, 0, 0)).toBe(true); // 1500² cells × 22 bytes: far more than the initial memory
    expect(own.tiles.buffer).not.toBe(before);
    own.tiles.fill(FLOOR);
    own.setMove(0, 8, 100, 100, 6);
    expect(own.applyMoves(1)).toBe(1);
    expect([own.moveEntity(0), own.moveX(0), own.moveY(0), own.moved(0)]).toEqual([8, 101, 101, true]);
  });

  it("moves nobody from far off the grid, where only NOOP is allowed", () => {
    randomGrid(3, 8, 8, 0, 0);
    sim.tiles.fill(FLOOR);
    const far = [0x7fffffff, -0x80000000, 100, -3];
    const rows = far.flatMap((x) => far.map((y) => ({ entity: 0, x, y, action: 6, moved: false })));
    const wasm = applyInWasm(rows);
    expect(wasm.moved).toBe(0);
    expect(wasm.rows.map(({ x, y }) => [x, y])).toEqual(rows.map(({ x, y }) => [x, y]));
  });
});
