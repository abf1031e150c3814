// Client frame suite: a full 320×240 frame at night — the 30×30-tile view (31×31 tiles
// drawn at a sub-tile scroll offset into the 240×240 viewport), 100 sprites, the
// light map built from the same tiles (light_build: ambient 3, four torch tiles and
// two carried lights, walls casting shadows), the HUD panel and the lit conversion
// (light_view + fb_to_rgba_lit: the light folded into the RGBA conversion, issue 15) —
// drawn by the wasm blitter (ts/wasm/blit.ts) and by the JS reference (ts/ref/blit.ts,
// ts/ref/light-sources.ts), plus each part alone, the same frame by day (no light), and
// the separate pass the fold replaced (light_apply) for comparison. Both must produce
// the same RGBA bytes before anything is timed.
import { RefBlitter } from "../../ts/ref/blit.js";
import { type LightSource, type LightWorld, lightBuild } from "../../ts/ref/light-sources.js";
import { weatherDraw } from "../../ts/ref/weather.js";
import { TILE_FLAG_OPAQUE } from "../../ts/constants.js";
import { WasmBlitter } from "../../ts/wasm/blit.js";
import { loadCore } from "../../ts/wasm/node.js";
import { WasmSim } from "../../ts/wasm/sim.js";
import { buildLightTables } from "../../ts/client/render/light.js";
import {
  type RunOptions,
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
import type { SuiteResult } from "../lib/results.js";

const TILE_SIZE = 8;
const SHEET_COLS = 16;
const LAYER_TILES = 31;
const SPRITE_COUNT = 100;
const VIEWPORT = 240;
/** The weather row draws fog: every pixel averaged once, the puffs twice (rain touches a few hundred). */
const WEATHER_BENCHED = 2;
/** The night: ambient level 3; torch tiles (radius 4) at four places of the view, walls (opaque) among the tiles. */
const AMBIENT = 3;
const TORCH_TILE = 17;
const WALL_TILE = 16;
const TORCHES = [
  [6, 5],
  [24, 8],
  [10, 22],
  [27, 26],
];
/** Lights carried by entities (a player's torch, a glow beetle), LIGHT_SOURCES entries. */
const CARRIED: LightSource[] = [
  { x: 15, y: 15, radius: 4 },
  { x: 20, y: 12, radius: 2 },
];
/** The frame's targets (issue 15): the lit frame under 50 µs and at least 8× faster than the JS reference. */
const FRAME_TARGET_US = 50;
const FRAME_TARGET_RATIO = 8;

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
  readonly lightTables: Uint8Array;
  readonly lightMap: Uint8Array;
  lightApply(...args: number[]): void;
  lightView(...args: number[]): number;
  fbToRgbaLit(): void;
}

interface Scene {
  tiles: () => void;
  sprites: () => void;
  lightBuild: () => void;
  litRgba: () => void;
  lightApply: () => void;
  weather: () => void;
  hud: () => void;
  rgba: () => void;
  frame: () => void;
  day: () => void;
}

/**
 * Loads the same art into a blitter and returns its frame parts; `drawLayer` draws the tile grid at an
 * offset, `buildLight` writes the blitter's light map for the night (light_build over the same tiles).
 */
function buildScene(
  blitter: Blitter,
  drawLayer: (atlas: number, dx: number, dy: number) => void,
  drawWeather: (frame: number) => void,
  buildLight: () => void,
): Scene {
  const tileset = blitter.upload(0, seededBytes(1, SHEET_COLS * 2 * TILE_SIZE * TILE_SIZE, 0.02));
  const spriteSheet = blitter.upload(0x4000, seededBytes(2, SHEET_COLS * TILE_SIZE * TILE_SIZE, 0.5));
  const font = blitter.upload(0x8000, seededBytes(3, SHEET_COLS * 6 * TILE_SIZE * TILE_SIZE, 0.7));
  for (let id = 1; id <= TORCH_TILE; id++) blitter.setTileLook(id, id);
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
  buildLightTables(blitter.lightTables);
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
  // The light map's cell (0, 0) is the tile layer's first tile, at the same scroll offset.
  const view = () => [
    0,
    0,
    VIEWPORT,
    VIEWPORT,
    -(frameNumber & 7),
    -((frameNumber >> 3) & 7),
    LAYER_TILES,
    LAYER_TILES,
  ];
  const litRgba = () => {
    blitter.lightView(...view());
    blitter.fbToRgbaLit();
  };
  const rgba = () => blitter.fbToRgba();
  return {
    tiles,
    sprites,
    lightBuild: buildLight,
    litRgba,
    lightApply: () => blitter.lightApply(...view()),
    weather: () => drawWeather(frameNumber),
    hud,
    rgba,
    frame: () => {
      tiles();
      sprites();
      buildLight();
      hud();
      litRgba();
    },
    day: () => {
      tiles();
      sprites();
      hud();
      rgba();
    },
  };
}

export async function runBlit(options: RunOptions): Promise<SuiteResult> {
  const loadStart = loadNow();
  // Tiles 1..15 of the sheet, one in sixteen a wall, and the four torches.
  const grid = Uint16Array.from(seededBytes(5, LAYER_TILES * LAYER_TILES, 0), (b) => 1 + (b & 15));
  for (const [x, y] of TORCHES) grid[y * LAYER_TILES + x] = TORCH_TILE;
  const flags = new Uint8Array(0x10000);
  flags[WALL_TILE] = flags[TORCH_TILE] = TILE_FLAG_OPAQUE;
  const tileLight = new Uint8Array(0x10000);
  tileLight[TORCH_TILE] = 4;
  const world: LightWorld = {
    tiles: grid,
    width: LAYER_TILES,
    height: LAYER_TILES,
    originX: 0,
    originY: 0,
    flags,
    tileLight,
  };

  const ref = new RefBlitter();
  const refScene = buildScene(
    ref,
    (atlas, dx, dy) =>
      ref.drawTilemap(grid, LAYER_TILES, LAYER_TILES, LAYER_TILES, dx, dy, atlas, SHEET_COLS, 8, 8, 0, 0, 240, 240),
    (frame) => weatherDraw(ref.framebuffer, 0, 0, VIEWPORT, VIEWPORT, WEATHER_BENCHED, frame),
    () => lightBuild(world, ref.lightMap, 0, 0, LAYER_TILES, LAYER_TILES, AMBIENT, 1, CARRIED),
  );

  const core = await loadCore();
  const wasm = new WasmBlitter(core);
  const sim = new WasmSim(core);
  if (!sim.initGrid(LAYER_TILES, LAYER_TILES, 0, 0)) throw new Error("no wasm grid for the light world");
  sim.tiles.set(grid);
  sim.setFlags(flags);
  wasm.tileLight.set(tileLight);
  CARRIED.forEach((light, i) => wasm.setLightSource(i, light.x, light.y, light.radius));
  const gridPtr = wasm.stageTiles(grid);
  const wasmScene = buildScene(
    wasm,
    (atlas, dx, dy) =>
      wasm.drawTilemap(gridPtr, LAYER_TILES, LAYER_TILES, LAYER_TILES, dx, dy, atlas, SHEET_COLS, 8, 8, 0, 0, 240, 240),
    (frame) => wasm.weatherDraw(0, 0, VIEWPORT, VIEWPORT, WEATHER_BENCHED, frame),
    () => wasm.lightBuild(0, 0, LAYER_TILES, LAYER_TILES, AMBIENT, 1, CARRIED.length),
  );

  // Same frame, same pixels: a benchmark of two different pictures would be meaningless.
  refScene.frame();
  wasmScene.frame();
  const same = Buffer.compare(Buffer.from(ref.rgbaBytes()), Buffer.from(wasm.rgba())) === 0;
  if (!same) throw new Error("wasm and reference frames differ; run test/blit.test.ts and test/blit-lit.test.ts");
  if (Buffer.compare(Buffer.from(ref.lightMap), Buffer.from(wasm.lightMap)) !== 0) {
    throw new Error("wasm and reference light maps differ; run test/light-sources.test.ts");
  }
  // The night is a night: the lit frame is not the day's.
  const night = Buffer.from(wasm.rgba()).toString("base64");
  wasmScene.day();
  if (Buffer.from(wasm.rgba()).toString("base64") === night) throw new Error("the night frame is not lit");
  refScene.day();
  if (Buffer.compare(Buffer.from(ref.rgbaBytes()), Buffer.from(wasm.rgba())) !== 0) {
    throw new Error("wasm and reference day frames differ; run test/blit.test.ts");
  }
  refScene.weather();
  wasmScene.weather();
  if (Buffer.compare(ref.framebuffer, wasm.framebuffer()) !== 0) {
    throw new Error("wasm and reference weather differ; run test/weather-draw.test.ts");
  }

  // A table that is not channel-separable sends fb_to_rgba down its per-pixel look-up path.
  const scalarLut = () => {
    const lut = wasm.lut();
    wasm.lutInit();
    lut[1] ^= 0x00010000;
  };

  const parts = [
    ["frame", "full frame at night (tiles + sprites + light_build + HUD + lit RGBA conversion)"],
    ["day", "the same frame by day (tiles + sprites + HUD + fb_to_rgba)"],
    ["tiles", "31×31 tile layer"],
    ["sprites", "100 sprites"],
    ["lightBuild", "light_build (31×31 view: 4 torch tiles, 2 carried lights, walls)"],
    ["litRgba", "lit conversion (light_view + fb_to_rgba_lit, 76 800 px, the 240×240 viewport lit)"],
    ["rgba", "fb_to_rgba (76 800 px, no light)"],
    ["lightApply", "light_apply alone (the separate pass the fold replaced, not in the frame)"],
    [
      "weather",
      "weather_draw (fog over the 240×240 viewport: veil and puffs, the costliest weather; not in the frame)",
    ],
    ["hud", "HUD (panel, outline, bar, 5 text lines)"],
  ] as const;
  const tasks: TaskSpec[] = [];
  for (const [part] of parts) {
    tasks.push({ name: `${part} js`, fn: refScene[part] }, { name: `${part} wasm`, fn: wasmScene[part] });
  }
  tasks.push({
    name: "rgba wasm lookup path",
    fn: () => wasm.fbToRgba(),
    beforeAll: scalarLut,
    afterAll: () => wasm.lutInit(),
  });
  log(`blit: ${tasks.length} tasks`);
  const timed = await runTasks(tasks, {
    timeMs: options.quick ? 200 : 1000,
    warmupMs: options.quick ? 50 : 200,
    iterations: options.quick ? 30 : 100,
  });
  const us = (name: string) => scaleSpread(timed.get(name)!, 1000);
  const rows = parts.map(([part, label]) => {
    const js = us(`${part} js`);
    const w = us(`${part} wasm`);
    return [
      label,
      fmtSpread(js),
      fmtSpread(w),
      fmtRatio(js.median / w.median),
      fmt(Math.max(iqrPercent(js), iqrPercent(w)), 2),
    ];
  });
  const lookup = us("rgba wasm lookup path");
  rows.push([
    "fb_to_rgba, wasm per-pixel look-up path (non-separable LUT)",
    "—",
    fmtSpread(lookup),
    "—",
    fmt(iqrPercent(lookup), 2),
  ]);
  const frameJs = us("frame js");
  const frameWasm = us("frame wasm");
  return {
    suite: "blit",
    title: "Client frame: wasm blitter vs JS reference",
    ...runHeader(options.quick, loadStart),
    timing: "wall clock (tinybench), one frame or part per sample; median (p25–p75)",
    tables: [
      {
        title: "µs per frame or part, median (p25–p75)",
        columns: ["what", "JS reference", "wasm", "JS ÷ wasm", "worst IQR %"],
        rows,
        note:
          "Same art, same sprite list, same scroll offsets on both sides; the two frames are compared byte for byte " +
          "(RGBA) before timing. A frame at 60 Hz has 16 667 µs: the wasm frame uses " +
          `${fmt((frameWasm.median / 16667) * 100, 2)} % of that budget, the JS reference ${fmt((frameJs.median / 16667) * 100, 2)} %.`,
      },
    ],
    charts: [
      {
        file: "blit-frame.svg",
        title: "Client frame parts: µs per call (median)",
        kind: "bar",
        categories: parts.map(([part]) => part),
        series: [
          { name: "JS reference", values: parts.map(([part]) => us(`${part} js`).median) },
          { name: "wasm", values: parts.map(([part]) => us(`${part} wasm`).median) },
        ],
        yLabel: "µs",
      },
    ],
    targets: [
      {
        target: "full client frame faster in wasm than in the JS reference",
        measured: `${fmt(frameWasm.median)} µs vs ${fmt(frameJs.median)} µs (${fmtRatio(frameJs.median / frameWasm.median)})`,
        met: frameWasm.median < frameJs.median,
      },
      {
        target: `full frame with lighting (night, torch pools, light_build included) under ${FRAME_TARGET_US} µs`,
        measured: `${fmtSpread(frameWasm)} µs, median (p25–p75); by day ${fmt(us("day wasm").median)} µs`,
        met: frameWasm.median < FRAME_TARGET_US,
      },
      {
        target: `full frame with lighting ≥ ${FRAME_TARGET_RATIO}× faster than the JS reference (same frame)`,
        measured: `${fmtRatio(frameJs.median / frameWasm.median)} (${fmt(frameWasm.median)} µs vs ${fmt(frameJs.median)} µs)`,
        met: frameJs.median / frameWasm.median >= FRAME_TARGET_RATIO,
      },
    ],
    notes: [],
    raw: Object.fromEntries(timed),
  };
}
