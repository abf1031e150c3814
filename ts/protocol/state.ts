// StatePacket (type 0, 72 bytes, server → client): tick, the 3×3 chunk
// manifest around the player, the player's entity id and the entity checksum
// (docs/protocol.md § StatePacket, decisions 8 and 9).
import { readU32, writeU16, writeU32 } from "./bytes.js";
import {
  type ChunkEntry,
  CHUNK_ENTRY_BYTES,
  CHUNK_ENTRY_ID_OFFSET,
  CHUNK_ENTRY_LAYOUT,
  CHUNK_ENTRY_VERSION_OFFSET,
  checkChunkEntry,
  chunkX,
  chunkY,
  readChunkEntry,
  writeChunkEntry,
} from "./chunk-id.js";
import {
  type DecodeError,
  type DecodeResult,
  EncodeError,
  checkI16,
  checkRoom,
  checkU16,
  checkU32,
  decodeError,
  failure,
} from "./errors.js";
import { HEADER_BYTES, PACKET_STATE, encodeHeader, readClientType } from "./header.js";
import { chunkEntries, int, layout } from "./layout.js";

export const STATE_BYTES = 72;
/** Chunks per side of the manifest square around the player. */
export const MANIFEST_SIDE = 3;
/** Entries in a StatePacket manifest and an ActionPacket cache list. */
export const MANIFEST_ENTRIES = MANIFEST_SIDE * MANIFEST_SIDE;
/** Manifest index of the chunk the player stands in. */
export const MANIFEST_CENTRE = (MANIFEST_ENTRIES - 1) / 2;

/** docs/protocol.md § StatePacket. */
export const STATE_LAYOUT = layout("state", HEADER_BYTES, STATE_BYTES, [
  int("tick", "u32", "tick"),
  chunkEntries("chunks", "chunks", MANIFEST_ENTRIES, CHUNK_ENTRY_LAYOUT),
  int("player_entity_id", "u32", "playerEntityId"),
  int("entity_checksum", "u32", "entityChecksum"),
]);
/** Offset of the tick in a StatePacket. */
export const STATE_TICK_OFFSET = STATE_LAYOUT.offset.tick;
/** Offset of the first manifest entry in a StatePacket. */
export const STATE_CHUNKS_OFFSET = STATE_LAYOUT.offset.chunks;
/** Offset of the player's entity id in a StatePacket. */
export const STATE_PLAYER_OFFSET = STATE_LAYOUT.offset.player_entity_id;
/** Offset of the entity checksum in a StatePacket. */
export const STATE_CHECKSUM_OFFSET = STATE_LAYOUT.offset.entity_checksum;

// Chunk offsets (-1, 0 or 1) of each manifest entry from the centre chunk:
// the manifest runs row by row from the north-west (north is -1). The one
// statement of the 3×3 geometry, as tables so the per-client broadcast reads
// them instead of dividing.
const MANIFEST_DX: readonly number[] = Array.from({ length: MANIFEST_ENTRIES }, (_, i) => (i % MANIFEST_SIDE) - 1);
const MANIFEST_DY: readonly number[] = Array.from(
  { length: MANIFEST_ENTRIES },
  (_, i) => Math.floor(i / MANIFEST_SIDE) - 1,
);

/** Chunk x offset (-1, 0 or 1) of manifest entry `index` (0 .. MANIFEST_ENTRIES - 1) from the centre chunk. */
export function manifestDx(index: number): number {
  return MANIFEST_DX[index];
}

/** Chunk y offset (-1, 0 or 1) of manifest entry `index` from the centre chunk (north is -1). */
export function manifestDy(index: number): number {
  return MANIFEST_DY[index];
}

export interface StatePacket {
  type: "state";
  clientType: number;
  tick: number;
  /** 3×3 neighbourhood row by row from the north-west; entry 4 holds the player. */
  chunks: ChunkEntry[];
  playerEntityId: number;
  entityChecksum: number;
}

/**
 * chunk_id of manifest entry `index` (0..8) around the chunk `centreId`.
 * Coordinates wrap as i16, the same as chunk_id itself, so the neighbourhood of
 * any chunk id is defined.
 */
export function manifestChunkId(centreId: number, index: number): number {
  const cx = chunkX(centreId) + manifestDx(index);
  const cy = chunkY(centreId) + manifestDy(index);
  return ((cx & 0xffff) | ((cy & 0xffff) << 16)) >>> 0;
}

/** Index (0..8) of the first manifest entry not in 3×3 order around entry 4, or -1 if all are. */
export function manifestMismatch(chunks: readonly ChunkEntry[]): number {
  const centreId = chunks[MANIFEST_CENTRE].chunkId;
  for (let index = 0; index < MANIFEST_ENTRIES; index++) {
    if (chunks[index].chunkId !== manifestChunkId(centreId, index)) return index;
  }
  return -1;
}

/** A StatePacket with nine zeroed entries, for reuse across ticks. */
export function createStatePacket(): StatePacket {
  const chunks: ChunkEntry[] = [];
  for (let index = 0; index < MANIFEST_ENTRIES; index++) chunks.push({ chunkId: 0, version: 0 });
  return { type: "state", clientType: 0, tick: 0, chunks, playerEntityId: 0, entityChecksum: 0 };
}

/** Writes a StatePacket at `offset`; returns STATE_BYTES. Throws EncodeError on bad input. */
export function encodeState(packet: StatePacket, out: Uint8Array, offset = 0): number {
  checkU32("tick", packet.tick);
  checkU32("player_entity_id", packet.playerEntityId);
  checkU32("entity_checksum", packet.entityChecksum);
  if (!Array.isArray(packet.chunks) || packet.chunks.length !== MANIFEST_ENTRIES) {
    throw new EncodeError("out_of_range", `chunks must hold ${MANIFEST_ENTRIES} entries`);
  }
  for (let index = 0; index < MANIFEST_ENTRIES; index++) checkChunkEntry(packet.chunks[index], "chunks", index);
  const mismatch = manifestMismatch(packet.chunks);
  if (mismatch >= 0) {
    throw new EncodeError("bad_manifest", `chunks[${mismatch}] is not the 3×3 neighbour of chunks[4] (decision 8)`);
  }
  checkRoom(out, offset, STATE_BYTES);
  encodeHeader(PACKET_STATE, packet.clientType, out, offset);
  writeU32(out, offset + STATE_TICK_OFFSET, packet.tick);
  for (let index = 0; index < MANIFEST_ENTRIES; index++) {
    writeChunkEntry(packet.chunks[index], out, offset + STATE_CHUNKS_OFFSET + index * CHUNK_ENTRY_BYTES);
  }
  writeU32(out, offset + STATE_PLAYER_OFFSET, packet.playerEntityId);
  writeU32(out, offset + STATE_CHECKSUM_OFFSET, packet.entityChecksum);
  return STATE_BYTES;
}

/**
 * Writes a StatePacket whose manifest is the 3×3 neighbourhood of chunk
 * (centreX, centreY), entry i with version versions[i], without a StatePacket
 * object: the server writes one per client per broadcast. The manifest is
 * right by construction; everything else is checked as encodeState does.
 * Returns STATE_BYTES; throws EncodeError on bad input.
 */
export function encodeStateAround(
  clientType: number,
  tick: number,
  centreX: number,
  centreY: number,
  versions: ArrayLike<number>,
  playerEntityId: number,
  entityChecksum: number,
  out: Uint8Array,
  offset = 0,
): number {
  return writeStateAround(
    PACKET_STATE,
    clientType,
    tick,
    centreX,
    centreY,
    versions,
    playerEntityId,
    entityChecksum,
    out,
    offset,
  );
}

/**
 * encodeStateAround for a packet that begins with the StatePacket's fields at
 * the StatePacket's offsets (the StateDeltaPacket, state-delta.ts): writes the
 * header with `packetType` and the first STATE_BYTES. Returns STATE_BYTES.
 */
export function writeStateAround(
  packetType: number,
  clientType: number,
  tick: number,
  centreX: number,
  centreY: number,
  versions: ArrayLike<number>,
  playerEntityId: number,
  entityChecksum: number,
  out: Uint8Array,
  offset = 0,
): number {
  checkU32("tick", tick);
  checkU32("player_entity_id", playerEntityId);
  checkU32("entity_checksum", entityChecksum);
  checkI16("centre cx", centreX);
  checkI16("centre cy", centreY);
  for (let index = 0; index < MANIFEST_ENTRIES; index++) checkU16("chunks.version", versions[index]);
  checkRoom(out, offset, STATE_BYTES);
  encodeHeader(packetType, clientType, out, offset);
  writeU32(out, offset + STATE_TICK_OFFSET, tick);
  // Row by row from the north-west, the order manifestDx / manifestDy state
  // (test/protocol-fast-paths.test.ts holds this to encodeState's manifest);
  // nested loops spare the hot path a division per entry. Neighbours wrap as
  // i16, like manifestChunkId.
  let at = offset + STATE_CHUNKS_OFFSET;
  let index = 0;
  for (let dy = -1; dy <= 1; dy++) {
    const cy = ((centreY + dy) & 0xffff) << 16;
    for (let dx = -1; dx <= 1; dx++, index++, at += CHUNK_ENTRY_BYTES) {
      writeU32(out, at + CHUNK_ENTRY_ID_OFFSET, ((centreX + dx) & 0xffff) | cy);
      writeU16(out, at + CHUNK_ENTRY_VERSION_OFFSET, versions[index]);
    }
  }
  writeU32(out, offset + STATE_PLAYER_OFFSET, playerEntityId);
  writeU32(out, offset + STATE_CHECKSUM_OFFSET, entityChecksum);
  return STATE_BYTES;
}

/** Decodes the body of a datagram whose header checkHeader accepted with type 0. */
export function decodeStateBody(bytes: Uint8Array): DecodeResult<StatePacket> {
  if (bytes.length < STATE_BYTES) return failure("truncated", bytes.length, `StatePacket needs ${STATE_BYTES} bytes`);
  if (bytes.length > STATE_BYTES) return failure("trailing_bytes", STATE_BYTES, `StatePacket is ${STATE_BYTES} bytes`);
  const packet = createStatePacket();
  const error = readStateFields(bytes, packet);
  return error === null ? { ok: true, packet } : { ok: false, error };
}

/**
 * Reads the StatePacket's fields (the first STATE_BYTES of `bytes`, which the
 * caller made sure exist) into `packet`; returns null, or the manifest's
 * problem. Shared with the StateDeltaPacket, which starts with them.
 */
export function readStateFields(bytes: Uint8Array, packet: Omit<StatePacket, "type">): DecodeError | null {
  packet.clientType = readClientType(bytes);
  packet.tick = readU32(bytes, STATE_TICK_OFFSET);
  for (let index = 0; index < MANIFEST_ENTRIES; index++) {
    readChunkEntry(bytes, STATE_CHUNKS_OFFSET + index * CHUNK_ENTRY_BYTES, packet.chunks[index]);
  }
  const mismatch = manifestMismatch(packet.chunks);
  if (mismatch >= 0) {
    return decodeError(
      "bad_manifest",
      STATE_CHUNKS_OFFSET + mismatch * CHUNK_ENTRY_BYTES,
      `manifest entry ${mismatch} is not the 3×3 neighbour of entry 4 (decision 8)`,
    );
  }
  packet.playerEntityId = readU32(bytes, STATE_PLAYER_OFFSET);
  packet.entityChecksum = readU32(bytes, STATE_CHECKSUM_OFFSET);
  return null;
}
