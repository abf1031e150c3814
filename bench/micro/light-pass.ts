// Where the lighting costs its time (issue 15: the frame with lighting must stay under 50 µs and
// ≥ 8× the JS reference). Times, alone and for a few seconds, the lit conversion (fb_to_rgba_lit:
// the light folded into the RGBA conversion) over the blit suite's night (ambient 3, four torch
// pools) against plain fb_to_rgba and against the two steps it replaced (light_apply, then
// fb_to_rgba), with the JS reference; then both over light maps that isolate one cost each: one
// run per row, a checkerboard of one-tile runs (the per-run overhead), an ambient table that is not
// channel-separable (the per-pixel look-up), overlays baked (light_bake) under eight labels; and
// light_build with and without sources.
// Run: npx tsx bench/micro/light-pass.ts  (note `uptime` beside the figures)
import { buildLightTables } from "../../ts/client/render/light.js";
import { RefBlitter } from "../../ts/ref/blit.js";
import { WasmBlitter } from "../../ts/wasm/blit.js";
import { loadCore } from "../../ts/wasm/node.js";
import { WasmSim } from "../../ts/wasm/sim.js";

const WARM_UP = 2000;
const core = await loadCore();
const wasm = new WasmBlitter(core);
const ref = new RefBlitter();
const sim = new WasmSim(core);
sim.initGrid(96, 96, 0, 0);
sim.tiles.fill(1);

/** The same pseudo-random pixels in both framebuffers. */
function fillFramebuffer(fb: Uint8Array): void {
  let state = 1;
  for (let i = 0; i < fb.length; i++) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    fb[i] = state >>> 24;
  }
}

/** The blit suite's light map: ambient 3, pools rising to 13 at four torches, 4 tiles around each. */
function torchPools(map: Uint8Array): void {
  const torches = [
    [6, 5],
    [24, 8],
    [10, 22],
    [27, 26],
  ];
  for (let ty = 0; ty < 32; ty++) {
    for (let tx = 0; tx < 32; tx++) {
      let level = 3;
      for (const [x, y] of torches) {
        const distance = Math.max(Math.abs(tx - x), Math.abs(ty - y));
        if (distance <= 4) level = Math.max(level, 13 - 2 * distance);
      }
      map[ty * 32 + tx] = level;
    }
  }
}

function time(label: string, run: (round: number) => void, rounds: number): number {
  for (let round = 0; round < WARM_UP; round++) run(round);
  const start = performance.now();
  for (let round = 0; round < rounds; round++) run(round);
  const us = ((performance.now() - start) * 1000) / rounds;
  console.log(`${label.padEnd(56)} ${us.toFixed(1)} µs`);
  return us;
}

buildLightTables(wasm.lightTables);
buildLightTables(ref.lightTables);
fillFramebuffer(wasm.framebuffer());
fillFramebuffer(ref.framebuffer);

wasm.lutInit();
ref.lutInit();
/** The view moves by a pixel a frame, as the suite's does, so runs start anywhere in a tile. */
const viewOf = (round: number) => [0, 0, 240, 240, -(round & 7), -((round >> 3) & 7), 32, 32] as const;
const lit = (blitter: WasmBlitter | RefBlitter) => (round: number) => {
  blitter.lightView(...viewOf(round));
  blitter.fbToRgbaLit();
};
const twoSteps = (blitter: WasmBlitter | RefBlitter) => (round: number) => {
  blitter.lightApply(...viewOf(round));
  blitter.fbToRgba();
};
const framebuffer = wasm.framebuffer().slice();
/** The two-step rows darken the framebuffer in place: put the pixels back now and then so they stay varied. */
const restore = () => {
  wasm.framebuffer().set(framebuffer);
  ref.framebuffer.set(framebuffer);
};

torchPools(wasm.lightMap);
torchPools(ref.lightMap);
const plainUs = time("wasm fb_to_rgba (76,800 px, no light)", () => wasm.fbToRgba(), 3000);
const litUs = time("wasm fb_to_rgba_lit, night + 4 torch pools", lit(wasm), 3000);
const refLitUs = time("JS reference fbToRgbaLit, the same", lit(ref), 200);
console.log(`${"  lit conversion costs".padEnd(56)} ${(litUs / plainUs).toFixed(2)}× fb_to_rgba`);
console.log(`${"  wasm is".padEnd(56)} ${(refLitUs / litUs).toFixed(1)}× the reference`);
const stepsUs = time("wasm light_apply + fb_to_rgba (the two steps it replaced)", twoSteps(wasm), 3000);
restore();
const refStepsUs = time("JS reference lightApply + fbToRgba", twoSteps(ref), 200);
restore();
console.log(
  `${"  the fold saves".padEnd(56)} ${(stepsUs - litUs).toFixed(1)} µs (${(stepsUs / litUs).toFixed(2)}×); reference ${(refStepsUs / refLitUs).toFixed(2)}×`,
);
wasm.lightMap.fill(3);
time("wasm fb_to_rgba_lit, night, no pools (one run a row)", lit(wasm), 3000);
for (let i = 0; i < 32 * 32; i++) wasm.lightMap[i] = (i & 1) ^ ((i >> 5) & 1) ? 3 : 9;
time("wasm fb_to_rgba_lit, checkerboard of one-tile runs", lit(wasm), 3000);
time("wasm light_apply + fb_to_rgba, the same checkerboard", twoSteps(wasm), 3000);
restore();
torchPools(wasm.lightMap);
const tables = wasm.lightTables.slice();
for (let colour = 0; colour < 256; colour++) wasm.lightTables[3 * 256 + colour] = (colour * 7) & 0xff;
time("wasm fb_to_rgba_lit, pools, ambient table not separable", lit(wasm), 1000);
wasm.lightTables.set(tables);
time(
  "wasm fb_to_rgba_lit, pools, 8 labels baked first",
  (round) => {
    torchPools(wasm.lightMap);
    wasm.lightView(...viewOf(round));
    for (let i = 0; i < 8; i++) wasm.lightBake(20 + 25 * i, 12 + 27 * i, 40, 9);
    wasm.fbToRgbaLit();
  },
  3000,
);
restore();
time("  (the map rewrite alone, JS, for scale)", () => torchPools(wasm.lightMap), 3000);
[
  [6, 5],
  [24, 8],
  [10, 22],
  [27, 26],
].forEach(([x, y], index) => wasm.setLightSource(index, 20 + x, 20 + y, 4));
time("wasm light_build, 31×31 view, 4 sources of radius 4", () => wasm.lightBuild(20, 20, 31, 31, 3, 1, 4), 3000);
time("wasm light_build, 31×31 view, no sources", () => wasm.lightBuild(20, 20, 31, 31, 3, 1, 0), 3000);
