// fb_resize (issue 16): the framebuffer sized for a map's tile size so the spec's 30 × 30 tile
// view holds at 16 and 32 px tiles. On the real wasm module: every kernel draws into the resized
// framebuffer byte for byte as the JS reference does, nothing is written outside it (nor into the
// default framebuffer while it is not in use), sizes the module cannot hold are refused, and going
// back to 320×240 draws where the 8 px default always drew.
import { beforeAll, describe, expect, it } from "vitest";
import { FB_HEIGHT, FB_MAX_HEIGHT, FB_MAX_WIDTH, FB_WIDTH } from "../ts/constants.js";
import { RefBlitter } from "../ts/ref/blit.js";
import { WasmBlitter } from "../ts/wasm/blit.js";
import { loadCore } from "../ts/wasm/node.js";

let wasm: WasmBlitter;
let ref: RefBlitter;
beforeAll(async () => {
  wasm = new WasmBlitter(await loadCore());
  ref = new RefBlitter();
});

/** mulberry32 bytes; 0 with probability `zeroShare`. */
function seededBytes(seed: number, length: number, zeroShare = 0.3): Uint8Array {
  let state = seed >>> 0;
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++) {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    const word = (t ^ (t >>> 14)) >>> 0;
    bytes[i] = word / 2 ** 32 < zeroShare ? 0 : word & 0xff || 1;
  }
  return bytes;
}

const GUARD = 0xa5;

/** Draws one frame of a `tile` px map view with the side panel on both blitters. */
function drawFrame(tile: number, seed: number): void {
  const view = 30 * tile;
  const [wasmAtlas, refAtlas] = [wasm.upload(0, seededBytes(seed, 16 * 2 * tile * tile, 0.2)), 0];
  ref.upload(0, seededBytes(seed, 16 * 2 * tile * tile, 0.2));
  for (let id = 0; id < 32; id++) {
    wasm.setTileLook(id, id === 0 ? 0xffff : id);
    ref.setTileLook(id, id === 0 ? 0xffff : id);
  }
  const grid = Uint16Array.from(seededBytes(seed ^ 2, 31 * 31, 0.05), (b) => b & 31);
  const dx = -(seed & (tile - 1));
  const dy = -((seed >> 5) & (tile - 1));
  for (const target of [wasm, ref]) target.fbClear(3);
  wasm.drawTilemap(wasm.stageTiles(grid), 31, 31, 31, dx, dy, wasmAtlas, 16, tile, tile, 0, 0, view, view);
  ref.drawTilemap(grid, 31, 31, 31, dx, dy, refAtlas, 16, tile, tile, 0, 0, view, view);
  const font = new Map<WasmBlitter | RefBlitter, number>([
    [wasm, wasmAtlas],
    [ref, refAtlas],
  ]);
  for (const target of [wasm, ref]) {
    target.fillRect(view, 0, 80, 240, 0x25);
    target.drawRect(view - 4, view - 4, 90, 30, 0xe0); // across the panel's edge and off the bottom
    target.hbar(view + 4, 20, 72, 6, 7, 10, 0x1c, 0x00);
    target.drawText("HP 10/10", view + 4, 40, 0xff, font.get(target)!, 16);
    target.drawText("at the far edge", view + 70, view - 4, 0xff, font.get(target)!, 16);
  }
}

describe("fb_resize", () => {
  it("draws a 30 × 30 view of 16 and 32 px tiles and the panel byte for byte as the reference, inside the framebuffer", () => {
    for (const tile of [16, 32]) {
      const width = 30 * tile + 80;
      const height = 30 * tile;
      wasm.resize(width, height);
      ref.resize(width, height);
      expect([wasm.width, wasm.height]).toEqual([width, height]);
      const { FRAMEBUFFER, FRAMEBUFFER_LARGE, RGBA, RGBA_LARGE } = wasm.core.layout;
      const memory = wasm.core.u8;
      // Guards: the default framebuffer and RGBA (not in use now), and the bytes after the large pair's ends.
      memory.fill(GUARD, FRAMEBUFFER, FRAMEBUFFER + FB_WIDTH * FB_HEIGHT);
      memory.fill(GUARD, RGBA, RGBA + FB_WIDTH * FB_HEIGHT * 4);
      memory.fill(GUARD, FRAMEBUFFER_LARGE + width * height, RGBA_LARGE);
      drawFrame(tile, 0x1234 + tile);
      const actual = wasm.framebuffer();
      expect(actual.byteOffset).toBe(FRAMEBUFFER_LARGE);
      expect(actual.length).toBe(width * height);
      const firstDifference = actual.findIndex((byte, i) => byte !== ref.framebuffer[i]);
      expect(firstDifference).toBe(-1);
      // The view shows 30 whole tiles across: tile column 30 starts at the panel's edge, drawn there by the panel.
      expect(new Set(actual.subarray(0, 30 * tile)).size).toBeGreaterThan(16);
      wasm.lutInit();
      ref.lutInit();
      wasm.fbToRgba();
      ref.fbToRgba();
      const rgba = wasm.rgba();
      expect(rgba.byteOffset).toBe(RGBA_LARGE);
      expect(rgba.length).toBe(width * height * 4);
      expect(rgba.findIndex((byte, i) => byte !== ref.rgbaBytes()[i])).toBe(-1);
      const touched = (from: number, to: number) => memory.subarray(from, to).findIndex((byte) => byte !== GUARD);
      expect(touched(FRAMEBUFFER, FRAMEBUFFER + FB_WIDTH * FB_HEIGHT)).toBe(-1);
      expect(touched(RGBA, RGBA + FB_WIDTH * FB_HEIGHT * 4)).toBe(-1);
      expect(touched(FRAMEBUFFER_LARGE + width * height, RGBA_LARGE)).toBe(-1);
    }
  });

  it("refuses sizes the module cannot hold and keeps the one it has", () => {
    wasm.resize(560, 480);
    for (const [w, h] of [
      [0, 240],
      [320, 0],
      [FB_MAX_WIDTH + 16, 240],
      [320, FB_MAX_HEIGHT + 1],
      [321, 241], // not a multiple of 16 pixels
      [-320, -240],
    ]) {
      expect(() => wasm.resize(w, h)).toThrow(RangeError);
      expect(() => ref.resize(w, h)).toThrow(RangeError);
    }
    expect([wasm.width, wasm.height, wasm.framebuffer().length]).toEqual([560, 480, 560 * 480]);
  });

  it("back at 320×240 the 8 px default draws at FRAMEBUFFER and RGBA, as before", () => {
    wasm.resize(FB_WIDTH, FB_HEIGHT);
    ref.resize(FB_WIDTH, FB_HEIGHT);
    expect(wasm.framebuffer().byteOffset).toBe(wasm.core.layout.FRAMEBUFFER);
    drawFrame(8, 99);
    expect(wasm.framebuffer().findIndex((byte, i) => byte !== ref.framebuffer[i])).toBe(-1);
    wasm.fbToRgba();
    ref.fbToRgba();
    expect(wasm.rgba().byteOffset).toBe(wasm.core.layout.RGBA);
    expect(wasm.rgba().findIndex((byte, i) => byte !== ref.rgbaBytes()[i])).toBe(-1);
  });
});
