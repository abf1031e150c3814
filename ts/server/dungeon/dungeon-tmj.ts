// Writes a generated dungeon level as a Tiled map (TMJ) that Tiled opens and the
// server plays (`npm start -- --map level.tmj`): the bundled tileset, a spawn
// point at the stairs up, the chests and the doors in the interactables layer, the creature
// spawns as npc_spawn areas, and the stairs as objects of type "stairs" in a
// "warps" layer (direction up / down, the depth they lead to). Played as a map,
// its stairs down lead to generated levels like any map's (docs/dungeons.md);
// its stairs up lead nowhere, as a map's do.
import { cavesTileset } from "../map/caves-tmj.js";
import { objectLayer, TiledObjects, tiledMapText } from "../map/tiled-objects.js";
import type { GeneratedDungeon } from "./generate-dungeon.js";

/** The level as TMJ text; `tilesetImage` is the Tiled copy of the client's sheet (tiles-tiled.png) relative to where the map is written. */
export function dungeonTmj(level: GeneratedDungeon, tilesetImage: string): string {
  const objects = new TiledObjects();
  const point = objects.point.bind(objects);
  const spawns = [point("stairs up", "spawn", level.entry.x, level.entry.y)];
  const chests = level.chests.map((chest, index) =>
    point(`chest ${index + 1}`, "", chest.x, chest.y, [
      { name: "items", type: "string", value: chest.items },
      { name: "kind", type: "string", value: "chest" },
    ]),
  );
  // The doors (closed door tiles in the ground layer) as the maps' door objects, so played as a map they open.
  const doors = level.doors.map((door, index) =>
    point(`door ${index + 1}`, "", door.x, door.y, [{ name: "kind", type: "string", value: "door" }]),
  );
  const npcs = level.spawns.map((spawn, index) =>
    objects.area(`${spawn.kind} ${index + 1}`, "npc_spawn", spawn.x, spawn.y, spawn.width, spawn.height, [
      { name: "count", type: "int", value: spawn.count },
      { name: "kind", type: "string", value: spawn.kind },
    ]),
  );
  const warps = [
    point("stairs up", "stairs", level.entry.x, level.entry.y, [
      { name: "depth", type: "int", value: level.depth - 1 },
      { name: "direction", type: "string", value: "up" },
    ]),
    point("stairs down", "stairs", level.exit.x, level.exit.y, [
      { name: "depth", type: "int", value: level.depth + 1 },
      { name: "direction", type: "string", value: "down" },
    ]),
  ];
  return tiledMapText({
    width: level.width,
    height: level.height,
    tiles: level.tiles,
    objectLayers: [
      objectLayer(2, "spawns", spawns),
      objectLayer(3, "interactables", [...chests, ...doors]),
      objectLayer(4, "npcs", npcs),
      objectLayer(5, "warps", warps),
    ],
    nextObjectId: objects.nextObjectId,
    properties: [
      { name: "depth", type: "int", value: level.depth },
      { name: "generator", type: "string", value: "npm run -s dungeon (ts/server/dungeon/generate-dungeon.ts)" },
      { name: "name", type: "string", value: `Forgotten Caves, depth ${level.depth} (seed ${level.seed})` },
      { name: "seed", type: "int", value: level.seed },
    ],
    tileset: cavesTileset(tilesetImage),
  });
}
