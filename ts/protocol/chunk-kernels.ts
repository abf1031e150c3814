// The chunk codec's kernels in plain TypeScript (docs/protocol.md, ChunkPacket;
// protocol-decisions.md 1 and 2), for hosts that encode or expand a chunk
// without a wasm core: encodeChunkFromTiles and readChunkTiles (chunk.ts), which
// the packet tool and the tests use. The server (world.ts) and the client
// (chunk-cache.ts) run the wasm kernels through WasmCodec instead, by
// measurement: bench/results/codec.json (load 1.3–1.7) has wasm unpack6 and
// pack6 18× and 17.6× faster with the data resident and 9–10× with the copy, a
// whole ChunkPacket encode 9× and decode 18× (only a 64-id palette build is
// faster here, 0.55×, and chunks are mostly a handful of ids);
// bench/micro/chunk-kernels.ts, copy included, a cave chunk, load 12: decode
// 3.8–5.8×, encode 4.4×. They are the oracle the wasm kernels are tested
// against too (ts/ref/codec.ts re-exports them).
//
// 1024 tiles row-major (index = y * 32 + x), each a 6-bit index into a local
// palette of at most 64 global tile ids. Tiles 4g..4g+3 form group g, packed
// into bytes 3g..3g+2 as the little-endian 24-bit v = b0 | b1 << 8 | b2 << 16
// with tile k of the group = (v >> 6k) & 63.
import { CHUNK_PACKED_BYTES, CHUNK_TILE_COUNT, PALETTE_MAX } from "../constants.js";

const GROUPS = CHUNK_TILE_COUNT / 4;

/** Typed arrays index out of range silently; a short buffer is a caller bug, so say so. */
export function requireLength(array: ArrayLike<number>, length: number, name: string): void {
  if (array.length < length) throw new RangeError(`${name} has ${array.length} elements, needs at least ${length}`);
}

/** Unpacks 768 packed bytes into 1024 palette indices (0..63). packed.length >= 768, out.length >= 1024. */
export function unpack6(packed: Uint8Array, out: Uint8Array): void {
  requireLength(packed, CHUNK_PACKED_BYTES, "packed");
  requireLength(out, CHUNK_TILE_COUNT, "out");
  for (let g = 0, src = 0, dst = 0; g < GROUPS; g++, src += 3, dst += 4) {
    const v = packed[src] | (packed[src + 1] << 8) | (packed[src + 2] << 16);
    out[dst] = v & 63;
    out[dst + 1] = (v >>> 6) & 63;
    out[dst + 2] = (v >>> 12) & 63;
    out[dst + 3] = v >>> 18;
  }
}

/** Packs 1024 indices into 768 bytes; each index is masked with & 63. indices.length >= 1024, out.length >= 768. */
export function pack6(indices: Uint8Array, out: Uint8Array): void {
  requireLength(indices, CHUNK_TILE_COUNT, "indices");
  requireLength(out, CHUNK_PACKED_BYTES, "out");
  for (let g = 0, src = 0, dst = 0; g < GROUPS; g++, src += 4, dst += 3) {
    const v =
      (indices[src] & 63) |
      ((indices[src + 1] & 63) << 6) |
      ((indices[src + 2] & 63) << 12) |
      ((indices[src + 3] & 63) << 18);
    out[dst] = v;
    out[dst + 1] = v >>> 8;
    out[dst + 2] = v >>> 16;
  }
}

/**
 * 1 + palette index of each tile id during one paletteBuild, 0 elsewhere.
 * Shared by all calls (64 KiB, allocated once); each call clears the entries
 * it set, so it is all zero between calls.
 */
const slotOfId = new Uint8Array(65536);

/**
 * Builds the local palette of 1024 global tile ids: palette gets the distinct
 * ids in order of first appearance (row-major), indices the position of each
 * tile's id in it. Returns the palette size, or -1 when there are more than
 * 64 distinct ids (palette and indices then hold partial results).
 * palette.length >= 64, indices.length >= 1024.
 */
export function paletteBuild(tiles: Uint16Array, palette: Uint16Array, indices: Uint8Array): number {
  requireLength(tiles, CHUNK_TILE_COUNT, "tiles");
  requireLength(palette, PALETTE_MAX, "palette");
  requireLength(indices, CHUNK_TILE_COUNT, "indices");
  let count = 0;
  // Chunks are mostly runs of one id, so remembering the last id skips most lookups.
  let lastId = -1;
  let lastIndex = 0;
  for (let i = 0; i < CHUNK_TILE_COUNT; i++) {
    const id = tiles[i];
    if (id !== lastId) {
      let slot = slotOfId[id];
      if (slot === 0) {
        if (count === PALETTE_MAX) {
          clearSlots(palette, count);
          return -1;
        }
        palette[count++] = id;
        slot = count;
        slotOfId[id] = slot;
      }
      lastId = id;
      lastIndex = slot - 1;
    }
    indices[i] = lastIndex;
  }
  clearSlots(palette, count);
  return count;
}

function clearSlots(palette: Uint16Array, count: number): void {
  for (let j = 0; j < count; j++) slotOfId[palette[j]] = 0;
}

/**
 * Maps 1024 indices through the first `count` palette entries into tiles.
 * Returns 0, or -1 (tiles untouched) when count is not in 0..64 or an index is >= count.
 * palette.length >= count, indices.length >= 1024, tiles.length >= 1024.
 */
export function paletteExpand(palette: Uint16Array, count: number, indices: Uint8Array, tiles: Uint16Array): number {
  requireLength(indices, CHUNK_TILE_COUNT, "indices");
  requireLength(tiles, CHUNK_TILE_COUNT, "tiles");
  if (!Number.isInteger(count) || count < 0 || count > PALETTE_MAX) return -1;
  requireLength(palette, count, "palette");
  // Validate first so that a rejected chunk leaves the caller's tiles as they were.
  for (let i = 0; i < CHUNK_TILE_COUNT; i++) if (indices[i] >= count) return -1;
  for (let i = 0; i < CHUNK_TILE_COUNT; i++) tiles[i] = palette[indices[i]];
  return 0;
}
