// The blit kernels' shared numbers and the SPRITES entry format (docs/wasm-abi.md,
// assembly/layout.ts, assembly/blit), written once for production code: the wasm
// wrapper (ts/wasm/blit.ts) and the renderer (ts/client/render) take them from
// here, and the JS reference blitter (ts/ref/blit.ts), which only tests and
// benchmarks use, re-exports them. WasmBlitter checks ATLAS_BYTES and
// SPRITES_MAX against the module's layout at construction.

/** Size of the ATLAS region in bytes (assembly/layout.ts ATLAS_BYTES). */
export const ATLAS_BYTES = 0x80000;
/**
 * Size of the MAP_ATLAS region in bytes (assembly/layout.ts MAP_ATLAS_BYTES): a host's own map art,
 * one RGB332 tile per drawn stack (ts/server/map/map-atlas.ts). 16 MiB less the 128 KiB of TILE_OVER_LOOK after it:
 * 16256 tiles of 32 px (sourceoftales draws 8194).
 */
export const MAP_ATLAS_BYTES = 0xfe0000;
/** Tiles per row of a map atlas (its rows are MAP_ATLAS_COLUMNS × tile width bytes). */
export const MAP_ATLAS_COLUMNS = 16;
/** Entries in the SPRITES region (assembly/layout.ts SPRITES_MAX). */
export const SPRITES_MAX = 1024;
/** Bytes per SPRITES entry: i16 x, i16 y, u16 tile, u8 mode, u8 tint. */
export const SPRITE_BYTES = 8;
/** Blit modes. */
export const MODE_OPAQUE = 0;
export const MODE_TRANSPARENT = 1;
export const MODE_TINTED = 2;
/** Atlas tile index meaning "draw nothing" (TILE_LOOK entries and sprite tiles). */
export const NO_TILE = 0xffff;
/** Font glyph cell edge in pixels; bytes 32..126 have glyphs (sheet index byte - 32). */
export const GLYPH_SIZE = 8;
export const FIRST_GLYPH_BYTE = 32;
export const LAST_GLYPH_BYTE = 126;

/** One sprite-list entry as the SPRITES region stores it. */
export interface SpriteEntry {
  x: number;
  y: number;
  tile: number;
  mode: number;
  tint: number;
}

/**
 * Writes one SPRITES entry at byte `at` of `bytes` (little-endian, as the
 * kernel reads it). Bytes one at a time: the region sits at any offset of
 * linear memory, so no typed view of wider elements needs to be made per call.
 */
export function writeSpriteEntry(
  bytes: Uint8Array,
  at: number,
  x: number,
  y: number,
  tile: number,
  mode: number,
  tint: number,
): void {
  bytes[at] = x;
  bytes[at + 1] = x >> 8;
  bytes[at + 2] = y;
  bytes[at + 3] = y >> 8;
  bytes[at + 4] = tile;
  bytes[at + 5] = tile >> 8;
  bytes[at + 6] = mode;
  bytes[at + 7] = tint;
}

/** Text as the byte string draw_text reads: ASCII as is, anything beyond 0x7f as '?'. */
export function asciiBytes(text: string): Uint8Array {
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    bytes[i] = code < 0x80 ? code : 0x3f;
  }
  return bytes;
}

/** Light levels (assembly/layout.ts LIGHT_LEVELS): level LIGHT_LEVELS − 1 is full light. */
export const LIGHT_LEVELS = 16;
/** Tiles of the light map at most (assembly/layout.ts LIGHT_MAP_MAX). */
export const LIGHT_MAP_MAX = 4096;
/** A light-map cell with this bit is baked (assembly/layout.ts LIGHT_BAKED): darkened in the framebuffer, converted unlit. */
export const LIGHT_BAKED = 0x80;
/** Entries of LIGHT_SOURCES, the host's lights for light_build (assembly/layout.ts LIGHT_SOURCES_MAX). */
export const LIGHT_SOURCES_MAX = 256;
/** World tiles light_build's view may have (assembly/layout.ts LIGHT_WORK_MAX). */
export const LIGHT_WORK_MAX = 4096;
/** Largest light radius in tiles (assembly/layout.ts LIGHT_RADIUS_MAX). */
export const LIGHT_RADIUS_MAX = 8;
