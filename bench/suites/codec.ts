// Codec suite: wasm kernels vs the JS reference (ts/ref/codec.ts) for 6-bit
// pack/unpack, palette build, FNV-1a over 72 and 1200 bytes, whole
// ChunkPacket / EntityPacket encode and decode with the protocol library, and
// the wide form (ChunkWidePacket) of a 119-id chunk beside the 6-bit one.
//
// Every wasm kernel is measured twice: with its input already resident in
// linear memory (what the server and client do: datagrams are received into
// and chunks decoded inside the module), and with the copy in and out of JS
// arrays included, so the boundary cost is visible. Each task runs BATCH calls
// per sample so the timer's own cost (tens of ns) vanishes; medians and
// quartiles are over tinybench's samples.
//
// Tasks are written out one by one on purpose: closures made in one loop share
// their code, and a JS reference inlined into shared code sees several inputs
// and gets slower (palette_expand measured 2.5x slower that way).
import {
  FNV_OFFSET,
  fnv1a,
  pack6,
  paletteBuild,
  unpack6,
  wideEncode,
  wideIndexBits,
  wideRowsFit,
} from "../../ts/ref/codec.js";
import {
  type EntityEntry,
  EntityCursor,
  ENTITY_HEADER_BYTES,
  CHUNK_PALETTE_OFFSET,
  CHUNK_WIDE_PAYLOAD_BUDGET,
  PACKET_CHUNK,
  checkHeader,
  chunkId,
  decodePacket,
  encodeChunkFromTiles,
  encodeChunkWideFromTiles,
  encodeEntityRange,
  encodeHeader,
  readChunkTiles,
  readChunkWideRows,
  readU16,
  writeU16,
  writeU32,
} from "../../ts/protocol/index.js";
import { TILE_UNKNOWN } from "../../ts/constants.js";
import { type WidePart, WasmCodec } from "../../ts/wasm/codec.js";
import { loadCore } from "../../ts/wasm/node.js";
import { loadChainModule } from "../lib/chain-wasm.js";
import { caveChunk, randomBytes, scatteredChunk, wideChunk, xorshift } from "../lib/data.js";
import {
  type RunOptions,
  type Spread,
  fmt,
  fmtRatio,
  fmtSpread,
  iqrPercent,
  loadNow,
  log,
  runTasks,
  scaleSpread,
  type TaskSpec,
  runHeader,
} from "../lib/harness.js";
import type { SuiteResult, Target } from "../lib/results.js";

const BATCH = 200;
const ENTITY_COUNT = 20;

export async function runCodec(options: RunOptions): Promise<SuiteResult> {
  const loadStart = loadNow();
  const core = await loadCore();
  const codec = new WasmCodec(core);
  const { CHUNK_TILES, CHUNK_INDICES, CHUNK_PALETTE, CHUNK_PACKED, IO } = core.layout;
  // Memory never grows in this suite, so views are taken once (the wrapper's getters allocate a subarray per call).
  const u8 = core.u8;
  const tilesView = core.u16.subarray(CHUNK_TILES >>> 1, (CHUNK_TILES >>> 1) + 1024);
  const indicesView = u8.subarray(CHUNK_INDICES, CHUNK_INDICES + 1024);
  const paletteView = core.u16.subarray(CHUNK_PALETTE >>> 1, (CHUNK_PALETTE >>> 1) + 64);
  const packedView = u8.subarray(CHUNK_PACKED, CHUNK_PACKED + 768);
  const { unpack6: wUnpack6, pack6: wPack6, paletteBuild: wPaletteBuild, chunkEncode, chunkDecode } = codec;
  const fnvRaw = core.fn<(ptr: number, len: number, hash: number) => number>("fnv1a");

  // Inputs.
  const random = xorshift(7);
  const indices = Uint8Array.from({ length: 1024 }, () => Math.floor(random() * 64));
  const packed = new Uint8Array(768);
  pack6(indices, packed);
  const indicesOut = new Uint8Array(1024);
  const packedOut = new Uint8Array(768);
  const cave = caveChunk(1);
  const scattered = scatteredChunk(2);
  const paletteOut = new Uint16Array(64);
  const bytes72 = randomBytes(72, 72);
  const bytes1200 = randomBytes(1200, 1200);
  const caveId = chunkId(3, -2);
  const datagram = new Uint8Array(1200);
  const chunkLength = encodeChunkFromTiles(0, caveId, 7, cave, datagram, 0);
  const chunkDatagram = datagram.slice(0, chunkLength);
  const tilesOut = new Uint16Array(1024);
  const entries = entityEntries(ENTITY_COUNT);
  const entityLength = encodeEntityRange(0, 1234, entries, 0, entries.length, false, datagram, 0);
  const entityDatagram = datagram.slice(0, entityLength);
  const outDatagram = new Uint8Array(1200);
  // The wide form: a 119-id chunk (island.tmx's count) is one ChunkWidePacket of all 32 rows.
  const WIDE_IDS = 119;
  const wide = wideChunk(3, WIDE_IDS);
  const wideDatagrams = encodeChunkWideFromTiles(0, caveId, 7, wide);
  const wideDatagram = wideDatagrams[0];
  const wideLength = wideDatagram.length;
  const widePaletteJs = new Uint16Array(1024);
  const widePackedJs = new Uint8Array(1280);
  const widePart: WidePart = { rowCount: 0, count: 0 };
  const { WIDE_PALETTE, WIDE_PACKED } = core.layout;
  const widePaletteView = core.u16.subarray(WIDE_PALETTE >>> 1, (WIDE_PALETTE >>> 1) + 1024);
  const widePackedView = u8.subarray(WIDE_PACKED, WIDE_PACKED + 1280);
  /** Every part of the chunk in `tiles` with the JS kernels; returns the parts' payload bytes. */
  const wideEncodeJs = (tiles: Uint16Array): number => {
    let bytes = 0;
    for (let rowStart = 0; rowStart < 32;) {
      const rows = wideRowsFit(tiles, rowStart, CHUNK_WIDE_PAYLOAD_BUDGET);
      const count = wideEncode(tiles, rowStart, rows, widePaletteJs, widePackedJs);
      bytes += 2 * count + rows * 4 * wideIndexBits(count);
      rowStart += rows;
    }
    return bytes;
  };
  /** The same in wasm with the tiles in CHUNK_TILES; palette and indices stay in WIDE_PALETTE / WIDE_PACKED. */
  const wideEncodeResident = (): number => {
    let bytes = 0;
    for (let rowStart = 0; rowStart < 32; rowStart += widePart.rowCount) {
      codec.encodeWidePart(rowStart, CHUNK_WIDE_PAYLOAD_BUDGET, widePart);
      bytes += 2 * widePart.count + widePart.rowCount * 4 * wideIndexBits(widePart.count);
    }
    return bytes;
  };
  const wideEncodeCopy = (tiles: Uint16Array): number => {
    tilesView.set(tiles);
    let bytes = 0;
    for (let rowStart = 0; rowStart < 32; rowStart += widePart.rowCount) {
      codec.encodeWidePart(rowStart, CHUNK_WIDE_PAYLOAD_BUDGET, widePart);
      const packedBytes = widePart.rowCount * 4 * wideIndexBits(widePart.count);
      widePaletteJs.set(widePaletteView.subarray(0, widePart.count));
      widePackedJs.set(widePackedView.subarray(0, packedBytes));
      bytes += 2 * widePart.count + packedBytes;
    }
    return bytes;
  };
  const wideDecoded = decodePacket(wideDatagram);
  if (!wideDecoded.ok || wideDecoded.packet.type !== "chunk_wide") throw new Error("wide datagram does not decode");
  const wideView = wideDecoded.packet;

  /** ChunkPacket from tiles already in CHUNK_TILES, assembled in IO: the datagram is a view of wasm memory. */
  const encodeChunkResident = (): number => {
    const count = chunkEncode();
    encodeHeader(PACKET_CHUNK, 0, u8, IO);
    writeU32(u8, IO + 6, caveId);
    writeU16(u8, IO + 10, 7);
    u8[IO + 12] = count;
    // Palette entries are little-endian u16s in memory, the same bytes as on the wire.
    u8.copyWithin(IO + CHUNK_PALETTE_OFFSET, CHUNK_PALETTE, CHUNK_PALETTE + 2 * count);
    u8.copyWithin(IO + CHUNK_PALETTE_OFFSET + 2 * count, CHUNK_PACKED, CHUNK_PACKED + 768);
    return CHUNK_PALETTE_OFFSET + 2 * count + 768;
  };
  const encodeChunkCopy = (tiles: Uint16Array, out: Uint8Array): number => {
    tilesView.set(tiles);
    const count = chunkEncode();
    encodeHeader(PACKET_CHUNK, 0, out, 0);
    writeU32(out, 6, caveId);
    writeU16(out, 10, 7);
    out[12] = count;
    out.set(u8.subarray(CHUNK_PALETTE, CHUNK_PALETTE + 2 * count), CHUNK_PALETTE_OFFSET);
    out.set(packedView, CHUNK_PALETTE_OFFSET + 2 * count);
    return CHUNK_PALETTE_OFFSET + 2 * count + 768;
  };
  /**
   * The checks decodeChunkBody makes before the index scan (header, size, version, pal_count, reserved ids);
   * the index validation itself is chunk_decode's. Returns pal_count, or -1.
   */
  const checkChunkDatagram = (bytes: Uint8Array, at: number, length: number): number => {
    if (checkHeader(at === 0 ? bytes : bytes.subarray(at, at + length)) !== null) return -1;
    const count = bytes[at + 12];
    if (count > 64 || length !== CHUNK_PALETTE_OFFSET + 2 * count + 768 || readU16(bytes, at + 10) === 0) return -1;
    for (let i = 0; i < count; i++) if (readU16(bytes, at + CHUNK_PALETTE_OFFSET + 2 * i) === TILE_UNKNOWN) return -1;
    return count;
  };
  /** Datagram received into IO; tiles stay in CHUNK_TILES for grid_put_chunk. */
  const decodeChunkResident = (length: number): number => {
    const count = checkChunkDatagram(u8, IO, length);
    if (count < 0) return -1;
    u8.copyWithin(CHUNK_PALETTE, IO + CHUNK_PALETTE_OFFSET, IO + CHUNK_PALETTE_OFFSET + 2 * count);
    u8.copyWithin(CHUNK_PACKED, IO + CHUNK_PALETTE_OFFSET + 2 * count, IO + CHUNK_PALETTE_OFFSET + 2 * count + 768);
    return chunkDecode(count);
  };
  const decodeChunkCopy = (bytes: Uint8Array, tiles: Uint16Array): number => {
    const count = checkChunkDatagram(bytes, 0, bytes.length);
    if (count < 0) return -1;
    u8.set(bytes.subarray(CHUNK_PALETTE_OFFSET, CHUNK_PALETTE_OFFSET + 2 * count), CHUNK_PALETTE);
    packedView.set(bytes.subarray(CHUNK_PALETTE_OFFSET + 2 * count, CHUNK_PALETTE_OFFSET + 2 * count + 768));
    if (chunkDecode(count) !== 0) return -1;
    tiles.set(tilesView);
    return 0;
  };
  const cursor = new EntityCursor();
  // Results feed a sink so no call is dead code, and each FNV call continues the previous hash: calls form one
  // dependent chain (as when hashing a tick's datagrams), so the CPU cannot overlap independent calls.
  let sink = 0;

  // Same answers before timing anything.
  verify(encodeChunkCopy(cave, outDatagram) === chunkLength, "wasm ChunkPacket length");
  verify(Buffer.compare(outDatagram.subarray(0, chunkLength), chunkDatagram) === 0, "wasm ChunkPacket bytes");
  tilesView.set(cave);
  const residentLength = encodeChunkResident();
  verify(Buffer.compare(u8.subarray(IO, IO + residentLength), chunkDatagram) === 0, "resident ChunkPacket bytes");
  verify(decodeChunkCopy(chunkDatagram, tilesOut) === 0, "wasm chunk decode");
  verify(Buffer.compare(Buffer.from(tilesOut.buffer), Buffer.from(cave.buffer)) === 0, "decoded tiles");
  packedView.set(packed);
  wUnpack6();
  verify(Buffer.compare(indicesView, indices) === 0, "unpack6");
  verify(fnvRaw(IO, 0, FNV_OFFSET) >>> 0 === FNV_OFFSET, "fnv1a of nothing");
  u8.set(bytes1200, IO);
  verify(fnvRaw(IO, 1200, FNV_OFFSET) >>> 0 === fnv1a(bytes1200, 0, 1200), "fnv1a 1200");
  verify(wideDatagrams.length === 1 && wideView.rowCount === 32, "a 119-id chunk is one wide part");
  verify(wideEncodeJs(wide) === wideEncodeCopy(wide), "wide encode sizes");
  verify(
    Buffer.compare(Buffer.from(widePackedJs.buffer, 0, wideLength - 16 - 2 * WIDE_IDS), wideView.packedTiles) === 0,
    "wide packed bytes",
  );
  tilesOut.fill(0);
  verify(
    codec.decodeWidePart(wideView.paletteBytes, WIDE_IDS, wideView.packedTiles, 0, 32, tilesOut) === 0,
    "wide decode",
  );
  verify(Buffer.compare(Buffer.from(tilesOut.buffer), Buffer.from(wide.buffer)) === 0, "wide decoded tiles");

  const tasks: TaskSpec[] = [
    // unpack6
    {
      name: "unpack6 js",
      fn: () => {
        for (let i = 0; i < BATCH; i++) unpack6(packed, indicesOut);
      },
    },
    {
      name: "unpack6 wasm resident",
      fn: () => {
        for (let i = 0; i < BATCH; i++) wUnpack6();
      },
      beforeAll: () => packedView.set(packed),
    },
    {
      name: "unpack6 wasm copy",
      fn: () => {
        for (let i = 0; i < BATCH; i++) {
          packedView.set(packed);
          wUnpack6();
          indicesOut.set(indicesView);
        }
      },
    },
    // pack6
    {
      name: "pack6 js",
      fn: () => {
        for (let i = 0; i < BATCH; i++) pack6(indices, packedOut);
      },
    },
    {
      name: "pack6 wasm resident",
      fn: () => {
        for (let i = 0; i < BATCH; i++) wPack6();
      },
      beforeAll: () => indicesView.set(indices),
    },
    {
      name: "pack6 wasm copy",
      fn: () => {
        for (let i = 0; i < BATCH; i++) {
          indicesView.set(indices);
          wPack6();
          packedOut.set(packedView);
        }
      },
    },
    // palette build, a cave chunk (6 ids)
    {
      name: "palette cave js",
      fn: () => {
        for (let i = 0; i < BATCH; i++) paletteBuild(cave, paletteOut, indicesOut);
      },
    },
    {
      name: "palette cave wasm resident",
      fn: () => {
        for (let i = 0; i < BATCH; i++) wPaletteBuild();
      },
      beforeAll: () => tilesView.set(cave),
    },
    {
      name: "palette cave wasm copy",
      fn: () => {
        for (let i = 0; i < BATCH; i++) {
          tilesView.set(cave);
          const n = wPaletteBuild();
          paletteOut.set(paletteView.subarray(0, n));
          indicesOut.set(indicesView);
        }
      },
    },
    // palette build, 64 scattered large ids (worst case)
    {
      name: "palette 64ids js",
      fn: () => {
        for (let i = 0; i < BATCH; i++) paletteBuild(scattered, paletteOut, indicesOut);
      },
    },
    {
      name: "palette 64ids wasm resident",
      fn: () => {
        for (let i = 0; i < BATCH; i++) wPaletteBuild();
      },
      beforeAll: () => tilesView.set(scattered),
    },
    {
      name: "palette 64ids wasm copy",
      fn: () => {
        for (let i = 0; i < BATCH; i++) {
          tilesView.set(scattered);
          const n = wPaletteBuild();
          paletteOut.set(paletteView.subarray(0, n));
          indicesOut.set(indicesView);
        }
      },
    },
    // FNV-1a 72 bytes
    {
      name: "fnv72 js",
      fn: () => {
        let h = FNV_OFFSET;
        for (let i = 0; i < BATCH; i++) h = fnv1a(bytes72, 0, 72, h);
        sink ^= h;
      },
    },
    {
      name: "fnv72 wasm resident",
      fn: () => {
        let h = FNV_OFFSET;
        for (let i = 0; i < BATCH; i++) h = fnvRaw(IO, 72, h);
        sink ^= h;
      },
      beforeAll: () => u8.set(bytes72, IO),
    },
    {
      name: "fnv72 wasm copy",
      fn: () => {
        let h = FNV_OFFSET;
        for (let i = 0; i < BATCH; i++) {
          u8.set(bytes72, IO);
          h = fnvRaw(IO, 72, h);
        }
        sink ^= h;
      },
    },
    // FNV-1a 1200 bytes
    {
      name: "fnv1200 js",
      fn: () => {
        let h = FNV_OFFSET;
        for (let i = 0; i < BATCH; i++) h = fnv1a(bytes1200, 0, 1200, h);
        sink ^= h;
      },
    },
    {
      name: "fnv1200 wasm resident",
      fn: () => {
        let h = FNV_OFFSET;
        for (let i = 0; i < BATCH; i++) h = fnvRaw(IO, 1200, h);
        sink ^= h;
      },
      beforeAll: () => u8.set(bytes1200, IO),
    },
    {
      name: "fnv1200 wasm copy",
      fn: () => {
        let h = FNV_OFFSET;
        for (let i = 0; i < BATCH; i++) {
          u8.set(bytes1200, IO);
          h = fnvRaw(IO, 1200, h);
        }
        sink ^= h;
      },
    },
    // Whole ChunkPacket encode: tiles -> datagram
    {
      name: "chunkenc js",
      fn: () => {
        for (let i = 0; i < BATCH; i++) encodeChunkFromTiles(0, caveId, 7, cave, outDatagram, 0);
      },
    },
    {
      name: "chunkenc wasm resident",
      fn: () => {
        for (let i = 0; i < BATCH; i++) encodeChunkResident();
      },
      beforeAll: () => tilesView.set(cave),
    },
    {
      name: "chunkenc wasm copy",
      fn: () => {
        for (let i = 0; i < BATCH; i++) encodeChunkCopy(cave, outDatagram);
      },
    },
    // Whole ChunkPacket decode: datagram -> 1024 tile ids
    {
      name: "chunkdec js",
      fn: () => {
        for (let i = 0; i < BATCH; i++) {
          const r = decodePacket(chunkDatagram);
          if (r.ok && r.packet.type === "chunk") readChunkTiles(r.packet, tilesOut);
        }
      },
    },
    {
      name: "chunkdec wasm resident",
      fn: () => {
        for (let i = 0; i < BATCH; i++) {
          decodeChunkResident(chunkLength);
        }
      },
      beforeAll: () => u8.set(chunkDatagram, IO),
    },
    {
      name: "chunkdec wasm copy",
      fn: () => {
        for (let i = 0; i < BATCH; i++) decodeChunkCopy(chunkDatagram, tilesOut);
      },
    },
    // The wide form of a 119-id chunk: tiles -> palette + 7-bit indices (all parts: here one)
    {
      name: "wideenc js",
      fn: () => {
        for (let i = 0; i < BATCH; i++) sink ^= wideEncodeJs(wide);
      },
    },
    {
      name: "wideenc wasm resident",
      fn: () => {
        for (let i = 0; i < BATCH; i++) sink ^= wideEncodeResident();
      },
      beforeAll: () => tilesView.set(wide),
    },
    {
      name: "wideenc wasm copy",
      fn: () => {
        for (let i = 0; i < BATCH; i++) sink ^= wideEncodeCopy(wide);
      },
    },
    // ... and back: a ChunkWidePacket datagram -> 1024 tile ids
    {
      name: "widedec js",
      fn: () => {
        for (let i = 0; i < BATCH; i++) {
          const r = decodePacket(wideDatagram);
          if (r.ok && r.packet.type === "chunk_wide") readChunkWideRows(r.packet, tilesOut);
        }
      },
    },
    {
      name: "widedec wasm resident",
      fn: () => {
        for (let i = 0; i < BATCH; i++) sink ^= codec.wideDecode(0, 32, WIDE_IDS);
      },
      beforeAll: () => {
        u8.set(wideView.paletteBytes, WIDE_PALETTE);
        widePackedView.set(wideView.packedTiles);
      },
    },
    {
      name: "widedec wasm copy",
      fn: () => {
        for (let i = 0; i < BATCH; i++) {
          const r = decodePacket(wideDatagram);
          if (r.ok && r.packet.type === "chunk_wide") {
            const view = r.packet;
            codec.decodeWidePart(view.paletteBytes, view.paletteCount, view.packedTiles, 0, 32, tilesOut);
          }
        }
      },
    },
    // Whole EntityPacket (20 entries) encode + checksum: the only wasm part is FNV-1a
    {
      name: "entityenc js",
      fn: () => {
        for (let i = 0; i < BATCH; i++) {
          const n = encodeEntityRange(0, 1234, entries, 0, ENTITY_COUNT, false, outDatagram, 0);
          fnv1a(outDatagram, ENTITY_HEADER_BYTES, n);
        }
      },
    },
    {
      name: "entityenc wasm resident",
      fn: () => {
        for (let i = 0; i < BATCH; i++) {
          const n = encodeEntityRange(0, 1234, entries, 0, ENTITY_COUNT, false, u8, IO);
          fnvRaw(IO + ENTITY_HEADER_BYTES, n - ENTITY_HEADER_BYTES, FNV_OFFSET);
        }
      },
    },
    {
      name: "entityenc wasm copy",
      fn: () => {
        for (let i = 0; i < BATCH; i++) {
          const n = encodeEntityRange(0, 1234, entries, 0, ENTITY_COUNT, false, outDatagram, 0);
          u8.set(outDatagram.subarray(ENTITY_HEADER_BYTES, n), IO);
          fnvRaw(IO, n - ENTITY_HEADER_BYTES, FNV_OFFSET);
        }
      },
    },
    // Whole EntityPacket decode: validate, walk every entry, checksum
    {
      name: "entitydec js",
      fn: () => {
        for (let i = 0; i < BATCH; i++) {
          const r = decodePacket(entityDatagram);
          if (r.ok && r.packet.type === "entity") {
            cursor.reset(r.packet);
            while (cursor.next());
            fnv1a(entityDatagram, ENTITY_HEADER_BYTES, entityLength);
          }
        }
      },
    },
    {
      name: "entitydec wasm resident",
      fn: () => {
        const view = u8.subarray(IO, IO + entityLength);
        for (let i = 0; i < BATCH; i++) {
          const r = decodePacket(view);
          if (r.ok && r.packet.type === "entity") {
            cursor.reset(r.packet);
            while (cursor.next());
            fnvRaw(IO + ENTITY_HEADER_BYTES, entityLength - ENTITY_HEADER_BYTES, FNV_OFFSET);
          }
        }
      },
      beforeAll: () => u8.set(entityDatagram, IO),
    },
    {
      name: "entitydec wasm copy",
      fn: () => {
        for (let i = 0; i < BATCH; i++) {
          const r = decodePacket(entityDatagram);
          if (r.ok && r.packet.type === "entity") {
            cursor.reset(r.packet);
            while (cursor.next());
            u8.set(entityDatagram.subarray(ENTITY_HEADER_BYTES), IO);
            fnvRaw(IO, entityLength - ENTITY_HEADER_BYTES, FNV_OFFSET);
          }
        }
      },
    },
  ];

  // The FNV bound: dependent chains in a tiny wasm module, same run.
  const chain = await loadChainModule();
  const CHAIN = 20_000;
  tasks.push(
    {
      name: "chain mul",
      fn: () => {
        sink ^= chain.mulChain(CHAIN, sink | 1);
      },
    },
    {
      name: "chain xormul",
      fn: () => {
        sink ^= chain.xorMulChain(CHAIN, sink | 1);
      },
    },
  );

  log(`codec: ${tasks.length} tasks (${options.quick ? "quick" : "full"})`);
  const timed = await runTasks(tasks, {
    timeMs: options.quick ? 150 : 800,
    warmupMs: options.quick ? 50 : 200,
    iterations: options.quick ? 20 : 50,
  });
  const perCall = (name: string): Spread => scaleSpread(get(timed, name), 1e6 / BATCH);

  interface Row {
    key: string;
    label: string;
    bytes: number;
    bytesLabel: string;
  }
  const rows: Row[] = [
    { key: "unpack6", label: "unpack6 (768 B → 1024 indices)", bytes: 768, bytesLabel: "packed bytes" },
    { key: "pack6", label: "pack6 (1024 indices → 768 B)", bytes: 768, bytesLabel: "packed bytes" },
    { key: "palette cave", label: "palette build, cave chunk (6 ids)", bytes: 2048, bytesLabel: "tile bytes" },
    { key: "palette 64ids", label: "palette build, 64 scattered ids", bytes: 2048, bytesLabel: "tile bytes" },
    { key: "fnv72", label: "FNV-1a, 72 B", bytes: 72, bytesLabel: "bytes" },
    { key: "fnv1200", label: "FNV-1a, 1200 B", bytes: 1200, bytesLabel: "bytes" },
    {
      key: "chunkenc",
      label: `ChunkPacket encode (tiles → ${chunkLength} B)`,
      bytes: chunkLength,
      bytesLabel: "datagram",
    },
    {
      key: "chunkdec",
      label: `ChunkPacket decode (${chunkLength} B → tiles)`,
      bytes: chunkLength,
      bytesLabel: "datagram",
    },
    {
      key: "wideenc",
      label: `wide chunk encode, ${WIDE_IDS} ids (tiles → ${wideLength - 16} B palette + 7-bit indices)`,
      bytes: 2048,
      bytesLabel: "tile bytes",
    },
    {
      key: "widedec",
      label: `ChunkWidePacket decode (${wideLength} B → tiles; resident: the kernel only)`,
      bytes: wideLength,
      bytesLabel: "datagram",
    },
    {
      key: "entityenc",
      label: `EntityPacket encode + checksum (${ENTITY_COUNT} entries, ${entityLength} B)`,
      bytes: entityLength,
      bytesLabel: "datagram",
    },
    {
      key: "entitydec",
      label: `EntityPacket decode + checksum (${ENTITY_COUNT} entries)`,
      bytes: entityLength,
      bytesLabel: "datagram",
    },
  ];
  const table: (string | number)[][] = [];
  const raw: Record<string, Record<string, Spread>> = {};
  const mbps = (bytes: number, ns: number) => fmt((bytes / ns) * 1000, 3); // bytes/ns * 1000 = MB/s
  for (const row of rows) {
    const js = perCall(`${row.key} js`);
    const resident = perCall(`${row.key} wasm resident`);
    const copy = perCall(`${row.key} wasm copy`);
    raw[row.key] = { js, resident, copy };
    table.push([
      row.label,
      fmtSpread(js),
      fmtSpread(resident),
      fmtSpread(copy),
      fmtRatio(js.median / resident.median),
      fmtRatio(js.median / copy.median),
      `${mbps(row.bytes, js.median)} / ${mbps(row.bytes, resident.median)} / ${mbps(row.bytes, copy.median)}`,
      fmt(Math.max(iqrPercent(js), iqrPercent(resident), iqrPercent(copy)), 2),
    ]);
  }

  // FNV against its bound.
  const mulNs = (get(timed, "chain mul").median * 1e6) / CHAIN;
  const boundNs = (get(timed, "chain xormul").median * 1e6) / CHAIN;
  const ghz = 3 / mulNs; // imul latency is 3 cycles on current x86 cores
  const fnvRows: (string | number)[][] = [
    ["dependent imul chain (3-cycle latency)", fmt(mulNs), "—", `≈ ${fmt(ghz, 2)} GHz implied`],
    ["dependent xor + imul chain = FNV-1a bound", fmt(boundNs), "100 %", `${fmt(boundNs * ghz, 2)} cycles/byte`],
  ];
  for (const [key, len] of [
    ["fnv72", 72],
    ["fnv1200", 1200],
  ] as const) {
    for (const side of ["js", "wasm resident"] as const) {
      const nsPerByte = perCall(`${key} ${side}`).median / len;
      fnvRows.push([
        `FNV-1a ${len} B, ${side === "js" ? "JS reference" : "wasm (resident)"}`,
        fmt(nsPerByte),
        `${fmt((boundNs / nsPerByte) * 100, 3)} %`,
        `${fmt(nsPerByte * ghz, 2)} cycles/byte`,
      ]);
    }
  }

  const unpack = raw.unpack6;
  const packR = raw.pack6;
  const targets: Target[] = [
    {
      target: "unpack6 in wasm ≤ 100 ns per chunk (data resident)",
      measured: `${fmt(unpack.resident.median)} ns`,
      met: unpack.resident.median <= 100,
    },
    {
      target: "pack6 in wasm ≤ 70 ns per chunk (data resident)",
      measured: `${fmt(packR.resident.median)} ns`,
      met: packR.resident.median <= 70,
    },
    {
      target: "unpack6 and pack6 resident ≥ 9× plain JS",
      measured: `unpack6 ${fmtRatio(unpack.js.median / unpack.resident.median)}, pack6 ${fmtRatio(packR.js.median / packR.resident.median)}`,
      met: unpack.js.median / unpack.resident.median >= 9 && packR.js.median / packR.resident.median >= 9,
    },
    {
      target: "copy-included wasm path still faster than JS (unpack6, pack6)",
      measured: `unpack6 ${fmtRatio(unpack.js.median / unpack.copy.median)}, pack6 ${fmtRatio(packR.js.median / packR.copy.median)}`,
      met: unpack.copy.median < unpack.js.median && packR.copy.median < packR.js.median,
    },
  ];

  return {
    suite: "codec",
    title: "Codec: wasm kernels vs the JS reference",
    ...runHeader(options.quick, loadStart),
    timing: `wall clock (tinybench, performance.now), ${BATCH} calls per sample; median (p25–p75) of the samples`,
    tables: [
      {
        title: "ns per call, median (p25–p75)",
        columns: [
          "operation",
          "JS reference",
          "wasm, resident",
          "wasm, copy in+out",
          "JS ÷ wasm resident",
          "JS ÷ wasm copy",
          "MB/s JS / resident / copy",
          "worst IQR %",
        ],
        rows: table,
        note:
          "Resident: inputs already in linear memory and outputs left there (a datagram received into IO, tiles kept " +
          "in CHUNK_TILES for grid_put_chunk). Copy: inputs copied in from JS typed arrays and outputs copied out. " +
          "Packet rows use the protocol library (ts/protocol) for the JS side; the wasm side assembles the ChunkPacket " +
          "around chunk_encode / chunk_decode with the same header, size, version and reserved-id checks (index " +
          "validation is chunk_decode's). There is no wasm entity encoder: the EntityPacket rows differ only in the " +
          "FNV-1a checksum, so they show what the wasm checksum is worth inside a whole packet. MB/s counts the bytes " +
          "named in the operation.",
      },
      {
        title: "FNV-1a against its serial-chain bound (same run)",
        columns: ["what", "ns per byte (median)", "share of bound speed", "cycles per byte"],
        rows: fnvRows,
        note:
          "FNV-1a is one dependent chain per byte (xor, then a 32-bit multiply), so no implementation can beat an " +
          "xor+imul chain with nothing else to do; both chains run in a hand-assembled wasm module (bench/lib/chain-wasm.ts) " +
          "in the same process. Cycles assume a 3-cycle imul, which the first row's time implies a clock from.",
      },
    ],
    charts: [
      {
        file: "codec-ns.svg",
        title: "Codec: ns per call (median, log scale)",
        kind: "bar",
        categories: rows.map((row) => row.key),
        series: [
          { name: "JS reference", values: rows.map((row) => raw[row.key].js.median) },
          { name: "wasm resident", values: rows.map((row) => raw[row.key].resident.median) },
          { name: "wasm copy in+out", values: rows.map((row) => raw[row.key].copy.median) },
        ],
        yLabel: "ns per call",
        logScale: true,
      },
    ],
    targets,
    notes: [],
    raw: { perCallNs: raw, chain: { mulNs, boundNs, ghz }, batch: BATCH, sink },
  };
}

function get(map: Map<string, Spread>, name: string): Spread {
  const spread = map.get(name);
  if (!spread) throw new Error(`no result for task ${name}`);
  return spread;
}

function verify(condition: boolean, what: string): void {
  if (!condition) throw new Error(`codec suite: wasm and JS disagree (${what}); run test/codec.test.ts`);
}

/** A typical view: players and creatures with small ids, no metadata. */
function entityEntries(count: number): EntityEntry[] {
  const random = xorshift(99);
  const entries: EntityEntry[] = [];
  for (let i = 0; i < count; i++) {
    entries.push({
      id: 100 + i * 7,
      typeId: i % 4 === 0 ? 1 : 0,
      x: 500 + Math.floor(random() * 30),
      y: 400 + Math.floor(random() * 30),
      hp: 80 + (i % 20),
      hpMax: 100,
      elo: 1000 + i,
      flags: i % 4 === 0 ? 2 : 0,
      meta: [],
    });
  }
  return entries;
}
