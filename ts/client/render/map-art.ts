// A host's own map art in the client (docs/art.md § Map art): the atlas the
// server built from the map's tilesets (ts/server/map/map-atlas.ts) goes into
// the wasm MAP_ATLAS region once, and TILE_LOOK maps each world id to its
// atlas tile, so the frame's one draw_tilemap call draws every layer, flip and
// large tile of the map at the map's own tile size; TILE_OVER_LOOK maps the ids
// with tiles of over layers to their over tile, which draw_tilemap_over draws
// after the entities.
import { MAP_ATLAS_BYTES, NO_TILE } from "../../blit-layout.js";
import { TILE_BORDER, TILE_UNKNOWN } from "../../constants.js";
import type { MapArtInfo } from "../core/session-api.js";
import type { WasmBlitter } from "../../wasm/blit.js";
import type { TileLook } from "./atlas.js";
import { type TileFrame, TileAnimations, tileFramesProblem } from "./tile-animation.js";

/** Where the uploaded map atlas is and how to address it: what FrameRenderer.setMapTiles takes. */
export interface MapTileSheet {
  readonly ptr: number;
  readonly columns: number;
  readonly tileSizePx: number;
  readonly tileCount: number;
  /** Bytes the atlas takes at the start of MAP_ATLAS (what follows is free: world-scale.ts puts its sheets there). */
  readonly atlasBytes: number;
  /** The ids whose look changes with the clock (the renderer calls show() each frame), or null: none. */
  readonly animations: TileAnimations | null;
  /** Whether any id draws over the entities (TILE_OVER_LOOK): only then does the frame make the over pass. */
  readonly hasOver: boolean;
}

/** Checks the atlas against what /api/world said of it; returns the problem, or null. */
export function mapAtlasProblem(art: MapArtInfo, pixels: Uint8Array): string | null {
  const tileBytes = art.tileSizePx * art.tileSizePx;
  const rows = Math.ceil(art.tileCount / art.columns);
  if (pixels.length !== art.bytes) return `the map atlas has ${pixels.length} bytes, the world says ${art.bytes}`;
  if (pixels.length !== rows * art.columns * tileBytes) {
    return `the map atlas's ${pixels.length} bytes are not ${rows} rows of ${art.columns} tiles of ${art.tileSizePx} px`;
  }
  if (pixels.length > MAP_ATLAS_BYTES) return `the map atlas has ${pixels.length} bytes, more than ${MAP_ATLAS_BYTES}`;
  return null;
}

/**
 * Uploads the atlas and fills TILE_LOOK from the world's tiles: a look names an atlas tile (1 ..
 * tileCount − 1); any other look, TILE_UNKNOWN and TILE_BORDER draw nothing. Throws on an atlas that
 * does not match its description (mapAtlasProblem).
 */
export function installMapArt(
  blitter: WasmBlitter,
  art: MapArtInfo,
  pixels: Uint8Array,
  tiles: Iterable<TileLook & { frames?: readonly TileFrame[]; over?: number }>,
): MapTileSheet {
  const problem = mapAtlasProblem(art, pixels);
  if (problem !== null) throw new Error(problem);
  const ptr = blitter.uploadMapAtlas(pixels);
  blitter.resetTileLook();
  blitter.resetTileOverLook();
  const animated = new Map<number, readonly TileFrame[]>();
  const isAtlasTile = (look: number): boolean => Number.isInteger(look) && look > 0 && look < art.tileCount;
  let hasOver = false;
  for (const { id, look, frames, over } of tiles) {
    blitter.setTileLook(id, isAtlasTile(look) ? look : NO_TILE);
    // What the id draws over the entities (docs/maps.md § Over layers); an over look beyond the atlas draws nothing.
    if (over !== undefined && isAtlasTile(over) && id !== TILE_UNKNOWN && id !== TILE_BORDER) {
      blitter.setTileOverLook(id, over);
      hasOver = true;
    }
    // Frames that do not fit the atlas are not played: the id keeps its still look.
    if (frames && id !== TILE_UNKNOWN && id !== TILE_BORDER && tileFramesProblem(frames, art.tileCount) === null) {
      animated.set(id, frames);
    }
  }
  blitter.setTileLook(TILE_UNKNOWN, NO_TILE);
  blitter.setTileLook(TILE_BORDER, NO_TILE);
  return {
    ptr,
    columns: art.columns,
    tileSizePx: art.tileSizePx,
    tileCount: art.tileCount,
    atlasBytes: pixels.length,
    animations: animated.size > 0 ? new TileAnimations(animated) : null,
    hasOver,
  };
}
