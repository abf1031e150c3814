// The chunks this client holds: chunk id -> (version, 1024 tile ids), decoded
// once on arrival by the wasm codec. The StatePacket's manifest says which
// versions are current around the player; whatever is listed but not held at
// that version is missing, and the cache list of every ActionPacket tells the
// server what is held, so it can send the rest (protocol: Reliability).
//
// A chunk of more than 64 ids comes as ChunkWidePackets, each a band of rows.
// Its parts are gathered in a pending entry (per chunk id, for one version);
// only when all 32 rows have arrived does it become the held chunk, so until
// then the cache list reports the old version (or none) and the server's cache
// diff sends the chunk again: a lost part is re-requested like a lost chunk.
//
// A TileUpdatePacket turns a chunk held at its from_version into its
// to_version in place; held at any other version (or not held), the update is
// ignored and the chunk converges like any stale one, by re-download.
//
// Bounded: chunks farther than `keepRadius` chunks (Chebyshev) from the
// player's chunk are evicted, and a hard cap covers a teleporting player.
import { CHUNK_TILE_COUNT, PALETTE_MAX } from "../../constants.js";
import { type ChunkView, readChunkPalette } from "../../protocol/chunk.js";
import type { ChunkWideView } from "../../protocol/chunk-wide.js";
import { type ChunkEntry, chunkX, chunkY } from "../../protocol/chunk-id.js";
import { MANIFEST_ENTRIES } from "../../protocol/state.js";
import type { TileUpdatePacket } from "../../protocol/tile-update.js";
import type { WasmCodec } from "../../wasm/codec.js";

export interface CachedChunk {
  readonly id: number;
  readonly version: number;
  /** 1024 global tile ids, row-major. */
  readonly tiles: Uint16Array;
}

/** A wide chunk being gathered: the rows received so far of one version. */
interface PendingChunk {
  version: number;
  /** Bit r set: row r has arrived. */
  rows: number;
  tiles: Uint16Array;
}

/** All 32 rows of a chunk. */
const ALL_ROWS = 0xffffffff;
/** Wide chunks gathered at once; more (a teleport across wide chunks) drops the oldest. */
export const PENDING_CHUNKS_MAX = 16;

/** Bits rowStart .. rowStart + rowCount − 1 (rowCount 1..32). */
function rowMask(rowStart: number, rowCount: number): number {
  return (rowCount === 32 ? ALL_ROWS : ((1 << rowCount) - 1) << rowStart) >>> 0;
}

export class ChunkCache {
  private readonly chunks = new Map<number, CachedChunk>();
  private readonly pending = new Map<number, PendingChunk>();
  private readonly palette = new Uint16Array(PALETTE_MAX);
  /** Chunk packets that failed to decode (never expected: the protocol decoder already validated them). */
  rejected = 0;

  constructor(
    private readonly codec: WasmCodec,
    /** Chunks kept around the player's chunk: radius 3 keeps 7×7. */
    readonly keepRadius = 3,
  ) {}

  get size(): number {
    return this.chunks.size;
  }

  get(id: number): CachedChunk | undefined {
    return this.chunks.get(id);
  }

  /** Version held, 0 if none. */
  version(id: number): number {
    return this.chunks.get(id)?.version ?? 0;
  }

  values(): IterableIterator<CachedChunk> {
    return this.chunks.values();
  }

  /** Decodes and keeps a received chunk; returns it, or null if it could not be decoded. */
  store(view: ChunkView): CachedChunk | null {
    const held = this.chunks.get(view.chunkId);
    if (held && held.version === view.version) return held; // a duplicate or a re-send
    const count = readChunkPalette(view, this.palette);
    const tiles = held?.tiles ?? new Uint16Array(CHUNK_TILE_COUNT);
    if (this.codec.decodeChunk(this.palette, count, view.packedTiles, tiles) !== 0) {
      this.rejected++;
      return null;
    }
    const chunk: CachedChunk = { id: view.chunkId, version: view.version, tiles };
    this.chunks.set(view.chunkId, chunk);
    return chunk;
  }

  /**
   * Decodes one part of a wide chunk into the chunk's pending entry; returns
   * the chunk once its 32 rows are in (then it replaces any older version),
   * else null. A part of another version than the pending one starts over.
   */
  storeWide(view: ChunkWideView): CachedChunk | null {
    const id = view.chunkId;
    const held = this.chunks.get(id);
    if (held && held.version === view.version) return null; // a re-send of a chunk already complete
    let pending = this.pending.get(id);
    if (!pending) {
      if (this.pending.size >= PENDING_CHUNKS_MAX) this.pending.delete(this.pending.keys().next().value as number);
      pending = { version: view.version, rows: 0, tiles: new Uint16Array(CHUNK_TILE_COUNT) };
      this.pending.set(id, pending);
    } else if (pending.version !== view.version) {
      pending.version = view.version;
      pending.rows = 0;
    }
    const decoded = this.codec.decodeWidePart(
      view.paletteBytes,
      view.paletteCount,
      view.packedTiles,
      view.rowStart,
      view.rowCount,
      pending.tiles,
    );
    if (decoded !== 0) {
      this.rejected++;
      return null;
    }
    pending.rows = (pending.rows | rowMask(view.rowStart, view.rowCount)) >>> 0;
    if (pending.rows !== ALL_ROWS) return null;
    this.pending.delete(id);
    const chunk: CachedChunk = { id, version: view.version, tiles: pending.tiles };
    this.chunks.set(id, chunk);
    return chunk;
  }

  /** Wide chunks with some but not all rows received. */
  get pendingCount(): number {
    return this.pending.size;
  }

  /** Applies a run-time tile change; returns the updated chunk, or null when the update does not apply. */
  applyTileUpdate(update: TileUpdatePacket): CachedChunk | null {
    const held = this.chunks.get(update.chunkId);
    if (!held || held.version !== update.fromVersion) return null;
    for (const change of update.changes) held.tiles[change.tileIndex] = change.tileId;
    const chunk: CachedChunk = { id: held.id, version: update.toVersion, tiles: held.tiles };
    this.chunks.set(held.id, chunk);
    return chunk;
  }

  /** Manifest entries (version > 0: the chunk exists) not held at that version. */
  missingCount(manifest: readonly ChunkEntry[]): number {
    let missing = 0;
    for (const entry of manifest) if (entry.version > 0 && this.version(entry.chunkId) !== entry.version) missing++;
    return missing;
  }

  /** Writes the cache list for an ActionPacket: the manifest's chunk ids with the versions held (0 if none). */
  fillCacheList(manifest: readonly ChunkEntry[] | null, out: ChunkEntry[]): void {
    for (let index = 0; index < MANIFEST_ENTRIES; index++) {
      const id = manifest ? manifest[index].chunkId : 0;
      out[index].chunkId = id;
      out[index].version = manifest ? this.version(id) : 0;
    }
  }

  /** Drops chunks beyond keepRadius of chunk (centreX, centreY). */
  evictFar(centreX: number, centreY: number): void {
    for (const id of this.chunks.keys()) {
      if (Math.max(Math.abs(chunkX(id) - centreX), Math.abs(chunkY(id) - centreY)) > this.keepRadius) {
        this.chunks.delete(id);
      }
    }
    for (const id of this.pending.keys()) {
      if (Math.max(Math.abs(chunkX(id) - centreX), Math.abs(chunkY(id) - centreY)) > this.keepRadius) {
        this.pending.delete(id);
      }
    }
  }

  clear(): void {
    this.chunks.clear();
    this.pending.clear();
  }
}
