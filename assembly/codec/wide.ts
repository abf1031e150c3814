// Wide chunk parts (docs/protocol.md § ChunkWidePacket): a band of whole rows
// of CHUNK_TILES as a palette of its distinct ids (any number up to 1024) and
// one index per cell at ⌈log2 count⌉ bits (1..10), packed as one
// little-endian bit stream — index k at stream bits k·b .. k·b + b − 1, stream
// bit j = bit (j & 7) of byte j >> 3 (with b = 6 this is pack6's layout). A
// row of 32 cells is 4·b bytes, so parts never pad.
//
// Scalar code in both builds: wide chunks are encoded once per chunk version
// on the server and decoded once per arrival on the client, and an id→index
// lookup over 65536 ids does not vectorise; the JS oracle is
// ts/protocol/chunk-wide-kernels.ts. WIDE_SLOTS holds 1 + the palette index of
// each id while a kernel runs, and every kernel leaves it all zero.
import { CHUNK_SIZE, CHUNK_TILES, WIDE_PACKED, WIDE_PALETTE, WIDE_PALETTE_MAX, WIDE_SLOTS } from "../layout";

/** Bits per index for a palette of `count` entries: ⌈log2 count⌉, at least 1. */
export function wide_index_bits(count: i32): i32 {
  return count <= 2 ? 1 : 32 - <i32>clz(<u32>(count - 1));
}

/** The global tile id of cell `cell` of CHUNK_TILES. */
// @ts-ignore: decorator
@inline
function tileAt(cell: i32): u32 {
  return <u32>load<u16>(CHUNK_TILES + ((<usize>cell) << 1));
}

/** WIDE_SLOTS entry of tile id `id`: 0, or 1 + its palette index. */
// @ts-ignore: decorator
@inline
function slotAddress(id: u32): usize {
  return WIDE_SLOTS + ((<usize>id) << 1);
}

/** Zeroes the slots of the first `count` ids listed at `ids` (u16s). */
function clearSlots(ids: usize, count: i32): void {
  for (let j: i32 = 0; j < count; j++) store<u16>(slotAddress(<u32>load<u16>(ids + ((<usize>j) << 1))), 0);
}

/**
 * wide_rows_fit: the most rows of CHUNK_TILES from row_start on whose part
 * payload (2 bytes per palette entry + 4 · bits bytes per row) fits `budget`
 * bytes: at least 1 unless one row does not fit (then 0); -1 if row_start is
 * not 0..31. Lists the distinct ids it met in WIDE_PALETTE (scratch: a
 * following wide_encode rewrites it).
 */
export function wide_rows_fit(row_start: i32, budget: i32): i32 {
  if (<u32>row_start >= <u32>CHUNK_SIZE) return -1;
  let count: i32 = 0;
  let rows: i32 = 0;
  for (let row = row_start; row < CHUNK_SIZE; row++) {
    for (let cell = row * CHUNK_SIZE, end = cell + CHUNK_SIZE; cell < end; cell++) {
      const id = tileAt(cell);
      if (load<u16>(slotAddress(id)) == 0) {
        store<u16>(WIDE_PALETTE + ((<usize>count) << 1), <u16>id);
        count++;
        store<u16>(slotAddress(id), <u16>count);
      }
    }
    if (count * 2 + (row - row_start + 1) * 4 * wide_index_bits(count) > budget) break;
    rows++;
  }
  clearSlots(WIDE_PALETTE, count);
  return rows;
}

/**
 * wide_encode: rows row_start .. row_start + row_count − 1 of CHUNK_TILES ->
 * WIDE_PALETTE (distinct ids in order of first appearance, row-major) +
 * WIDE_PACKED (row_count · 4 · bits bytes). Returns the palette size, or -1
 * (outputs untouched) when the rows are not 1..32 rows inside the chunk.
 */
export function wide_encode(row_start: i32, row_count: i32): i32 {
  if (!rowsValid(row_start, row_count)) return -1;
  const start = row_start * CHUNK_SIZE;
  const end = start + row_count * CHUNK_SIZE;
  let count: i32 = 0;
  for (let cell = start; cell < end; cell++) {
    const id = tileAt(cell);
    if (load<u16>(slotAddress(id)) == 0) {
      store<u16>(WIDE_PALETTE + ((<usize>count) << 1), <u16>id);
      count++;
      store<u16>(slotAddress(id), <u16>count);
    }
  }
  const bits = <u32>wide_index_bits(count);
  let accumulator: u32 = 0;
  let filled: u32 = 0;
  let out = WIDE_PACKED;
  for (let cell = start; cell < end; cell++) {
    accumulator |= (<u32>load<u16>(slotAddress(tileAt(cell))) - 1) << filled;
    filled += bits;
    while (filled >= 8) {
      store<u8>(out, <u8>accumulator);
      out++;
      accumulator >>= 8;
      filled -= 8;
    }
  }
  clearSlots(WIDE_PALETTE, count);
  return count;
}

/**
 * wide_decode: WIDE_PACKED (row_count · 32 indices at wide_index_bits(count)
 * bits) through the first `count` WIDE_PALETTE entries -> rows row_start ..
 * of CHUNK_TILES (other rows untouched). Returns 0, or -1 with CHUNK_TILES
 * untouched when the rows are not inside the chunk, count is not 1..1024 or
 * an index is >= count.
 */
export function wide_decode(row_start: i32, row_count: i32, count: i32): i32 {
  if (!rowsValid(row_start, row_count)) return -1;
  if (count < 1 || count > WIDE_PALETTE_MAX) return -1;
  const bits = <u32>wide_index_bits(count);
  const mask: u32 = (1 << bits) - 1;
  const cells = row_count * CHUNK_SIZE;
  // Validate first (skipped when every b-bit value is an index) so a bad part changes nothing.
  if (<u32>count < mask + 1) {
    let accumulator: u32 = 0;
    let filled: u32 = 0;
    let at = WIDE_PACKED;
    for (let cell: i32 = 0; cell < cells; cell++) {
      while (filled < bits) {
        accumulator |= (<u32>load<u8>(at)) << filled;
        at++;
        filled += 8;
      }
      if ((accumulator & mask) >= <u32>count) return -1;
      accumulator >>= bits;
      filled -= bits;
    }
  }
  let accumulator: u32 = 0;
  let filled: u32 = 0;
  let at = WIDE_PACKED;
  let tile = CHUNK_TILES + ((<usize>(row_start * CHUNK_SIZE)) << 1);
  for (let cell: i32 = 0; cell < cells; cell++) {
    while (filled < bits) {
      accumulator |= (<u32>load<u8>(at)) << filled;
      at++;
      filled += 8;
    }
    store<u16>(tile, load<u16>(WIDE_PALETTE + ((<usize>(accumulator & mask)) << 1)));
    tile += 2;
    accumulator >>= bits;
    filled -= bits;
  }
  return 0;
}

/** Whether row_start and row_count name 1..32 whole rows inside a chunk. */
// @ts-ignore: decorator
@inline
function rowsValid(row_start: i32, row_count: i32): bool {
  return row_start >= 0 && row_count >= 1 && row_start + row_count <= CHUNK_SIZE;
}
