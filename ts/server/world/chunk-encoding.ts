// The bytes of each chunk version, encoded once: one ChunkPacket when the chunk's palette fits 64 ids,
// else the ChunkWidePackets whose row bands cover it (docs/protocol.md § ChunkWidePacket), packed by the
// wasm codec. The world owns one of these beside its chunk versions and forgets a chunk's encoding when
// its version moves on; what a client is sent of them, and when, is chunk-stream.ts.
import { CHUNK_SIZE, CHUNK_TILE_COUNT, PALETTE_MAX } from "../../constants.js";
import { encodeChunk, CHUNK_PACKET_MAX_BYTES } from "../../protocol/chunk.js";
import { CHUNK_WIDE_PAYLOAD_BUDGET, chunkWidePacketBytes, encodeChunkWide } from "../../protocol/chunk-wide.js";
import type { Core } from "../../wasm/core.js";
import { WasmCodec, type WidePart } from "../../wasm/codec.js";

export class ChunkEncodings {
  /** By chunk index: the datagrams of its current version, or null when not encoded since it last changed. */
  private readonly encoded: (readonly Uint8Array[] | null)[];
  private readonly codec: WasmCodec;
  private readonly tiles = new Uint16Array(CHUNK_TILE_COUNT);
  private readonly palette = new Uint16Array(PALETTE_MAX);
  private readonly packed = new Uint8Array(768);
  private readonly widePart: WidePart = { rowCount: 0, count: 0 };

  constructor(core: Core, chunkCount: number) {
    this.codec = new WasmCodec(core);
    this.encoded = new Array(chunkCount).fill(null);
  }

  /** Whether chunk `index` has been encoded since it last changed (a client may hold that version). */
  has(index: number): boolean {
    return this.encoded[index] !== null;
  }

  /** Chunk `index` changed: its encoding is stale. */
  forget(index: number): void {
    this.encoded[index] = null;
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
    let datagrams: Uint8Array[];
    if (count >= 0) {
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
      datagrams = [out.slice(0, size)];
    } else {
      datagrams = this.encodeWide(id, version);
    }
    this.encoded[index] = datagrams;
    return datagrams;
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
