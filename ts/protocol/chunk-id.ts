// Chunk ids and the 6-byte ChunkEntry (chunk_id u32, version u16) that
// manifests, cache lists and chunk packets share (docs/protocol.md § ChunkEntry).
import { readU16, readU32, writeU16, writeU32 } from "./bytes.js";
import { checkI16, isIntegerIn, outOfRange } from "./errors.js";
import { chunkIdField, int, layout } from "./layout.js";
import { CHUNK_SIZE } from "../constants.js";

export const CHUNK_ENTRY_BYTES = 6;
/** docs/protocol.md § ChunkEntry; offsets are relative to the entry. */
export const CHUNK_ENTRY_LAYOUT = layout("chunk_entry", 0, CHUNK_ENTRY_BYTES, [
  chunkIdField("chunk_id", "chunkId"),
  int("version", "u16", "version"),
]);
/** Offset of chunk_id within a ChunkEntry. */
export const CHUNK_ENTRY_ID_OFFSET = CHUNK_ENTRY_LAYOUT.offset.chunk_id;
/** Offset of version within a ChunkEntry. */
export const CHUNK_ENTRY_VERSION_OFFSET = CHUNK_ENTRY_LAYOUT.offset.version;

export interface ChunkEntry {
  /** (cx as u16) | (cy as u16) << 16, see chunkId. */
  chunkId: number;
  /** Content version; 0 = "no chunk" (manifest) or "not held" (cache). */
  version: number;
}

/** Packs signed chunk coordinates (i16 each) into a chunk_id. */
export function chunkId(cx: number, cy: number): number {
  checkI16("cx", cx);
  checkI16("cy", cy);
  return ((cx & 0xffff) | ((cy & 0xffff) << 16)) >>> 0;
}

/** Signed chunk x of a chunk_id. */
export function chunkX(id: number): number {
  return (id << 16) >> 16;
}

/** Signed chunk y of a chunk_id. */
export function chunkY(id: number): number {
  return id >> 16;
}

/** Signed chunk coordinates of a chunk_id. */
export function chunkCoords(id: number): { cx: number; cy: number } {
  return { cx: chunkX(id), cy: chunkY(id) };
}

/** Chunk coordinate holding world tile coordinate `tile` (floor division, so -1 is in chunk -1). */
export function chunkOfTile(tile: number): number {
  return Math.floor(tile / CHUNK_SIZE);
}

export function readChunkEntry(bytes: Uint8Array, offset: number, out: ChunkEntry): void {
  out.chunkId = readU32(bytes, offset + CHUNK_ENTRY_ID_OFFSET);
  out.version = readU16(bytes, offset + CHUNK_ENTRY_VERSION_OFFSET);
}

/** Throws EncodeError unless `entry` fits a ChunkEntry; `what` and `index` name it in the message. */
export function checkChunkEntry(entry: ChunkEntry, what: string, index: number): void {
  if (!isIntegerIn(entry.chunkId, 0, 0xffffffff))
    outOfRange(`${what}[${index}].chunk_id`, entry.chunkId, 0, 0xffffffff);
  if (!isIntegerIn(entry.version, 0, 0xffff)) outOfRange(`${what}[${index}].version`, entry.version, 0, 0xffff);
}

/** Writes an entry that checkChunkEntry accepted. */
export function writeChunkEntry(entry: ChunkEntry, out: Uint8Array, offset: number): void {
  writeU32(out, offset + CHUNK_ENTRY_ID_OFFSET, entry.chunkId);
  writeU16(out, offset + CHUNK_ENTRY_VERSION_OFFSET, entry.version);
}
