// TileUpdatePacket (type 12, 19 … 1035 bytes, server → client): single tiles
// of one chunk changed at run time. It turns a cached chunk at `from_version`
// into `to_version` without re-sending the chunk; a client holding any other
// version ignores it and converges through the manifest and the cache diff
// like for any stale chunk (docs/protocol.md § TileUpdatePacket).
import { readU16, readU32, writeU16, writeU32 } from "./bytes.js";
import { type DecodeResult, EncodeError, checkRoom, checkU32, failure, isIntegerIn } from "./errors.js";
import { PACKET_TILE_UPDATE, encodeHeader } from "./header.js";
import { CHUNK_TILE_COUNT, TILE_UNKNOWN } from "../constants.js";

/** Header, chunk_id, from_version, to_version, count: where the changes start. */
export const TILE_UPDATE_HEADER_BYTES = 15;
export const TILE_CHANGE_BYTES = 4;
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
  writeU32(out, offset + 6, packet.chunkId);
  writeU16(out, offset + 10, packet.fromVersion);
  writeU16(out, offset + 12, packet.toVersion);
  out[offset + 14] = count;
  let at = offset + TILE_UPDATE_HEADER_BYTES;
  for (let index = 0; index < count; index++, at += TILE_CHANGE_BYTES) {
    writeU16(out, at, packet.changes[index].tileIndex);
    writeU16(out, at + 2, packet.changes[index].tileId);
  }
  return size;
}

/** Decodes the body of a datagram whose header checkHeader accepted with type 12. */
export function decodeTileUpdateBody(bytes: Uint8Array): DecodeResult<TileUpdatePacket> {
  if (bytes.length < TILE_UPDATE_HEADER_BYTES) {
    return failure("truncated", bytes.length, `TileUpdatePacket needs at least ${TILE_UPDATE_HEADER_BYTES} bytes`);
  }
  const fromVersion = readU16(bytes, 10);
  const toVersion = readU16(bytes, 12);
  if (fromVersion === 0) return failure("bad_chunk_version", 10, "from_version 0 names no chunk content");
  if (toVersion === 0 || toVersion === fromVersion) {
    return failure("bad_chunk_version", 12, `to_version ${toVersion} after from_version ${fromVersion}`);
  }
  const count = bytes[14];
  if (count === 0) return failure("bad_count", 14, "a tile update carries at least one change");
  const end = TILE_UPDATE_HEADER_BYTES + count * TILE_CHANGE_BYTES;
  if (end > bytes.length) return failure("truncated", bytes.length, `${count} changes need ${end} bytes`);
  if (end < bytes.length) return failure("trailing_bytes", end, `${bytes.length - end} bytes after ${count} changes`);
  const changes: TileChange[] = [];
  for (let at = TILE_UPDATE_HEADER_BYTES; at < end; at += TILE_CHANGE_BYTES) {
    const tileIndex = readU16(bytes, at);
    if (tileIndex >= CHUNK_TILE_COUNT) return failure("bad_tile_index", at, `tile_index ${tileIndex} is not 0..1023`);
    const tileId = readU16(bytes, at + 2);
    if (tileId === TILE_UNKNOWN) return failure("reserved_tile", at + 2, "tile_id 0xFFFF (TILE_UNKNOWN) is never sent");
    changes.push({ tileIndex, tileId });
  }
  return {
    ok: true,
    packet: {
      type: "tile_update",
      clientType: readU16(bytes, 4),
      chunkId: readU32(bytes, 6),
      fromVersion,
      toVersion,
      changes,
    },
  };
}
