// The lit conversion (issue 15: light_view, light_bake, fb_to_rgba_lit, assembly/blit/light-rgba.ts)
// on the real wasm module against the JS reference (ts/ref/blit.ts), byte for byte on the RGBA
// output and the framebuffer: random framebuffer sizes, tables (the client's separable ones — the
// SIMD path — and random ones — the per-pixel look-up), light maps with baked cells, views and
// origins off-screen, overlays baked before the conversion, a LUT that is not separable; and the
// fold against the two steps it replaces (light_apply, then fb_to_rgba). The bytes after the RGBA
// output are guarded: a 16-pixel step past a run's end must never leave the output.
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { buildLightTables } from "../ts/client/render/light.js";
import { LIGHT_BAKED, RefBlitter } from "../ts/ref/blit.js";
import { WasmBlitter } from "../ts/wasm/blit.js";
import { loadCore } from "../ts/wasm/node.js";

const FC_SEED = 0x11e4_7ed;
const GUARD_BYTES = 256;
const GUARD_VALUE = 0x5a;

let wasm: WasmBlitter;
let ref: RefBlitter;
const clientTables = new Uint8Array(16 * 256);
buildLightTables(clientTables);

beforeAll(async () => {
  wasm = new WasmBlitter(await loadCore());
  ref = new RefBlitter();
});

/** Deterministic bytes (mulberry32). */
function seededBytes(seed: number, length: number): Uint8Array {
  let state = seed >>> 0;
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++) {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    bytes[i] = (t ^ (t >>> 14)) & 0xff;
  }
  return bytes;
}

/** Framebuffer sizes fb_resize takes: the default, the 16 and 32 px tile sizes', and odd widths. */
const SIZES: [number, number][] = [
  [320, 240],
  [560, 480],
  [1040, 960],
  [336, 200],
  [40, 2],
  [17, 16],
];

/** Byte-for-byte equality of two byte arrays (RGBA views are Uint8ClampedArray). */
function sameBytes(a: ArrayBufferView, b: ArrayBufferView): boolean {
  const bytes = (v: ArrayBufferView) => Buffer.from(v.buffer, v.byteOffset, v.byteLength);
  return Buffer.compare(bytes(a), bytes(b)) === 0;
}

function rgbaEnd(): number {
  return wasm.rgba().byteOffset + wasm.rgba().byteLength;
}

function expectSameOutput(): void {
  const memory = wasm.core.u8;
  const end = rgbaEnd();
  for (let i = end; i < end + GUARD_BYTES; i++) {
    if (memory[i] !== GUARD_VALUE) expect.fail(`wrote past the RGBA output, at address ${i}`);
  }
  const actual = wasm.rgba();
  const expected = ref.rgbaBytes();
  expect(actual.length).toBe(expected.length);
  for (let i = 0; i < actual.length; i++) {
    if (actual[i] !== expected[i]) {
      const px = i >> 2;
      expect.fail(
        `RGBA byte ${i} (pixel ${px % wasm.width}, ${Math.floor(px / wasm.width)}) differs: wasm ${actual[i]}, reference ${expected[i]}`,
      );
    }
  }
  expect(Buffer.compare(wasm.framebuffer(), ref.framebuffer)).toBe(0);
  expect(Buffer.compare(wasm.lightMap, ref.lightMap)).toBe(0);
}

const litCase = fc.record({
  size: fc.integer({ min: 0, max: SIZES.length - 1 }),
  x: fc.oneof({ weight: 9, arbitrary: fc.integer({ min: -30, max: 400 }) }, fc.constant(-0x80000000)),
  y: fc.integer({ min: -30, max: 300 }),
  w: fc.oneof(
    { weight: 9, arbitrary: fc.integer({ min: 1, max: 1100 }) },
    fc.integer({ min: -1, max: 0 }),
    fc.constant(0x7fffffff),
  ),
  h: fc.oneof({ weight: 9, arbitrary: fc.integer({ min: 1, max: 1000 }) }, fc.integer({ min: -1, max: 0 })),
  originX: fc.oneof({ weight: 9, arbitrary: fc.integer({ min: -60, max: 400 }) }, fc.constant(0x40000001)),
  originY: fc.integer({ min: -60, max: 300 }),
  mapWidth: fc.oneof(
    { weight: 9, arbitrary: fc.integer({ min: 1, max: 64 }) },
    { weight: 2, arbitrary: fc.integer({ min: 65, max: 140 }) },
    fc.integer({ min: -1, max: 0 }),
    fc.constant(4097),
  ),
  mapHeight: fc.oneof({ weight: 9, arbitrary: fc.integer({ min: 1, max: 29 }) }, fc.integer({ min: -1, max: 0 })),
  mapSeed: fc.integer(),
  /** 0: the client's tables; 1: random tables; 2: the client's with one level made not separable. */
  tables: fc.integer({ min: 0, max: 2 }),
  /** How many distinct levels the map uses (few: long runs); 0: any byte, baked bits included. */
  levels: fc.integer({ min: 0, max: 4 }),
  bakes: fc.array(
    fc.record({
      x: fc.integer({ min: -20, max: 1060 }),
      y: fc.integer({ min: -20, max: 980 }),
      w: fc.integer({ min: -1, max: 90 }),
      h: fc.integer({ min: -1, max: 30 }),
    }),
    { maxLength: 4 },
  ),
  lutBroken: fc.boolean(),
  background: fc.integer(),
});

type LitCase = typeof litCase extends fc.Arbitrary<infer T> ? T : never;

function prepare(c: LitCase): void {
  const [width, height] = SIZES[c.size];
  wasm.resize(width, height);
  ref.resize(width, height);
  const background = seededBytes(c.background, width * height);
  wasm.framebuffer().set(background);
  ref.framebuffer.set(background);
  const tables = c.tables === 1 ? seededBytes(c.mapSeed ^ 0x7ab1e, 16 * 256) : clientTables.slice();
  if (c.tables === 2) tables[5 * 256 + 17] ^= 0x20; // level 5: its red no longer depends on red alone
  wasm.lightTables.set(tables);
  ref.lightTables.set(tables);
  const map = seededBytes(c.mapSeed, 4096).map((b) => (c.levels === 0 ? b : 15 - (b % c.levels) * 4));
  wasm.lightMap.set(map);
  ref.lightMap.set(map);
  wasm.lutInit();
  ref.lutInit();
  if (c.lutBroken) {
    wasm.lut()[0x41] ^= 0x00010000;
    ref.lut[0x41] ^= 0x00010000;
  }
  const memory = wasm.core.u8;
  memory.fill(GUARD_VALUE, rgbaEnd(), rgbaEnd() + GUARD_BYTES);
}

describe("fb_to_rgba_lit matches the reference (issue 15)", () => {
  it("for random sizes, tables, light maps (baked cells included), views and overlays baked first", () => {
    fc.assert(
      fc.property(litCase, (c) => {
        prepare(c);
        const args = [c.x, c.y, c.w, c.h, c.originX, c.originY, c.mapWidth, c.mapHeight] as const;
        expect(wasm.lightView(...args)).toBe(ref.lightView(...args));
        for (const bake of c.bakes) {
          wasm.lightBake(bake.x, bake.y, bake.w, bake.h);
          ref.lightBake(bake.x, bake.y, bake.w, bake.h);
        }
        wasm.fbToRgbaLit();
        ref.fbToRgbaLit();
        expectSameOutput();
      }),
      { seed: FC_SEED, numRuns: 120 },
    );
    wasm.resize(320, 240);
    ref.resize(320, 240);
  });

  it("is light_apply then fb_to_rgba when nothing is baked, and a baked cell is darkened exactly once", () => {
    fc.assert(
      fc.property(litCase, (c) => {
        fc.pre(Math.abs(c.originX) <= 0x40000000); // light_apply has no origin limit; light_view refuses it
        const mapless = { ...c, levels: Math.max(1, c.levels) }; // no baked bits in the map
        prepare(mapless);
        const args = [c.x, c.y, c.w, c.h, c.originX, c.originY, c.mapWidth, c.mapHeight] as const;
        const framebuffer = wasm.framebuffer().slice();
        wasm.lightView(...args);
        wasm.fbToRgbaLit();
        const folded = wasm.rgba().slice();
        wasm.lightApply(...args);
        wasm.fbToRgba();
        expect(sameBytes(wasm.rgba(), folded)).toBe(true);
        // Baking twice over the same spot, then converting, gives the same picture again.
        wasm.framebuffer().set(framebuffer);
        if (wasm.lightView(...args) === 0) {
          wasm.lightBake(c.x + 5, c.y + 3, 20, 9);
          wasm.lightBake(c.x + 9, c.y + 5, 20, 9);
        }
        wasm.fbToRgbaLit();
        expect(sameBytes(wasm.rgba(), folded)).toBe(true);
      }),
      { seed: FC_SEED, numRuns: 60 },
    );
    wasm.resize(320, 240);
    ref.resize(320, 240);
  });

  it("without a view (refused or never set) it converts as fb_to_rgba; a refused view is no view", () => {
    const background = seededBytes(9, 320 * 240);
    wasm.framebuffer().set(background);
    wasm.lutInit();
    wasm.fbToRgba();
    const plain = wasm.rgba().slice();
    wasm.lightMap.fill(0);
    wasm.lightTables.set(clientTables);
    expect(wasm.lightView(0, 0, 240, 240, 0, 0, 30, 30)).toBe(0);
    wasm.fbToRgbaLit();
    expect(sameBytes(wasm.rgba(), plain)).toBe(false);
    const refusals: [number, number, number, number, number, number, number, number][] = [
      [0, 0, 0, 240, 0, 0, 30, 30],
      [0, 0, 240, 240, 0, 0, 0, 30],
      [0, 0, 240, 240, 0, 0, 4097, 1],
      [0, 0, 240, 240, -0x40000001, 0, 30, 30],
    ];
    for (const refused of refusals) {
      expect(wasm.lightView(...refused)).toBe(-1);
      wasm.lightBake(0, 0, 240, 240); // no view: bakes nothing
      expect(wasm.lightMap[0]).toBe(0);
      wasm.fbToRgbaLit();
      expect(sameBytes(wasm.rgba(), plain)).toBe(true);
    }
    expect(Buffer.compare(wasm.framebuffer(), background)).toBe(0);
    expect(LIGHT_BAKED).toBe(0x80);
  });
});
