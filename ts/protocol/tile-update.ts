// TileUpdatePacket (type 12, 19 … 1035 bytes, server → client): single tiles
// of one chunk changed at run time. It turns a cached chunk at `from_version`
// into `to_version` without re-sending the chunk; a client holding any other
// version ignores it and converges through the manifest and the cache diff
// like for any stale chunk (docs/protocol.md § TileUpdatePacket).
import { readU16, readU32, writeU16, writeU32 } from "./bytes.js";
import { type DecodeResult, EncodeError, checkRoom, checkU32, failure, isIntegerIn } from "./errors.js";
import { HEADER_BYTES, PACKET_TILE_UPDATE, encodeHeader, readClientType } from "./header.js";
import { chunkIdField, count, int, items, layout, tileIndexField } from "./layout.js";
import { CHUNK_TILE_COUNT, TILE_UNKNOWN } from "../constants.js";

/** Header, chunk_id, from_version, to_version, count: where the changes start. */
export const TILE_UPDATE_HEADER_BYTES = 15;
export const TILE_CHANGE_BYTES = 4;
/** One change; offsets are relative to it. */
export const TILE_CHANGE_LAYOUT = layout("tile_change", 0, TILE_CHANGE_BYTES, [
  tileIndexField("tile_index", "tileIndex"),
  int("tile_id", "u16", "tileId"),
]);
/** docs/protocol.md § TileUpdatePacket. */
export const TILE_UPDATE_LAYOUT = layout("tile_update", HEADER_BYTES, TILE_UPDATE_HEADER_BYTES, [
  chunkIdField("chunk_id", "chunkId"),
  int("from_version", "u16", "fromVersion"),
  int("to_version", "u16", "toVersion"),
  count("count", 1, "changes"),
  items("changes", "changes", TILE_CHANGE_LAYOUT),
]);
const CHUNK_ID_AT = TILE_UPDATE_LAYOUT.offset.chunk_id;
const FROM_AT = TILE_UPDATE_LAYOUT.offset.from_version;
const TO_AT = TILE_UPDATE_LAYOUT.offset.to_version;
const COUNT_AT = TILE_UPDATE_LAYOUT.offset.count;
const TILE_INDEX_AT = TILE_CHANGE_LAYOUT.offset.tile_index;
const TILE_ID_AT = TILE_CHANGE_LAYOUT.offset.tile_id;
/** count is a u8; more changes than this go out as a whole chunk instead. */
export const TILE_UPDATE_MAX_CHANGES = 255;

export interface TileChange {
  /** Row-major index within the chunk: y * 32 + x, 0 … 1023. */
  tileIndex: number;
  /** The new global tile id (never TILE_UNKNOWN). */
  tileId: number;
}

export interface TileUpdatePacket {
  type: "tile_update";
  clientType: number;
  chunkId: number;
  /** The version the changes apply to; 1 … 65535. */
  fromVersion: number;
  /** The chunk's version after them; 1 … 65535, not fromVersion. */
  toVersion: number;
  /** 1 … 255 changes, applied in order. */
  changes: TileChange[];
}

/** Writes a TileUpdatePacket at `offset`; returns its length. Throws EncodeError on bad input. */
export function encodeTileUpdate(packet: TileUpdatePacket, out: Uint8Array, offset = 0): number {
  checkU32("chunk_id", packet.chunkId);
  if (!isIntegerIn(packet.fromVersion, 1, 0xffff) || !isIntegerIn(packet.toVersion, 1, 0xffff)) {
    throw new EncodeError("out_of_range", "from_version and to_version must be 1..65535");
  }
  if (packet.fromVersion === packet.toVersion) throw new EncodeError("out_of_range", "to_version equals from_version");
  const count = Array.isArray(packet.changes) ? packet.changes.length : 0;
  if (count < 1 || count > TILE_UPDATE_MAX_CHANGES) {
    throw new EncodeError("out_of_range", `a tile update carries 1..${TILE_UPDATE_MAX_CHANGES} changes, got ${count}`);
  }
  for (let index = 0; index < count; index++) {
    const change = packet.changes[index];
    if (!isIntegerIn(change.tileIndex, 0, CHUNK_TILE_COUNT - 1)) {
      throw new EncodeError("out_of_range", `changes[${index}].tile_index must be 0..1023`);
    }
    if (!isIntegerIn(change.tileId, 0, TILE_UNKNOWN - 1)) {
      throw new EncodeError("out_of_range", `changes[${index}].tile_id must be 0..0xFFFE`);
    }
  }
  const size = TILE_UPDATE_HEADER_BYTES + count * TILE_CHANGE_BYTES;
  checkRoom(out, offset, size);
  encodeHeader(PACKET_TILE_UPDATE, packet.clientType, out, offset);
  writeU32(out, offset + CHUNK_ID_AT, packet.chunkId);
  writeU16(out, offset + FROM_AT, packet.fromVersion);
  writeU16(out, offset + TO_AT, packet.toVersion);
  out[offset + COUNT_AT] = count;
  let at = offset + TILE_UPDATE_HEADER_BYTES;
  for (let index = 0; index < count; index++, at += TILE_CHANGE_BYTES) {
    writeU16(out, at + TILE_INDEX_AT, packet.changes[index].tileIndex);
    writeU16(out, at + TILE_ID_AT, packet.changes[index].tileId);
  }
  return size;
}

/** Decodes the body of a datagram whose header checkHeader accepted with type 12. */
export function decodeTileUpdateBody(bytes: Uint8Array): DecodeResult<TileUpdatePacket> {
  if (bytes.length < TILE_UPDATE_HEADER_BYTES) {
    return failure("truncated", bytes.length, `TileUpdatePacket needs at least ${TILE_UPDATE_HEADER_BYTES} bytes`);
  }
  const fromVersion = readU16(bytes, FROM_AT);
  const toVersion = readU16(bytes, TO_AT);
  if (fromVersion === 0) return failure("bad_chunk_version", FROM_AT, "from_version 0 names no chunk content");
  if (toVersion === 0 || toVersion === fromVersion) {
    return failure("bad_chunk_version", TO_AT, `to_version ${toVersion} after from_version ${fromVersion}`);
  }
  const count = bytes[COUNT_AT];
  if (count === 0) return failure("bad_count", COUNT_AT, "a tile update carries at least one change");
  const end = TILE_UPDATE_HEADER_BYTES + count * TILE_CHANGE_BYTES;
  if (end > bytes.length) return failure("truncated", bytes.length, `${count} changes need ${end} bytes`);
  if (end < bytes.length) return failure("trailing_bytes", end, `${bytes.length - end} bytes after ${count} changes`);
  const changes: TileChange[] = [];
  for (let at = TILE_UPDATE_HEADER_BYTES; at < end; at += TILE_CHANGE_BYTES) {
    const tileIndex = readU16(bytes, at + TILE_INDEX_AT);
    if (tileIndex >= CHUNK_TILE_COUNT) {
      return failure("bad_tile_index", at + TILE_INDEX_AT, `tile_index ${tileIndex} is not 0..1023`);
    }
    const tileId = readU16(bytes, at + TILE_ID_AT);
    if (tileId === TILE_UNKNOWN) {
      return failure("reserved_tile", at + TILE_ID_AT, "tile_id 0xFFFF (TILE_UNKNOWN) is never sent");
    }
    changes.push({ tileIndex, tileId });
  }
  return {
    ok: true,
    packet: {
      type: "tile_update",
      clientType: readClientType(bytes),
      chunkId: readU32(bytes, CHUNK_ID_AT),
      fromVersion,
      toVersion,
      changes,
    },
  };
}
