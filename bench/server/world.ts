// The server-scale workload's world, reproducible on any framework: a
// 1024×1024-tile map with 10 % walls at random (seeded), floor elsewhere, and
// 4096 spawn points on random floor cells, written as a Tiled JSON map
// (map.tmj) with its tile data (map.tiles.json, a copy of maps/caves.tiles.json,
// whose "floor" and "rock wall" tiles it uses) into a directory. Any server
// that reads Tiled maps can load the same file.
//
// With `npcs`, the same world also gets creatures (docs/benchmarks.md § NPCs):
// a kinds file beside the map (map.npcs.json: a wandering critter and a
// hostile, both deciding 3 times a second) and a third object layer of
// npc_spawn rectangles at seeded random places totalling that many NPCs. The
// tiles, the player spawns and their random stream are untouched, and without
// `npcs` the files are byte-identical to the world before NPCs existed.
//
// With `delve` (the levels suite, issue 15), the world gets a walled hall in its
// centre with stairs down to dungeon levels and the first spawn points, so the
// first bots to join stand in it (bench/server/bots.ts --hall): a closed room,
// so no wanderer outside ever steps onto its stairs. It draws with the built-in
// tile sheet (dungeon levels exist only in such a world) and carries the bundled
// creature kinds and item catalogue, so the levels come with their creatures and
// chests as in play. A different world from the one above: its rows compare only
// with each other.
//
// With `scripted` (the content suite, issue 38), `talkers` of the `npcs` are of a
// standing kind (TALKER_KIND, behaviour guard) spread evenly over the NPC areas —
// each area keeps its count, some of it talkers — and the map gets the bundled item
// catalogue and a content folder (map.content/*.lua, copied from
// bench/server/content/<scripts>/): "realistic" scripts answer a talk with a dialog,
// "hostile" ones burn their budget and memory cap; "none" writes no folder, so the
// talkers are creatures like any other (the row the others are compared with).
//
// With `social` (the social suite, issue 39), the world's first spawn points are `camps` camps of four
// (SOCIAL_CAMP): four cells two tiles apart — near enough for any two of them to trade (2 tiles) — each
// beside a chest of its own (1 tile, an item's reach, and at least 3 from the others' chests) that holds
// what its member trades with (CAMP_CHESTS). The camps stand on cleared floor at seeded random places
// (a stream of their own); the world then carries the bundled item catalogue. The bench's social bots
// (bench/server/bots.ts --social) join before the others, so they take these spawn points, and each finds its
// seat in a camp by the spawn point it was placed on.
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { mulberry32 } from "../lib/data.js";

export const WORLD_SIZE = 1024;
export const WALL_SHARE = 0.1;
export const SPAWN_COUNT = 4096;
export const WORLD_SEED = 20240601;
/** Seed of the NPC areas' places: a stream of its own, so the tiles and player spawns stay as they were. */
export const NPC_SEED = 20240602;
/** Each npc_spawn area is a square of this many tiles a side… */
export const NPC_AREA_TILES = 16;
/** …keeping this many NPCs alive (the last area takes the remainder). */
export const NPCS_PER_AREA = 10;
/** Every this-many-th area holds hostiles; the others critters. */
export const HOSTILE_AREA_EVERY = 5;
/** Tiled pixels per tile. */
const TILE_PX = 8;
/**
 * The bench creatures. Speed 25 is 25 energy per entity tick (12 Hz) against an action cost of
 * 100: a decision every 4 entity ticks, 3 a second, above the "at least twice a second".
 */
export const NPC_KINDS = [
  {
    name: "bench critter",
    typeId: 16,
    behaviour: "wander",
    speed: 25,
    hp: 8,
    perception: 0,
    leash: 0,
    wander: 6,
    respawnSeconds: 30,
    sprite: "rat",
    attack: 0,
    armor: 0,
    elo: 800,
  },
  {
    name: "bench hostile",
    typeId: 17,
    behaviour: "hostile",
    speed: 25,
    hp: 20,
    perception: 6,
    leash: 12,
    wander: 3,
    respawnSeconds: 60,
    sprite: "skeleton",
    attack: 3,
    armor: 1,
    elo: 1050,
  },
] as const;
const TILE_DATA = fileURLToPath(new URL("../../maps/caves.tiles.json", import.meta.url));
const CAVES_NPCS = fileURLToPath(new URL("../../maps/caves.npcs.json", import.meta.url));
const CAVES_ITEMS = fileURLToPath(new URL("../../maps/caves.items.json", import.meta.url));
/** The content suite's scripts: one folder per set, each copied whole beside a scripted world's map. */
const CONTENT_SCRIPTS = fileURLToPath(new URL("./content/", import.meta.url));

/**
 * The creature the content scripts talk for: it stands at its post (a guard decides nothing until provoked),
 * so a talker stays where the bots found it.
 */
export const TALKER_KIND = {
  name: "bench talker",
  typeId: 18,
  behaviour: "guard",
  speed: 25,
  hp: 30,
  perception: 2,
  leash: 4,
  wander: 0,
  respawnSeconds: 60,
  sprite: "guard",
  attack: 2,
  armor: 1,
  elo: 1000,
} as const;

/** Which content scripts a scripted world carries: bench/server/content/<name>/, or none. */
export const CONTENT_SCRIPT_SETS = ["none", "realistic", "hostile"] as const;
export type ContentScriptSet = (typeof CONTENT_SCRIPT_SETS)[number];

/** Seed of the social camps' places: a stream of its own. */
export const SOCIAL_SEED = 20240603;
/**
 * A social camp, from its corner: where its four members stand (in join order) and where each one's chest
 * stands (member i's chest is chests[i]; Chebyshev 1 from it, 2 or more from every other member).
 */
export const SOCIAL_CAMP = {
  members: [
    { x: 1, y: 1 },
    { x: 3, y: 1 },
    { x: 1, y: 3 },
    { x: 3, y: 3 },
  ],
  chests: [
    { x: 0, y: 1 },
    { x: 4, y: 1 },
    { x: 0, y: 3 },
    { x: 4, y: 3 },
  ],
  /** The cleared square: the camp's 5 × 5 and a ring of floor around it. */
  clearFrom: -1,
  clearTo: 5,
} as const;
/** What each member's chest holds (the map's `items` property): members 0 and 2 coins, 1 and 3 potions. */
export const CAMP_CHESTS = ["gold coin:50", "healing potion:10", "gold coin:50", "healing potion:10"] as const;

/** The delve world's hall: interior HALL_TILES × HALL_TILES at (HALL_X, HALL_Y), inside a ring of wall. */
export const HALL_TILES = 40;
export const HALL_X = (WORLD_SIZE - HALL_TILES) >> 1;
export const HALL_Y = HALL_X;
/** Its stairs down: a 4 × 4 grid, more than the server's level slots (4), so levels keep being dropped and made. */
export const HALL_STAIRS: readonly { x: number; y: number }[] = [5, 15, 25, 35].flatMap((dy) =>
  [5, 15, 25, 35].map((dx) => ({ x: HALL_X + dx, y: HALL_Y + dy })),
);
/**
 * Its spawn points, the world's first: 8, clear of the stairs, one per hall bot — the server hands out spawn
 * points in order, so the next bot to join (a wanderer) gets the first spawn point outside. Eight delvers
 * over four level slots: more would keep every slot held by a level someone is in (stairs refused, nothing
 * made), fewer would ask for levels less often.
 */
export const HALL_SPAWNS: readonly { x: number; y: number }[] = [2, 22].flatMap((dy) =>
  [2, 12, 22, 32].map((dx) => ({ x: HALL_X + dx, y: HALL_Y + dy })),
);

/** Whether (x, y) lies in the hall or its wall ring. */
function inHall(x: number, y: number): boolean {
  return x >= HALL_X - 1 && y >= HALL_Y - 1 && x <= HALL_X + HALL_TILES && y <= HALL_Y + HALL_TILES;
}

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

export interface WorldOptions {
  /** NPCs to spread over the map (0 or absent: none, no kinds file, the original bytes). */
  npcs?: number;
  /** The hall with stairs down to dungeon levels (the levels suite); absent: the original bytes. */
  delve?: boolean;
  /** `talkers` of the `npcs` are TALKER_KIND, and the map carries `scripts` (the content suite); absent: the original bytes. */
  scripted?: { talkers: number; scripts: ContentScriptSet };
  /** The first 4 × `camps` spawn points in camps of four with a chest each (the social suite); absent: the original bytes. */
  social?: { camps: number };
}

/** The corners of `camps` social camps: seeded random places, apart from each other, inside the map. */
export function socialCampCorners(camps: number): { x: number; y: number }[] {
  const random = mulberry32(SOCIAL_SEED);
  const span = SOCIAL_CAMP.clearTo - SOCIAL_CAMP.clearFrom + 1;
  const corners: { x: number; y: number }[] = [];
  while (corners.length < camps) {
    const x = 2 + Math.floor(random() * (WORLD_SIZE - span - 4));
    const y = 2 + Math.floor(random() * (WORLD_SIZE - span - 4));
    // Camps at least a clearing apart, so no member reaches another camp's chest or player.
    if (corners.some((other) => Math.abs(other.x - x) < span + 3 && Math.abs(other.y - y) < span + 3)) continue;
    corners.push({ x, y });
  }
  return corners;
}

/** A Tiled point object at the centre of tile (x, y). */
function pointObject(id: number, type: string, x: number, y: number, properties?: object[]): object {
  return {
    id,
    name: "",
    type,
    x: x * TILE_PX + TILE_PX / 2,
    y: y * TILE_PX + TILE_PX / 2,
    width: 0,
    height: 0,
    rotation: 0,
    visible: true,
    point: true,
    ...(properties ? { properties } : {}),
  };
}

/**
 * The npc_spawn rectangles for `total` NPCs: NPC_AREA_TILES squares at seeded random places, ids from `firstId`.
 * With `talkers`, each area keeps its count but gives an even share of `talkers` of it to a second spawn of
 * TALKER_KIND over the same square (after the area's own, so without talkers the objects are as before).
 */
function npcSpawnObjects(total: number, firstId: number, talkers = 0): object[] {
  if (talkers > total) throw new Error(`${talkers} talkers among ${total} NPCs`);
  const random = mulberry32(NPC_SEED);
  const areas = Math.ceil(total / NPCS_PER_AREA);
  const objects: object[] = [];
  const spawn = (x: number, y: number, kind: string, count: number) =>
    objects.push({
      id: firstId + objects.length,
      name: "",
      type: "npc_spawn",
      x: x * TILE_PX,
      y: y * TILE_PX,
      width: NPC_AREA_TILES * TILE_PX,
      height: NPC_AREA_TILES * TILE_PX,
      rotation: 0,
      visible: true,
      properties: [
        { name: "kind", type: "string", value: kind },
        { name: "count", type: "int", value: count },
      ],
    });
  for (let index = 0, placed = 0; placed < total; index++, placed += NPCS_PER_AREA) {
    const x = Math.floor(random() * (WORLD_SIZE - NPC_AREA_TILES + 1));
    const y = Math.floor(random() * (WORLD_SIZE - NPC_AREA_TILES + 1));
    const kind = NPC_KINDS[index % HOSTILE_AREA_EVERY === HOSTILE_AREA_EVERY - 1 ? 1 : 0];
    const count = Math.min(NPCS_PER_AREA, total - placed);
    const talkersHere = Math.min(
      count,
      Math.floor((talkers * (index + 1)) / areas) - Math.floor((talkers * index) / areas),
    );
    if (count > talkersHere) spawn(x, y, kind.name, count - talkersHere);
    if (talkersHere > 0) spawn(x, y, TALKER_KIND.name, talkersHere);
  }
  return objects;
}

/** Writes map.tmj + map.tiles.json (and map.npcs.json with `npcs`, the content files with `scripted`) into `dir`; returns the map path. */
export function writeWorld(dir: string, options: WorldOptions = {}): string {
  mkdirSync(dir, { recursive: true });
  const FLOOR = tileId("floor", false);
  const WALL = tileId("rock wall", true);
  const random = mulberry32(WORLD_SEED);
  const data = new Array<number>(WORLD_SIZE * WORLD_SIZE);
  for (let i = 0; i < data.length; i++) data[i] = random() < WALL_SHARE ? WALL : FLOOR;
  const delve = options.delve === true;
  const objects: object[] = [];
  if (delve) {
    for (let y = HALL_Y - 1; y <= HALL_Y + HALL_TILES; y++) {
      for (let x = HALL_X - 1; x <= HALL_X + HALL_TILES; x++) {
        const ring = x < HALL_X || y < HALL_Y || x >= HALL_X + HALL_TILES || y >= HALL_Y + HALL_TILES;
        data[y * WORLD_SIZE + x] = ring ? WALL : FLOOR;
      }
    }
    for (const spawn of HALL_SPAWNS) objects.push(pointObject(objects.length + 1, "spawn", spawn.x, spawn.y));
  }
  const camps = options.social ? socialCampCorners(options.social.camps) : [];
  for (const corner of camps) {
    for (let dy = SOCIAL_CAMP.clearFrom; dy <= SOCIAL_CAMP.clearTo; dy++)
      for (let dx = SOCIAL_CAMP.clearFrom; dx <= SOCIAL_CAMP.clearTo; dx++)
        data[(corner.y + dy) * WORLD_SIZE + corner.x + dx] = FLOOR;
    for (const member of SOCIAL_CAMP.members)
      objects.push(pointObject(objects.length + 1, "spawn", corner.x + member.x, corner.y + member.y));
  }
  const spawnsEnd = objects.length + SPAWN_COUNT;
  while (objects.length < spawnsEnd) {
    const x = Math.floor(random() * WORLD_SIZE);
    const y = Math.floor(random() * WORLD_SIZE);
    if (data[y * WORLD_SIZE + x] !== FLOOR) continue;
    if (delve && inHall(x, y)) continue;
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
  const npcs = options.npcs ?? 0;
  const scripted = options.scripted;
  const npcObjects = npcs > 0 ? npcSpawnObjects(npcs, objects.length + 1, scripted?.talkers ?? 0) : [];
  const stairsObjects = delve
    ? HALL_STAIRS.map((stairs, index) =>
        pointObject(objects.length + npcObjects.length + index + 1, "stairs", stairs.x, stairs.y, [
          { name: "direction", type: "string", value: "down" },
        ]),
      )
    : [];
  const npcLayers =
    npcs > 0
      ? [
          {
            id: 3,
            type: "objectgroup",
            name: "npcs",
            x: 0,
            y: 0,
            opacity: 1,
            visible: true,
            draworder: "topdown",
            objects: npcObjects,
          },
        ]
      : [];
  const warpLayers = delve
    ? [
        {
          id: 3 + npcLayers.length,
          type: "objectgroup",
          name: "warps",
          x: 0,
          y: 0,
          opacity: 1,
          visible: true,
          draworder: "topdown",
          objects: stairsObjects,
        },
      ]
    : [];
  const chestFirstId = objects.length + npcObjects.length + stairsObjects.length + 1;
  const chestObjects = camps.flatMap((corner, camp) =>
    SOCIAL_CAMP.chests.map((chest, member) =>
      pointObject(
        chestFirstId + camp * SOCIAL_CAMP.chests.length + member,
        "",
        corner.x + chest.x,
        corner.y + chest.y,
        [
          { name: "items", type: "string", value: CAMP_CHESTS[member] },
          { name: "kind", type: "string", value: "chest" },
        ],
      ),
    ),
  );
  const chestLayers =
    chestObjects.length > 0
      ? [
          {
            id: 3 + npcLayers.length + warpLayers.length,
            type: "objectgroup",
            name: "interactables",
            x: 0,
            y: 0,
            opacity: 1,
            visible: true,
            draworder: "topdown",
            objects: chestObjects,
          },
        ]
      : [];
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
    nextlayerid: 3 + npcLayers.length + warpLayers.length + chestLayers.length,
    nextobjectid: chestFirstId + chestObjects.length,
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
        // The delve world draws with the built-in sheet (its file name is what says so): levels need it.
        image: delve ? "tiles.tga" : "tiles.png",
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
      ...npcLayers,
      ...warpLayers,
      ...chestLayers,
    ],
  };
  const mapPath = join(dir, "map.tmj");
  writeFileSync(mapPath, JSON.stringify(map));
  copyFileSync(TILE_DATA, join(dir, "map.tiles.json"));
  if (npcs > 0) {
    const kinds = scripted ? [...NPC_KINDS, TALKER_KIND] : NPC_KINDS;
    writeFileSync(join(dir, "map.npcs.json"), JSON.stringify({ version: 1, kinds }, null, 1));
  }
  if (scripted) {
    // "gold coin" and the rest of the bundled catalogue: what the realistic scripts count and pay.
    copyFileSync(CAVES_ITEMS, join(dir, "map.items.json"));
    if (scripted.scripts !== "none") {
      const from = join(CONTENT_SCRIPTS, scripted.scripts);
      const to = join(dir, "map.content");
      mkdirSync(to, { recursive: true });
      for (const name of readdirSync(from).filter((file) => file.endsWith(".lua"))) {
        copyFileSync(join(from, name), join(to, name));
      }
    }
  }
  // What the camps' chests hold, by name (the bundled catalogue).
  if (camps.length > 0) copyFileSync(CAVES_ITEMS, join(dir, "map.items.json"));
  if (delve) {
    // What the dungeon levels' creature spawns and chests name (the bundled world's kinds and catalogue).
    if (npcs === 0) copyFileSync(CAVES_NPCS, join(dir, "map.npcs.json"));
    copyFileSync(CAVES_ITEMS, join(dir, "map.items.json"));
  }
  return mapPath;
}
