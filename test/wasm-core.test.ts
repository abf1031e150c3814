import { describe, expect, it } from "vitest";
import { loadCore } from "../ts/wasm/node.js";

describe("core module loader", () => {
  it("instantiates the release and debug builds with agreeing layouts", async () => {
    const release = await loadCore();
    const debug = await loadCore({ debug: true }).catch(() => null);
    expect(release.layout.FIXED_END).toBe(0x124000);
    // Regions must not overlap: each starts at or after the previous one's end.
    const L = release.layout;
    const regions: [number, number][] = [
      [L.RESULT, 64],
      [L.CHUNK_TILES, 2048],
      [L.CHUNK_INDICES, 1024 + 16],
      [L.CHUNK_PALETTE, 128],
      [L.CHUNK_PACKED, 768 + 16],
      [L.PENDING, L.PENDING_MAX * 8],
      [L.PATH_OUT, L.PATH_MAX],
      [L.RGB332_LUT, 1024],
      [L.IO, L.IO_BYTES],
      [L.TILE_FLAGS, 65536],
      [L.FRAMEBUFFER, 320 * 240],
      [L.RGBA, 320 * 240 * 4],
      [L.ATLAS, L.ATLAS_BYTES],
      [L.TILE_LOOK, 65536 * 2],
      [L.SPRITES, L.SPRITES_MAX * 8],
    ];
    for (let i = 1; i < regions.length; i++) {
      expect(regions[i][0]).toBeGreaterThanOrEqual(regions[i - 1][0] + regions[i - 1][1]);
    }
    const [lastStart, lastSize] = regions[regions.length - 1];
    expect(lastStart + lastSize).toBeLessThanOrEqual(L.FIXED_END);
    expect(release.memory.buffer.byteLength).toBeGreaterThanOrEqual(L.FIXED_END);
    if (debug) expect(debug.layout).toEqual(release.layout);
  });
});
