// What a region's Game is made from (docs/scaling.md § Regions): the map with its stairs down, and of the
// map's spawns, chests and doors only those on the region's own ground; its dungeon levels (cluster-levels.ts);
// the first entity id of its range. One function, so a region (region.ts) and a replay of its recording
// (region-replay.ts) make the same world.
import { DEFAULT_GAME_OPTIONS, type GameOptions } from "../server/game-options.js";
import type { WorldMap } from "../server/world/world.js";
import { readWorldMapAndSource } from "../server/world/world-map.js";
import { stairsOfMap } from "../server/world/world-areas.js";
import { ClusterLevels, dungeonShareOf } from "./cluster-levels.js";
import { type ClusterLayout, distanceToRegion } from "./layout.js";

/** Each region hands out entity ids from its own range: (region + 1) × 2^24 onwards. */
export const ENTITY_ID_RANGE = 2 ** 24;

export interface RegionWorld {
  /** The whole map with its stairs (the neighbours' spawns and creatures are theirs: see `ground`). */
  readonly map: WorldMap;
  /** The map as the region's Game is made from it: its own ground's spawns, chests and doors. */
  readonly ground: WorldMap;
  readonly levels: ClusterLevels;
  /** Whether tile (x, y) lies on the region's ground. */
  readonly owns: (x: number, y: number) => boolean;
  /** The Game's options the region sets: its entity ids' range, its share of the dungeon level slots. */
  readonly options: Pick<GameOptions, "firstEntityId" | "dungeonShare">;
}

export function regionWorldOf(
  mapPath: string,
  layout: ClusterLayout,
  region: number,
  game: Partial<GameOptions> | undefined,
): RegionWorld {
  const { world: mapAlone, loaded } = readWorldMapAndSource(mapPath);
  // Its stairs down lead to dungeon levels, each held by the region of its stairs (cluster-levels.ts).
  const map = { ...mapAlone, warps: stairsOfMap(loaded, mapPath) };
  const gameOptions = { ...DEFAULT_GAME_OPTIONS, ...game };
  const firstStairs = map.warps.find((warp) => warp.stairs === "down") ?? map.spawns[0];
  const levels = new ClusterLevels(layout, region, map.warps, {
    dungeonSeed: gameOptions.dungeonSeed,
    levelSize: gameOptions.levelSize,
    settleTo: firstStairs,
  });
  // The spawns and chests of this region's ground live here (a creature crosses borders, npc-link.ts, but
  // its spawn stays); so do the piles lying on it, when items are kept in the shared store.
  const owns = (x: number, y: number) => distanceToRegion(layout, region, x, y) === 0;
  const npcSpawns = (map.npcSpawns ?? []).filter((spawn) => owns(spawn.x, spawn.y));
  const chests = (map.chests ?? []).filter((chest) => owns(chest.x, chest.y));
  // Doors too: a neighbour's door is a ghost here, its cell kept as its region says (door-link.ts).
  const doors = (map.doors ?? []).filter((door) => owns(door.x, door.y));
  return {
    map,
    ground: { ...map, npcSpawns, chests, doors },
    levels,
    owns,
    options: {
      firstEntityId: (region + 1) * ENTITY_ID_RANGE + 1,
      // Its share of the world's dungeon level slots, and the stairs down on its ground (cluster-levels.ts).
      dungeonShare: dungeonShareOf(layout, region, gameOptions.levelSlots, map.warps),
    },
  };
}
