// The darkening tables of the lighting (docs/world-time.md § In the client): for each of the
// 16 light levels, every RGB332 colour mapped to the colour it becomes in that
// light — channels scaled down towards NIGHT_FLOOR, blue kept a little longer so
// night reads as moonlight rather than mud — re-quantised to RGB332. Level 15 is
// the identity, so full daylight changes no pixel. Written once into the wasm
// LIGHT_TABLES (and the JS reference's): the per-pixel work is the wasm lit conversion's
// (fb_to_rgba_lit, which composes each level's table with the RGBA expansion).
import { LIGHT_LEVELS } from "../../blit-layout.js";
import type { WasmBlitter } from "../../wasm/blit.js";

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

/** A light the frame adds around an entity: a world tile and a radius in tiles (a LIGHT_SOURCES entry). */
export interface EntityLight {
  readonly x: number;
  readonly y: number;
  readonly radius: number;
}

/** Fills TILE_LIGHT from the world's tiles: each tile's `light` radius (docs/world-time.md § Light), 0 elsewhere. */
export function installTileLights(
  blitter: WasmBlitter,
  tiles: Iterable<{ readonly id: number; readonly light?: number }>,
): number {
  const table = blitter.tileLight;
  table.fill(0);
  let sources = 0;
  for (const { id, light } of tiles) {
    if (light === undefined || light <= 0) continue;
    table[id & 0xffff] = Math.min(light, 255);
    sources++;
  }
  return sources;
}

/**
 * The lights of the entities drawn this frame: every living one whose kind glows (its kinds-file
 * `light`) or that carries light (`light`: a wielded torch), at its tile, the larger radius when both;
 * corpses (hp 0 of hp_max > 0) give none.
 */
export function entityLights(
  entities: Iterable<{
    readonly typeId: number;
    readonly tileX: number;
    readonly tileY: number;
    readonly hp?: number;
    readonly hpMax?: number;
    readonly light?: number;
  }>,
  kinds: ReadonlyMap<number, { readonly light?: number }>,
): EntityLight[] {
  const lights: EntityLight[] = [];
  for (const entity of entities) {
    const radius = Math.max(kinds.get(entity.typeId)?.light ?? 0, entity.light ?? 0);
    if (radius <= 0) continue;
    if ((entity.hpMax ?? 0) > 0 && (entity.hp ?? 0) <= 0) continue;
    lights.push({ x: entity.tileX, y: entity.tileY, radius });
  }
  return lights;
}
