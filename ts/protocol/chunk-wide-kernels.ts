// The wide chunk codec's kernels in plain TypeScript (docs/protocol.md §
// ChunkWidePacket), for hosts without a wasm core: encodeChunkWideFromTiles
// and readChunkWideRows (chunk-wide.ts), which the packet tool and the tests
// use. The server (world.ts) and the client (chunk-cache.ts) run the wasm
// kernels (assembly/codec/wide.ts) through WasmCodec; these are the oracle
// they are tested against (ts/ref/codec.ts re-exports them).
//
// A part covers the rows row_start .. row_start + row_count - 1 of a chunk
// (32 cells each, row-major). Its palette holds the distinct ids of those rows
// in order of first appearance; every cell is an index into it of
// wideIndexBits(pal_count) bits (1..10), packed as one little-endian bit
// stream: index k occupies stream bits k·b .. k·b + b − 1, and stream bit j is
// bit (j & 7) of byte j >> 3. With b = 6 this is exactly the ChunkPacket's
// 6-bit packing. A row of 32 cells is 4·b bytes, so a part never pads.
import { CHUNK_SIZE, CHUNK_TILE_COUNT, WIDE_PACKED_MAX_BYTES, WIDE_PALETTE_MAX } from "../constants.js";
import { requireLength } from "./chunk-kernels.js";

/** Bits per index for a palette of `count` entries: ⌈log2 count⌉, at least 1 (count 1..1024 → 1..10). */
export function wideIndexBits(count: number): number {
  return count <= 2 ? 1 : 32 - Math.clz32(count - 1);
}

/** Palette plus packed bytes of a part of `rowCount` rows whose palette has `count` entries. */
export function widePayloadBytes(rowCount: number, count: number): number {
  return count * 2 + rowCount * 4 * wideIndexBits(count);
}

/** Whether rowStart and rowCount name 1..32 whole rows inside a chunk. */
export function wideRowsValid(rowStart: number, rowCount: number): boolean {
  return (
    Number.isInteger(rowStart) &&
    Number.isInteger(rowCount) &&
    rowStart >= 0 &&
    rowCount >= 1 &&
    rowStart + rowCount <= CHUNK_SIZE
  );
}

/**
 * 1 + palette index of each tile id during one kernel call, 0 elsewhere
 * (128 KiB, allocated once; each call clears what it set).
 */
const slotOfId = new Uint16Array(65536);

function clearSlots(palette: Uint16Array, count: number): void {
  for (let j = 0; j < count; j++) slotOfId[palette[j]] = 0;
}

// Distinct ids seen by wideRowsFit, so that it can clear its slots.
const seenIds = new Uint16Array(WIDE_PALETTE_MAX);

/**
 * The most rows from rowStart on (at least 1 unless even one row does not
 * fit, then 0) whose part payload — palette and packed indices,
 * widePayloadBytes — fits in `budget` bytes. -1 if rowStart is not 0..31.
 * tiles.length >= 1024.
 */
export function wideRowsFit(tiles: Uint16Array, rowStart: number, budget: number): number {
  requireLength(tiles, CHUNK_TILE_COUNT, "tiles");
  if (!Number.isInteger(rowStart) || rowStart < 0 || rowStart >= CHUNK_SIZE) return -1;
  let count = 0;
  let rows = 0;
  for (let row = rowStart; row < CHUNK_SIZE; row++) {
    for (let cell = row * CHUNK_SIZE, end = cell + CHUNK_SIZE; cell < end; cell++) {
      const id = tiles[cell];
      if (slotOfId[id] === 0) {
        seenIds[count++] = id;
        slotOfId[id] = count;
      }
    }
    if (widePayloadBytes(row - rowStart + 1, count) > budget) break;
    rows++;
  }
  clearSlots(seenIds, count);
  return rows;
}

/**
 * Encodes rows rowStart .. rowStart + rowCount − 1 of 1024 tile ids: palette
 * gets their distinct ids in order of first appearance (row-major), packed the
 * rowCount · 32 indices at wideIndexBits(count) bits. Returns the palette size,
 * or -1 (outputs untouched) when the rows are not inside the chunk.
 * palette.length >= 1024, packed.length >= 1280.
 */
export function wideEncode(
  tiles: Uint16Array,
  rowStart: number,
  rowCount: number,
  palette: Uint16Array,
  packed: Uint8Array,
): number {
  requireLength(tiles, CHUNK_TILE_COUNT, "tiles");
  requireLength(palette, WIDE_PALETTE_MAX, "palette");
  requireLength(packed, WIDE_PACKED_MAX_BYTES, "packed");
  if (!wideRowsValid(rowStart, rowCount)) return -1;
  const start = rowStart * CHUNK_SIZE;
  const end = start + rowCount * CHUNK_SIZE;
  let count = 0;
  for (let cell = start; cell < end; cell++) {
    const id = tiles[cell];
    if (slotOfId[id] === 0) {
      palette[count++] = id;
      slotOfId[id] = count;
    }
  }
  const bits = wideIndexBits(count);
  let accumulator = 0;
  let filled = 0;
  let out = 0;
  for (let cell = start; cell < end; cell++) {
    accumulator |= (slotOfId[tiles[cell]] - 1) << filled;
    filled += bits;
    while (filled >= 8) {
      packed[out++] = accumulator & 0xff;
      accumulator >>>= 8;
      filled -= 8;
    }
  }
  clearSlots(palette, count);
  return count;
}

/**
 * Decodes a part: the rowCount · 32 indices of `packed` (at
 * wideIndexBits(count) bits) through the first `count` palette entries into
 * rows rowStart .. of `tiles`. Returns 0, or -1 with tiles untouched when the
 * rows are not inside the chunk, count is not 1..1024 or an index is >= count.
 * packed.length >= rowCount · 4 · bits, tiles.length >= 1024.
 */
export function wideDecode(
  palette: Uint16Array,
  count: number,
  packed: Uint8Array,
  rowStart: number,
  rowCount: number,
  tiles: Uint16Array,
): number {
  requireLength(tiles, CHUNK_TILE_COUNT, "tiles");
  if (!wideRowsValid(rowStart, rowCount)) return -1;
  if (!Number.isInteger(count) || count < 1 || count > WIDE_PALETTE_MAX) return -1;
  requireLength(palette, count, "palette");
  const bits = wideIndexBits(count);
  const cells = rowCount * CHUNK_SIZE;
  requireLength(packed, rowCount * 4 * bits, "packed");
  // Validate first, so that a rejected part leaves the caller's tiles as they were.
  if (count < 1 << bits && firstBadIndex(packed, cells, bits, count) >= 0) return -1;
  const mask = (1 << bits) - 1;
  let accumulator = 0;
  let filled = 0;
  let at = 0;
  for (let cell = rowStart * CHUNK_SIZE, end = cell + cells; cell < end; cell++) {
    while (filled < bits) {
      accumulator |= packed[at++] << filled;
      filled += 8;
    }
    tiles[cell] = palette[accumulator & mask];
    accumulator >>>= bits;
    filled -= bits;
  }
  return 0;
}

/** Position (cell within the part) of the first index >= count, or -1. */
export function firstBadIndex(packed: Uint8Array, cells: number, bits: number, count: number): number {
  const mask = (1 << bits) - 1;
  let accumulator = 0;
  let filled = 0;
  let at = 0;
  for (let cell = 0; cell < cells; cell++) {
    while (filled < bits) {
      accumulator |= packed[at++] << filled;
      filled += 8;
    }
    if ((accumulator & mask) >= count) return cell;
    accumulator >>>= bits;
    filled -= bits;
  }
  return -1;
}

/** Unpacks `cells` indices of `bits` bits from `packed` into `out` (the packet tool's view of a part). */
export function unpackBits(packed: Uint8Array, cells: number, bits: number, out: Uint16Array): void {
  requireLength(out, cells, "out");
  requireLength(packed, (cells * bits) >> 3, "packed");
  const mask = (1 << bits) - 1;
  for (let cell = 0; cell < cells; cell++) {
    let value = 0;
    for (let bit = 0; bit < bits; bit++) {
      const at = cell * bits + bit;
      value |= ((packed[at >> 3] >> (at & 7)) & 1) << bit;
    }
    out[cell] = value & mask;
  }
}

/** Packs `cells` indices (each masked to `bits` bits) into `out`, which must be zero-filled. */
export function packBits(indices: ArrayLike<number>, cells: number, bits: number, out: Uint8Array): void {
  requireLength(indices, cells, "indices");
  requireLength(out, (cells * bits) >> 3, "out");
  for (let cell = 0; cell < cells; cell++) {
    for (let bit = 0; bit < bits; bit++) {
      const at = cell * bits + bit;
      if ((indices[cell] >> bit) & 1) out[at >> 3] |= 1 << (at & 7);
    }
  }
}
