// A world of several maps that each have their own tileset art (issue 16):
// one atlas for the world. Each map's atlas is built as for a map alone
// (map-atlas.ts, with the map's own ids), then every id the maps draw gets a
// world id of its own — the same GID means different tiles in two maps, and
// the wire still carries one u16 per cell that every client reads through one
// TILE_LOOK — and the atlases are laid end to end, each map's looks shifted by
// where its tiles start. One atlas rather than one per area, because a client
// sees two areas' ids at once only across a warp but holds one TILE_LOOK and
// one MAP_ATLAS: swapping atlases at a warp would need a message, a fetch and a
// re-upload mid-game, while one atlas needs nothing new on the wire
// (docs/maps.md § Warps and several maps).
import { createHash } from "node:crypto";
import { MAP_ATLAS_BYTES, MAP_ATLAS_COLUMNS } from "../../blit-layout.js";
import { MAX_WORLD_TILE_ID } from "../map/gid.js";
import type { LoadedMap } from "../map/load-map.js";
import { type AtlasFrame, buildMapArt, type KindLook, type MapArt } from "../map/map-atlas.js";
import type { TileInfo } from "../map/tile-data.js";

export class WorldArtError extends Error {}

/** The maps with their ids renumbered into one world id space, and the one atlas that draws them all. */
export interface WorldArt {
  maps: LoadedMap[];
  art: MapArt;
}

/** The ids a map needs: every id its cells show, the tiles its doors open to, what twins twin; 0 always. */
function usedIds(map: LoadedMap): number[] {
  const used = new Set<number>(map.tiles);
  used.add(0);
  for (const door of map.doors) used.add(door.closedTile).add(door.openTile);
  for (let grew = true; grew;) {
    grew = false;
    for (const id of [...used]) {
      const info = map.tileData.get(id);
      for (const next of [info?.opensTo, info?.twinOf]) {
        if (next !== undefined && !used.has(next)) {
          used.add(next);
          grew = true;
        }
      }
    }
  }
  return [...used].filter((id) => id === 0 || map.tileData.has(id)).sort((a, b) => a - b);
}

/** Builds each map's atlas, gives every drawn id a world id of its own and merges the atlases into one. */
export function buildWorldArt(loaded: readonly LoadedMap[], files: readonly string[]): WorldArt {
  const arts = loaded.map((map, index) => {
    if (map.art === null) {
      throw new WorldArtError(
        `${files[index]}: draws with the built-in tiles while ${files[loaded.findIndex((other) => other.art !== null)]} ` +
          "has its own tileset art; the maps of one world must all have their own art or all use the built-in tiles",
      );
    }
    return buildMapArt({ ...map.art, tiles: map.tiles, tileData: map.tileData })!;
  });
  const size = arts[0].tileWidthPx;
  arts.forEach((art, index) => {
    if (art.tileWidthPx !== size || art.tileHeightPx !== arts[0].tileHeightPx) {
      throw new WorldArtError(
        `${files[index]}: its tiles are ${art.tileWidthPx}×${art.tileHeightPx} px, ${files[0]}'s ` +
          `${size}×${arts[0].tileHeightPx}: the maps of one world must share one tile size (one framebuffer tile size per world)`,
      );
    }
  });

  // World ids: 0 stays "no tile"; every other id of every map, dense from 1, map by map.
  let next = 1;
  const remaps: Map<number, number>[] = [];
  const maps = loaded.map((map, index): LoadedMap => {
    const remap = new Map<number, number>([[0, 0]]);
    remaps.push(remap);
    for (const id of usedIds(map)) {
      if (id === 0) continue;
      if (next > MAX_WORLD_TILE_ID) {
        throw new WorldArtError(`${files[index]}: the world's maps draw more than ${MAX_WORLD_TILE_ID} distinct tiles`);
      }
      remap.set(id, next++);
    }
    const tiles = map.tiles.map((id) => remap.get(id) ?? 0);
    const tileData = new Map<number, TileInfo>();
    for (const [id, worldId] of remap) {
      const info = map.tileData.get(id);
      if (!info) continue;
      const renumbered: TileInfo = { ...info, id: worldId };
      if (info.opensTo !== undefined) renumbered.opensTo = remap.get(info.opensTo);
      if (info.twinOf !== undefined) renumbered.twinOf = remap.get(info.twinOf);
      tileData.set(worldId, renumbered);
    }
    const doors = map.doors.map((door) => ({
      ...door,
      closedTile: remap.get(door.closedTile)!,
      openTile: remap.get(door.openTile)!,
    }));
    return { ...map, tiles, tileData, doors };
  });

  // The atlases end to end: tile 0 unused, then each map's tiles 1.. in order.
  const tileBytes = size * arts[0].tileHeightPx;
  const tileCount = 1 + arts.reduce((sum, art) => sum + art.tileCount - 1, 0);
  const rows = Math.ceil(tileCount / MAP_ATLAS_COLUMNS);
  if (rows * MAP_ATLAS_COLUMNS * tileBytes > MAP_ATLAS_BYTES) {
    throw new WorldArtError(
      `${files[0]}: the world's ${loaded.length} maps need ${tileCount} atlas tiles of ${size} px together, ` +
        `more than the client's ${MAP_ATLAS_BYTES}-byte atlas holds`,
    );
  }
  const stride = MAP_ATLAS_COLUMNS * size;
  const pixels = new Uint8Array(rows * arts[0].tileHeightPx * stride);
  const looks = new Map<number, number>();
  const frames = new Map<number, AtlasFrame[]>();
  const overLooks = new Map<number, number>();
  const kindLooks = new Map<number, KindLook>();
  let start = 1;
  arts.forEach((art, index) => {
    const height = art.tileHeightPx;
    for (let tile = 1; tile < art.tileCount; tile++) {
      const from = Math.floor(tile / art.columns) * height * art.columns * size + (tile % art.columns) * size;
      const target = start + tile - 1;
      const to = Math.floor(target / MAP_ATLAS_COLUMNS) * height * stride + (target % MAP_ATLAS_COLUMNS) * size;
      for (let y = 0; y < height; y++) {
        pixels.set(
          art.pixels.subarray(from + y * art.columns * size, from + y * art.columns * size + size),
          to + y * stride,
        );
      }
    }
    const shift = (look: number): number => start + look - 1;
    const remap = remaps[index];
    for (const [id, look] of art.looks) {
      const worldId = remap.get(id);
      if (worldId !== undefined) looks.set(worldId, shift(look));
    }
    for (const [id, look] of art.overLooks) {
      const worldId = remap.get(id);
      if (worldId !== undefined) overLooks.set(worldId, shift(look));
    }
    for (const [id, segments] of art.frames) {
      const worldId = remap.get(id);
      if (worldId !== undefined)
        frames.set(
          worldId,
          segments.map(({ look, durationMs }) => ({ look: shift(look), durationMs })),
        );
    }
    // The world's creature kinds are the first map's (world-areas.ts), drawn with its tiles.
    if (index === 0) {
      for (const [typeId, kind] of art.kindLooks) {
        const frames = kind.frames.map(({ looks: cells, durationMs }) => ({ looks: cells.map(shift), durationMs }));
        kindLooks.set(typeId, { ...kind, frames });
      }
    }
    start += art.tileCount - 1;
  });
  const hash = createHash("sha256")
    .update(`${size}x${arts[0].tileHeightPx}/${MAP_ATLAS_COLUMNS}:`)
    .update(pixels)
    .digest("hex")
    .slice(0, 16);
  return {
    maps,
    art: {
      tileWidthPx: size,
      tileHeightPx: arts[0].tileHeightPx,
      columns: MAP_ATLAS_COLUMNS,
      tileCount,
      pixels,
      hash,
      problems: arts.flatMap((art, index) => art.problems.map((problem) => `${files[index]}: ${problem}`)),
      looks,
      frames,
      reducedStacks: arts.reduce((sum, art) => sum + art.reducedStacks, 0),
      overLooks,
      kindLooks,
    },
  };
}
