// light_build (assembly/blit/light-sources.ts) on the real wasm module against its JS
// reference (ts/ref/light-sources.ts) for random grids, torches, lit entities, views and
// tile sizes; and what it means on screen: a torch lights a pool around it at night, a
// wall stops the light, what lies beyond stays at the ambient level.
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { LIGHT_MAP_MAX } from "../ts/blit-layout.js";
import { TILE_FLAG_OPAQUE } from "../ts/constants.js";
import { type LightSource, type LightWorld, lightBuild } from "../ts/ref/light-sources.js";
import { WasmBlitter } from "../ts/wasm/blit.js";
import { loadCore } from "../ts/wasm/node.js";
import { WasmSim } from "../ts/wasm/sim.js";

let blitter: WasmBlitter;
let sim: WasmSim;

beforeAll(async () => {
  const core = await loadCore();
  blitter = new WasmBlitter(core);
  sim = new WasmSim(core);
});

/** Puts a world into the wasm grid, flags and TILE_LIGHT; returns the reference's view of it. */
function install(
  width: number,
  height: number,
  originX: number,
  originY: number,
  tiles: Uint16Array,
  flags: Uint8Array,
  light: Uint8Array,
): LightWorld {
  expect(sim.initGrid(width, height, originX, originY)).toBe(true);
  sim.tiles.set(tiles);
  sim.setFlags(flags);
  blitter.tileLight.set(light);
  return { tiles, width, height, originX, originY, flags, tileLight: light };
}

function build(world: LightWorld, view: [number, number, number, number, number, number], sources: LightSource[]) {
  sources.forEach((source, i) => i < 256 && blitter.setLightSource(i, source.x, source.y, source.radius));
  const sentinel = 0xee;
  blitter.lightMap.fill(sentinel);
  const wasmResult = blitter.lightBuild(...view, sources.length);
  const wasmMap = blitter.lightMap.slice();
  const refMap = new Uint8Array(LIGHT_MAP_MAX).fill(sentinel);
  const refResult = lightBuild(world, refMap, ...view, sources);
  return { wasmResult, refResult, wasmMap, refMap };
}

describe("light_build matches the reference (issue 15)", () => {
  it("for random grids, torches, lit entities, views (partly off the grid) and tile sizes", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 60 }),
        fc.integer({ min: 1, max: 60 }),
        fc.integer({ min: -100, max: 100 }),
        fc.integer({ min: -100, max: 100 }),
        fc.integer(),
        fc.record({
          x: fc.integer({ min: -60, max: 60 }),
          y: fc.integer({ min: -60, max: 60 }),
          wide: fc.integer({ min: -1, max: 70 }),
          high: fc.integer({ min: -1, max: 70 }),
          ambient: fc.integer({ min: 0, max: 40 }),
          scale: fc.constantFrom(0, 1, 2, 4, 9),
        }),
        fc.array(
          fc.record({
            x: fc.integer({ min: -80, max: 80 }),
            y: fc.integer({ min: -80, max: 80 }),
            radius: fc.integer({ min: 0, max: 255 }),
          }),
          { maxLength: 12 },
        ),
        (width, height, originX, originY, seed, v, sources) => {
          let state = seed >>> 0;
          const next = () => (state = (Math.imul(state, 1664525) + 1013904223) >>> 0) >>> 24;
          // Ids 1..8: 1..2 torches (radius 3..10, clamped to 8), 3..5 opaque walls, the rest open.
          const tiles = Uint16Array.from({ length: width * height }, () => 1 + (next() % 8));
          const flags = new Uint8Array(65536);
          for (const id of [3, 4, 5]) flags[id] = TILE_FLAG_OPAQUE;
          flags[1] = TILE_FLAG_OPAQUE; // a torch on a wall, as in the caves
          flags[0xffff] = next() & 1 ? TILE_FLAG_OPAQUE : 0;
          const light = new Uint8Array(65536);
          light[1] = 3 + (next() % 8);
          light[2] = next() % 3 === 0 ? 2 : 0;
          // Now and then the unknown tiles outside the grid glow too (light_build's whole-margin scan, not its in-grid one).
          light[0xffff] = next() % 5 === 0 ? 1 + (next() % 3) : 0;
          // A sparse world: most cells open floor, so light travels.
          for (let i = 0; i < tiles.length; i++) if (next() % 4 !== 0) tiles[i] = 6;
          const world = install(width, height, originX, originY, tiles, flags, light);
          const view: [number, number, number, number, number, number] = [
            originX + v.x,
            originY + v.y,
            v.wide,
            v.high,
            v.ambient,
            v.scale,
          ];
          const { wasmResult, refResult, wasmMap, refMap } = build(world, view, sources);
          expect(wasmResult).toBe(refResult);
          expect(Buffer.compare(wasmMap, refMap)).toBe(0);
        },
      ),
      { seed: 0x119_47, numRuns: 120 },
    );
  });

  it("at the client's views: 31 × 31 tiles of 8 px, 16 × 16 of 16 px, 9 × 9 of 32 px", () => {
    const width = 64;
    const tiles = new Uint16Array(width * width).fill(6);
    for (let i = 0; i < tiles.length; i += 37) tiles[i] = 1;
    for (let i = 5; i < tiles.length; i += 11) tiles[i] = 3;
    const flags = new Uint8Array(65536);
    flags[1] = flags[3] = TILE_FLAG_OPAQUE;
    const light = new Uint8Array(65536);
    light[1] = 5;
    const world = install(width, width, 0, 0, tiles, flags, light);
    for (const [wide, scale] of [
      [31, 1],
      [16, 2],
      [9, 4],
    ]) {
      const { wasmResult, wasmMap, refMap } = build(
        world,
        [10, 12, wide, wide, 2, scale],
        [{ x: 20, y: 20, radius: 6 }],
      );
      expect(wasmResult).toBe(0);
      expect(Buffer.compare(wasmMap, refMap)).toBe(0);
    }
  });
});

describe("light sources as a player sees them", () => {
  // A 21 × 11 room: floor (6), a wall column at x = 12 (3, opaque), a torch (1) at (5, 5).
  const width = 21;
  const height = 11;
  function room(): LightWorld {
    const tiles = new Uint16Array(width * height).fill(6);
    for (let y = 0; y < height; y++) tiles[y * width + 12] = 3;
    tiles[5 * width + 5] = 1;
    const flags = new Uint8Array(65536);
    flags[1] = flags[3] = TILE_FLAG_OPAQUE;
    const light = new Uint8Array(65536);
    light[1] = 5;
    return install(width, height, 0, 0, tiles, flags, light);
  }
  const at = (map: Uint8Array, x: number, y: number) => map[y * width + x];

  it("a torch lights a round pool that fades with distance; the wall it stands in is no obstacle to it", () => {
    const { wasmMap } = build(room(), [0, 0, width, height, 0, 1], []);
    expect(at(wasmMap, 5, 5)).toBe(15);
    expect(at(wasmMap, 6, 5)).toBeGreaterThan(at(wasmMap, 8, 5));
    expect(at(wasmMap, 8, 5)).toBeGreaterThan(at(wasmMap, 10, 5));
    expect(at(wasmMap, 5, 0)).toBeGreaterThan(0); // 5 tiles up: the edge of the pool
    expect(at(wasmMap, 0, 0)).toBe(0); // the corner: d² = 50 ≥ 36, out of reach
  });

  it("an opaque wall is lit on its face and stops the light: behind it stays at the ambient level", () => {
    const { wasmMap } = build(room(), [0, 0, width, height, 3, 1], [{ x: 10, y: 5, radius: 8 }]);
    expect(at(wasmMap, 12, 5)).toBeGreaterThan(3); // the wall's face
    for (let x = 13; x < width; x++) expect(at(wasmMap, x, 5)).toBe(3);
    // The same entity light with no wall: the far side is lit.
    const open = room();
    open.tiles.fill(6);
    sim.tiles.set(open.tiles);
    const lit = build(open, [0, 0, width, height, 3, 1], [{ x: 10, y: 5, radius: 8 }]).wasmMap;
    expect(at(lit, 14, 5)).toBeGreaterThan(3);
  });

  it("a torch just outside the view still lights the view's edge; ambient above a source's level wins", () => {
    const world = room();
    const { wasmMap } = build(world, [7, 0, 5, height, 0, 1], []);
    expect(wasmMap[5 * 5 + 0]).toBeGreaterThan(0); // tile (7, 5), two from the torch at (5, 5)
    const bright = build(world, [0, 0, width, height, 14, 1], []).wasmMap;
    expect(at(bright, 0, 0)).toBe(14);
    expect(at(bright, 5, 5)).toBe(15);
  });
});
