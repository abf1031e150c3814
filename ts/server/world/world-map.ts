// A loaded map as the World takes it: the one mapping from the loader's
// LoadedMap to WorldMap, used by the server at start and by the map tool.
import { tileFlagsTable } from "../../tile-flags.js";
import { type LoadedMap, loadMap } from "../map/load-map.js";
import { CHEST_KIND } from "../content/item-specs.js";
import { NO_TILE } from "../../blit-layout.js";
import { buildMapArt, type MapArt } from "../map/map-atlas.js";
import type { WorldMap } from "./world.js";

/**
 * What the World needs of a loaded map. With `art` (the map's atlas, map-atlas.ts) every id's look is its
 * atlas tile, and an id the atlas does not draw draws nothing.
 */
export function worldMapOf(map: LoadedMap, art: MapArt | null = null): WorldMap {
  const lookOf = (id: number, look: number): number => (art ? (art.looks.get(id) ?? NO_TILE) : look);
  return {
    name: map.name,
    width: map.width,
    height: map.height,
    tiles: map.tiles,
    flags: tileFlagsTable(map.tileData),
    spawns: map.spawns,
    // Chests are the item room's (items/item-room.ts), not signs.
    interactables: map.interactables.filter((object) => object.kind !== CHEST_KIND),
    doors: map.doors,
    npcKinds: map.npcKinds,
    npcSpawns: map.npcSpawns,
    items: map.items,
    chests: map.chests,
    safeZones: map.safeZones,
    zones: map.zones,
    pvp: map.pvp,
    tileInfo: [...map.tileData.values()].map(({ id, name, collides, opaque, look, stack, overStack, light }) => ({
      id,
      name,
      collides,
      opaque,
      look: lookOf(id, look),
      ...(stack ? { stack } : {}),
      ...(overStack ? { overStack } : {}),
      ...(art?.overLooks.has(id) ? { over: art.overLooks.get(id) } : {}),
      ...(art?.frames.has(id) ? { frames: art.frames.get(id) } : {}),
      ...(light ? { light } : {}),
    })),
    art,
  };
}

/** Reads a Tiled map (and its tile data), and builds its own art if it has any, into what the World needs. */
export function readWorldMap(path: string): WorldMap {
  return readWorldMapAndSource(path).world;
}

/** readWorldMap, and the loaded map it was made from (for --watch, which compares later loads with it). */
export function readWorldMapAndSource(path: string): { world: WorldMap; loaded: LoadedMap } {
  const map = loadMap(path);
  const art = map.art ? buildMapArt({ ...map.art, tiles: map.tiles, tileData: map.tileData }) : null;
  return { world: worldMapOf(map, art), loaded: map };
}
