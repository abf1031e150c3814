// A loaded map as the World takes it: the one mapping from the loader's
// LoadedMap to WorldMap, used by the server at start and by the map tool.
import { tileFlagsTable } from "../tile-flags.js";
import { type LoadedMap, loadMap } from "./map/load-map.js";
import { CHEST_KIND } from "./items/item-specs.js";
import type { WorldMap } from "./world.js";

/** What the World needs of a loaded map. */
export function worldMapOf(map: LoadedMap): WorldMap {
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
    pvp: map.pvp,
    tileInfo: [...map.tileData.values()].map(({ id, name, collides, opaque, look }) => ({
      id,
      name,
      collides,
      opaque,
      look,
    })),
  };
}

/** Reads a Tiled map (and its tile data) into what the World needs. */
export function readWorldMap(path: string): WorldMap {
  return worldMapOf(loadMap(path));
}
