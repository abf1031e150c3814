// A Tiled (TMJ) map with creatures for the NPC tests, written into a temp
// directory beside its tile data and kinds file and read back through the real
// loader, so the tests exercise the map's npc_spawn objects and the kinds file
// exactly as a host's own map would be read.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CAVE_TILE } from "../../ts/server/map/generate-caves.js";
import type { NpcKind } from "../../ts/server/content/npc-kinds.js";
import type { ItemDef } from "../../ts/server/content/item-catalogue.js";
import { readWorldMap } from "../../ts/server/server.js";
import type { WorldMap } from "../../ts/server/world/world.js";

export const NPC_FLOOR = 1;
export const NPC_WALL = 2;
/** With `doors`: a closed door tile (opensTo NPC_OPEN_DOOR) and its open twin. */
export const NPC_DOOR = 3;
export const NPC_OPEN_DOOR = 4;
const TILE_PX = 8;

export interface NpcSpawnObject {
  kind: string;
  x: number;
  y: number;
  width?: number;
  height?: number;
  count?: number;
  respawn?: number;
}

export interface NpcMapSpec {
  width: number;
  height: number;
  /** Tile id at (x, y); the default is a walled rectangle of floor. */
  tile?: (x: number, y: number) => number;
  /** The player spawn point. */
  spawn: { x: number; y: number };
  kinds: NpcKind[];
  spawns: NpcSpawnObject[];
  /** safe_zone rectangles (combat: no PvP inside). */
  safeZones?: { x: number; y: number; width: number; height: number }[];
  /** Named zone rectangles, for content scripts (on.enter / on.leave). */
  zones?: { name: string; x: number; y: number; width: number; height: number }[];
  /** The map's `pvp` property; absent when undefined. */
  pvp?: boolean;
  /** The item catalogue (written as `<map>.items.json`); none when absent. */
  items?: ItemDef[];
  /** Signs in the interactables layer, each with its text. */
  signs?: { name: string; x: number; y: number; text: string }[];
  /** Notice boards in the interactables layer. */
  boards?: { name: string; x: number; y: number }[];
  /** Chests in the interactables layer: `items` as a map writes it ("dagger, healing potion:3"). */
  chests?: { name: string; x: number; y: number; items: string }[];
  /**
   * Door objects (docs/maps.md § Doors) in an "interactables" layer; the map then also has the door
   * tiles NPC_DOOR / NPC_OPEN_DOOR. `properties` are the object's besides kind "door" (locked, key, …).
   */
  doors?: DoorObject[];
}

export interface DoorObject {
  x: number;
  y: number;
  name?: string;
  properties?: { name: string; type: string; value: string | number | boolean }[];
  /** An area instead of a point (a bad door, for the loader's errors). */
  area?: boolean;
}

export interface NpcMap {
  path: string;
  map: WorldMap;
  dispose(): void;
}

/** A walled rectangle of floor. */
export function walledRoom(width: number, height: number): (x: number, y: number) => number {
  return (x, y) => (x === 0 || y === 0 || x === width - 1 || y === height - 1 ? NPC_WALL : NPC_FLOOR);
}

/** A kind with test-friendly defaults: a wanderer of speed 50 (one step per window) that respawns in 1 s. */
export function testKind(fields: Partial<NpcKind> & Pick<NpcKind, "name" | "typeId">): NpcKind {
  return {
    behaviour: "wander",
    speed: 50,
    hp: 10,
    perception: 0,
    leash: 0,
    wander: 4,
    respawnSeconds: 1,
    sprite: "rat",
    attack: 0,
    armor: 0,
    elo: 1000,
    loot: [],
    ...fields,
  };
}

export function writeNpcMap(spec: NpcMapSpec): NpcMap {
  const dir = mkdtempSync(join(tmpdir(), "caves-npc-map-"));
  const tile = spec.tile ?? walledRoom(spec.width, spec.height);
  const data: number[] = [];
  for (let y = 0; y < spec.height; y++) for (let x = 0; x < spec.width; x++) data.push(tile(x, y));
  let nextId = 1;
  const spawnObjects = spec.spawns.map((spawn) => ({
    id: nextId++,
    name: `${spawn.kind} spawn`,
    type: "npc_spawn",
    x: spawn.x * TILE_PX,
    y: spawn.y * TILE_PX,
    width: (spawn.width ?? 1) * TILE_PX,
    height: (spawn.height ?? 1) * TILE_PX,
    rotation: 0,
    visible: true,
    properties: [
      { name: "kind", type: "string", value: spawn.kind },
      ...(spawn.count === undefined ? [] : [{ name: "count", type: "int", value: spawn.count }]),
      ...(spawn.respawn === undefined ? [] : [{ name: "respawn", type: "int", value: spawn.respawn }]),
    ],
  }));
  const tmj = {
    type: "map",
    version: "1.10",
    orientation: "orthogonal",
    renderorder: "right-down",
    infinite: false,
    width: spec.width,
    height: spec.height,
    tilewidth: TILE_PX,
    tileheight: TILE_PX,
    nextlayerid: 6,
    nextobjectid: nextId + 1,
    layers: [
      {
        id: 1,
        name: "ground",
        type: "tilelayer",
        x: 0,
        y: 0,
        width: spec.width,
        height: spec.height,
        opacity: 1,
        visible: true,
        data,
      },
      {
        id: 2,
        name: "spawns",
        type: "objectgroup",
        x: 0,
        y: 0,
        opacity: 1,
        visible: true,
        objects: [
          {
            id: nextId++,
            name: "spawn",
            type: "spawn",
            point: true,
            x: spec.spawn.x * TILE_PX + TILE_PX / 2,
            y: spec.spawn.y * TILE_PX + TILE_PX / 2,
            width: 0,
            height: 0,
            rotation: 0,
            visible: true,
          },
        ],
      },
      { id: 3, name: "npcs", type: "objectgroup", x: 0, y: 0, opacity: 1, visible: true, objects: spawnObjects },
      {
        id: 5,
        name: "interactables",
        type: "objectgroup",
        x: 0,
        y: 0,
        opacity: 1,
        visible: true,
        objects: [
          ...(spec.doors ?? []).map((door) => ({
            id: nextId++,
            name: door.name ?? "",
            type: "",
            point: door.area !== true,
            x: door.x * TILE_PX + (door.area === true ? 0 : TILE_PX / 2),
            y: door.y * TILE_PX + (door.area === true ? 0 : TILE_PX / 2),
            width: door.area === true ? TILE_PX : 0,
            height: door.area === true ? TILE_PX : 0,
            rotation: 0,
            visible: true,
            properties: [{ name: "kind", type: "string", value: "door" }, ...(door.properties ?? [])],
          })),
          ...(spec.chests ?? []).map((chest) =>
            pointObject(nextId++, chest, [
              { name: "kind", type: "string", value: "chest" },
              { name: "items", type: "string", value: chest.items },
            ]),
          ),
          ...(spec.boards ?? []).map((board) =>
            pointObject(nextId++, board, [{ name: "kind", type: "string", value: "notice_board" }]),
          ),
          ...(spec.signs ?? []).map((sign) =>
            pointObject(nextId++, sign, [
              { name: "kind", type: "string", value: "sign" },
              { name: "text", type: "string", value: sign.text },
            ]),
          ),
        ],
      },
      {
        id: 4,
        name: "zones",
        type: "objectgroup",
        x: 0,
        y: 0,
        opacity: 1,
        visible: true,
        objects: [
          ...(spec.safeZones ?? []).map((zone) => ({
            id: nextId++,
            name: "safe",
            type: "safe_zone",
            x: zone.x * TILE_PX,
            y: zone.y * TILE_PX,
            width: zone.width * TILE_PX,
            height: zone.height * TILE_PX,
            rotation: 0,
            visible: true,
          })),
          ...(spec.zones ?? []).map((zone) => ({
            id: nextId++,
            name: zone.name,
            type: "zone",
            x: zone.x * TILE_PX,
            y: zone.y * TILE_PX,
            width: zone.width * TILE_PX,
            height: zone.height * TILE_PX,
            rotation: 0,
            visible: true,
          })),
        ],
      },
    ],
    ...(spec.pvp === undefined ? {} : { properties: [{ name: "pvp", type: "bool", value: spec.pvp }] }),
    tilesets: [
      {
        firstgid: 1,
        name: "test",
        tilecount: spec.doors === undefined ? 2 : 4,
        columns: spec.doors === undefined ? 2 : 4,
        tilewidth: TILE_PX,
        tileheight: TILE_PX,
        margin: 0,
        spacing: 0,
        // The client's own sheet by name: the map is drawn with the built-in tiles by id (issue 16:
        // a map naming any other image gets its own art, drawn as placeholders when the image is absent).
        image: "tiles.tga",
        imagewidth: (spec.doors === undefined ? 2 : 4) * TILE_PX,
        imageheight: TILE_PX,
      },
    ],
  };
  const path = join(dir, "npcs.tmj");
  writeFileSync(path, JSON.stringify(tmj));
  writeFileSync(
    join(dir, "npcs.tiles.json"),
    JSON.stringify({
      version: 1,
      tiles: [
        { id: NPC_FLOOR, name: "floor" },
        { id: NPC_WALL, name: "wall", collides: true, opaque: true },
        ...(spec.doors === undefined
          ? []
          : [
              // Drawn with the client's door art (the bundled map's tiles 17 and 18).
              {
                id: NPC_DOOR,
                name: "door",
                collides: true,
                opaque: true,
                opensTo: NPC_OPEN_DOOR,
                look: CAVE_TILE.door,
              },
              { id: NPC_OPEN_DOOR, name: "open door", look: CAVE_TILE.openDoor },
            ]),
      ],
    }),
  );
  writeFileSync(join(dir, "npcs.npcs.json"), JSON.stringify({ version: 1, kinds: spec.kinds }));
  if (spec.items !== undefined) {
    // As a host writes it: only the number an item's kind carries.
    const items = spec.items.map(({ damage, armor, heal, ...item }) => ({
      ...item,
      ...(damage > 0 ? { damage } : {}),
      ...(armor > 0 ? { armor } : {}),
      ...(heal > 0 ? { heal } : {}),
    }));
    writeFileSync(join(dir, "npcs.items.json"), JSON.stringify({ version: 1, items }));
  }
  try {
    return { path, map: readWorldMap(path), dispose: () => rmSync(dir, { recursive: true, force: true }) };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

/** A Tiled point object at the centre of tile (x, y), with its properties. */
function pointObject(
  id: number,
  at: { name: string; x: number; y: number },
  properties: { name: string; type: string; value: string }[],
) {
  return {
    id,
    name: at.name,
    type: "",
    point: true,
    x: at.x * TILE_PX + TILE_PX / 2,
    y: at.y * TILE_PX + TILE_PX / 2,
    width: 0,
    height: 0,
    rotation: 0,
    visible: true,
    properties,
  };
}
