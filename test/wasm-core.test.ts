import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { FB_MAX_HEIGHT, FB_MAX_WIDTH } from "../ts/constants.js";
import { describe, expect, it } from "vitest";
import { DEBUG_WASM, loadCore } from "../ts/wasm/node.js";

const ROOT = join(import.meta.dirname, "..");

/** Newest modification time of the files the wasm builds are compiled from (as scripts/build-wasm.mjs sees it). */
function newestSourceMs(dir = join(ROOT, "assembly")): number {
  let newest = statSync(join(ROOT, "asconfig.json")).mtimeMs;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSourceMs(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** Why the debug build cannot be compared, or null when it is there and current. */
function debugBuildMissing(): string | null {
  if (!existsSync(DEBUG_WASM)) return "build/core.debug.wasm is missing (npm run asbuild:debug builds it)";
  if (statSync(DEBUG_WASM).mtimeMs < newestSourceMs()) {
    return "build/core.debug.wasm is older than assembly/ (npm run asbuild:debug rebuilds it)";
  }
  return null;
}

describe("core module loader", () => {
  it("instantiates the release build with regions that fit its fixed memory", async () => {
    const release = await loadCore();
    expect(release.layout.FIXED_END).toBe(0x162a400);
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
      [L.WIDE_PALETTE, 2048],
      [L.WIDE_PACKED, 1280],
      [L.IO, L.IO_BYTES],
      [L.TILE_FLAGS, 65536],
      [L.FRAMEBUFFER, 320 * 240],
      [L.RGBA, 320 * 240 * 4],
      [L.ATLAS, L.ATLAS_BYTES],
      [L.TILE_LOOK, 65536 * 2],
      [L.SPRITES, L.SPRITES_MAX * 8],
      [L.MOVES, L.MOVES_MAX * 16],
      [L.WIDE_SLOTS, 65536 * 2],
      [L.LIGHT_TABLES, L.LIGHT_LEVELS * 256],
      [L.LIGHT_MAP, L.LIGHT_MAP_MAX],
      [L.MAP_ATLAS, L.MAP_ATLAS_BYTES],
      [L.TILE_OVER_LOOK, 65536 * 2],
      [L.TILE_LIGHT, 65536],
      [L.LIGHT_SOURCES, L.LIGHT_SOURCES_MAX * 8],
      [L.LIGHT_WORK, L.LIGHT_WORK_MAX],
      [L.FRAMEBUFFER_LARGE, FB_MAX_WIDTH * FB_MAX_HEIGHT],
      [L.RGBA_LARGE, FB_MAX_WIDTH * FB_MAX_HEIGHT * 4],
    ];
    for (let i = 1; i < regions.length; i++) {
      expect(regions[i][0]).toBeGreaterThanOrEqual(regions[i - 1][0] + regions[i - 1][1]);
    }
    const [lastStart, lastSize] = regions[regions.length - 1];
    expect(lastStart + lastSize).toBeLessThanOrEqual(L.FIXED_END);
    expect(release.memory.buffer.byteLength).toBeGreaterThanOrEqual(L.FIXED_END);
  });

  it("instantiates the debug build with the release build's layout", async (context) => {
    // The test setup builds it (scripts/build-wasm.mjs --debug --if-missing) unless CORE_WASM chose a prebuilt module.
    const missing = debugBuildMissing();
    if (missing !== null) return context.skip(missing);
    const release = await loadCore();
    const debug = await loadCore({ debug: true });
    expect(debug.layout).toEqual(release.layout);
  });
});
