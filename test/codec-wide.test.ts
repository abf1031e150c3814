// The wide chunk codec (docs/protocol.md § ChunkWidePacket): golden vectors
// for its bit stream, the wasm kernels (real core module) held byte for byte
// to the JS reference on chunks of 65..1024 distinct ids, and the packet
// round trip (split into parts ≤ 1200 bytes, every part decoding on its own).
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { CHUNK_TILE_COUNT, WIDE_PACKED_MAX_BYTES, WIDE_PALETTE_MAX } from "../ts/constants.js";
import {
  CHUNK_WIDE_PAYLOAD_BUDGET,
  MAX_DATAGRAM_BYTES,
  chunkId,
  decodePacket,
  encodeChunkFromTiles,
  encodeChunkWide,
  encodeChunkWideFromTiles,
  readChunkWideRows,
} from "../ts/protocol/index.js";
import * as ref from "../ts/ref/codec.js";
import { type WidePart, WasmCodec } from "../ts/wasm/codec.js";
import type { Core } from "../ts/wasm/core.js";
import { loadCore } from "../ts/wasm/node.js";

let core: Core;
let codec: WasmCodec;

beforeAll(async () => {
  core = await loadCore();
  codec = new WasmCodec(core);
});

/** 1024 tiles holding exactly the ids of `ids` (each at least once), placed by `order`. */
function chunkOf(ids: number[], fill: number[], order: number[]): Uint16Array {
  const tiles = new Uint16Array(CHUNK_TILE_COUNT);
  for (let i = 0; i < CHUNK_TILE_COUNT; i++) tiles[i] = i < ids.length ? ids[i] : ids[fill[i] % ids.length];
  // A Fisher–Yates shuffle driven by `order`, so every id can land anywhere.
  for (let i = CHUNK_TILE_COUNT - 1; i > 0; i--) {
    const j = order[i] % (i + 1);
    [tiles[i], tiles[j]] = [tiles[j], tiles[i]];
  }
  return tiles;
}

const wideChunk = fc
  .record({
    ids: fc.uniqueArray(fc.integer({ min: 0, max: 0xfffe }), { minLength: 65, maxLength: 1024 }),
    fill: fc.array(fc.nat(), { minLength: CHUNK_TILE_COUNT, maxLength: CHUNK_TILE_COUNT }),
    order: fc.array(fc.nat(), { minLength: CHUNK_TILE_COUNT, maxLength: CHUNK_TILE_COUNT }),
  })
  .map(({ ids, fill, order }) => ({ tiles: chunkOf(ids, fill, order), distinct: ids.length }));

/** A chunk with every cell distinct: ids base .. base + 1023 in a shuffled order. */
function allDistinct(base: number, order: number[]): Uint16Array {
  return chunkOf(
    Array.from({ length: CHUNK_TILE_COUNT }, (_, i) => base + i),
    [],
    order,
  );
}

describe("wide bit stream golden vectors", () => {
  it("index bits are ⌈log2 count⌉, at least 1", () => {
    const cases: [number, number][] = [
      [1, 1],
      [2, 1],
      [3, 2],
      [64, 6],
      [65, 7],
      [128, 7],
      [129, 8],
      [256, 8],
      [257, 9],
      [1024, 10],
    ];
    for (const [count, bits] of cases) {
      expect(ref.wideIndexBits(count)).toBe(bits);
      expect(codec.wideIndexBits(count)).toBe(bits);
    }
  });

  it("packs LSB first: 65 ids in cells 0..64, indices 0..64 then 0, at 7 bits", () => {
    const tiles = new Uint16Array(CHUNK_TILE_COUNT).fill(1000);
    for (let i = 0; i < 65; i++) tiles[i] = 1000 + i;
    const palette = new Uint16Array(WIDE_PALETTE_MAX);
    const packed = new Uint8Array(WIDE_PACKED_MAX_BYTES);
    expect(ref.wideEncode(tiles, 0, 32, palette, packed)).toBe(65);
    expect(Array.from(palette.subarray(0, 3))).toEqual([1000, 1001, 1002]);
    // Indices 0..4 at 7 bits: 0 | 1 << 7 | 2 << 14 | 3 << 21 | 4 << 28 = 0x40608080.
    expect(Array.from(packed.subarray(0, 4))).toEqual([0x80, 0x80, 0x60, 0x40]);
    // Index 64 is cell 64 (row 2, cell 0): stream bits 448..454, byte 56 = 64.
    expect(packed[56]).toBe(64);
    expect(packed[57]).toBe(0);
  });

  it("with 6 bits the stream is exactly the ChunkPacket packing", () => {
    const tiles = new Uint16Array(CHUNK_TILE_COUNT);
    for (let i = 0; i < CHUNK_TILE_COUNT; i++) tiles[i] = (i * 7) % 64;
    const palette = new Uint16Array(WIDE_PALETTE_MAX);
    const packed = new Uint8Array(WIDE_PACKED_MAX_BYTES);
    expect(ref.wideEncode(tiles, 0, 32, palette, packed)).toBe(64);
    const narrow = new Uint8Array(909);
    const size = encodeChunkFromTiles(0, 1, 1, tiles, narrow);
    expect(Buffer.from(packed.subarray(0, 768)).equals(Buffer.from(narrow.subarray(size - 768, size)))).toBe(true);
  });
});

describe("wide kernels (wasm = JS reference)", () => {
  it("row fitting, encoding and decoding agree byte for byte on chunks of 65..1024 distinct ids", () => {
    const refPalette = new Uint16Array(WIDE_PALETTE_MAX);
    const refPacked = new Uint8Array(WIDE_PACKED_MAX_BYTES);
    const refTiles = new Uint16Array(CHUNK_TILE_COUNT);
    const wasmTiles = new Uint16Array(CHUNK_TILE_COUNT);
    const part: WidePart = { rowCount: 0, count: 0 };
    fc.assert(
      fc.property(wideChunk, ({ tiles }) => {
        codec.loadTiles(tiles);
        refTiles.fill(0xffff);
        wasmTiles.fill(0xffff);
        for (let rowStart = 0; rowStart < 32; rowStart += part.rowCount) {
          const rows = ref.wideRowsFit(tiles, rowStart, CHUNK_WIDE_PAYLOAD_BUDGET);
          codec.encodeWidePart(rowStart, CHUNK_WIDE_PAYLOAD_BUDGET, part);
          expect(part.rowCount).toBe(rows);
          const count = ref.wideEncode(tiles, rowStart, rows, refPalette, refPacked);
          expect(part.count).toBe(count);
          const bytes = rows * 4 * ref.wideIndexBits(count);
          expect(Array.from(codec.widePalette.subarray(0, count))).toEqual(Array.from(refPalette.subarray(0, count)));
          expect(
            Buffer.from(codec.widePacked.subarray(0, bytes)).equals(Buffer.from(refPacked.subarray(0, bytes))),
          ).toBe(true);
          const paletteBytes = new Uint8Array(refPalette.buffer.slice(0, count * 2));
          expect(ref.wideDecode(refPalette, count, refPacked, rowStart, rows, refTiles)).toBe(0);
          expect(codec.decodeWidePart(paletteBytes, count, refPacked, rowStart, rows, wasmTiles)).toBe(0);
        }
        expect(Buffer.from(refTiles.buffer).equals(Buffer.from(tiles.buffer))).toBe(true);
        expect(Buffer.from(wasmTiles.buffer).equals(Buffer.from(tiles.buffer))).toBe(true);
      }),
      { seed: 0x51de, numRuns: 150 },
    );
  });

  it("both reject an index beyond the palette and leave the tiles untouched", () => {
    fc.assert(
      fc.property(fc.integer({ min: 65, max: 1000 }), fc.integer({ min: 0, max: 1023 }), (count, cell) => {
        const bits = ref.wideIndexBits(count);
        if (count === 1 << bits) return; // every value is an index: nothing to reject
        const palette = Uint16Array.from({ length: count }, (_, i) => i);
        const packed = new Uint8Array(32 * 4 * bits);
        // Cell `cell` gets index `count` (one past the end): bits cell·b .. cell·b + b − 1.
        for (let bit = 0; bit < bits; bit++) {
          if ((count >> bit) & 1) packed[(cell * bits + bit) >> 3] |= 1 << ((cell * bits + bit) & 7);
        }
        const tiles = new Uint16Array(CHUNK_TILE_COUNT).fill(7);
        expect(ref.wideDecode(palette, count, packed, 0, 32, tiles)).toBe(-1);
        const paletteBytes = new Uint8Array(palette.buffer);
        expect(codec.decodeWidePart(paletteBytes, count, packed, 0, 32, tiles)).toBe(-1);
        expect(tiles.every((tile) => tile === 7)).toBe(true);
      }),
      { seed: 0xbad, numRuns: 100 },
    );
  });

  it("both refuse rows outside the chunk and palettes of 0 or more than 1024", () => {
    const tiles = new Uint16Array(CHUNK_TILE_COUNT);
    const palette = new Uint16Array(WIDE_PALETTE_MAX);
    const packed = new Uint8Array(WIDE_PACKED_MAX_BYTES);
    for (const [start, rows] of [
      [-1, 1],
      [0, 0],
      [31, 2],
      [32, 1],
    ]) {
      expect(ref.wideEncode(tiles, start, rows, palette, packed)).toBe(-1);
      expect(codec.wideEncode(start, rows)).toBe(-1);
      expect(ref.wideDecode(palette, 1, packed, start, rows, tiles)).toBe(-1);
      expect(codec.wideDecode(start, rows, 1)).toBe(-1);
    }
    expect(ref.wideRowsFit(tiles, 32, 100)).toBe(-1);
    expect(codec.wideRowsFit(32, 100)).toBe(-1);
    for (const count of [0, 1025]) {
      expect(ref.wideDecode(palette, count, packed, 0, 1, tiles)).toBe(-1);
      expect(codec.wideDecode(0, 1, count)).toBe(-1);
    }
  });

  it("leave no slot behind: encoding one chunk does not change the next one's palette", () => {
    const first = allDistinct(
      5000,
      Array.from({ length: 1024 }, (_, i) => i * 31),
    );
    codec.loadTiles(first);
    const part: WidePart = { rowCount: 0, count: 0 };
    codec.encodeWidePart(0, CHUNK_WIDE_PAYLOAD_BUDGET, part);
    const second = new Uint16Array(CHUNK_TILE_COUNT).fill(first[0]);
    codec.loadTiles(second);
    codec.encodeWidePart(0, CHUNK_WIDE_PAYLOAD_BUDGET, part);
    expect(part).toEqual({ rowCount: 32, count: 1 });
    expect(codec.widePalette[0]).toBe(first[0]);
  });
});

describe("ChunkWidePacket parts", () => {
  it("every chunk of 65..1024 ids splits into parts ≤ 1200 bytes that decode alone and cover all 32 rows", () => {
    fc.assert(
      fc.property(wideChunk, fc.integer({ min: 1, max: 0xffff }), ({ tiles }, version) => {
        const id = chunkId(-3, 7);
        const parts = encodeChunkWideFromTiles(0, id, version, tiles);
        const out = new Uint16Array(CHUNK_TILE_COUNT).fill(0xffff);
        let nextRow = 0;
        for (const bytes of parts) {
          expect(bytes.length).toBeLessThanOrEqual(MAX_DATAGRAM_BYTES);
          const decoded = decodePacket(bytes);
          if (!decoded.ok || decoded.packet.type !== "chunk_wide") throw new Error(`part does not decode`);
          const view = decoded.packet;
          expect([view.chunkId, view.version, view.rowStart]).toEqual([id, version, nextRow]);
          nextRow += view.rowCount;
          readChunkWideRows(view, out);
        }
        expect(nextRow).toBe(32);
        expect(Buffer.from(out.buffer).equals(Buffer.from(tiles.buffer))).toBe(true);
      }),
      { seed: 0x20, numRuns: 100 },
    );
  });

  it("an all-distinct chunk takes 3 parts, a real map's 119-id chunk 1", () => {
    const distinct = encodeChunkWideFromTiles(
      0,
      1,
      1,
      allDistinct(
        100,
        Array.from({ length: 1024 }, (_, i) => i),
      ),
    );
    expect(distinct.length).toBe(3);
    const few = new Uint16Array(CHUNK_TILE_COUNT);
    for (let i = 0; i < CHUNK_TILE_COUNT; i++) few[i] = 300 + (i % 119);
    const parts = encodeChunkWideFromTiles(0, 1, 1, few);
    expect(parts.map((part) => part.length)).toEqual([16 + 119 * 2 + 32 * 4 * 7]);
  });

  it("the encoder refuses what the decoder would reject", () => {
    const base = {
      type: "chunk_wide" as const,
      clientType: 0,
      chunkId: 1,
      version: 1,
      rowStart: 0,
      rowCount: 1,
      palette: [1, 2, 3],
      packedTiles: new Uint8Array(8),
    };
    const out = new Uint8Array(1200);
    expect(encodeChunkWide(base, out)).toBe(16 + 6 + 8);
    expect(() => encodeChunkWide({ ...base, version: 0 }, out)).toThrow(/version/);
    expect(() => encodeChunkWide({ ...base, rowStart: 31, rowCount: 2 }, out)).toThrow(/rows/);
    expect(() => encodeChunkWide({ ...base, palette: [] }, out)).toThrow(/palette/);
    expect(() => encodeChunkWide({ ...base, palette: [0xffff] }, out)).toThrow(/palette\[0\]/);
    expect(() => encodeChunkWide({ ...base, packedTiles: new Uint8Array(7) }, out)).toThrow(/8 bytes/);
    expect(() => encodeChunkWide({ ...base, packedTiles: new Uint8Array(8).fill(0xff) }, out)).toThrow(/index/);
    const many = Array.from({ length: 600 }, (_, i) => i);
    expect(() =>
      encodeChunkWide({ ...base, rowCount: 32, palette: many, packedTiles: new Uint8Array(1280) }, out),
    ).toThrow(/1200|bytes/);
  });
});
