// Writes the generated caves as a Tiled JSON map (TMJ) and its tile data file.
// The TMJ stays editable in Tiled (any version that reads TMJ): one tile layer, an object
// layer "spawns", an object layer "interactables" (sign, board, doors, chests), an object layer "npcs" of
// npc_spawn areas (their kinds: caves.npcs.json), and a tileset whose
// tiles carry their collides/opaque properties.
//
// The tileset is a plain image tileset on tiles-tiled.png, the client's sheet
// one cell earlier: the client's atlas keeps tile id i at atlas index i (index 0
// unused), while Tiled numbers a plain image tileset's tiles from the top-left
// slot, so with firstgid 1 GID i shows that sheet's slot i - 1 — the client's i.
import { CAVE_TILE_DATA, type GeneratedCaves } from "./generate-caves.js";
import { caveChests } from "./caves-items.js";
import { objectLayer, TiledObjects, tiledMapText } from "./tiled-objects.js";

const TILE_SIZE_PX = 8;
const ATLAS_COLUMNS = 16;
/** The Tiled copy of the client's tile sheet (written by scripts/make-art.ts), relative to maps/; the server never opens it. */
const TILESET_IMAGE = "../ts/client/assets/tiles-tiled.png";

/** The map as TMJ text: deterministic, one row of tile data per line so diffs stay readable. */
export function cavesTmj(caves: GeneratedCaves): string {
  const objects = new TiledObjects();
  const point = objects.point.bind(objects);
  const spawns = caves.spawns.map((spawn, index) => point(`spawn ${index + 1}`, "spawn", spawn.x, spawn.y));
  const interactables = [
    point("welcome sign", "", caves.sign.x, caves.sign.y, [
      { name: "kind", type: "string", value: "sign" },
      { name: "text", type: "string", value: caves.sign.text },
    ]),
    point("notice board", "", caves.noticeBoard.x, caves.noticeBoard.y, [
      { name: "kind", type: "string", value: "notice_board" },
    ]),
    // Doors (docs/maps.md § Doors): the cell's tile says open or closed; a locked one names its key.
    ...caves.doors.map((door) =>
      point(door.name, "", door.x, door.y, [
        { name: "kind", type: "string", value: "door" },
        ...(door.key === null
          ? []
          : [
              { name: "key", type: "string" as const, value: door.key },
              { name: "locked", type: "bool" as const, value: true },
            ]),
      ]),
    ),
  ];
  const area = objects.area.bind(objects);
  const npcSpawns = caves.npcSpawns.map((spawn) =>
    area(spawn.name, "npc_spawn", spawn.x, spawn.y, spawn.width, spawn.height, [
      { name: "count", type: "int", value: spawn.count },
      { name: "kind", type: "string", value: spawn.kind },
    ]),
  );
  // The great hall is always safe: no PvP where players arrive (content/safe-zones.ts).
  const hall = caves.greatHall;
  const zones = [area("great hall", "safe_zone", hall.x, hall.y, hall.width, hall.height, [])];
  // Chests last, so adding them kept every earlier object's id (a chest's contents are stored by its id).
  for (const chest of caveChests(caves)) {
    interactables.push(
      point(chest.name, "", chest.x, chest.y, [
        { name: "items", type: "string", value: chest.items },
        { name: "kind", type: "string", value: "chest" },
      ]),
    );
  }
  const stairs = caves.stairs.map((each, index) =>
    point(`stairs down ${index + 1}`, "stairs", each.x, each.y, [{ name: "direction", type: "string", value: "down" }]),
  );
  // The people of the great hall after every other object, so those kept their ids (issue 38).
  const people = caves.people.map((spawn) =>
    area(spawn.name, "npc_spawn", spawn.x, spawn.y, spawn.width, spawn.height, [
      { name: "count", type: "int", value: spawn.count },
      { name: "kind", type: "string", value: spawn.kind },
    ]),
  );
  // The great hall as a zone the content scripts watch (its guard warns who leaves it unarmed), last of all.
  zones.push(area("great hall", "zone", hall.x, hall.y, hall.width, hall.height, []));
  return tiledMapText({
    width: caves.width,
    height: caves.height,
    tiles: caves.tiles,
    objectLayers: [
      objectLayer(2, "spawns", spawns),
      objectLayer(3, "interactables", interactables),
      objectLayer(4, "npcs", [...npcSpawns, ...people]),
      objectLayer(5, "zones", zones),
      objectLayer(6, "warps", stairs),
    ],
    nextObjectId: objects.nextObjectId,
    properties: [
      { name: "generator", type: "string", value: "scripts/make-map.ts (ts/server/map/generate-caves.ts)" },
      { name: "name", type: "string", value: "Forgotten Caves" },
      { name: "seed", type: "int", value: caves.seed },
    ],
    tileset: cavesTileset(TILESET_IMAGE),
  });
}

/**
 * The bundled tiles as a Tiled tileset: a plain image tileset on the Tiled copy of the client's sheet at
 * `image` (relative to the map file; scripts/make-art.ts writes it one cell earlier than the game's, so
 * local id i − 1 — GID i — shows world tile i), each tile carrying its collides/opaque/name properties.
 * Any Tiled opens it (an image collection of sub-rectangles needs Tiled 1.9). Generated dungeon levels
 * (ts/server/dungeon/) use it too.
 */
export function cavesTileset(image: string): Record<string, unknown> {
  const atlasRows = Math.ceil((CAVE_TILE_DATA.length + 1) / ATLAS_COLUMNS);
  return {
    columns: ATLAS_COLUMNS,
    firstgid: 1,
    image,
    imageheight: atlasRows * TILE_SIZE_PX,
    imagewidth: ATLAS_COLUMNS * TILE_SIZE_PX,
    margin: 0,
    name: "caves",
    spacing: 0,
    tilecount: atlasRows * ATLAS_COLUMNS,
    tileheight: TILE_SIZE_PX,
    tilewidth: TILE_SIZE_PX,
    tiles: CAVE_TILE_DATA.map((tile) => ({
      id: tile.id - 1,
      properties: [
        { name: "collides", type: "bool", value: tile.collides },
        { name: "name", type: "string", value: tile.name },
        { name: "opaque", type: "bool", value: tile.opaque },
        ...(tile.opensTo === undefined ? [] : [{ name: "opensTo", type: "int" as const, value: tile.opensTo }]),
        ...(tile.light === undefined ? [] : [{ name: "light", type: "int" as const, value: tile.light }]),
      ],
    })),
  };
}

/** caves.tiles.json: the tile data of the bundled map, one tile per line. */
export function cavesTileDataJson(): string {
  const lines = CAVE_TILE_DATA.map((tile) => "  " + JSON.stringify({ ...tile, look: tile.id }));
  return `{\n "version": 1,\n "tiles": [\n${lines.join(",\n")}\n ]\n}\n`;
}
