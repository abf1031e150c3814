// The scalar build (asc --disable simd: every kernel on its scalar path, the
// module hosts/c runs through wasm2c) held to the JS reference kernels byte for
// byte, so the scalar paths are checked even where wasm2c is not installed.
// Uses build/core-scalar.wasm when it is fresh, else compiles its own copy
// (hosts/scalar-wasm.ts); skips, saying why, only when neither is possible.
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { findOrBuildScalar, scalarUnavailableReason, SIMD_TEXT } from "../hosts/scalar-wasm.js";
import * as ref from "../ts/ref/codec.js";
import { RefBlitter } from "../ts/ref/blit.js";
import { FB_HEIGHT, FB_WIDTH, TILE_BORDER, TILE_UNKNOWN } from "../ts/constants.js";
import { instantiateCore, type Core } from "../ts/wasm/core.js";
import { WasmCodec } from "../ts/wasm/codec.js";
import { WasmBlitter } from "../ts/wasm/blit.js";
import { RELEASE_WASM } from "../ts/wasm/node.js";
import { xorshift } from "../bench/lib/data.js";

const SEED = 0x5ca1_ab1e;
const property = (numRuns: number) => ({ seed: SEED, numRuns });
/** Bytes after CHUNK_INDICES and CHUNK_PACKED kept for the SIMD kernels; the scalar kernels must not touch them. */
const SLACK_BYTES = 16;
const GUARD = 0xa5;

const unavailable = scalarUnavailableReason();
if (unavailable) console.log(`scalar-build.test: skipped: ${unavailable}`);

let scalarModule: WebAssembly.Module;
let wat: string;
let core: Core;
let codec: WasmCodec;

beforeAll(async () => {
  if (unavailable) return;
  const build = findOrBuildScalar();
  wat = readFileSync(build.watPath, "utf8");
  scalarModule = await WebAssembly.compile(readFileSync(build.wasmPath));
  core = await instantiateCore(scalarModule);
  codec = new WasmCodec(core);
}, 150_000);

function randomBytes(seed: number, length: number): Uint8Array {
  const random = xorshift(seed);
  return Uint8Array.from({ length }, () => Math.floor(random() * 256));
}

/** Fails at the first differing element instead of printing a diff of thousands. */
function expectSameArray(actual: ArrayLike<number>, expected: ArrayLike<number>, what: string): void {
  expect(actual.length, `${what}: length`).toBe(expected.length);
  for (let i = 0; i < expected.length; i++) {
    if (actual[i] !== expected[i])
      expect.fail(`${what} differs at ${i}: scalar wasm ${actual[i]}, reference ${expected[i]}`);
  }
}

/** Fills the slack after a region, runs `kernel`, and checks the slack is unchanged. */
function withSlackGuard(regionEnd: number, kernel: () => void): void {
  core.u8.fill(GUARD, regionEnd, regionEnd + SLACK_BYTES);
  kernel();
  const slack = core.u8.subarray(regionEnd, regionEnd + SLACK_BYTES);
  if (!slack.every((byte) => byte === GUARD)) expect.fail(`wrote into the slack after address ${regionEnd}`);
}

/**
 * A chunk with exactly `distinct` ids from a pool mixing small ids (the bundled
 * map's are 1..16), large ones and 0, TILE_BORDER, TILE_UNKNOWN, laid out in
 * runs of 1..maxRun tiles so both the run path and the look-ups are taken.
 */
function chunkOf(seed: number, distinct: number, maxRun: number): Uint16Array {
  const random = xorshift(seed);
  const pool = new Set<number>();
  while (pool.size < distinct) {
    const r = random();
    const special = [0, TILE_BORDER, TILE_UNKNOWN][Math.floor(random() * 3)];
    pool.add(r < 0.4 ? Math.floor(random() * 64) : r < 0.5 ? special : Math.floor(random() * 65536));
  }
  const ids = [...pool];
  const tiles = new Uint16Array(1024);
  for (let i = 0; i < 1024;) {
    const id = ids[Math.floor(random() * ids.length)];
    const run = 1 + Math.floor(random() * maxRun);
    for (let k = 0; k < run && i < 1024; k++) tiles[i++] = id;
  }
  // Each id at its own random position, so all of them appear (ids.length <= 1024).
  const positions = Array.from({ length: 1024 }, (_, i) => i);
  for (let k = 0; k < ids.length; k++) {
    const j = k + Math.floor(random() * (1024 - k));
    [positions[k], positions[j]] = [positions[j], positions[k]];
    tiles[positions[k]] = ids[k];
  }
  return tiles;
}

/** palette_build on `tiles` with CHUNK_PALETTE first filled with `stale` (left over from earlier chunks). */
function expectPaletteBuildMatches(tiles: Uint16Array, stale: Uint16Array): void {
  const palette = new Uint16Array(64);
  const indices = new Uint8Array(1024);
  const expected = ref.paletteBuild(tiles, palette, indices);
  codec.palette.set(stale);
  codec.tiles.set(tiles);
  let count = 0;
  withSlackGuard(core.layout.CHUNK_INDICES + 1024, () => (count = codec.paletteBuild()));
  expect(count).toBe(expected);
  if (expected < 0) return; // palette and indices are unspecified then
  expectSameArray(codec.palette.subarray(0, count), palette.subarray(0, count), "palette");
  expectSameArray(codec.indices, indices, "indices");
}

describe.skipIf(unavailable !== null)("scalar build (no SIMD) against the JS reference", () => {
  it("has no SIMD instructions, no imports, and exactly the release build's exports", () => {
    expect(wat).not.toMatch(SIMD_TEXT);
    expect(WebAssembly.Module.imports(scalarModule)).toEqual([]);
    const exportsOf = (module: WebAssembly.Module) =>
      WebAssembly.Module.exports(module)
        .map((e) => `${e.kind} ${e.name}`)
        .sort();
    expect(exportsOf(scalarModule)).toEqual(exportsOf(new WebAssembly.Module(readFileSync(RELEASE_WASM))));
  });

  it("unpack6: random packed bytes, all ones, the documented first groups", () => {
    const check = (packed: Uint8Array) => {
      const expected = new Uint8Array(1024);
      ref.unpack6(packed, expected);
      codec.packed.set(packed);
      withSlackGuard(core.layout.CHUNK_INDICES + 1024, codec.unpack6);
      expectSameArray(codec.indices, expected, "indices");
    };
    check(new Uint8Array(768).fill(0xff));
    check(Uint8Array.from({ length: 768 }, (_, i) => [0x40, 0x20, 0x0c, 0x85, 0x71, 0x20][i % 6]));
    fc.assert(
      fc.property(fc.integer(), (seed) => check(randomBytes(seed, 768))),
      property(200),
    );
  });

  it("pack6: random bytes (bits 6 and 7 masked), every index 63", () => {
    const check = (indices: Uint8Array) => {
      const expected = new Uint8Array(768);
      ref.pack6(indices, expected);
      codec.indices.set(indices);
      withSlackGuard(core.layout.CHUNK_PACKED + 768, codec.pack6);
      expectSameArray(codec.packed, expected, "packed");
    };
    check(new Uint8Array(1024).fill(63));
    fc.assert(
      fc.property(fc.integer(), (seed) => check(randomBytes(seed, 1024))),
      property(200),
    );
  });

  it("palette_build: 1..70 distinct ids in runs, with stale palette entries that equal the chunk's ids", () => {
    fc.assert(
      fc.property(
        fc.integer(),
        fc.integer({ min: 1, max: 70 }),
        fc.integer({ min: 1, max: 40 }),
        (seed, distinct, run) => {
          const tiles = chunkOf(seed, distinct, run);
          // Stale entries are ids of this very chunk, so a look-up that reads past the palette's count would find them.
          const stale = Uint16Array.from({ length: 64 }, (_, i) => tiles[(i * 97 + seed) & 1023]);
          expectPaletteBuildMatches(tiles, stale);
        },
      ),
      property(300),
    );
  });

  it("palette_build: one id everywhere, 64 and 65 distinct ids, a new id in the last tile", () => {
    const zeros = new Uint16Array(64);
    expectPaletteBuildMatches(new Uint16Array(1024).fill(TILE_UNKNOWN), zeros.fill(TILE_UNKNOWN));
    expectPaletteBuildMatches(
      Uint16Array.from({ length: 1024 }, (_, i) => (i * 977) % 64),
      zeros,
    );
    expectPaletteBuildMatches(
      Uint16Array.from({ length: 1024 }, (_, i) => 1000 + (i % 65)),
      zeros,
    );
    const lastNew = new Uint16Array(1024).fill(5);
    lastNew[1023] = 6;
    expectPaletteBuildMatches(
      lastNew,
      Uint16Array.from({ length: 64 }, () => 6),
    );
  });

  it("palette_expand: valid, bad and >= 128 indices, counts -1..66; tiles untouched on failure", () => {
    fc.assert(
      fc.property(fc.integer(), fc.integer({ min: -1, max: 66 }), fc.nat(3), (seed, count, spoil) => {
        const random = xorshift(seed);
        const palette = Uint16Array.from({ length: 64 }, () => Math.floor(random() * 65536));
        const indices = Uint8Array.from({ length: 1024 }, () => Math.floor(random() * Math.max(count, 1)));
        // spoil 1: one index == count; 2: one index >= 128; 0 and 3: none.
        const at = Math.floor(random() * 1024);
        if (spoil === 1) indices[at] = Math.max(count, 0);
        if (spoil === 2) indices[at] = 128 + Math.floor(random() * 128);
        const expected = new Uint16Array(1024).fill(0x1234);
        const result = ref.paletteExpand(palette, count, indices, expected);
        codec.tiles.fill(0x1234);
        codec.palette.set(palette);
        codec.indices.set(indices);
        expect(codec.paletteExpand(count)).toBe(result);
        expectSameArray(codec.tiles, expected, "tiles");
      }),
      property(300),
    );
  });

  it("chunk_encode / chunk_decode round trip matches the reference encoding", () => {
    fc.assert(
      fc.property(fc.integer(), fc.integer({ min: 1, max: 64 }), (seed, distinct) => {
        const tiles = chunkOf(seed, distinct, 12);
        const palette = new Uint16Array(64);
        const indices = new Uint8Array(1024);
        const count = ref.paletteBuild(tiles, palette, indices);
        const packed = new Uint8Array(768);
        ref.pack6(indices, packed);
        const wasmPalette = new Uint16Array(64);
        const wasmPacked = new Uint8Array(768);
        expect(codec.encodeChunk(tiles, wasmPalette, wasmPacked)).toBe(count);
        expectSameArray(wasmPalette, palette, "palette");
        expectSameArray(wasmPacked, packed, "packed");
        const decoded = new Uint16Array(1024);
        expect(codec.decodeChunk(palette, count, packed, decoded)).toBe(0);
        expectSameArray(decoded, tiles, "decoded tiles");
      }),
      property(100),
    );
  });

  it("fb_to_rgba: the standard table and arbitrary tables", () => {
    const blitter = new WasmBlitter(core);
    const reference = new RefBlitter();
    const check = (frameSeed: number) => {
      const frame = randomBytes(frameSeed, FB_WIDTH * FB_HEIGHT);
      blitter.framebuffer().set(frame);
      reference.framebuffer.set(frame);
      blitter.fbToRgba();
      reference.fbToRgba();
      expectSameArray(blitter.rgba(), reference.rgbaBytes(), "RGBA");
    };
    blitter.lutInit();
    reference.lutInit();
    expectSameArray(blitter.lut(), reference.lut, "RGB332 table");
    check(1);
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        const table = new Uint32Array(randomBytes(seed, 1024).buffer);
        blitter.lut().set(table);
        reference.lut.set(table);
        check(seed ^ 0x55);
      }),
      property(10),
    );
  });

  it("fb_to_rgba_lit and light_bake (issue 15): the client's tables and random ones, random maps and views", async () => {
    const { buildLightTables } = await import("../ts/client/render/light.js");
    const blitter = new WasmBlitter(core);
    const reference = new RefBlitter();
    blitter.lutInit();
    reference.lutInit();
    fc.assert(
      fc.property(
        fc.integer(),
        fc.boolean(),
        fc.integer({ min: -20, max: 300 }),
        fc.integer({ min: -9, max: 0 }),
        fc.integer({ min: 1, max: 40 }),
        (seed, clientTables, w, origin, mapWidth) => {
          const tables = randomBytes(seed ^ 0x7ab1e, 16 * 256);
          if (clientTables) buildLightTables(tables);
          blitter.lightTables.set(tables);
          reference.lightTables.set(tables);
          const map = randomBytes(seed ^ 0x3a9, 4096);
          blitter.lightMap.set(map);
          reference.lightMap.set(map);
          const frame = randomBytes(seed, FB_WIDTH * FB_HEIGHT);
          blitter.framebuffer().set(frame);
          reference.framebuffer.set(frame);
          const view = [3, -2, w, 250, origin, origin + 3, mapWidth, 30] as const;
          expect(blitter.lightView(...view)).toBe(reference.lightView(...view));
          blitter.lightBake(40, 50, 30, 9);
          reference.lightBake(40, 50, 30, 9);
          blitter.fbToRgbaLit();
          reference.fbToRgbaLit();
          expectSameArray(blitter.rgba(), reference.rgbaBytes(), "RGBA");
          expectSameArray(blitter.framebuffer(), reference.framebuffer, "framebuffer");
        },
      ),
      property(30),
    );
  });
});
