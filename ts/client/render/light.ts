// The darkening tables of the lighting pass (docs/art.md § Light): for each of the
// 16 light levels, every RGB332 colour mapped to the colour it becomes in that
// light — channels scaled down towards NIGHT_FLOOR, blue kept a little longer so
// night reads as moonlight rather than mud — re-quantised to RGB332. Level 15 is
// the identity, so full daylight changes no pixel. Written once into the wasm
// LIGHT_TABLES (and the JS reference's): the per-pixel work is the wasm pass's.
import { LIGHT_LEVELS } from "../../blit-layout.js";

/** The brightness of level 0 (the darkest night), as a share of full light. */
export const NIGHT_FLOOR = 0.22;

/** Fills `out` (LIGHT_LEVELS × 256 bytes) with the darkening tables. */
export function buildLightTables(out: Uint8Array): void {
  for (let level = 0; level < LIGHT_LEVELS; level++) {
    const light = level / (LIGHT_LEVELS - 1);
    const scale = NIGHT_FLOOR + (1 - NIGHT_FLOOR) * light;
    const blueScale = Math.min(1, scale + 0.25 * (1 - light));
    for (let colour = 0; colour < 256; colour++) {
      // The standard expansion (assembly/blit/rgba.ts lut_init), scaled, then back to 3-3-2 bits.
      const red = Math.floor(((colour >> 5) * 255) / 7) * scale;
      const green = Math.floor((((colour >> 2) & 7) * 255) / 7) * scale;
      const blue = Math.floor(((colour & 3) * 255) / 3) * blueScale;
      out[level * 256 + colour] =
        (Math.round((red * 7) / 255) << 5) | (Math.round((green * 7) / 255) << 2) | Math.round((blue * 3) / 255);
    }
  }
}
