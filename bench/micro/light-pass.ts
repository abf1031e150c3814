// Where the lighting pass spends its time (issue 15: the frame with lighting must stay under 50 µs
// and ≥ 8× the JS reference). Times, alone and for a few seconds, the wasm light_apply over the blit
// suite's night (ambient 3, four torch pools) against the JS reference, then the same pass over
// light maps that isolate one cost each: one run per row (the SIMD loop alone), a checkerboard of
// one-tile runs (the per-run overhead), an ambient table that is not channel-separable (the
// per-pixel look-up), fb_to_rgba for scale, and light_build with and without sources.
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
// The view moves by a pixel a frame, as the suite's does, so runs start anywhere in a tile.
const apply = (blitter: { lightApply(...args: number[]): void }) => (round: number) =>
  blitter.lightApply(0, 0, 240, 240, -(round & 7), -((round >> 3) & 7), 32, 32);

torchPools(wasm.lightMap);
torchPools(ref.lightMap);
const wasmUs = time("wasm light_apply, night + 4 torch pools", apply(wasm), 3000);
const refUs = time("JS reference lightApply, the same", apply(ref), 300);
console.log(`${"  wasm is".padEnd(56)} ${(refUs / wasmUs).toFixed(1)}× the reference`);
wasm.lightMap.fill(3);
time("wasm light_apply, night, no pools (one run a row)", apply(wasm), 3000);
for (let i = 0; i < 32 * 32; i++) wasm.lightMap[i] = (i & 1) ^ ((i >> 5) & 1) ? 3 : 9;
time("wasm light_apply, checkerboard of one-tile runs", apply(wasm), 3000);
torchPools(wasm.lightMap);
const tables = wasm.lightTables.slice();
for (let colour = 0; colour < 256; colour++) wasm.lightTables[3 * 256 + colour] = (colour * 7) & 0xff;
time("wasm light_apply, pools, ambient table not separable", apply(wasm), 1000);
wasm.lightTables.set(tables);
wasm.lutInit();
time("wasm fb_to_rgba (for scale: 76,800 px)", () => wasm.fbToRgba(), 3000);
[
  [6, 5],
  [24, 8],
  [10, 22],
  [27, 26],
].forEach(([x, y], index) => wasm.setLightSource(index, 20 + x, 20 + y, 4));
time("wasm light_build, 31×31 view, 4 sources of radius 4", () => wasm.lightBuild(20, 20, 31, 31, 3, 1, 4), 3000);
time("wasm light_build, 31×31 view, no sources", () => wasm.lightBuild(20, 20, 31, 31, 3, 1, 0), 3000);
