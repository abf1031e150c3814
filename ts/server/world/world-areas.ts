// A world of several maps (issue 16: "a world can be several maps"): the map
// the server starts with and every map of its folder its warps lead to
// (transitively, at most MAX_WORLD_MAPS), composed into one WorldMap whose
// areas lie apart in one coordinate plane (areas.ts, P-24), and the warps
// resolved to world tiles. The composed map is what the World, the rooms and
// the map tool take; nothing downstream knows there were several files.
//
// Maps drawn with the client's built-in art must agree on their tile ids (the
// same id means the same tile in each; the bundled and generated maps always
// do): the wire carries one id per cell and the client draws one tile table.
// Maps with their own tileset art get one atlas for the world and their ids
// renumbered into one id space (world-art.ts).
import { TILE_BORDER } from "../../constants.js";
import { isFreeTile } from "../../tile-flags.js";
import { type AreaRect, layoutAreas, type WorldWarp } from "./areas.js";
import { loadMap, type LoadedMap } from "../map/load-map.js";
import { buildMapArt, type MapArt } from "../map/map-atlas.js";
import { type WarpSpec, warpsOf } from "../map/map-warps.js";
import { buildWorldArt, WorldArtError } from "./world-art.js";
import { worldMapOf } from "./world-map.js";
import type { WorldMap } from "./world.js";

export type { WorldWarp } from "./areas.js";

/** Most maps one world loads through its warps. */
export const MAX_WORLD_MAPS = 16;
/** How far from a named destination a warp looks for a free cell to arrive on. */
const ARRIVAL_SEARCH_TILES = 3;

/** What `map check` shows of a warp: followed to where, or why not. */
export interface WarpReport {
  file: string;
  warp: WarpSpec;
  /** World tile of arrival (in the destination's area), or null. */
  arrival: { x: number; y: number } | null;
  unfollowed: string | null;
}

export interface ComposedWorld {
  map: WorldMap;
  /** The files in area order (the first at the origin) and their rectangles. */
  files: string[];
  areas: AreaRect[];
  warps: WorldWarp[];
  reports: WarpReport[];
  /** Each file's map as the loader read it, in area order. */
  loaded: LoadedMap[];
}

export class WorldAreasError extends Error {}

/** Reads `path` and every map its warps reach, and composes them into one world. */
export function readWorld(path: string): ComposedWorld {
  const loaded: LoadedMap[] = [];
  const files: string[] = [];
  const warpsByFile: WarpSpec[][] = [];
  const queue = [path];
  while (queue.length > 0) {
    const file = queue.shift()!;
    if (files.includes(file)) continue;
    if (files.length === MAX_WORLD_MAPS) {
      throw new WorldAreasError(`${path}: its warps reach more than ${MAX_WORLD_MAPS} maps`);
    }
    const map = loadMap(file);
    files.push(file);
    loaded.push(map);
    const warps = warpsOf(map.objects, file);
    warpsByFile.push(warps);
    for (const warp of warps) if (warp.map !== null && warp.unfollowed === null) queue.push(warp.map);
  }
  let maps: WorldMap[];
  let worldArt: MapArt | null = null;
  if (loaded.length > 1 && loaded.some((map) => map.art !== null)) {
    // One atlas for the world, every map's ids made distinct (world-art.ts).
    try {
      const unified = buildWorldArt(loaded, files);
      worldArt = unified.art;
      loaded.splice(0, loaded.length, ...unified.maps);
    } catch (error) {
      if (error instanceof WorldArtError) throw new WorldAreasError(error.message);
      throw error;
    }
    maps = loaded.map((map) => worldMapOf(map, worldArt));
  } else {
    maps = loaded.map((map) =>
      worldMapOf(map, map.art ? buildMapArt({ ...map.art, tiles: map.tiles, tileData: map.tileData }) : null),
    );
  }
  const layout = layoutAreas(maps, 0, 0);
  const map =
    maps.length === 1 ? { ...maps[0], areas: layout.maps } : composeMaps(maps, layout.maps, layout, files, worldArt);
  const reports: WarpReport[] = [];
  const warps: WorldWarp[] = [];
  warpsByFile.forEach((specs, index) => {
    const area = layout.maps[index];
    for (const warp of specs) {
      const report = resolveWarp(warp, files[index], loaded, files, layout.maps, map);
      reports.push(report);
      if (report.unfollowed !== null) continue;
      warps.push(worldWarpOf(warp, files[index], area, report.arrival));
    }
  });
  return { map: { ...map, warps }, files, areas: layout.maps, warps, reports, loaded };
}

/** A map's warp in world tiles: its cells moved to its map's `area`, landing at `to` (null for stairs). */
function worldWarpOf(warp: WarpSpec, file: string, area: AreaRect, to: { x: number; y: number } | null): WorldWarp {
  return {
    name: warp.name,
    file,
    objectId: warp.id,
    x: warp.x + area.x,
    y: warp.y + area.y,
    width: warp.width,
    height: warp.height,
    to,
    stairs: warp.direction,
  };
}

/**
 * The stairs of `map` (read from `file`) alone, the map at the origin: what a cluster's region follows
 * (ts/cluster/cluster-levels.ts), which plays one map — its warps to other maps are not followed there.
 */
export function stairsOfMap(map: LoadedMap, file: string): WorldWarp[] {
  return warpsOf(map.objects, file)
    .filter((warp) => warp.kind === "stairs" && warp.unfollowed === null)
    .map((warp) => worldWarpOf(warp, file, { x: 0, y: 0, width: map.width, height: map.height }, null));
}

/** Where a warp lands, in world tiles, or why it cannot be followed. */
function resolveWarp(
  warp: WarpSpec,
  file: string,
  loaded: readonly LoadedMap[],
  files: readonly string[],
  areas: readonly AreaRect[],
  world: WorldMap,
): WarpReport {
  if (warp.unfollowed !== null || warp.kind === "stairs")
    return { file, warp, arrival: null, unfollowed: warp.unfollowed };
  const target = files.indexOf(warp.map ?? file);
  const destination = loaded[target];
  const area = areas[target];
  let local: { x: number; y: number } | undefined;
  const to = warp.to!;
  if ("name" in to) {
    if (to.name === "") local = destination.spawns[0];
    else {
      const object = destination.objects.find((candidate) => candidate.name === to.name);
      if (object) local = { x: object.x + (object.width >> 1), y: object.y + (object.height >> 1) };
    }
    if (local === undefined) {
      const where = warp.map === null ? "this map" : warp.map;
      return { file, warp, arrival: null, unfollowed: `warp ${warp.id}: no object named "${to.name}" in ${where}` };
    }
  } else local = to;
  const arrival = freeCellNear(world, area, local.x + area.x, local.y + area.y);
  if (arrival === null) {
    return {
      file,
      warp,
      arrival: null,
      unfollowed: `warp ${warp.id}: no free cell near its destination (${local.x}, ${local.y})`,
    };
  }
  return { file, warp, arrival, unfollowed: null };
}

/** The free cell of `area` nearest (x, y) by rings, within ARRIVAL_SEARCH_TILES; null when none. */
function freeCellNear(world: WorldMap, area: AreaRect, x: number, y: number): { x: number; y: number } | null {
  for (let ring = 0; ring <= ARRIVAL_SEARCH_TILES; ring++) {
    for (let dy = -ring; dy <= ring; dy++) {
      for (let dx = -ring; dx <= ring; dx++) {
        if (Math.max(Math.abs(dx), Math.abs(dy)) !== ring) continue;
        const cx = x + dx;
        const cy = y + dy;
        if (cx < area.x || cy < area.y || cx >= area.x + area.width || cy >= area.y + area.height) continue;
        if (isFreeTile(world.flags, world.tiles[cy * world.width + cx], 0)) return { x: cx, y: cy };
      }
    }
  }
  return null;
}

/** One WorldMap of several: tiles placed in their areas (TILE_BORDER between), tile data merged, objects shifted. */
function composeMaps(
  maps: readonly WorldMap[],
  areas: readonly AreaRect[],
  layout: { gridWidth: number; gridHeight: number },
  files: readonly string[],
  art: MapArt | null,
): WorldMap {
  const width = layout.gridWidth;
  const height = layout.gridHeight;
  const tiles = new Uint16Array(width * height).fill(TILE_BORDER);
  const flags = new Uint8Array(65536);
  const tileInfo = new Map<number, WorldMap["tileInfo"][number]>();
  maps.forEach((map, index) => {
    const area = areas[index];
    for (let y = 0; y < map.height; y++) {
      tiles.set(map.tiles.subarray(y * map.width, (y + 1) * map.width), (area.y + y) * width + area.x);
    }
    for (const info of map.tileInfo) {
      const held = tileInfo.get(info.id);
      if (held && (held.collides !== info.collides || held.look !== info.look || held.opaque !== info.opaque)) {
        throw new WorldAreasError(
          `${files[index]}: tile id ${info.id} is not the same tile as in ${files[0]}; the maps of one world must share their tile ids`,
        );
      }
      tileInfo.set(info.id, info);
      flags[info.id] = map.flags[info.id];
    }
  });
  // Scripts name zones across the whole world: two maps may not give one name to two places.
  const zoneMaps = new Map<string, number>();
  maps.forEach((map, index) => {
    for (const zone of map.zones ?? []) {
      const before = zoneMaps.get(zone.name);
      if (before !== undefined && before !== index) {
        throw new WorldAreasError(`${files[index]}: zone "${zone.name}" is named in ${files[before]} already`);
      }
      zoneMaps.set(zone.name, index);
    }
  });
  const shift = <T extends { x: number; y: number }>(items: readonly T[] | undefined, index: number): T[] =>
    (items ?? []).map((item) => ({ ...item, x: item.x + areas[index].x, y: item.y + areas[index].y }));
  const first = maps[0];
  return {
    name: first.name,
    width,
    height,
    tiles,
    flags,
    // Players start in the first map.
    spawns: first.spawns,
    tileInfo: [...tileInfo.values()],
    art,
    interactables: maps.flatMap((map, index) => shift(map.interactables, index)),
    doors: maps.flatMap((map, index) => shift(map.doors, index)),
    npcKinds: first.npcKinds,
    npcSpawns: maps.flatMap((map, index) =>
      shift(map.npcSpawns, index).map((spawn) => ({
        ...spawn,
        cells: spawn.cells.map((cell) => ({ x: cell.x + areas[index].x, y: cell.y + areas[index].y })),
      })),
    ),
    items: first.items,
    // A chest's contents are stored under its object id: the later maps' ids are made distinct by their map's index.
    chests: maps.flatMap((map, index) =>
      shift(map.chests, index).map((chest) => ({ ...chest, id: chest.id + index * 0x100000 })),
    ),
    safeZones: maps.flatMap((map, index) => shift(map.safeZones, index)),
    zones: maps.flatMap((map, index) => shift(map.zones, index)),
    pvp: first.pvp ?? null,
    areas: [...areas],
  };
}
