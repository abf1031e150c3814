// Chunk codec and FNV-1a: hand-written golden vectors for the bit layout
// (protocol-decisions.md 1) and hash, then property tests holding the wasm
// kernels (through the real core module) to the JS reference.
import { beforeAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import { loadCore } from "../ts/wasm/node.js";
import { WasmCodec } from "../ts/wasm/codec.js";
import * as ref from "../ts/ref/codec.js";
import type { Core } from "../ts/wasm/core.js";

const SEED = 0x5eed_c0de;
const RUNS = 300;
const property = { seed: SEED, numRuns: RUNS };

let core: Core;
let codec: WasmCodec;

beforeAll(async () => {
  core = await loadCore();
  codec = new WasmCodec(core);
});

const bytesOf = (text: string): Uint8Array => new TextEncoder().encode(text);

/**
 * expect(actual).toEqual(expected), with a plain comparison first: vitest's
 * deep equality on 1024-element typed arrays dominated the run time, so it
 * only runs (to print the difference) when the values differ.
 */
function expectSame<T>(actual: T, expected: T): void {
  if (!sameValue(actual, expected)) expect(actual).toEqual(expected);
}

function sameValue(a: unknown, b: unknown): boolean {
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return Object.is(a, b);
  if (a.constructor !== b.constructor) return false;
  if (ArrayBuffer.isView(a)) {
    const left = a as unknown as ArrayLike<number>;
    const right = b as unknown as ArrayLike<number>;
    if (left.length !== right.length) return false;
    for (let i = 0; i < left.length; i++) if (left[i] !== right[i]) return false;
    return true;
  }
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((key) => sameValue((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]));
}

/** 1024 indices that are all zero except the given (tile, index) pairs. */
function indicesWith(entries: [number, number][]): Uint8Array {
  const indices = new Uint8Array(1024);
  for (const [tile, index] of entries) indices[tile] = index;
  return indices;
}

/** 768 bytes that are all zero except the given (offset, byte) pairs. */
function packedWith(entries: [number, number][]): Uint8Array {
  const packed = new Uint8Array(768);
  for (const [offset, byte] of entries) packed[offset] = byte;
  return packed;
}

function wasmPack(indices: Uint8Array): Uint8Array {
  codec.indices.set(indices);
  codec.pack6();
  return codec.packed.slice();
}

function wasmUnpack(packed: Uint8Array): Uint8Array {
  codec.packed.set(packed);
  codec.unpack6();
  return codec.indices.slice();
}

function refPack(indices: Uint8Array): Uint8Array {
  const out = new Uint8Array(768);
  ref.pack6(indices, out);
  return out;
}

function refUnpack(packed: Uint8Array): Uint8Array {
  const out = new Uint8Array(1024);
  ref.unpack6(packed, out);
  return out;
}

// Golden pairs: indices (sparse) and the packed bytes (sparse) they must give.
// Group 0 covers the bit positions inside a group; groups 1, 62, 63, 64 (SIMD
// block edges) and 255 (the last group, handled separately by the kernels)
// cover the group -> byte mapping.
const GOLDEN: { name: string; indices: [number, number][]; packed: [number, number][] }[] = [
  {
    name: "indices 0,1,2,3",
    indices: [
      [1, 1],
      [2, 2],
      [3, 3],
    ],
    packed: [
      [0, 0x40],
      [1, 0x20],
      [2, 0x0c],
    ],
  },
  { name: "tile 0 = 1", indices: [[0, 1]], packed: [[0, 0x01]] },
  { name: "tile 1 = 1 (v = 1 << 6)", indices: [[1, 1]], packed: [[0, 0x40]] },
  { name: "tile 2 = 1 (v = 1 << 12)", indices: [[2, 1]], packed: [[1, 0x10]] },
  { name: "tile 3 = 1 (v = 1 << 18)", indices: [[3, 1]], packed: [[2, 0x04]] },
  { name: "tile 0 = 63", indices: [[0, 63]], packed: [[0, 0x3f]] },
  {
    name: "tile 1 = 63 (spans b0, b1)",
    indices: [[1, 63]],
    packed: [
      [0, 0xc0],
      [1, 0x0f],
    ],
  },
  {
    name: "tile 2 = 63 (spans b1, b2)",
    indices: [[2, 63]],
    packed: [
      [1, 0xf0],
      [2, 0x03],
    ],
  },
  { name: "tile 3 = 63", indices: [[3, 63]], packed: [[2, 0xfc]] },
  {
    name: "group 1 = 5,6,7,8",
    indices: [
      [4, 5],
      [5, 6],
      [6, 7],
      [7, 8],
    ],
    packed: [
      [3, 0x85],
      [4, 0x71],
      [5, 0x20],
    ],
  },
  { name: "tile 251 (group 62)", indices: [[251, 42]], packed: [[188, 0xa8]] },
  { name: "tile 252 (group 63)", indices: [[252, 42]], packed: [[189, 42]] },
  { name: "tile 256 (group 64, second SIMD block)", indices: [[256, 9]], packed: [[192, 9]] },
  { name: "tile 1020 (group 255)", indices: [[1020, 17]], packed: [[765, 17]] },
  { name: "tile 1023 (last)", indices: [[1023, 33]], packed: [[767, 0x84]] },
];

describe("6-bit packing golden vectors", () => {
  for (const golden of GOLDEN) {
    it(`${golden.name}: JS and wasm pack and unpack agree with the hand-computed bytes`, () => {
      const indices = indicesWith(golden.indices);
      const packed = packedWith(golden.packed);
      expectSame(refPack(indices), packed);
      expectSame(refUnpack(packed), indices);
      expectSame(wasmPack(indices), packed);
      expectSame(wasmUnpack(packed), indices);
    });
  }

  it("all 63 packs to all 0xff and back", () => {
    const indices = new Uint8Array(1024).fill(63);
    const packed = new Uint8Array(768).fill(0xff);
    expectSame(refPack(indices), packed);
    expectSame(wasmPack(indices), packed);
    expectSame(refUnpack(packed), indices);
    expectSame(wasmUnpack(packed), indices);
  });

  it("pack masks each index with & 63", () => {
    const indices = new Uint8Array(1024).fill(0xc0 | 21);
    const masked = new Uint8Array(1024).fill(21);
    expectSame(wasmPack(indices), refPack(masked));
    expectSame(refPack(indices), refPack(masked));
  });

  it("pack and unpack leave the SIMD slack after their output regions alone", () => {
    const u8 = core.u8;
    const { CHUNK_PACKED, CHUNK_INDICES } = core.layout;
    u8.fill(0xa5, CHUNK_PACKED + 768, CHUNK_PACKED + 784);
    u8.fill(0x5a, CHUNK_INDICES + 1024, CHUNK_INDICES + 1040);
    wasmPack(new Uint8Array(1024).fill(63));
    wasmUnpack(new Uint8Array(768).fill(0xff));
    expectSame([...u8.subarray(CHUNK_PACKED + 768, CHUNK_PACKED + 784)], new Array(16).fill(0xa5));
    expectSame([...u8.subarray(CHUNK_INDICES + 1024, CHUNK_INDICES + 1040)], new Array(16).fill(0x5a));
  });
});

describe("FNV-1a golden vectors", () => {
  const known: [string, number][] = [
    ["", 0x811c9dc5],
    ["a", 0xe40c292c],
    ["foobar", 0xbf9cf968],
  ];
  for (const [text, hash] of known) {
    it(`"${text}" -> 0x${hash.toString(16)}`, () => {
      const bytes = bytesOf(text);
      expect(ref.fnv1a(bytes, 0, bytes.length)).toBe(hash);
      expect(codec.fnv1a(bytes, 0, bytes.length)).toBe(hash);
    });
  }

  it("exports the offset basis as FNV_OFFSET", () => {
    const global = core.instance.exports.FNV_OFFSET as WebAssembly.Global;
    expect(global.value >>> 0).toBe(0x811c9dc5);
    expect(ref.FNV_OFFSET).toBe(0x811c9dc5);
  });

  it("continues a stream: hash(foo) then bar = hash(foobar)", () => {
    const bytes = bytesOf("foobar");
    expect(ref.fnv1a(bytes, 3, 6, ref.fnv1a(bytes, 0, 3))).toBe(0xbf9cf968);
    expect(codec.fnv1a(bytes, 3, 6, codec.fnv1a(bytes, 0, 3))).toBe(0xbf9cf968);
    const { IO } = core.layout;
    core.u8.set(bytes, IO);
    expect(codec.fnv1aResident(IO + 3, 3, codec.fnv1aResident(IO, 3))).toBe(0xbf9cf968);
  });

  it("treats len <= 0 as no bytes", () => {
    expect(codec.fnv1aResident(core.layout.IO, 0, 1234)).toBe(1234);
    expect(codec.fnv1aResident(core.layout.IO, -5, 1234)).toBe(1234);
  });
});

describe("6-bit packing properties (wasm = JS reference)", () => {
  const indices = fc.uint8Array({ minLength: 1024, maxLength: 1024, max: 63 });
  const anyBytes = (length: number) => fc.uint8Array({ minLength: length, maxLength: length });

  it("pack6 matches the reference, including indices above 63", () => {
    fc.assert(
      fc.property(anyBytes(1024), (input) => {
        expectSame(wasmPack(input), refPack(input));
      }),
      property,
    );
  });

  it("unpack6 matches the reference on any bytes", () => {
    fc.assert(
      fc.property(anyBytes(768), (input) => {
        expectSame(wasmUnpack(input), refUnpack(input));
      }),
      property,
    );
  });

  it("unpack(pack(indices)) = indices and pack(unpack(bytes)) = bytes", () => {
    fc.assert(
      fc.property(indices, anyBytes(768), (input, packed) => {
        expectSame(wasmUnpack(wasmPack(input)), input);
        expectSame(wasmPack(wasmUnpack(packed)), packed);
        expectSame(refUnpack(refPack(input)), input);
      }),
      property,
    );
  });

  it("the reference honours subarray offsets", () => {
    fc.assert(
      fc.property(indices, fc.integer({ min: 1, max: 31 }), (input, shift) => {
        const source = new Uint8Array(1024 + shift);
        source.set(input, shift);
        const target = new Uint8Array(768 + shift);
        ref.pack6(source.subarray(shift), target.subarray(shift));
        expectSame(target.subarray(shift), refPack(input));
        const back = new Uint8Array(1024 + shift);
        ref.unpack6(target.subarray(shift), back.subarray(shift));
        expectSame(back.subarray(shift), input);
      }),
      { seed: SEED, numRuns: 50 },
    );
  });
});

/** Ids near both ends of the u16 range, including TILE_UNKNOWN (0xffff) and TILE_BORDER (0xfffe). */
const anyId = fc.oneof(fc.constantFrom(0, 1, 0xfffe, 0xffff, 0x8000, 0x7fff), fc.integer({ min: 0, max: 0xffff }));
/** Small ids (the wasm build looks ids below 64 up by table) and ids sharing their low byte with them. */
const smallishId = fc
  .tuple(fc.integer({ min: 0, max: 70 }), fc.constantFrom(0, 0, 0, 0x100, 0x4000, 0xff00))
  .map(([low, high]) => low + high);

/** Tile ids in runs drawn from a pool of up to `maxDistinct` ids, like a map's rows of floor and wall. */
function chunkTiles(maxDistinct: number, id: fc.Arbitrary<number> = anyId): fc.Arbitrary<Uint16Array> {
  const idPool = fc.uniqueArray(id, { minLength: 1, maxLength: maxDistinct });
  return idPool.chain((pool) =>
    fc
      .array(fc.tuple(fc.nat({ max: pool.length - 1 }), fc.integer({ min: 1, max: 80 })), {
        minLength: 1,
        maxLength: 1024,
      })
      .map((runs) => {
        const tiles = new Uint16Array(1024);
        let at = 0;
        for (let r = 0; at < 1024; r = (r + 1) % runs.length) {
          const [which, length] = runs[r];
          tiles.fill(pool[which], at, Math.min(1024, at + length));
          at += length;
        }
        return tiles;
      }),
  );
}

/** Tiles with exactly `distinct` ids (1..1024), each id appearing at least once, in shuffled order. */
function tilesWithDistinct(distinct: number, seed: number): Uint16Array {
  const tiles = new Uint16Array(1024);
  for (let i = 0; i < 1024; i++) tiles[i] = ((i % distinct) * 40503 + 7) & 0xffff; // 40503 is odd: distinct ids
  let state = seed >>> 0 || 1;
  for (let i = 1023; i > 0; i--) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    const j = (state >>> 0) % (i + 1);
    const swap = tiles[i];
    tiles[i] = tiles[j];
    tiles[j] = swap;
  }
  return tiles;
}

function refBuild(tiles: Uint16Array): { count: number; palette: Uint16Array; indices: Uint8Array } {
  const palette = new Uint16Array(64);
  const indices = new Uint8Array(1024);
  const count = ref.paletteBuild(tiles, palette, indices);
  return { count, palette: palette.slice(0, Math.max(count, 0)), indices };
}

function wasmBuild(tiles: Uint16Array): { count: number; palette: Uint16Array; indices: Uint8Array } {
  codec.tiles.set(tiles);
  const count = codec.paletteBuild();
  return { count, palette: codec.palette.slice(0, Math.max(count, 0)), indices: codec.indices.slice() };
}

function wasmExpand(palette: Uint16Array, count: number, indices: Uint8Array): { result: number; tiles: Uint16Array } {
  codec.palette.set(palette.subarray(0, Math.min(palette.length, 64)));
  codec.indices.set(indices);
  const result = codec.paletteExpand(count);
  return { result, tiles: codec.tiles.slice() };
}

describe("palette golden cases", () => {
  it("orders the palette by first appearance, row-major", () => {
    const tiles = new Uint16Array(1024).fill(5);
    tiles[0] = 9;
    tiles[33] = 0xffff; // row 1, x 1
    tiles[1023] = 2;
    const expected = { count: 4, palette: Uint16Array.of(9, 5, 0xffff, 2) };
    for (const built of [refBuild(tiles), wasmBuild(tiles)]) {
      expect(built.count).toBe(expected.count);
      expectSame(built.palette, expected.palette);
      expectSame([built.indices[0], built.indices[1], built.indices[33], built.indices[1023]], [0, 1, 2, 3]);
    }
  });

  it("builds a one-entry palette for a uniform chunk, whatever the palette held before", () => {
    codec.palette.fill(7);
    const tiles = new Uint16Array(1024).fill(7);
    const built = wasmBuild(tiles);
    expect(built.count).toBe(1);
    expectSame(built.palette, Uint16Array.of(7));
    expectSame(built.indices, new Uint8Array(1024));
  });

  it("accepts exactly 64 distinct ids and rejects 65", () => {
    for (let seed = 1; seed <= 20; seed++) {
      const sixtyFour = tilesWithDistinct(64, seed);
      expectSame(wasmBuild(sixtyFour), refBuild(sixtyFour));
      expect(wasmBuild(sixtyFour).count).toBe(64);
      const sixtyFive = tilesWithDistinct(65, seed);
      expect(refBuild(sixtyFive).count).toBe(-1);
      expect(wasmBuild(sixtyFive).count).toBe(-1);
    }
    const allDistinct = tilesWithDistinct(1024, 3);
    expect(wasmBuild(allDistinct).count).toBe(-1);
  });

  it("rejects a 65th id that first appears in the very last tile", () => {
    const tiles = tilesWithDistinct(64, 9);
    tiles[1023] = 0xfff0; // not among the 64 ids: (i * 40503 + 7) & 0xffff for i < 64
    expect(new Set(tiles).size).toBe(65);
    expect(refBuild(tiles).count).toBe(-1);
    expect(wasmBuild(tiles).count).toBe(-1);
  });

  it("expand rejects counts outside 0..64 and leaves tiles untouched", () => {
    const indices = new Uint8Array(1024);
    const palette = new Uint16Array(64).fill(3);
    for (const count of [-1, 65, 1000, 0x7fffffff, -0x80000000]) {
      codec.tiles.fill(0x1234);
      const { result, tiles } = wasmExpand(palette, count, indices);
      expect(result).toBe(-1);
      expectSame(tiles, new Uint16Array(1024).fill(0x1234));
      expect(ref.paletteExpand(palette, count, indices, new Uint16Array(1024))).toBe(-1);
    }
    // count 0: every tile's index is out of range.
    expect(wasmExpand(palette, 0, indices).result).toBe(-1);
    expect(ref.paletteExpand(palette, 0, indices, new Uint16Array(1024))).toBe(-1);
  });

  it("expand rejects an index equal to count at any position, for every count", () => {
    const palette = new Uint16Array(64).map((_, i) => 100 + i);
    for (let count = 1; count <= 64; count++) {
      for (const position of [0, 15, 16, 511, 1008, 1023]) {
        const indices = new Uint8Array(1024).fill(count - 1);
        indices[position] = count;
        codec.tiles.fill(0x4321);
        const { result, tiles } = wasmExpand(palette, count, indices);
        expect(result).toBe(-1);
        expectSame(tiles, new Uint16Array(1024).fill(0x4321));
        expect(ref.paletteExpand(palette, count, indices, new Uint16Array(1024))).toBe(-1);
      }
    }
  });

  it("expand maps every index of a full palette, including ids with both bytes set", () => {
    const palette = new Uint16Array(64).map((_, i) => (i * 0x0403 + 0x80ff) & 0xffff);
    const indices = new Uint8Array(1024).map((_, i) => (i * 7) % 64);
    for (const count of [64, 48, 33]) {
      const clipped = indices.map((index) => index % count);
      const { result, tiles } = wasmExpand(palette, count, clipped);
      expect(result).toBe(0);
      expectSame(
        tiles,
        Uint16Array.from(clipped, (index) => palette[index]),
      );
    }
  });
});

describe("palette properties (wasm = JS reference)", () => {
  it("palette_build matches the reference on run-structured chunks of up to 64 ids", () => {
    fc.assert(
      fc.property(chunkTiles(64), (tiles) => {
        const expected = refBuild(tiles);
        expect(expected.count).toBeGreaterThan(0);
        expectSame(wasmBuild(tiles), expected);
      }),
      property,
    );
  });

  it("palette_build matches the reference on small ids mixed with ids sharing their low byte", () => {
    fc.assert(
      fc.property(fc.oneof(chunkTiles(64, smallishId), chunkTiles(8, smallishId)), (tiles) => {
        expectSame(wasmBuild(tiles), refBuild(tiles));
      }),
      property,
    );
  });

  it("palette_build matches the reference on unstructured chunks (small and large id pools)", () => {
    const tiles = fc.oneof(
      fc.array(fc.integer({ min: 0, max: 7 }), { minLength: 1024, maxLength: 1024 }),
      fc.array(fc.integer({ min: 0, max: 70 }), { minLength: 1024, maxLength: 1024 }),
      fc.array(fc.integer({ min: 0, max: 0xffff }), { minLength: 1024, maxLength: 1024 }),
    );
    fc.assert(
      fc.property(tiles, (ids) => {
        const input = Uint16Array.from(ids);
        const expected = refBuild(input);
        const actual = wasmBuild(input);
        expect(actual.count).toBe(expected.count);
        if (expected.count >= 0) expectSame(actual, expected);
      }),
      property,
    );
  });

  it("expand(build(tiles)) = tiles, in wasm and in the reference", () => {
    fc.assert(
      fc.property(chunkTiles(64), (tiles) => {
        const built = wasmBuild(tiles);
        expectSame(wasmExpand(built.palette, built.count, built.indices), { result: 0, tiles });
        const out = new Uint16Array(1024);
        expect(ref.paletteExpand(built.palette, built.count, built.indices, out)).toBe(0);
        expectSame(out, tiles);
      }),
      property,
    );
  });

  it("palette_expand matches the reference on any palette, count and indices", () => {
    const input = fc.record({
      palette: fc.uint16Array({ minLength: 64, maxLength: 64 }),
      count: fc.integer({ min: -2, max: 66 }),
      indices: fc.uint8Array({ minLength: 1024, maxLength: 1024, max: 66 }),
    });
    fc.assert(
      fc.property(input, ({ palette, count, indices }) => {
        const expectedTiles = new Uint16Array(1024).fill(0xbeef);
        const expected = ref.paletteExpand(palette, count, indices, expectedTiles);
        codec.tiles.fill(0xbeef);
        expectSame(wasmExpand(palette, count, indices), { result: expected, tiles: expectedTiles });
      }),
      property,
    );
  });

  it("palette_expand accepts exactly the indices below count", () => {
    const input = fc.record({
      count: fc.integer({ min: 1, max: 64 }),
      seedIndices: fc.uint8Array({ minLength: 1024, maxLength: 1024 }),
      bad: fc.option(fc.record({ position: fc.nat({ max: 1023 }), index: fc.integer({ min: 0, max: 255 }) })),
    });
    fc.assert(
      fc.property(input, ({ count, seedIndices, bad }) => {
        const indices = seedIndices.map((value) => value % count);
        if (bad) indices[bad.position] = Math.max(bad.index, count);
        const palette = new Uint16Array(64).map((_, i) => i * 3);
        const { result } = wasmExpand(palette, count, indices);
        expect(result).toBe(bad ? -1 : 0);
      }),
      property,
    );
  });

  it("chunk_encode / chunk_decode round-trip and agree with the reference pipeline", () => {
    fc.assert(
      fc.property(chunkTiles(64), (tiles) => {
        const palette = new Uint16Array(64);
        const packed = new Uint8Array(768);
        const count = codec.encodeChunk(tiles, palette, packed);
        const expected = refBuild(tiles);
        expect(count).toBe(expected.count);
        expectSame(palette.subarray(0, count), expected.palette);
        expectSame(packed, refPack(expected.indices));
        const decoded = new Uint16Array(1024);
        expect(codec.decodeChunk(palette, count, packed, decoded)).toBe(0);
        expectSame(decoded, tiles);
      }),
      property,
    );
  });

  it("encodeChunk reports -1 for more than 64 ids; decodeChunk rejects a palette too short for the data", () => {
    const palette = new Uint16Array(64);
    const packed = new Uint8Array(768);
    expect(codec.encodeChunk(tilesWithDistinct(65, 4), palette, packed)).toBe(-1);
    const count = codec.encodeChunk(tilesWithDistinct(10, 4), palette, packed);
    expect(count).toBe(10);
    const out = new Uint16Array(1024).fill(77);
    expect(codec.decodeChunk(palette, 9, packed, out)).toBe(-1);
    expectSame(out, new Uint16Array(1024).fill(77));
    expect(codec.decodeChunk(palette, 65, packed, out)).toBe(-1);
  });
});

describe("argument checks", () => {
  it("the reference and the wrapper throw RangeError on buffers that are too short", () => {
    const short8 = new Uint8Array(100);
    const short16 = new Uint16Array(100);
    expect(() => ref.unpack6(short8, new Uint8Array(1024))).toThrow(RangeError);
    expect(() => ref.unpack6(new Uint8Array(768), short8)).toThrow(RangeError);
    expect(() => ref.pack6(short8, new Uint8Array(768))).toThrow(RangeError);
    expect(() => ref.pack6(new Uint8Array(1024), short8)).toThrow(RangeError);
    expect(() => ref.paletteBuild(short16, new Uint16Array(64), new Uint8Array(1024))).toThrow(RangeError);
    expect(() => ref.paletteBuild(new Uint16Array(1024), new Uint16Array(63), new Uint8Array(1024))).toThrow(
      RangeError,
    );
    expect(() => ref.paletteExpand(new Uint16Array(3), 4, new Uint8Array(1024), new Uint16Array(1024))).toThrow(
      RangeError,
    );
    expect(() => codec.encodeChunk(short16, new Uint16Array(64), new Uint8Array(768))).toThrow(RangeError);
    expect(() => codec.decodeChunk(new Uint16Array(3), 4, new Uint8Array(768), new Uint16Array(1024))).toThrow(
      RangeError,
    );
  });

  it("fnv1a rejects byte ranges outside the buffer", () => {
    const bytes = bytesOf("foobar");
    for (const [start, end] of [
      [-1, 3],
      [0, 7],
      [4, 3],
      [0.5, 3],
    ]) {
      expect(() => ref.fnv1a(bytes, start, end)).toThrow(RangeError);
      expect(() => codec.fnv1a(bytes, start, end)).toThrow(RangeError);
    }
    expect(ref.fnv1a(bytes, 6, 6)).toBe(0x811c9dc5);
    expect(codec.fnv1a(bytes, 6, 6)).toBe(0x811c9dc5);
  });

  it("the reference palette stays correct after a rejected chunk (its id map is reset)", () => {
    expect(refBuild(tilesWithDistinct(65, 5)).count).toBe(-1);
    const tiles = tilesWithDistinct(64, 5);
    expectSame(refBuild(tiles), wasmBuild(tiles));
  });
});

describe("FNV-1a properties (wasm = JS reference)", () => {
  it("fnv1a matches the reference on any bytes and any split into a continued stream", () => {
    const input = fc
      .uint8Array({ minLength: 0, maxLength: 1500 })
      .chain((bytes) => fc.tuple(fc.constant(bytes), fc.nat({ max: bytes.length }), fc.nat({ max: 0xffffffff })));
    fc.assert(
      fc.property(input, ([bytes, split, start]) => {
        const whole = ref.fnv1a(bytes, 0, bytes.length);
        expect(codec.fnv1a(bytes, 0, bytes.length)).toBe(whole);
        expect(codec.fnv1a(bytes, split, bytes.length, codec.fnv1a(bytes, 0, split))).toBe(whole);
        expect(ref.fnv1a(bytes, split, bytes.length, ref.fnv1a(bytes, 0, split))).toBe(whole);
        expect(codec.fnv1a(bytes, 0, bytes.length, start)).toBe(ref.fnv1a(bytes, 0, bytes.length, start));
      }),
      property,
    );
  });

  it("resident hashing at every alignment matches the reference", () => {
    const { IO } = core.layout;
    const bytes = Uint8Array.from({ length: 200 }, (_, i) => (i * 131 + 17) & 0xff);
    for (let offset = 0; offset < 8; offset++) {
      core.u8.set(bytes, IO + offset);
      for (let len = 0; len <= 64; len++) {
        expect(codec.fnv1aResident(IO + offset, len)).toBe(ref.fnv1a(bytes, 0, len));
      }
    }
  });

  it("copies inputs larger than IO in pieces", () => {
    const bytes = Uint8Array.from({ length: core.layout.IO_BYTES * 2 + 333 }, (_, i) => (i * 7919) >>> 3);
    expect(codec.fnv1a(bytes, 5, bytes.length)).toBe(ref.fnv1a(bytes, 5, bytes.length));
  });
});
