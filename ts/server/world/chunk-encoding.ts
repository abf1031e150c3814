// The bytes of each chunk version, encoded once: one ChunkPacket when the chunk's palette fits 64 ids,
// else the ChunkWidePackets whose row bands cover it (docs/protocol.md § ChunkWidePacket), packed by the
// wasm codec — and, for a client that reads only the seed's ChunkPacket, such a chunk narrowed to 64 ids
// of the same classes (seed-chunk.ts, § 7.2), encoded when first asked for. The world owns one of these
// beside its chunk versions and forgets a chunk's encodings when its version moves on; what a client is
// sent of them, and when, is chunk-stream.ts.
import { CHUNK_SIZE, CHUNK_TILE_COUNT, PALETTE_MAX } from "../../constants.js";
import { encodeChunk, CHUNK_PACKET_MAX_BYTES } from "../../protocol/chunk.js";
import { PACKET_CHUNK } from "../../protocol/header.js";
import { CHUNK_WIDE_PAYLOAD_BUDGET, chunkWidePacketBytes, encodeChunkWide } from "../../protocol/chunk-wide.js";
import type { Core } from "../../wasm/core.js";
import { WasmCodec, type WidePart } from "../../wasm/codec.js";
import type { ChunkNarrowing } from "./seed-chunk.js";

export class ChunkEncodings {
  /** By chunk index: the datagrams of its current version, or null when not encoded since it last changed. */
  private readonly encoded: (readonly Uint8Array[] | null)[];
  /** By chunk index: the one ChunkPacket of its current version for a seed-only client, once asked for. */
  private readonly narrowed: (readonly Uint8Array[] | null)[];
  private readonly codec: WasmCodec;
  private readonly tiles = new Uint16Array(CHUNK_TILE_COUNT);
  private readonly palette = new Uint16Array(PALETTE_MAX);
  private readonly packed = new Uint8Array(768);
  private readonly widePart: WidePart = { rowCount: 0, count: 0 };

  constructor(
    core: Core,
    chunkCount: number,
    /** How a chunk of more than 64 ids is narrowed for a seed-only client. */
    private readonly narrowing: ChunkNarrowing,
  ) {
    this.codec = new WasmCodec(core);
    this.encoded = new Array(chunkCount).fill(null);
    this.narrowed = new Array(chunkCount).fill(null);
  }

  /** Whether chunk `index` has been encoded since it last changed (a client may hold that version). */
  has(index: number): boolean {
    return this.encoded[index] !== null;
  }

  /** Chunk `index` changed: its encoding is stale. */
  forget(index: number): void {
    this.encoded[index] = null;
    this.narrowed[index] = null;
  }

  /**
   * The datagrams of chunk `index` (wire id `id`) at `version`, encoded on first request; `copyTiles`
   * writes its 1024 tile ids (row-major) into the array it is given.
   */
  datagrams(index: number, id: number, version: number, copyTiles: (out: Uint16Array) => void): readonly Uint8Array[] {
    const cached = this.encoded[index];
    if (cached) return cached;
    copyTiles(this.tiles);
    const count = this.codec.encodeChunk(this.tiles, this.palette, this.packed);
    const datagrams = count >= 0 ? [this.chunkPacket(id, version, count)] : this.encodeWide(id, version);
    this.encoded[index] = datagrams;
    return datagrams;
  }

  /**
   * The datagrams of chunk `index` for a client that reads only ChunkPackets: the chunk's own ChunkPacket
   * when it fits 64 ids, else one ChunkPacket of it narrowed to 64 ids of the same classes (seed-chunk.ts).
   */
  seedDatagrams(
    index: number,
    id: number,
    version: number,
    copyTiles: (out: Uint16Array) => void,
  ): readonly Uint8Array[] {
    const full = this.datagrams(index, id, version, copyTiles);
    if (full.length === 1 && full[0][3] === PACKET_CHUNK) return full;
    const cached = this.narrowed[index];
    if (cached) return cached;
    copyTiles(this.tiles);
    this.narrowing.narrow(this.tiles);
    const count = this.codec.encodeChunk(this.tiles, this.palette, this.packed);
    if (count < 0) throw new Error(`chunk ${id} narrowed to more than 64 ids`); // narrow() leaves at most 64
    const datagrams = [this.chunkPacket(id, version, count)];
    this.narrowed[index] = datagrams;
    return datagrams;
  }

  /** The ChunkPacket of the palette (`count` ids) and packed tiles the codec just wrote. */
  private chunkPacket(id: number, version: number, count: number): Uint8Array {
    const out = new Uint8Array(CHUNK_PACKET_MAX_BYTES);
    const size = encodeChunk(
      {
        type: "chunk",
        clientType: 0,
        chunkId: id,
        version,
        palette: this.palette.subarray(0, count),
        packedTiles: this.packed,
      },
      out,
    );
    return out.slice(0, size);
  }

  /** The ChunkWidePackets of the chunk in `tiles`, greedily as many rows per part as fit a datagram. */
  private encodeWide(id: number, version: number): Uint8Array[] {
    const codec = this.codec;
    const part = this.widePart;
    codec.loadTiles(this.tiles);
    const datagrams: Uint8Array[] = [];
    for (let rowStart = 0; rowStart < CHUNK_SIZE; rowStart += part.rowCount) {
      codec.encodeWidePart(rowStart, CHUNK_WIDE_PAYLOAD_BUDGET, part);
      const out = new Uint8Array(chunkWidePacketBytes(part.rowCount, part.count));
      encodeChunkWide(
        {
          type: "chunk_wide",
          clientType: 0,
          chunkId: id,
          version,
          rowStart,
          rowCount: part.rowCount,
          palette: codec.widePalette.subarray(0, part.count),
          packedTiles: codec.widePacked.subarray(0, part.rowCount * 4 * codec.wideIndexBits(part.count)),
        },
        out,
      );
      datagrams.push(out);
    }
    return datagrams;
  }
}
