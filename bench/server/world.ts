// The server-scale workload's world, reproducible on any framework: a
// 1024×1024-tile map with 10 % walls at random (seeded), floor elsewhere, and
// 4096 spawn points on random floor cells, written as a Tiled JSON map
// (map.tmj) with its tile data (map.tiles.json, a copy of maps/caves.tiles.json,
// whose "floor" and "rock wall" tiles it uses) into a directory. Any server
// that reads Tiled maps can load the same file.
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { mulberry32 } from "../lib/data.js";

export const WORLD_SIZE = 1024;
export const WALL_SHARE = 0.1;
export const SPAWN_COUNT = 4096;
export const WORLD_SEED = 20240601;
const TILE_DATA = fileURLToPath(new URL("../../maps/caves.tiles.json", import.meta.url));

/** The id of the tile named `name` in the tile data the world is written with, checked to (not) collide. */
function tileId(name: string, collides: boolean): number {
  const { tiles } = JSON.parse(readFileSync(TILE_DATA, "utf8")) as {
    tiles: { id: number; name: string; collides: boolean }[];
  };
  const tile = tiles.find((entry) => entry.name === name);
  if (!tile || tile.collides !== collides) {
    throw new Error(`${TILE_DATA}: no ${collides ? "colliding" : "walkable"} tile named "${name}"`);
  }
  return tile.id;
}

/** Writes map.tmj + map.tiles.json into `dir`; returns the map path. */
export function writeWorld(dir: string): string {
  mkdirSync(dir, { recursive: true });
  const FLOOR = tileId("floor", false);
  const WALL = tileId("rock wall", true);
  const random = mulberry32(WORLD_SEED);
  const data = new Array<number>(WORLD_SIZE * WORLD_SIZE);
  for (let i = 0; i < data.length; i++) data[i] = random() < WALL_SHARE ? WALL : FLOOR;
  const objects: object[] = [];
  while (objects.length < SPAWN_COUNT) {
    const x = Math.floor(random() * WORLD_SIZE);
    const y = Math.floor(random() * WORLD_SIZE);
    if (data[y * WORLD_SIZE + x] !== FLOOR) continue;
    objects.push({
      id: objects.length + 1,
      name: "",
      type: "spawn",
      x: x * 8 + 4,
      y: y * 8 + 4,
      width: 0,
      height: 0,
      rotation: 0,
      visible: true,
      point: true,
    });
  }
  const map = {
    type: "map",
    version: "1.10",
    orientation: "orthogonal",
    renderorder: "right-down",
    width: WORLD_SIZE,
    height: WORLD_SIZE,
    tilewidth: 8,
    tileheight: 8,
    infinite: false,
    nextlayerid: 3,
    nextobjectid: SPAWN_COUNT + 1,
    properties: [{ name: "name", type: "string", value: "bench 1024x1024 10% walls" }],
    tilesets: [
      {
        firstgid: 1,
        name: "bench",
        tilecount: 16,
        columns: 16,
        tilewidth: 8,
        tileheight: 8,
        margin: 0,
        spacing: 0,
        image: "tiles.png",
        imagewidth: 128,
        imageheight: 8,
      },
    ],
    layers: [
      {
        id: 1,
        type: "tilelayer",
        name: "ground",
        width: WORLD_SIZE,
        height: WORLD_SIZE,
        x: 0,
        y: 0,
        opacity: 1,
        visible: true,
        data,
      },
      {
        id: 2,
        type: "objectgroup",
        name: "spawns",
        x: 0,
        y: 0,
        opacity: 1,
        visible: true,
        draworder: "topdown",
        objects,
      },
    ],
  };
  const mapPath = join(dir, "map.tmj");
  writeFileSync(mapPath, JSON.stringify(map));
  copyFileSync(TILE_DATA, join(dir, "map.tiles.json"));
  return mapPath;
}
