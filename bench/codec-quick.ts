// Quick codec benchmark: wasm kernels on data already in linear memory versus
// the JS reference (ts/ref/codec.ts) on typed arrays. Prints ns per call.
// Run: npx tsx bench/codec-quick.ts   (CORE_WASM=/path/to.wasm to pick a build)
//
// Each task runs BATCH calls so the timer's own cost (tens of ns) disappears
// in the average; the median over tinybench's samples is reported.
import { Bench } from "tinybench";
import { loadCore } from "../ts/wasm/node.js";
import { WasmCodec } from "../ts/wasm/codec.js";
import * as ref from "../ts/ref/codec.js";

const BATCH = 200;

function xorshift(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 4294967296;
  };
}

/** A cave chunk with the default tile ids: rock walls and floor from a cellular automaton, speckled with variants. */
function caveChunk(seed: number): Uint16Array {
  const random = xorshift(seed);
  let wall = Uint8Array.from({ length: 34 * 34 }, () => (random() < 0.45 ? 1 : 0));
  for (let step = 0; step < 4; step++) {
    const next = new Uint8Array(34 * 34);
    for (let y = 0; y < 34; y++) {
      for (let x = 0; x < 34; x++) {
        let walls = 0;
        for (let dy = -1; dy <= 1; dy++) {
          for (let dx = -1; dx <= 1; dx++) {
            const nx = x + dx;
            const ny = y + dy;
            walls += nx < 0 || ny < 0 || nx >= 34 || ny >= 34 ? 1 : wall[ny * 34 + nx];
          }
        }
        next[y * 34 + x] = walls >= 5 ? 1 : 0;
      }
    }
    wall = next;
  }
  const tiles = new Uint16Array(1024);
  for (let y = 0; y < 32; y++) {
    for (let x = 0; x < 32; x++) {
      const roll = random();
      tiles[y * 32 + x] = wall[(y + 1) * 34 + x + 1]
        ? roll < 0.15
          ? 6 // dark rock wall
          : 5 // rock wall
        : roll < 0.08
          ? 2 // gravel
          : roll < 0.14
            ? 3 // moss
            : roll < 0.16
              ? 11 // rubble
              : 1; // floor
    }
  }
  return tiles;
}

/** A room: wall rows and floor rows, long runs of one id (the common case on a hand-made map). */
function roomChunk(): Uint16Array {
  const tiles = new Uint16Array(1024);
  for (let y = 0; y < 32; y++) tiles.fill(y < 4 || y > 27 ? 5 : 1, y * 32, y * 32 + 32);
  for (let y = 4; y < 28; y++) tiles[y * 32] = tiles[y * 32 + 31] = 5;
  return tiles;
}

/** 64 distinct large ids scattered at random: the worst case the format allows. */
function scatteredChunk(seed: number): Uint16Array {
  const random = xorshift(seed);
  return Uint16Array.from({ length: 1024 }, (_, i) => 1000 + 977 * (i < 64 ? i : Math.floor(random() * 64)));
}

const core = await loadCore();
const codec = new WasmCodec(core);
const bench = new Bench({ time: 300, warmup: true, warmupTime: 100 });

function add(name: string, call: () => unknown): void {
  bench.add(name, () => {
    for (let i = 0; i < BATCH; i++) call();
  });
}

// 6-bit packing.
const random = xorshift(7);
const indices = Uint8Array.from({ length: 1024 }, () => Math.floor(random() * 64));
const packed = new Uint8Array(768);
ref.pack6(indices, packed);
const indicesOut = new Uint8Array(1024);
codec.packed.set(packed);
add("unpack6 wasm", codec.unpack6);
add("unpack6 js", () => ref.unpack6(packed, indicesOut));
codec.indices.set(indices);
add("pack6 wasm", codec.pack6);
add("pack6 js", () => ref.pack6(indices, packed));

// Palettes: each task first loads its chunk into CHUNK_TILES (setup, not timed inside the batch).
const palette = new Uint16Array(64);
const chunks: [string, Uint16Array][] = [
  ["room", roomChunk()],
  ["cave", caveChunk(1)],
  ["64 ids", scatteredChunk(2)],
];
for (const [label, tiles] of chunks) {
  const wasmTask = `palette_build ${label} wasm`;
  bench.add(
    wasmTask,
    () => {
      for (let i = 0; i < BATCH; i++) codec.paletteBuild();
    },
    { beforeAll: () => codec.tiles.set(tiles) },
  );
  add(`palette_build ${label} js`, () => ref.paletteBuild(tiles, palette, indicesOut));
}
for (const [label, tiles] of [chunks[1], chunks[2]]) {
  const built = new Uint8Array(1024);
  const builtPalette = new Uint16Array(64);
  const count = ref.paletteBuild(tiles, builtPalette, built);
  const tilesOut = new Uint16Array(1024);
  bench.add(
    `palette_expand ${label} (${count}) wasm`,
    () => {
      for (let i = 0; i < BATCH; i++) codec.paletteExpand(count);
    },
    {
      beforeAll: () => {
        codec.palette.set(builtPalette);
        codec.indices.set(built);
      },
    },
  );
  add(`palette_expand ${label} (${count}) js`, () => ref.paletteExpand(builtPalette, count, built, tilesOut));
}

// FNV-1a over a StatePacket-sized and a full-datagram-sized input.
for (const length of [72, 1200]) {
  const bytes = Uint8Array.from({ length }, () => Math.floor(random() * 256));
  const { IO } = core.layout;
  bench.add(
    `fnv1a ${length} B wasm`,
    () => {
      for (let i = 0; i < BATCH; i++) codec.fnv1aResident(IO, length);
    },
    { beforeAll: () => core.u8.set(bytes, IO) },
  );
  add(`fnv1a ${length} B js`, () => ref.fnv1a(bytes, 0, length));
}

await bench.run();

const rows = bench.tasks.map((task) => {
  const result = task.result;
  if (result.state !== "completed") return { task: task.name, "ns/call": `(${result.state})` };
  return {
    task: task.name,
    "ns/call (median)": ((result.latency.p50 * 1e6) / BATCH).toFixed(1),
    "ns/call (mean)": ((result.latency.mean * 1e6) / BATCH).toFixed(1),
    samples: result.latency.samplesCount,
  };
});
console.table(rows);
