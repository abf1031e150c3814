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

// 6-bit packing.
const random = xorshift(7);
const indices = Uint8Array.from({ length: 1024 }, () => Math.floor(random() * 64));
const packed = new Uint8Array(768);
ref.pack6(indices, packed);
const indicesOut = new Uint8Array(1024);
bench.add(
  "unpack6 wasm",
  () => {
    for (let i = 0; i < BATCH; i++) codec.unpack6();
  },
  { beforeAll: () => codec.packed.set(packed) },
);
bench.add("unpack6 js", () => {
  for (let i = 0; i < BATCH; i++) ref.unpack6(packed, indicesOut);
});
bench.add(
  "pack6 wasm",
  () => {
    for (let i = 0; i < BATCH; i++) codec.pack6();
  },
  { beforeAll: () => codec.indices.set(indices) },
);
const packedOut = new Uint8Array(768);
bench.add("pack6 js", () => {
  for (let i = 0; i < BATCH; i++) ref.pack6(indices, packedOut);
});

// Palettes. The cases are written out rather than generated in a loop: closures created in one loop share
// their code, and the JS reference inlined into it then sees several cases' arrays and ran up to 2.5x slower
// (palette_expand: 2 µs instead of 0.8 µs). wasm tasks load their chunk in beforeAll (not timed).
const room = roomChunk();
const cave = caveChunk(1);
const scattered = scatteredChunk(2);
const palette = new Uint16Array(64);

bench.add(
  "palette_build room wasm",
  () => {
    for (let i = 0; i < BATCH; i++) codec.paletteBuild();
  },
  { beforeAll: () => codec.tiles.set(room) },
);
bench.add("palette_build room js", () => {
  for (let i = 0; i < BATCH; i++) ref.paletteBuild(room, palette, indicesOut);
});
bench.add(
  "palette_build cave wasm",
  () => {
    for (let i = 0; i < BATCH; i++) codec.paletteBuild();
  },
  { beforeAll: () => codec.tiles.set(cave) },
);
bench.add("palette_build cave js", () => {
  for (let i = 0; i < BATCH; i++) ref.paletteBuild(cave, palette, indicesOut);
});
bench.add(
  "palette_build 64 ids wasm",
  () => {
    for (let i = 0; i < BATCH; i++) codec.paletteBuild();
  },
  { beforeAll: () => codec.tiles.set(scattered) },
);
bench.add("palette_build 64 ids js", () => {
  for (let i = 0; i < BATCH; i++) ref.paletteBuild(scattered, palette, indicesOut);
});

const cavePalette = new Uint16Array(64);
const caveIndices = new Uint8Array(1024);
const caveCount = ref.paletteBuild(cave, cavePalette, caveIndices);
const scatteredPalette = new Uint16Array(64);
const scatteredIndices = new Uint8Array(1024);
const scatteredCount = ref.paletteBuild(scattered, scatteredPalette, scatteredIndices);
const tilesOut = new Uint16Array(1024);
bench.add(
  `palette_expand cave (${caveCount}) wasm`,
  () => {
    for (let i = 0; i < BATCH; i++) codec.paletteExpand(caveCount);
  },
  {
    beforeAll: () => {
      codec.palette.set(cavePalette);
      codec.indices.set(caveIndices);
    },
  },
);
bench.add(`palette_expand cave (${caveCount}) js`, () => {
  for (let i = 0; i < BATCH; i++) ref.paletteExpand(cavePalette, caveCount, caveIndices, tilesOut);
});
bench.add(
  `palette_expand 64 ids (${scatteredCount}) wasm`,
  () => {
    for (let i = 0; i < BATCH; i++) codec.paletteExpand(scatteredCount);
  },
  {
    beforeAll: () => {
      codec.palette.set(scatteredPalette);
      codec.indices.set(scatteredIndices);
    },
  },
);
bench.add(`palette_expand 64 ids (${scatteredCount}) js`, () => {
  for (let i = 0; i < BATCH; i++) ref.paletteExpand(scatteredPalette, scatteredCount, scatteredIndices, tilesOut);
});

// FNV-1a over a StatePacket-sized and a full-datagram-sized input (the same loop caveat: written out).
const { IO } = core.layout;
const bytes72 = Uint8Array.from({ length: 72 }, () => Math.floor(random() * 256));
const bytes1200 = Uint8Array.from({ length: 1200 }, () => Math.floor(random() * 256));
bench.add(
  "fnv1a 72 B wasm",
  () => {
    for (let i = 0; i < BATCH; i++) codec.fnv1aResident(IO, 72);
  },
  { beforeAll: () => core.u8.set(bytes72, IO) },
);
bench.add("fnv1a 72 B js", () => {
  for (let i = 0; i < BATCH; i++) ref.fnv1a(bytes72, 0, 72);
});
bench.add(
  "fnv1a 1200 B wasm",
  () => {
    for (let i = 0; i < BATCH; i++) codec.fnv1aResident(IO, 1200);
  },
  { beforeAll: () => core.u8.set(bytes1200, IO) },
);
bench.add("fnv1a 1200 B js", () => {
  for (let i = 0; i < BATCH; i++) ref.fnv1a(bytes1200, 0, 1200);
});

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
