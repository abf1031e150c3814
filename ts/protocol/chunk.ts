// ChunkPacket (type 2, at most 909 bytes, server → client): one 32×32 chunk as
// a local palette of global tile ids plus 1024 packed 6-bit indices
// (docs/protocol.md § ChunkPacket, decisions 1 and 2).
import { readU16, readU32, writeU16, writeU32 } from "./bytes.js";
import { type DecodeResult, EncodeError, checkRoom, checkU32, failure, isIntegerIn, outOfRange } from "./errors.js";
import { CHUNK_ENTRY_LAYOUT, CHUNK_ENTRY_VERSION_OFFSET } from "./chunk-id.js";
import { HEADER_BYTES, PACKET_CHUNK, encodeHeader, readClientType } from "./header.js";
import { chunkEntries, count, layout, packedTiles, variable } from "./layout.js";
import { CHUNK_PACKED_BYTES, CHUNK_TILE_COUNT, PALETTE_MAX, TILE_UNKNOWN } from "../constants.js";
import { pack6, paletteBuild, paletteExpand, unpack6 } from "./chunk-kernels.js";

/** Header, ChunkEntry and pal_count: where the palette starts. */
export const CHUNK_PALETTE_OFFSET = 13;
/** Bytes of one palette entry (a u16 global tile id). */
export const CHUNK_PALETTE_ENTRY_BYTES = 2;
/** docs/protocol.md § ChunkPacket: the palette's u16 ids, then the packed tiles. */
export const CHUNK_LAYOUT = layout("chunk", HEADER_BYTES, CHUNK_PALETTE_OFFSET, [
  chunkEntries("chunk", "", 1, CHUNK_ENTRY_LAYOUT),
  count("pal_count", 1, "palette"),
  variable("palette", "palette", "palette"),
  packedTiles("tile_indices", "packedTiles"),
]);
const CHUNK_ID_AT = CHUNK_LAYOUT.offset.chunk;
const VERSION_AT = CHUNK_ID_AT + CHUNK_ENTRY_VERSION_OFFSET;
const PAL_COUNT_AT = CHUNK_LAYOUT.offset.pal_count;
/** 13 + 64 × 2 + 768. */
export const CHUNK_PACKET_MAX_BYTES =
  CHUNK_PALETTE_OFFSET + PALETTE_MAX * CHUNK_PALETTE_ENTRY_BYTES + CHUNK_PACKED_BYTES;

/** Plain form: what encoders take and decodePacketPlain returns. */
export interface ChunkPacket {
  type: "chunk";
  clientType: number;
  chunkId: number;
  /** 1..65535; 0 means "no chunk" and is never sent. */
  version: number;
  /** 1..64 global tile ids; local index i maps to palette[i]. */
  palette: ArrayLike<number>;
  /** 768 bytes: 1024 indices packed 4 per 3 bytes. */
  packedTiles: Uint8Array;
}

/** Zero-copy form returned by decodePacket: palette and tiles are views into the datagram. */
export interface ChunkView {
  type: "chunk";
  clientType: number;
  chunkId: number;
  version: number;
  paletteCount: number;
  /** paletteCount little-endian u16s (a byte view: the palette starts at an odd offset). */
  paletteBytes: Uint8Array;
  /** 768 packed bytes, ready to copy into the wasm CHUNK_PACKED region. */
  packedTiles: Uint8Array;
}

/** Byte length of a ChunkPacket with `paletteCount` entries. */
export function chunkPacketBytes(paletteCount: number): number {
  return CHUNK_PALETTE_OFFSET + paletteCount * CHUNK_PALETTE_ENTRY_BYTES + CHUNK_PACKED_BYTES;
}

/**
 * Index of the first 3-byte group holding an index >= paletteCount, or -1.
 * With a full palette every 6-bit value is valid, so the scan is skipped.
 */
function firstBadGroup(packed: Uint8Array, start: number, paletteCount: number): number {
  if (paletteCount >= PALETTE_MAX) return -1;
  const end = start + CHUNK_PACKED_BYTES;
  for (let at = start; at < end; at += 3) {
    const v = packed[at] | (packed[at + 1] << 8) | (packed[at + 2] << 16);
    if ((v & 63) >= paletteCount || ((v >>> 6) & 63) >= paletteCount) return at;
    if (((v >>> 12) & 63) >= paletteCount || v >>> 18 >= paletteCount) return at;
  }
  return -1;
}

/** Writes a ChunkPacket at `offset`; returns its length. Throws EncodeError on bad input. */
export function encodeChunk(packet: ChunkPacket, out: Uint8Array, offset = 0): number {
  checkU32("chunk_id", packet.chunkId);
  if (!isIntegerIn(packet.version, 1, 0xffff)) outOfRange("version", packet.version, 1, 0xffff);
  const palette = packet.palette;
  const count = palette.length;
  if (count < 1 || count > PALETTE_MAX) {
    throw new EncodeError("out_of_range", `palette must hold 1..${PALETTE_MAX} tile ids, got ${count}`);
  }
  for (let index = 0; index < count; index++) {
    // TILE_UNKNOWN means "not received" on the client, so a chunk must never claim it.
    if (!isIntegerIn(palette[index], 0, TILE_UNKNOWN - 1)) outOfRange(`palette[${index}]`, palette[index], 0, 0xfffe);
  }
  const packed = packet.packedTiles;
  if (!(packed instanceof Uint8Array) || packed.length !== CHUNK_PACKED_BYTES) {
    throw new EncodeError("out_of_range", `packedTiles must be a Uint8Array of ${CHUNK_PACKED_BYTES} bytes`);
  }
  const badGroup = firstBadGroup(packed, 0, count);
  if (badGroup >= 0) {
    throw new EncodeError("out_of_range", `packed group ${badGroup / 3} has an index >= palette size ${count}`);
  }
  const size = chunkPacketBytes(count);
  checkRoom(out, offset, size);
  encodeHeader(PACKET_CHUNK, packet.clientType, out, offset);
  writeU32(out, offset + CHUNK_ID_AT, packet.chunkId);
  writeU16(out, offset + VERSION_AT, packet.version);
  out[offset + PAL_COUNT_AT] = count;
  for (let index = 0; index < count; index++)
    writeU16(out, offset + CHUNK_PALETTE_OFFSET + index * CHUNK_PALETTE_ENTRY_BYTES, palette[index]);
  out.set(packed, offset + CHUNK_PALETTE_OFFSET + count * CHUNK_PALETTE_ENTRY_BYTES);
  return size;
}

// Scratch for encodeChunkFromTiles; chunks are encoded once per version, one at a time.
const scratchPalette = new Uint16Array(PALETTE_MAX);
const scratchIndices = new Uint8Array(CHUNK_TILE_COUNT);
const scratchPacked = new Uint8Array(CHUNK_PACKED_BYTES);

/**
 * Builds palette and packing from 1024 global tile ids (row-major) and writes
 * the ChunkPacket; returns its length. Throws EncodeError for more than 64
 * distinct ids or a TILE_UNKNOWN tile.
 */
export function encodeChunkFromTiles(
  clientType: number,
  chunkId: number,
  version: number,
  tiles: Uint16Array,
  out: Uint8Array,
  offset = 0,
): number {
  if (tiles.length !== CHUNK_TILE_COUNT) {
    throw new EncodeError("out_of_range", `tiles must hold ${CHUNK_TILE_COUNT} ids, got ${tiles.length}`);
  }
  const count = paletteBuild(tiles, scratchPalette, scratchIndices);
  if (count < 0) throw new EncodeError("out_of_range", `chunk has more than ${PALETTE_MAX} distinct tile ids`);
  pack6(scratchIndices, scratchPacked);
  const palette = scratchPalette.subarray(0, count);
  return encodeChunk({ type: "chunk", clientType, chunkId, version, palette, packedTiles: scratchPacked }, out, offset);
}

/** Decodes the body of a datagram whose header checkHeader accepted with type 2. */
export function decodeChunkBody(bytes: Uint8Array): DecodeResult<ChunkView> {
  if (bytes.length < CHUNK_PALETTE_OFFSET) {
    return failure(
      "truncated",
      bytes.length,
      `ChunkPacket needs at least ${CHUNK_PALETTE_OFFSET} bytes before the palette`,
    );
  }
  const version = readU16(bytes, VERSION_AT);
  if (version === 0)
    return failure("bad_chunk_version", VERSION_AT, "chunk version 0 means no chunk and is never sent");
  const count = bytes[PAL_COUNT_AT];
  if (count > PALETTE_MAX)
    return failure("palette_too_large", PAL_COUNT_AT, `pal_count ${count} exceeds ${PALETTE_MAX}`);
  const size = chunkPacketBytes(count);
  if (bytes.length < size) {
    return failure("truncated", bytes.length, `ChunkPacket with ${count} palette entries needs ${size} bytes`);
  }
  if (bytes.length > size) {
    return failure("trailing_bytes", size, `ChunkPacket with ${count} palette entries is ${size} bytes`);
  }
  const tilesStart = CHUNK_PALETTE_OFFSET + count * CHUNK_PALETTE_ENTRY_BYTES;
  for (let at = CHUNK_PALETTE_OFFSET; at < tilesStart; at += CHUNK_PALETTE_ENTRY_BYTES) {
    if (readU16(bytes, at) === TILE_UNKNOWN) return failure("reserved_tile", at, "palette holds TILE_UNKNOWN (0xFFFF)");
  }
  // An empty palette makes every index invalid; the scan reports it at the first group.
  const badGroup = firstBadGroup(bytes, tilesStart, count);
  if (badGroup >= 0) {
    return failure("bad_palette_index", badGroup, `tile group at byte ${badGroup} has an index >= pal_count ${count}`);
  }
  return {
    ok: true,
    packet: {
      type: "chunk",
      clientType: readClientType(bytes),
      chunkId: readU32(bytes, CHUNK_ID_AT),
      version,
      paletteCount: count,
      paletteBytes: bytes.subarray(CHUNK_PALETTE_OFFSET, tilesStart),
      packedTiles: bytes.subarray(tilesStart, size),
    },
  };
}

/** Copies the palette of a decoded chunk into `out` (>= 64 entries); returns the count. */
export function readChunkPalette(view: ChunkView, out: Uint16Array | number[]): number {
  const bytes = view.paletteBytes;
  for (let index = 0; index < view.paletteCount; index++) {
    out[index] = readU16(bytes, index * CHUNK_PALETTE_ENTRY_BYTES);
  }
  return view.paletteCount;
}

const expandPalette = new Uint16Array(PALETTE_MAX);
const expandIndices = new Uint8Array(CHUNK_TILE_COUNT);

/** Expands a decoded chunk into 1024 global tile ids (row-major) in `tiles`. */
export function readChunkTiles(view: ChunkView, tiles: Uint16Array): void {
  const count = readChunkPalette(view, expandPalette);
  unpack6(view.packedTiles, expandIndices);
  // Cannot fail: decodeChunkBody already checked every index against the palette.
  paletteExpand(expandPalette, count, expandIndices, tiles);
}

/** Plain form of a decoded chunk (copies palette and tiles out of the datagram). */
export function chunkViewToPacket(view: ChunkView): ChunkPacket {
  const palette: number[] = [];
  readChunkPalette(view, palette);
  return {
    type: "chunk",
    clientType: view.clientType,
    chunkId: view.chunkId,
    version: view.version,
    palette,
    packedTiles: view.packedTiles.slice(),
  };
}
