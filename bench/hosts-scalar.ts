// One-off measurement: the codec kernels of the scalar build (no SIMD,
// hosts/scalar-wasm.ts) against the SIMD build (build/core.wasm) and the JS
// reference (ts/ref/codec.ts), in one Node process, on the inputs of the codec
// suite (bench/suites/codec.ts: random indices, its cave-like and scattered
// chunks). Inputs are resident in linear memory, as in the suite's "wasm
// resident" tasks; each sample is BATCH calls. Also fb_to_rgba per 320x240
// frame with the standard RGB332 table. Prints ns per call (median and
// quartiles over tinybench's samples). Numbers only, no pass/fail.
//
// usage: npx tsx bench/hosts-scalar.ts [--time-ms 400]
import { readFileSync } from "node:fs";
import { Bench } from "tinybench";
import { caveChunk, scatteredChunk, xorshift } from "./lib/data.js";
import * as ref from "../ts/ref/codec.js";
import { RefBlitter } from "../ts/ref/blit.js";
import { WasmBlitter } from "../ts/wasm/blit.js";
import { instantiateCore, type Core } from "../ts/wasm/core.js";
import { WasmCodec } from "../ts/wasm/codec.js";
import { RELEASE_WASM } from "../ts/wasm/node.js";
import { findOrBuildScalar } from "../hosts/scalar-wasm.js";

const BATCH = 200;
const timeArg = process.argv.indexOf("--time-ms");
const TIME_MS = timeArg > 0 ? Number(process.argv[timeArg + 1]) : 400;

const random = xorshift(7);
const indices = Uint8Array.from({ length: 1024 }, () => Math.floor(random() * 64));
const packed = new Uint8Array(768);
ref.pack6(indices, packed);
const cave = caveChunk(1);
const scattered = scatteredChunk(2);
const caveIndices = new Uint8Array(1024);
const cavePalette = new Uint16Array(64);
const caveCount = ref.paletteBuild(cave, cavePalette, caveIndices);

interface Side {
  name: string;
  codec: WasmCodec;
  blitter: WasmBlitter;
}

async function side(name: string, path: string): Promise<Side> {
  const core: Core = await instantiateCore(readFileSync(path));
  return { name, codec: new WasmCodec(core), blitter: new WasmBlitter(core) };
}

const scalar = await side("scalar wasm", findOrBuildScalar().wasmPath);
const simd = await side("SIMD wasm", RELEASE_WASM);

// Same answers before timing.
for (const { name, codec } of [scalar, simd]) {
  codec.packed.set(packed);
  codec.unpack6();
  if (Buffer.compare(codec.indices, indices) !== 0) throw new Error(`${name}: unpack6 differs`);
  codec.tiles.set(cave);
  if (codec.paletteBuild() !== caveCount || Buffer.compare(codec.indices, caveIndices) !== 0) {
    throw new Error(`${name}: palette_build differs`);
  }
}

const indicesOut = new Uint8Array(1024);
const packedOut = new Uint8Array(768);
const paletteOut = new Uint16Array(64);
const tilesOut = new Uint16Array(1024);
let sink = 0;
const bench = new Bench({ time: TIME_MS, warmup: true, warmupTime: 100, retainSamples: true, throws: true });
const batch = (body: () => void) => () => {
  for (let i = 0; i < BATCH; i++) body();
};

// Written out per side on purpose: a JS reference inlined into closures shared by several inputs gets slower.
bench.add(
  "unpack6 js",
  batch(() => ref.unpack6(packed, indicesOut)),
);
for (const { name, codec } of [scalar, simd]) {
  bench.add(`unpack6 ${name}`, batch(codec.unpack6), { beforeAll: () => codec.packed.set(packed) });
}
bench.add(
  "pack6 js",
  batch(() => ref.pack6(indices, packedOut)),
);
for (const { name, codec } of [scalar, simd]) {
  bench.add(`pack6 ${name}`, batch(codec.pack6), { beforeAll: () => codec.indices.set(indices) });
}
bench.add(
  "palette_build cave js",
  batch(() => (sink += ref.paletteBuild(cave, paletteOut, indicesOut))),
);
for (const { name, codec } of [scalar, simd]) {
  const build = codec.paletteBuild;
  bench.add(
    `palette_build cave ${name}`,
    batch(() => (sink += build())),
    { beforeAll: () => codec.tiles.set(cave) },
  );
}
bench.add(
  "palette_build scattered js",
  batch(() => (sink += ref.paletteBuild(scattered, paletteOut, indicesOut))),
);
for (const { name, codec } of [scalar, simd]) {
  const build = codec.paletteBuild;
  bench.add(
    `palette_build scattered ${name}`,
    batch(() => (sink += build())),
    {
      beforeAll: () => codec.tiles.set(scattered),
    },
  );
}
bench.add(
  "palette_expand cave js",
  batch(() => (sink += ref.paletteExpand(cavePalette, caveCount, caveIndices, tilesOut))),
);
for (const { name, codec } of [scalar, simd]) {
  const expand = codec.paletteExpand;
  bench.add(
    `palette_expand cave ${name}`,
    batch(() => (sink += expand(caveCount))),
    {
      beforeAll: () => {
        codec.palette.set(cavePalette);
        codec.indices.set(caveIndices);
      },
    },
  );
}

// fb_to_rgba converts a whole 320x240 frame per call, so fewer calls per sample.
const FRAME_BATCH = 10;
const frame = Uint8Array.from({ length: 320 * 240 }, () => Math.floor(random() * 256));
const refBlitter = new RefBlitter();
refBlitter.lutInit();
refBlitter.framebuffer.set(frame);
bench.add("fb_to_rgba js (per frame)", () => {
  for (let i = 0; i < FRAME_BATCH; i++) refBlitter.fbToRgba();
});
for (const { name, blitter } of [scalar, simd]) {
  bench.add(
    `fb_to_rgba ${name} (per frame)`,
    () => {
      for (let i = 0; i < FRAME_BATCH; i++) blitter.fbToRgba();
    },
    {
      beforeAll: () => {
        blitter.lutInit();
        blitter.framebuffer().set(frame);
      },
    },
  );
}

await bench.run();
const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
console.log(
  `ns per call (median, p25-p75), ${BATCH} calls per sample (fb_to_rgba ${FRAME_BATCH}), ${TIME_MS} ms per task; sink ${sink & 1}`,
);
for (const task of bench.tasks) {
  const result = task.result;
  // An aborted or errored task has no latency: say so instead of printing NaN from an empty list.
  if (result.state !== "completed") throw new Error(`benchmark task "${task.name}" ended as ${result.state}`);
  const samples = [...(result.latency.samples ?? [])].sort((a, b) => a - b);
  const calls = task.name.startsWith("fb_to_rgba") ? FRAME_BATCH : BATCH;
  const ns = (q: number) => ((quantile(samples, q) * 1e6) / calls).toFixed(0);
  console.log(`${task.name.padEnd(38)} ${ns(0.5).padStart(6)}  (${ns(0.25)}-${ns(0.75)})  n=${samples.length}`);
}
