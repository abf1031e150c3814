// ChunkWidePacket (type 20, at most 1200 bytes, server → client): a band of
// whole rows of one 32×32 chunk whose palette exceeds the ChunkPacket's 64
// ids, as a palette of the band's distinct ids plus one bit-packed index per
// cell (docs/protocol.md § ChunkWidePacket). A chunk is sent as the parts
// covering its 32 rows; each part is a complete, self-validating datagram.
import { readU16, readU32, writeU16, writeU32 } from "./bytes.js";
import { type DecodeResult, EncodeError, checkRoom, checkU32, failure, isIntegerIn, outOfRange } from "./errors.js";
import { CHUNK_ENTRY_LAYOUT, CHUNK_ENTRY_VERSION_OFFSET } from "./chunk-id.js";
import { HEADER_BYTES, MAX_DATAGRAM_BYTES, PACKET_CHUNK_WIDE, encodeHeader, readClientType } from "./header.js";
import { bitPackedTiles, chunkEntries, count, int, layout, variable } from "./layout.js";
import { CHUNK_SIZE, CHUNK_TILE_COUNT, TILE_UNKNOWN, WIDE_PACKED_MAX_BYTES, WIDE_PALETTE_MAX } from "../constants.js";
import {
  firstBadIndex,
  wideDecode,
  wideEncode,
  wideIndexBits,
  widePayloadBytes,
  wideRowsFit,
  wideRowsValid,
} from "./chunk-wide-kernels.js";

/** Header, ChunkEntry, row_start, row_count and pal_count: where the palette starts. */
export const CHUNK_WIDE_PALETTE_OFFSET = 16;
/** docs/protocol.md § ChunkWidePacket. */
export const CHUNK_WIDE_LAYOUT = layout("chunk_wide", HEADER_BYTES, CHUNK_WIDE_PALETTE_OFFSET, [
  chunkEntries("chunk", "", 1, CHUNK_ENTRY_LAYOUT),
  int("row_start", "u8", "rowStart"),
  int("row_count", "u8", "rowCount"),
  count("pal_count", 2, "palette"),
  variable("palette", "palette", "palette"),
  bitPackedTiles("tile_indices", "packedTiles"),
]);
const CHUNK_ID_AT = CHUNK_WIDE_LAYOUT.offset.chunk;
const VERSION_AT = CHUNK_ID_AT + CHUNK_ENTRY_VERSION_OFFSET;
const ROW_START_AT = CHUNK_WIDE_LAYOUT.offset.row_start;
const ROW_COUNT_AT = CHUNK_WIDE_LAYOUT.offset.row_count;
const PAL_COUNT_AT = CHUNK_WIDE_LAYOUT.offset.pal_count;
/** What one part may spend on palette and packed indices. */
export const CHUNK_WIDE_PAYLOAD_BUDGET = MAX_DATAGRAM_BYTES - CHUNK_WIDE_PALETTE_OFFSET;

/** Plain form: what encoders take and decodePacketPlain returns. */
export interface ChunkWidePacket {
  type: "chunk_wide";
  clientType: number;
  chunkId: number;
  /** 1..65535, as in ChunkPacket. */
  version: number;
  /** First row of the chunk this part covers, 0..31. */
  rowStart: number;
  /** Rows covered, 1..32 − rowStart. */
  rowCount: number;
  /** 1..1024 global tile ids; local index i maps to palette[i]. */
  palette: ArrayLike<number>;
  /** rowCount · 4 · wideIndexBits(palette.length) bytes: rowCount · 32 indices, bit-packed. */
  packedTiles: Uint8Array;
}

/** Zero-copy form returned by decodePacket. */
export interface ChunkWideView {
  type: "chunk_wide";
  clientType: number;
  chunkId: number;
  version: number;
  rowStart: number;
  rowCount: number;
  paletteCount: number;
  /** paletteCount little-endian u16s (a byte view into the datagram). */
  paletteBytes: Uint8Array;
  /** The packed indices (a view into the datagram). */
  packedTiles: Uint8Array;
}

/** Byte length of a part of `rowCount` rows with `paletteCount` palette entries. */
export function chunkWidePacketBytes(rowCount: number, paletteCount: number): number {
  return CHUNK_WIDE_PALETTE_OFFSET + widePayloadBytes(rowCount, paletteCount);
}

/** Writes one ChunkWidePacket at `offset`; returns its length. Throws EncodeError on bad input. */
export function encodeChunkWide(packet: ChunkWidePacket, out: Uint8Array, offset = 0): number {
  checkU32("chunk_id", packet.chunkId);
  if (!isIntegerIn(packet.version, 1, 0xffff)) outOfRange("version", packet.version, 1, 0xffff);
  if (!wideRowsValid(packet.rowStart, packet.rowCount)) {
    throw new EncodeError(
      "out_of_range",
      `rows ${packet.rowStart} + ${packet.rowCount} must be 1..32 rows inside the chunk`,
    );
  }
  const palette = packet.palette;
  const count = palette.length;
  if (count < 1 || count > WIDE_PALETTE_MAX) {
    throw new EncodeError("out_of_range", `palette must hold 1..${WIDE_PALETTE_MAX} tile ids, got ${count}`);
  }
  for (let index = 0; index < count; index++) {
    if (!isIntegerIn(palette[index], 0, TILE_UNKNOWN - 1)) outOfRange(`palette[${index}]`, palette[index], 0, 0xfffe);
  }
  const bits = wideIndexBits(count);
  const packedBytes = packet.rowCount * 4 * bits;
  const packed = packet.packedTiles;
  if (!(packed instanceof Uint8Array) || packed.length !== packedBytes) {
    throw new EncodeError("out_of_range", `packedTiles must be a Uint8Array of ${packedBytes} bytes`);
  }
  const bad = count < 1 << bits ? firstBadIndex(packed, packet.rowCount * CHUNK_SIZE, bits, count) : -1;
  if (bad >= 0) throw new EncodeError("out_of_range", `cell ${bad} of the part has an index >= palette size ${count}`);
  const size = chunkWidePacketBytes(packet.rowCount, count);
  if (size > MAX_DATAGRAM_BYTES) {
    throw new EncodeError("oversize", `a part of ${packet.rowCount} rows and ${count} ids is ${size} bytes`);
  }
  checkRoom(out, offset, size);
  encodeHeader(PACKET_CHUNK_WIDE, packet.clientType, out, offset);
  writeU32(out, offset + CHUNK_ID_AT, packet.chunkId);
  writeU16(out, offset + VERSION_AT, packet.version);
  out[offset + ROW_START_AT] = packet.rowStart;
  out[offset + ROW_COUNT_AT] = packet.rowCount;
  writeU16(out, offset + PAL_COUNT_AT, count);
  for (let index = 0; index < count; index++)
    writeU16(out, offset + CHUNK_WIDE_PALETTE_OFFSET + index * 2, palette[index]);
  out.set(packed, offset + CHUNK_WIDE_PALETTE_OFFSET + count * 2);
  return size;
}

/**
 * The parts of a chunk, as the server sends them: 1024 global tile ids
 * (row-major) split greedily into bands of rows, each as many rows as fit one
 * datagram (JS kernels; the server uses the same split through WasmCodec).
 * Returns one fresh Uint8Array per part, in row order.
 */
export function encodeChunkWideFromTiles(
  clientType: number,
  chunkId: number,
  version: number,
  tiles: Uint16Array,
): Uint8Array[] {
  if (tiles.length !== CHUNK_TILE_COUNT) {
    throw new EncodeError("out_of_range", `tiles must hold ${CHUNK_TILE_COUNT} ids, got ${tiles.length}`);
  }
  const palette = new Uint16Array(WIDE_PALETTE_MAX);
  const packed = new Uint8Array(WIDE_PACKED_MAX_BYTES);
  const parts: Uint8Array[] = [];
  for (let rowStart = 0; rowStart < CHUNK_SIZE;) {
    const rowCount = wideRowsFit(tiles, rowStart, CHUNK_WIDE_PAYLOAD_BUDGET);
    const count = wideEncode(tiles, rowStart, rowCount, palette, packed);
    const packedTiles = packed.subarray(0, rowCount * 4 * wideIndexBits(count));
    const out = new Uint8Array(chunkWidePacketBytes(rowCount, count));
    encodeChunkWide(
      {
        type: "chunk_wide",
        clientType,
        chunkId,
        version,
        rowStart,
        rowCount,
        palette: palette.subarray(0, count),
        packedTiles,
      },
      out,
    );
    parts.push(out);
    rowStart += rowCount;
  }
  return parts;
}

/** Decodes the body of a datagram whose header checkHeader accepted with type 20. */
export function decodeChunkWideBody(bytes: Uint8Array): DecodeResult<ChunkWideView> {
  if (bytes.length < CHUNK_WIDE_PALETTE_OFFSET) {
    return failure(
      "truncated",
      bytes.length,
      `ChunkWidePacket needs at least ${CHUNK_WIDE_PALETTE_OFFSET} bytes before the palette`,
    );
  }
  const version = readU16(bytes, VERSION_AT);
  if (version === 0)
    return failure("bad_chunk_version", VERSION_AT, "chunk version 0 means no chunk and is never sent");
  const rowStart = bytes[ROW_START_AT];
  const rowCount = bytes[ROW_COUNT_AT];
  if (!wideRowsValid(rowStart, rowCount)) {
    return failure("bad_rows", ROW_START_AT, `rows ${rowStart} + ${rowCount} are not 1..32 rows inside the chunk`);
  }
  const count = readU16(bytes, PAL_COUNT_AT);
  if (count > WIDE_PALETTE_MAX)
    return failure("palette_too_large", PAL_COUNT_AT, `pal_count ${count} exceeds ${WIDE_PALETTE_MAX}`);
  if (count === 0) return failure("bad_palette_index", PAL_COUNT_AT, "an empty palette leaves every index invalid");
  const size = chunkWidePacketBytes(rowCount, count);
  if (bytes.length < size) {
    return failure(
      "truncated",
      bytes.length,
      `ChunkWidePacket of ${rowCount} rows and ${count} ids needs ${size} bytes`,
    );
  }
  if (bytes.length > size) {
    return failure("trailing_bytes", size, `ChunkWidePacket of ${rowCount} rows and ${count} ids is ${size} bytes`);
  }
  const tilesStart = CHUNK_WIDE_PALETTE_OFFSET + count * 2;
  for (let at = CHUNK_WIDE_PALETTE_OFFSET; at < tilesStart; at += 2) {
    if (readU16(bytes, at) === TILE_UNKNOWN) return failure("reserved_tile", at, "palette holds TILE_UNKNOWN (0xFFFF)");
  }
  const bits = wideIndexBits(count);
  const packedTiles = bytes.subarray(tilesStart, size);
  // P-6: indices are validated on receipt (skipped when every b-bit value is a palette index).
  const bad = count < 1 << bits ? firstBadIndex(packedTiles, rowCount * CHUNK_SIZE, bits, count) : -1;
  if (bad >= 0) {
    return failure(
      "bad_palette_index",
      tilesStart + ((bad * bits) >> 3),
      `cell ${bad} of the part has an index >= pal_count ${count}`,
    );
  }
  return {
    ok: true,
    packet: {
      type: "chunk_wide",
      clientType: readClientType(bytes),
      chunkId: readU32(bytes, CHUNK_ID_AT),
      version,
      rowStart,
      rowCount,
      paletteCount: count,
      paletteBytes: bytes.subarray(CHUNK_WIDE_PALETTE_OFFSET, tilesStart),
      packedTiles,
    },
  };
}

/** Copies the palette of a decoded part into `out` (>= paletteCount entries); returns the count. */
export function readChunkWidePalette(view: ChunkWideView, out: Uint16Array | number[]): number {
  for (let index = 0; index < view.paletteCount; index++) out[index] = readU16(view.paletteBytes, index * 2);
  return view.paletteCount;
}

const expandPalette = new Uint16Array(WIDE_PALETTE_MAX);

/** Writes the rows a decoded part covers into `tiles` (1024 global ids, row-major); other rows stay. */
export function readChunkWideRows(view: ChunkWideView, tiles: Uint16Array): void {
  const count = readChunkWidePalette(view, expandPalette);
  // Cannot fail: decodeChunkWideBody already checked rows, count and every index.
  wideDecode(expandPalette, count, view.packedTiles, view.rowStart, view.rowCount, tiles);
}

/** Plain form of a decoded part (copies palette and indices out of the datagram). */
export function chunkWideViewToPacket(view: ChunkWideView): ChunkWidePacket {
  const palette: number[] = [];
  readChunkWidePalette(view, palette);
  return {
    type: "chunk_wide",
    clientType: view.clientType,
    chunkId: view.chunkId,
    version: view.version,
    rowStart: view.rowStart,
    rowCount: view.rowCount,
    palette,
    packedTiles: view.packedTiles.slice(),
  };
}
