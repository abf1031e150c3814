// What is drawn over the world grows with the map's tiles (issue 42): the
// built-in sprites, markers and font are 8 px cells, which on a map of 32 or
// 64 px tiles were specks on a street. For a map drawn with its own larger
// tiles the renderer draws them from copies of the sheets scaled up by whole
// pixels (nearest neighbour: crisp, the same art), made once when the map's art
// is installed and kept in the map atlas region after the map's atlas:
// - sprites and markers (entities, worn overlays, hostile frames, route, goal,
//   pointer) by `spriteScale`, the most whole 8-px cells a tile holds, centred in it;
// - text over the world (names, labels, damage numbers) by `textScale`, half of
//   that (a name over a 32 px tile is 16 px tall and stays about as wide as the
//   tile's neighbours), never below 1.
// The HUD panel is not in the world and keeps its own 8 px font.
import { CELL_SIZE_PX } from "../assets/sheets.js";
import type { Rgb332Image } from "../assets/image.js";
import { MAP_ATLAS_BYTES } from "../../blit-layout.js";
import type { WasmBlitter } from "../../wasm/blit.js";
import type { Atlas } from "./atlas.js";

/** Where the world's overlays come from and at what size: the built-in sheets at 1, scaled copies above. */
export interface WorldSheets {
  readonly sprites: number;
  readonly markers: number;
  readonly font: number;
  /** Framebuffer pixels per sheet pixel of the sprites and markers (their cells are 8 × spriteScale). */
  readonly spriteScale: number;
  /** Framebuffer pixels per sheet pixel of the text over the world. */
  readonly textScale: number;
}

/** The most whole 8 px cells across a tile of `tileSizePx` (1 for the built-in 8 px tiles and anything smaller). */
export function spriteScaleFor(tileSizePx: number): number {
  return Math.max(1, Math.floor(tileSizePx / CELL_SIZE_PX));
}

/** The text scale that goes with a sprite scale: half of it, at least 1. */
export function textScaleFor(spriteScale: number): number {
  return Math.max(1, Math.floor(spriteScale / 2));
}

/** `image` with every pixel a `factor` × `factor` square (nearest neighbour); the same image at 1. */
export function scaleImage(image: Rgb332Image, factor: number): Rgb332Image {
  if (factor === 1) return image;
  const width = image.width * factor;
  const pixels = new Uint8Array(width * image.height * factor);
  for (let y = 0; y < image.height; y++) {
    const row = new Uint8Array(width);
    for (let x = 0; x < image.width; x++) row.fill(image.pixels[y * image.width + x], x * factor, (x + 1) * factor);
    for (let copy = 0; copy < factor; copy++) pixels.set(row, (y * factor + copy) * width);
  }
  return { width, height: image.height * factor, pixels };
}

/** The built-in sheets as they are: what an 8 px map (or a map without art of its own) draws with. */
export function builtInSheets(atlas: Atlas): WorldSheets {
  return { sprites: atlas.sprites, markers: atlas.markers, font: atlas.font, spriteScale: 1, textScale: 1 };
}

/**
 * The sheets for a map of `tileSizePx` tiles whose own atlas takes the first `mapAtlasBytes` of the map
 * atlas region: scaled copies written after it. A scale whose copies would not fit the region is lowered
 * until they do (at 1, the built-in sheets).
 */
export function uploadWorldSheets(
  blitter: WasmBlitter,
  atlas: Atlas,
  tileSizePx: number,
  mapAtlasBytes: number,
): WorldSheets {
  for (let spriteScale = spriteScaleFor(tileSizePx); spriteScale > 1; spriteScale--) {
    const textScale = textScaleFor(spriteScale);
    const sprites = scaleImage(atlas.images.sprites, spriteScale);
    const markers = scaleImage(atlas.images.markers, spriteScale);
    const font = scaleImage(atlas.images.font, textScale);
    // Each copy starts on an 8-byte boundary after the map's atlas.
    const start = Math.ceil(mapAtlasBytes / 8) * 8;
    const bytes = sprites.pixels.length + markers.pixels.length + font.pixels.length;
    if (start + bytes > MAP_ATLAS_BYTES) continue;
    let offset = start;
    const put = (image: Rgb332Image): number => {
      const ptr = blitter.uploadToMapAtlas(offset, image.pixels);
      offset += image.pixels.length;
      return ptr;
    };
    return { sprites: put(sprites), markers: put(markers), font: put(font), spriteScale, textScale };
  }
  return builtInSheets(atlas);
}
