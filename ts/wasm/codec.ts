// Typed access to the core module's codec kernels (docs/wasm-abi.md): the raw
// exports, plus methods that copy a chunk or a byte range through the module's
// regions so callers can work with their own typed arrays.
import { CoreError, type Core } from "./core.js";
import {
  CHUNK_PACKED_BYTES as PACKED_BYTES,
  CHUNK_SIZE,
  CHUNK_TILE_COUNT as TILE_COUNT,
  PALETTE_MAX,
  WIDE_PACKED_MAX_BYTES,
  WIDE_PALETTE_MAX,
} from "../constants.js";
import { requireLength } from "../protocol/chunk-kernels.js";
import { FNV_OFFSET, requireRange } from "../protocol/fnv1a.js";

export { FNV_OFFSET };

type VoidFn = () => void;
type CountFn = () => number;
type CountArgFn = (count: number) => number;
type HashFn = (ptr: number, len: number, hash: number) => number;
type RowsFitFn = (rowStart: number, budget: number) => number;
type WideEncodeFn = (rowStart: number, rowCount: number) => number;
type WideDecodeFn = (rowStart: number, rowCount: number, count: number) => number;

/** One part of a wide chunk as encodeWidePart leaves it: rows, and the palette size (the data stays in the module). */
export interface WidePart {
  rowCount: number;
  count: number;
}

export class WasmCodec {
  /** CHUNK_PACKED (768 bytes) -> CHUNK_INDICES. */
  readonly unpack6: VoidFn;
  /** CHUNK_INDICES -> CHUNK_PACKED (indices masked with & 63). */
  readonly pack6: VoidFn;
  /** CHUNK_TILES -> CHUNK_PALETTE + CHUNK_INDICES; palette size or -1 (> 64 distinct ids). */
  readonly paletteBuild: CountFn;
  /** CHUNK_PALETTE + CHUNK_INDICES -> CHUNK_TILES; 0, or -1 (bad count or index, tiles untouched). */
  readonly paletteExpand: CountArgFn;
  /** palette_build then pack6; palette size or -1. */
  readonly chunkEncode: CountFn;
  /** unpack6 then palette_expand; 0 or -1. */
  readonly chunkDecode: CountArgFn;
  /** Bits per wide index for a palette of `count` entries (1..10). */
  readonly wideIndexBits: CountArgFn;
  /** CHUNK_TILES rows from rowStart: how many fit a part payload of `budget` bytes (0 none, -1 bad row). */
  readonly wideRowsFit: RowsFitFn;
  /** CHUNK_TILES rows -> WIDE_PALETTE + WIDE_PACKED; palette size, or -1 (bad rows). */
  readonly wideEncode: WideEncodeFn;
  /** WIDE_PALETTE + WIDE_PACKED -> CHUNK_TILES rows; 0, or -1 (bad rows, count or index; tiles untouched). */
  readonly wideDecode: WideDecodeFn;
  private readonly fnv1aRaw: HashFn;

  constructor(private readonly core: Core) {
    this.unpack6 = core.fn<VoidFn>("unpack6");
    this.pack6 = core.fn<VoidFn>("pack6");
    this.paletteBuild = core.fn<CountFn>("palette_build");
    this.paletteExpand = core.fn<CountArgFn>("palette_expand");
    this.chunkEncode = core.fn<CountFn>("chunk_encode");
    this.chunkDecode = core.fn<CountArgFn>("chunk_decode");
    this.wideIndexBits = core.fn<CountArgFn>("wide_index_bits");
    this.wideRowsFit = core.fn<RowsFitFn>("wide_rows_fit");
    this.wideEncode = core.fn<WideEncodeFn>("wide_encode");
    this.wideDecode = core.fn<WideDecodeFn>("wide_decode");
    this.fnv1aRaw = core.fn<HashFn>("fnv1a");
    const offset = core.instance.exports.FNV_OFFSET;
    if (!(offset instanceof WebAssembly.Global) || offset.value >>> 0 !== FNV_OFFSET) {
      throw new CoreError("core module's FNV_OFFSET is missing or differs from 0x811c9dc5");
    }
  }

  /** The 1024 tile ids of CHUNK_TILES (a live view; re-read after memory growth). */
  get tiles(): Uint16Array {
    const start = this.core.layout.CHUNK_TILES >>> 1;
    return this.core.u16.subarray(start, start + TILE_COUNT);
  }
  /** The 1024 indices of CHUNK_INDICES (live view). */
  get indices(): Uint8Array {
    return this.core.u8.subarray(this.core.layout.CHUNK_INDICES, this.core.layout.CHUNK_INDICES + TILE_COUNT);
  }
  /** The 64 entries of CHUNK_PALETTE (live view). */
  get palette(): Uint16Array {
    const start = this.core.layout.CHUNK_PALETTE >>> 1;
    return this.core.u16.subarray(start, start + PALETTE_MAX);
  }
  /** The 768 bytes of CHUNK_PACKED (live view). */
  get packed(): Uint8Array {
    return this.core.u8.subarray(this.core.layout.CHUNK_PACKED, this.core.layout.CHUNK_PACKED + PACKED_BYTES);
  }

  /**
   * Encodes 1024 tile ids: writes the palette (first `count` entries) and the
   * 768 packed bytes. Returns the palette size, or -1 if more than 64 distinct
   * ids (palette and packed then untouched). Throws RangeError if tiles has
   * fewer than 1024, palette fewer than 64 or packed fewer than 768 elements.
   */
  encodeChunk(tiles: Uint16Array, palette: Uint16Array, packed: Uint8Array): number {
    requireLength(tiles, TILE_COUNT, "tiles");
    requireLength(palette, PALETTE_MAX, "palette");
    requireLength(packed, PACKED_BYTES, "packed");
    this.tiles.set(tiles.subarray(0, TILE_COUNT));
    const count = this.chunkEncode();
    if (count < 0) return -1;
    palette.set(this.palette.subarray(0, count));
    packed.set(this.packed);
    return count;
  }

  /**
   * Decodes 768 packed bytes with the first `count` palette entries into
   * tilesOut. Returns 0, or -1 (tilesOut untouched) if count is not in 0..64
   * or an index is >= count. Throws RangeError if palette has fewer than
   * count, packed fewer than 768 or tilesOut fewer than 1024 elements.
   */
  decodeChunk(palette: Uint16Array, count: number, packed: Uint8Array, tilesOut: Uint16Array): number {
    if (!Number.isInteger(count) || count < 0 || count > PALETTE_MAX) return -1;
    requireLength(palette, count, "palette");
    requireLength(packed, PACKED_BYTES, "packed");
    requireLength(tilesOut, TILE_COUNT, "tilesOut");
    this.palette.set(palette.subarray(0, count));
    this.packed.set(packed.subarray(0, PACKED_BYTES));
    if (this.chunkDecode(count) !== 0) return -1;
    tilesOut.set(this.tiles);
    return 0;
  }

  /** The 1024 entries of WIDE_PALETTE (live view). */
  get widePalette(): Uint16Array {
    const start = this.core.layout.WIDE_PALETTE >>> 1;
    return this.core.u16.subarray(start, start + WIDE_PALETTE_MAX);
  }
  /** The 1280 bytes of WIDE_PACKED (live view). */
  get widePacked(): Uint8Array {
    return this.core.u8.subarray(this.core.layout.WIDE_PACKED, this.core.layout.WIDE_PACKED + WIDE_PACKED_MAX_BYTES);
  }

  /** Copies 1024 tile ids into CHUNK_TILES, ready for wideRowsFit / encodeWidePart. */
  loadTiles(tiles: Uint16Array): void {
    requireLength(tiles, TILE_COUNT, "tiles");
    this.tiles.set(tiles.subarray(0, TILE_COUNT));
  }

  /**
   * Encodes the next part of the chunk in CHUNK_TILES (loadTiles): as many
   * rows from rowStart as fit `budget` payload bytes. The palette is then the
   * first `count` entries of widePalette, the indices the first
   * rowCount · 4 · wideIndexBits(count) bytes of widePacked. Throws RangeError
   * if rowStart is not 0..31 or not even one row fits.
   */
  encodeWidePart(rowStart: number, budget: number, out: WidePart): WidePart {
    const rowCount = this.wideRowsFit(rowStart, budget);
    if (rowCount <= 0) throw new RangeError(`no row from ${rowStart} fits a wide part of ${budget} bytes`);
    out.rowCount = rowCount;
    out.count = this.wideEncode(rowStart, rowCount);
    return out;
  }

  /**
   * Decodes one wide part into rows rowStart .. of tilesOut (other rows
   * untouched): `paletteBytes` are `count` little-endian u16s, copied as bytes
   * (wasm memory is little-endian), `packed` the bit-packed indices. Returns
   * 0, or -1 (tilesOut untouched) for bad rows, count or index. Throws
   * RangeError if a buffer is too short.
   */
  decodeWidePart(
    paletteBytes: Uint8Array,
    count: number,
    packed: Uint8Array,
    rowStart: number,
    rowCount: number,
    tilesOut: Uint16Array,
  ): number {
    if (!Number.isInteger(count) || count < 1 || count > WIDE_PALETTE_MAX) return -1;
    if (!Number.isInteger(rowStart) || !Number.isInteger(rowCount) || rowStart < 0 || rowCount < 1) return -1;
    if (rowStart + rowCount > CHUNK_SIZE) return -1;
    const packedBytes = rowCount * 4 * this.wideIndexBits(count);
    requireLength(paletteBytes, count * 2, "paletteBytes");
    requireLength(packed, packedBytes, "packed");
    requireLength(tilesOut, TILE_COUNT, "tilesOut");
    const memory = this.core.u8;
    memory.set(paletteBytes.subarray(0, count * 2), this.core.layout.WIDE_PALETTE);
    memory.set(packed.subarray(0, packedBytes), this.core.layout.WIDE_PACKED);
    if (this.wideDecode(rowStart, rowCount, count) !== 0) return -1;
    const from = rowStart * CHUNK_SIZE;
    const to = from + rowCount * CHUNK_SIZE;
    tilesOut.set(this.tiles.subarray(from, to), from);
    return 0;
  }

  /**
   * FNV-1a over bytes[start..end), continuing from `hash` (default: the offset
   * basis). Copies through the IO region in pieces of at most IO_BYTES, so it
   * overwrites IO. Returns a u32. Throws RangeError unless 0 <= start <= end <= bytes.length.
   */
  fnv1a(bytes: Uint8Array, start: number, end: number, hash: number = FNV_OFFSET): number {
    requireRange(bytes, start, end);
    const { IO, IO_BYTES } = this.core.layout;
    const memory = this.core.u8;
    let h = hash;
    for (let at = start; at < end; at += IO_BYTES) {
      const pieceEnd = Math.min(end, at + IO_BYTES);
      memory.set(bytes.subarray(at, pieceEnd), IO);
      h = this.fnv1aRaw(IO, pieceEnd - at, h);
    }
    return h >>> 0;
  }

  /** FNV-1a over `len` bytes already in linear memory at `ptr`, continuing from `hash`. Returns a u32. */
  fnv1aResident(ptr: number, len: number, hash: number = FNV_OFFSET): number {
    return this.fnv1aRaw(ptr, len, hash) >>> 0;
  }
}
