// Which chunk kernels production calls (issue 11 part 5): the client expands
// every received ChunkPacket into tile ids (chunk-cache.ts) and the server
// encodes one per chunk version (world.ts). This times, in one run, the JS
// kernels of ts/protocol/chunk-kernels.ts (decode through readChunkTiles, what
// a core-less host calls; encode as palette build + pack6) against WasmCodec
// with the copy in and out included, on a cave chunk (a handful of ids, as
// real maps are).
// Run: npx tsx bench/micro/chunk-kernels.ts  (note `uptime` beside the figures)
import { pack6, paletteBuild } from "../../ts/protocol/chunk-kernels.js";
import { decodePacket, encodeChunkFromTiles, readChunkPalette, readChunkTiles } from "../../ts/protocol/index.js";
import { WasmCodec } from "../../ts/wasm/codec.js";
import { loadCore } from "../../ts/wasm/node.js";
import { caveChunk } from "../lib/data.js";

const ROUNDS = 20_000;
const REPEATS = 7;

const codec = new WasmCodec(await loadCore());
const tiles = caveChunk(1);
const datagram = new Uint8Array(1200);
const length = encodeChunkFromTiles(0, 0, 7, tiles, datagram);
const decoded = decodePacket(datagram.subarray(0, length));
if (!decoded.ok || decoded.packet.type !== "chunk") throw new Error("chunk did not decode");
const view = decoded.packet;
const palette = new Uint16Array(64);
const packed = new Uint8Array(768);
const tilesOut = new Uint16Array(1024);
const indices = new Uint8Array(1024);

function decodeJs(): number {
  readChunkTiles(view, tilesOut);
  return tilesOut[517];
}

function decodeWasm(): number {
  const count = readChunkPalette(view, palette);
  codec.decodeChunk(palette, count, view.packedTiles, tilesOut);
  return tilesOut[517];
}

function encodeJs(): number {
  const count = paletteBuild(tiles, palette, indices);
  pack6(indices, packed);
  return count;
}

function encodeWasm(): number {
  return codec.encodeChunk(tiles, palette, packed);
}

decodeJs();
const expected = tilesOut.slice();
decodeWasm();
if (!tilesOut.every((id, index) => id === expected[index])) throw new Error("decoders disagree");

const kernels: [string, () => number][] = [
  ["decode js", decodeJs],
  ["decode wasm", decodeWasm],
  ["encode js", encodeJs],
  ["encode wasm", encodeWasm],
];
const samples = new Map<string, number[]>(kernels.map(([name]) => [name, []]));
let sink = 0;
for (let repeat = 0; repeat < REPEATS; repeat++) {
  for (const [name, run] of kernels) {
    const start = performance.now();
    for (let round = 0; round < ROUNDS; round++) sink ^= run();
    samples.get(name)!.push(((performance.now() - start) * 1e6) / ROUNDS);
  }
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1];
console.log(`cave chunk; ns per chunk, median of ${REPEATS} (sink ${sink & 1})`);
for (const [name] of kernels) console.log(`${name.padEnd(12)} ${median(samples.get(name)!).toFixed(0).padStart(6)} ns`);
console.log(
  `decode js ÷ wasm ${(median(samples.get("decode js")!) / median(samples.get("decode wasm")!)).toFixed(1)}×`,
);
console.log(
  `encode js ÷ wasm ${(median(samples.get("encode js")!) / median(samples.get("encode wasm")!)).toFixed(1)}×`,
);
