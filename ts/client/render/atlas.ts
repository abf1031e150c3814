// Puts the client's image sheets into the wasm ATLAS region once at start-up
// and fills TILE_LOOK from the server's tile data, so the per-frame kernels
// only receive pointers. Every sheet is 16 cells of 8×8 per row (docs/art.md);
// the blitter addresses them through that row stride.
import type { Rgb332Image } from "../assets/image.js";
import { CELL_SIZE_PX, SHEET_COLUMNS, TILE_CELL_COUNT } from "../assets/sheets.js";
import { TILE_BORDER, TILE_UNKNOWN } from "../../constants.js";
import { NO_TILE } from "../../blit-layout.js";
import type { WasmBlitter } from "../../wasm/blit.js";

export interface SheetImages {
  readonly tiles: Rgb332Image;
  readonly sprites: Rgb332Image;
  readonly font: Rgb332Image;
}

/** Pointers (into linear memory) of the uploaded sheets; all are SHEET_COLUMNS cells wide. */
export interface Atlas {
  readonly tiles: number;
  readonly sprites: number;
  readonly font: number;
  readonly markers: number;
  /** Cells in the tile sheet: TILE_LOOK entries beyond it would read another sheet. */
  readonly tileCells: number;
  /** The sheets drawn over the world, as images: scaled copies are made of them for a map of larger tiles (world-scale.ts). */
  readonly images: { readonly sprites: Rgb332Image; readonly font: Rgb332Image; readonly markers: Rgb332Image };
}

/** Cells of the marker sheet: masks drawn tinted (mode 2) for routes, goal and pointer. */
export const MARKER_STEP = 0;
export const MARKER_STEP_SMALL = 1;
export const MARKER_CORNERS = 2;
export const MARKER_OUTLINE = 3;
/** A rounded frame drawn under a hostile entity's sprite: its transparent pixels let the frame show. */
export const MARKER_HOSTILE = 4;

// 8×8 masks, "#" = ink. Kept here rather than in the art sheets: they are
// interface shapes, always tinted, never seen in their own colours.
const MARKER_MASKS: readonly string[][] = [
  ["........", "........", "...##...", "..####..", "..####..", "...##...", "........", "........"],
  ["........", "........", "........", "...##...", "...##...", "........", "........", "........"],
  ["##....##", "#......#", "........", "........", "........", "........", "#......#", "##....##"],
  ["########", "#......#", "#......#", "#......#", "#......#", "#......#", "#......#", "########"],
  [".######.", "#......#", "#......#", "#......#", "#......#", "#......#", "#......#", ".######."],
];

/** The marker sheet as an image: one row of SHEET_COLUMNS cells, ink 0xff on 0. */
export function markerSheet(): Rgb332Image {
  const width = SHEET_COLUMNS * CELL_SIZE_PX;
  const pixels = new Uint8Array(width * CELL_SIZE_PX);
  MARKER_MASKS.forEach((rows, cell) => {
    rows.forEach((row, y) => {
      for (let x = 0; x < CELL_SIZE_PX; x++) {
        if (row[x] === "#") pixels[y * width + cell * CELL_SIZE_PX + x] = 0xff;
      }
    });
  });
  return { width, height: CELL_SIZE_PX, pixels };
}

function checkSheet(name: string, image: Rgb332Image): void {
  if (image.width !== SHEET_COLUMNS * CELL_SIZE_PX || image.height % CELL_SIZE_PX !== 0) {
    throw new Error(`${name} sheet is ${image.width}×${image.height}, expected ${SHEET_COLUMNS * CELL_SIZE_PX} wide`);
  }
}

/** Copies the sheets (and the marker sheet) one after another into ATLAS. */
export function uploadAtlas(blitter: WasmBlitter, images: SheetImages): Atlas {
  const markers = markerSheet();
  let offset = 0;
  const put = (name: string, image: Rgb332Image): number => {
    checkSheet(name, image);
    const ptr = blitter.upload(offset, image.pixels);
    offset += image.pixels.length;
    return ptr;
  };
  return {
    tiles: put("tiles", images.tiles),
    sprites: put("sprites", images.sprites),
    font: put("font", images.font),
    markers: put("markers", markers),
    tileCells: Math.min(TILE_CELL_COUNT, (images.tiles.height / CELL_SIZE_PX) * SHEET_COLUMNS),
    images: { sprites: images.sprites, font: images.font, markers },
  };
}

export interface TileLook {
  readonly id: number;
  readonly look: number;
}

/**
 * TILE_LOOK from the server's tile data (GET /api/world: each id's `look` is
 * its tile-sheet cell). Ids the server did not describe, TILE_UNKNOWN and
 * TILE_BORDER draw nothing, so the darkness behind them shows; a look beyond
 * the sheet also draws nothing rather than another sheet's pixels.
 * Returns the ids whose look had to be dropped.
 */
export function installTileLooks(blitter: WasmBlitter, atlas: Atlas, tiles: Iterable<TileLook>): number[] {
  blitter.resetTileLook();
  // The built-in art draws nothing over the entities (a map's own art may have: map-art.ts).
  blitter.resetTileOverLook();
  const dropped: number[] = [];
  for (const { id, look } of tiles) {
    if (Number.isInteger(look) && look > 0 && look < atlas.tileCells) blitter.setTileLook(id, look);
    else {
      blitter.setTileLook(id, NO_TILE);
      dropped.push(id);
    }
  }
  blitter.setTileLook(TILE_UNKNOWN, NO_TILE);
  blitter.setTileLook(TILE_BORDER, NO_TILE);
  return dropped;
}
