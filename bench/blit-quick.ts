// Quick frame benchmark of the blitter: a full client frame — a 31x31 tile
// layer at a sub-tile offset in the 240x240 viewport, 100 sprites, the HUD
// (panel, outline, bar, text lines) and fb_to_rgba — drawn by the wasm kernels
// and by the JS reference, plus each part alone. Prints µs per call.
// Run: npx tsx bench/blit-quick.ts   (CORE_WASM=... to measure another build)
import { Bench } from "tinybench";
import { RefBlitter } from "../ts/ref/blit.js";
import { WasmBlitter } from "../ts/wasm/blit.js";
import { loadCore } from "../ts/wasm/node.js";

const TILE_SIZE = 8;
const SHEET_COLS = 16;
const LAYER_TILES = 31;
const SPRITE_COUNT = 100;
const VIEWPORT = 240;

/** Deterministic pseudo-random bytes (xorshift32); `zeroShare` of them are 0. */
function seededBytes(seed: number, length: number, zeroShare: number): Uint8Array {
  let state = seed | 1;
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    const word = state >>> 0;
    bytes[i] = word / 2 ** 32 < zeroShare ? 0 : word & 0xff || 1;
  }
  return bytes;
}

interface Blitter {
  upload(offsetBytes: number, pixels: Uint8Array): number;
  setTileLook(tileId: number, atlasIndex: number): void;
  setSprite(index: number, sprite: { x: number; y: number; tile: number; mode: number; tint: number }): void;
  drawSprites(count: number, atlas: number, atlasCols: number, tileW: number, tileH: number, ...clip: number[]): void;
  fillRect(x: number, y: number, w: number, h: number, color: number): void;
  drawRect(x: number, y: number, w: number, h: number, color: number): void;
  hbar(x: number, y: number, w: number, h: number, value: number, max: number, fg: number, bg: number): void;
  drawText(text: string, x: number, y: number, color: number, font: number, fontCols: number): number;
  lutInit(): void;
  fbToRgba(): void;
}

interface Scene {
  tiles: () => void;
  sprites: () => void;
  hud: () => void;
  rgba: () => void;
  frame: () => void;
}

/** Loads the same art into a blitter and returns its frame parts; `drawLayer` draws the tile grid at an offset. */
function buildScene(blitter: Blitter, drawLayer: (atlas: number, dx: number, dy: number) => void): Scene {
  const tileset = blitter.upload(0, seededBytes(1, SHEET_COLS * 2 * TILE_SIZE * TILE_SIZE, 0.02));
  const spriteSheet = blitter.upload(0x4000, seededBytes(2, SHEET_COLS * TILE_SIZE * TILE_SIZE, 0.5));
  const font = blitter.upload(0x8000, seededBytes(3, SHEET_COLS * 6 * TILE_SIZE * TILE_SIZE, 0.7));
  for (let id = 1; id <= 16; id++) blitter.setTileLook(id, id);
  const positions = seededBytes(4, SPRITE_COUNT * 3, 0);
  for (let i = 0; i < SPRITE_COUNT; i++) {
    blitter.setSprite(i, {
      x: positions[3 * i] - 8,
      y: positions[3 * i + 1] - 8,
      tile: positions[3 * i + 2] & 3,
      mode: i % 10 === 0 ? 2 : 1,
      tint: 0xe0,
    });
  }
  blitter.lutInit();
  let frameNumber = 0;
  const tiles = () => {
    frameNumber++;
    drawLayer(tileset, -(frameNumber & 7), -((frameNumber >> 3) & 7));
  };
  const sprites = () =>
    blitter.drawSprites(SPRITE_COUNT, spriteSheet, SHEET_COLS, TILE_SIZE, TILE_SIZE, 0, 0, 240, 240);
  const hud = () => {
    blitter.fillRect(VIEWPORT, 0, 320 - VIEWPORT, 240, 0x25);
    blitter.drawRect(VIEWPORT, 0, 320 - VIEWPORT, 240, 0xff);
    blitter.hbar(VIEWPORT + 4, 4, 72, 6, frameNumber % 100, 100, 0xe0, 0x20);
    blitter.drawText("Adventurer", VIEWPORT + 4, 14, 0xff, font, SHEET_COLS);
    blitter.drawText("HP 37/100", VIEWPORT + 4, 24, 0xfc, font, SHEET_COLS);
    blitter.drawText("You see a", VIEWPORT + 4, 40, 0xdb, font, SHEET_COLS);
    blitter.drawText("chest.", VIEWPORT + 4, 50, 0xdb, font, SHEET_COLS);
    blitter.drawText("Tick 123456", VIEWPORT + 4, 228, 0x92, font, SHEET_COLS);
  };
  const rgba = () => blitter.fbToRgba();
  return {
    tiles,
    sprites,
    hud,
    rgba,
    frame: () => {
      tiles();
      sprites();
      hud();
      rgba();
    },
  };
}

const grid = Uint16Array.from(seededBytes(5, LAYER_TILES * LAYER_TILES, 0), (b) => 1 + (b & 15));

const ref = new RefBlitter();
const refScene = buildScene(ref, (atlas, dx, dy) =>
  ref.drawTilemap(grid, LAYER_TILES, LAYER_TILES, LAYER_TILES, dx, dy, atlas, SHEET_COLS, 8, 8, 0, 0, 240, 240),
);

const wasm = new WasmBlitter(await loadCore());
const gridPtr = wasm.stageTiles(grid);
const wasmScene = buildScene(wasm, (atlas, dx, dy) =>
  wasm.drawTilemap(gridPtr, LAYER_TILES, LAYER_TILES, LAYER_TILES, dx, dy, atlas, SHEET_COLS, 8, 8, 0, 0, 240, 240),
);

// Same frame, same pixels: a benchmark of two different pictures would be meaningless.
refScene.frame();
wasmScene.frame();
const same = Buffer.compare(Buffer.from(ref.rgbaBytes()), Buffer.from(wasm.rgba())) === 0;
if (!same) throw new Error("wasm and reference frames differ; run test/blit.test.ts");

// A table that is not channel-separable sends fb_to_rgba down its per-pixel look-up path.
const scalarLut = () => {
  const lut = wasm.lut();
  wasm.lutInit();
  lut[1] ^= 0x00010000;
};

const bench = new Bench({ time: 400, warmupTime: 100 });
for (const [part, label] of [
  ["frame", "full frame"],
  ["tiles", "31x31 tile layer"],
  ["sprites", "100 sprites"],
  ["hud", "HUD (panel, rect, bar, 5 text lines)"],
  ["rgba", "fb_to_rgba"],
] as const) {
  bench.add(`${label}: wasm`, wasmScene[part]);
  bench.add(`${label}: js reference`, refScene[part]);
}
bench.add("fb_to_rgba: wasm, per-pixel look-up path", wasm.fbToRgba.bind(wasm), {
  beforeAll: scalarLut,
  afterAll: () => wasm.lutInit(),
});
await bench.run();

console.log(`blit-quick (node ${process.version}); µs per call, mean and median`);
for (const task of bench.tasks) {
  const result = task.result;
  if (result.state !== "completed") {
    console.log(`${task.name.padEnd(52)} ${result.state}`);
    continue;
  }
  const mean = result.latency.mean * 1000;
  const median = result.latency.p50 * 1000;
  console.log(`${task.name.padEnd(52)} ${mean.toFixed(1).padStart(9)} ${median.toFixed(1).padStart(9)}`);
}
