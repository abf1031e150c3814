// weather_draw (assembly/blit/weather.ts) on the real wasm module against its JS
// reference (ts/ref/weather.ts) byte for byte, for random frames, rectangles and
// weathers; and what a player should see: rain and fog change the view, clear
// does not, the same frame number gives the same picture, the next one moves.
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { FB_HEIGHT, FB_WIDTH } from "../ts/constants.js";
import { averageRgb332, weatherDraw } from "../ts/ref/weather.js";
import { WasmBlitter } from "../ts/wasm/blit.js";
import { loadCore } from "../ts/wasm/node.js";

const PIXELS = FB_WIDTH * FB_HEIGHT;
const GUARD = 0xa5;
let wasm: WasmBlitter;

beforeAll(async () => {
  wasm = new WasmBlitter(await loadCore());
});

function noise(seed: number): Uint8Array {
  const bytes = new Uint8Array(PIXELS);
  let state = seed >>> 0;
  for (let i = 0; i < PIXELS; i++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    bytes[i] = state >>> 24;
  }
  return bytes;
}

/** Runs both on the same background; fails on any differing pixel or a write outside the framebuffer. */
function expectSame(background: Uint8Array, args: [number, number, number, number, number, number]): Uint8Array {
  const start = wasm.core.layout.FRAMEBUFFER;
  wasm.framebuffer().set(background);
  wasm.core.u8.fill(GUARD, start - 640, start);
  wasm.core.u8.fill(GUARD, start + PIXELS, start + PIXELS + 640);
  const reference = background.slice();
  // Both say whether they drew a lightning flash (the frame then converts unlit).
  expect(wasm.weatherDraw(...args)).toBe(weatherDraw(reference, ...args));
  const drawn = wasm.framebuffer();
  for (let i = 0; i < PIXELS; i++) {
    if (drawn[i] !== reference[i])
      expect.fail(`pixel (${i % FB_WIDTH}, ${Math.floor(i / FB_WIDTH)}) differs for ${args}`);
  }
  for (let i = start - 640; i < start; i++) if (wasm.core.u8[i] !== GUARD) expect.fail(`wrote before the framebuffer`);
  for (let i = start + PIXELS; i < start + PIXELS + 640; i++) {
    if (wasm.core.u8[i] !== GUARD) expect.fail(`wrote after the framebuffer`);
  }
  return drawn.slice();
}

describe("weather_draw matches the reference (issue 15)", () => {
  it("the per-channel average is exact for every pair of colours", () => {
    const wrong: string[] = [];
    for (let a = 0; a < 256; a++) {
      for (let b = 0; b < 256; b++) {
        if ((a & b) + (((a ^ b) & 0xda) >> 1) !== averageRgb332(a, b)) wrong.push(`${a}, ${b}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it("for random weathers, frames (any i32), rectangles and backgrounds", () => {
    const coordinate = fc.oneof(fc.integer({ min: -40, max: 360 }), fc.integer());
    const extent = fc.oneof(fc.integer({ min: -2, max: 340 }), fc.integer());
    fc.assert(
      fc.property(
        fc.integer({ min: -1, max: 5 }),
        fc.oneof(fc.integer({ min: 0, max: 5000 }), fc.integer()),
        coordinate,
        coordinate,
        extent,
        extent,
        fc.integer(),
        (kind, frame, x, y, w, h, seed) => {
          expectSame(noise(seed), [x, y, w, h, kind, frame]);
        },
      ),
      { seed: 0x3ea7e7, numRuns: 120 },
    );
  });

  it("storm frames with and without a lightning flash", () => {
    const background = noise(7);
    let flashes = 0;
    for (let frame = 0; frame < 24 * 8 * 4; frame++) {
      const drawn = expectSame(background, [0, 0, 240, 240, 3, frame]);
      // A flash brightens the whole view: the corner pixel (no streak needed) moves towards white.
      const flashed = drawn[0] !== background[0] && drawn[FB_WIDTH * 239 + 239] !== background[FB_WIDTH * 239 + 239];
      if (flashed) flashes++;
      wasm.framebuffer().set(background);
      expect(wasm.weatherDraw(0, 0, 240, 240, 3, frame)).toBe(flashed ? 1 : 0);
    }
    expect(flashes).toBeGreaterThan(0);
    expect(flashes).toBeLessThan(40);
  });
});

describe("weather as a player sees it", () => {
  const view = (kind: number, frame: number) => {
    wasm.framebuffer().fill(0x49); // a floor colour
    wasm.weatherDraw(0, 0, 240, 240, kind, frame);
    return wasm.framebuffer().slice();
  };
  const changed = (drawn: Uint8Array) => {
    let count = 0;
    for (let y = 0; y < 240; y++) for (let x = 0; x < 240; x++) if (drawn[y * FB_WIDTH + x] !== 0x49) count++;
    return count;
  };

  it("clear draws nothing; rain streaks a few percent of the view; fog all of it; each leaves the panel alone", () => {
    expect(changed(view(0, 10))).toBe(0);
    const rain = changed(view(1, 10));
    expect(rain).toBeGreaterThan(240 * 240 * 0.005);
    expect(rain).toBeLessThan(240 * 240 * 0.05);
    const storm = changed(view(3, 10));
    expect(storm).toBeGreaterThan(rain * 2);
    expect(changed(view(2, 10))).toBe(240 * 240);
    const panel = view(2, 10).subarray(240, FB_WIDTH);
    expect(panel.every((byte) => byte === 0x49)).toBe(true);
  });

  it("the same frame number gives the same picture; rain moves every frame, fog every second", () => {
    const same = (a: Uint8Array, b: Uint8Array) => Buffer.compare(a, b) === 0;
    for (const [kind, step] of [
      [1, 1],
      [3, 1],
      [2, 2],
    ]) {
      expect(same(view(kind, 1234), view(kind, 1234))).toBe(true);
      expect(same(view(kind, 1234 + step), view(kind, 1234))).toBe(false);
    }
  });
});
