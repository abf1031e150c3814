// The chaos run's world (docs/scaling.md § The chaos run): a walled hall cut in two by the regions' border,
// with chests full of gold and gear on both sides and no creatures, no shop and no scripts — so nothing
// but the map's chests ever creates an item and nothing consumes one (the bots never use what they
// carry), and the world's total of every item must equal what the chests held at its first start.
// Two stairs lead down to dungeon levels, one held by each region (cluster-levels.ts); one of them lies on
// region 1's first column, so a player of region 0 stepping on it is pulled across the border. The levels
// below have neither creatures (the world has no kinds file) nor chests: the generator fills its chests
// with "gold coin" and "healing potion", names this world's catalogue does not have (its items are
// "coin" and "potion"), so a level's chests are refused whole and create nothing either.
// Written as a Tiled map with its tile data and item catalogue, beside a two-region layout.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CHUNK_SIZE } from "../../constants.js";

const TILE_PX = 8;
const FLOOR = 1;
const WALL = 2;
/** Three chunks by two: region 0 owns the first chunk column (x 0…31), region 1 the rest. */
export const CHAOS_WIDTH = 3 * CHUNK_SIZE;
export const CHAOS_HEIGHT = 2 * CHUNK_SIZE;
/** The first tile column of region 1. */
export const CHAOS_BORDER_X = CHUNK_SIZE;
/** On region 1's ground, near the border: every bot starts beside it. */
export const CHAOS_SPAWN = { x: CHAOS_BORDER_X + 3, y: CHUNK_SIZE };

export const CHAOS_ITEMS = [
  { id: 1, name: "dagger", kind: "weapon", stack: 1, sprite: "dagger", damage: 9 },
  { id: 2, name: "leather armor", kind: "armor", stack: 1, sprite: "leather", armor: 3 },
  { id: 3, name: "potion", kind: "consumable", stack: 10, sprite: "potion", heal: 30 },
  { id: 4, name: "coin", kind: "treasure", stack: 999, sprite: "coin" },
] as const;

/**
 * The stairs down: region 1's on its first column (a player of region 0 may stand on it within the handoff
 * margin, and is pulled to region 1, which holds the level), region 0's well inside its ground.
 */
export const CHAOS_STAIRS: readonly { readonly x: number; readonly y: number }[] = [
  { x: CHAOS_BORDER_X, y: CHUNK_SIZE - 14 },
  { x: CHAOS_BORDER_X - 12, y: CHUNK_SIZE + 14 },
];

/** Whether (x, y) is on the map: a player elsewhere stands in a dungeon level (the level slots lie beyond it). */
export function onChaosMap(x: number, y: number): boolean {
  return x >= 0 && y >= 0 && x < CHAOS_WIDTH && y < CHAOS_HEIGHT;
}

export interface ChaosChest {
  readonly name: string;
  readonly x: number;
  readonly y: number;
  /** What it holds at the world's first start: [item id, count]. */
  readonly items: readonly (readonly [number, number])[];
}

/** Two chests on each side of the border, a few steps from it. */
export const CHAOS_CHESTS: readonly ChaosChest[] = [
  {
    name: "west chest north",
    x: CHAOS_BORDER_X - 6,
    y: CHUNK_SIZE - 8,
    items: [
      [4, 300],
      [1, 2],
      [3, 4],
    ],
  },
  {
    name: "west chest south",
    x: CHAOS_BORDER_X - 6,
    y: CHUNK_SIZE + 8,
    items: [
      [4, 300],
      [2, 2],
      [3, 4],
    ],
  },
  {
    name: "east chest north",
    x: CHAOS_BORDER_X + 8,
    y: CHUNK_SIZE - 8,
    items: [
      [4, 300],
      [1, 2],
      [2, 1],
    ],
  },
  {
    name: "east chest south",
    x: CHAOS_BORDER_X + 8,
    y: CHUNK_SIZE + 8,
    items: [
      [4, 300],
      [3, 6],
    ],
  },
];

/** What the world created: the chests' contents at its first start, by item id. */
export function createdItems(chests: readonly ChaosChest[] = CHAOS_CHESTS): Map<number, number> {
  const created = new Map<number, number>();
  for (const chest of chests) for (const [id, count] of chest.items) created.set(id, (created.get(id) ?? 0) + count);
  return created;
}

export interface ChaosWorld {
  readonly mapPath: string;
  readonly layoutPath: string;
  dispose(): void;
}

/** A Tiled point object at the centre of tile (x, y). */
function pointObject(id: number, name: string, x: number, y: number, properties: object[]) {
  const centre = { x: x * TILE_PX + TILE_PX / 2, y: y * TILE_PX + TILE_PX / 2 };
  return { id, name, type: "", point: true, ...centre, width: 0, height: 0, rotation: 0, visible: true, properties };
}

/** Writes the world into a temporary directory (removed by dispose). */
export function writeChaosWorld(): ChaosWorld {
  const dir = mkdtempSync(join(tmpdir(), "caves-chaos-"));
  const data: number[] = [];
  for (let y = 0; y < CHAOS_HEIGHT; y++) {
    for (let x = 0; x < CHAOS_WIDTH; x++) {
      data.push(x === 0 || y === 0 || x === CHAOS_WIDTH - 1 || y === CHAOS_HEIGHT - 1 ? WALL : FLOOR);
    }
  }
  const itemName = new Map<number, string>(CHAOS_ITEMS.map((item) => [item.id, item.name]));
  let nextId = 1;
  const layer = (id: number, name: string, objects: object[]) => ({
    id,
    name,
    type: "objectgroup",
    x: 0,
    y: 0,
    opacity: 1,
    visible: true,
    objects,
  });
  const tmj = {
    type: "map",
    version: "1.10",
    orientation: "orthogonal",
    renderorder: "right-down",
    infinite: false,
    width: CHAOS_WIDTH,
    height: CHAOS_HEIGHT,
    tilewidth: TILE_PX,
    tileheight: TILE_PX,
    nextlayerid: 5,
    nextobjectid: 100,
    properties: [{ name: "pvp", type: "bool", value: true }],
    layers: [
      {
        id: 1,
        name: "ground",
        type: "tilelayer",
        x: 0,
        y: 0,
        width: CHAOS_WIDTH,
        height: CHAOS_HEIGHT,
        opacity: 1,
        visible: true,
        data,
      },
      layer(2, "spawns", [{ ...pointObject(nextId++, "spawn", CHAOS_SPAWN.x, CHAOS_SPAWN.y, []), type: "spawn" }]),
      layer(
        3,
        "interactables",
        CHAOS_CHESTS.map((chest) =>
          pointObject(nextId++, chest.name, chest.x, chest.y, [
            { name: "kind", type: "string", value: "chest" },
            {
              name: "items",
              type: "string",
              value: chest.items.map(([id, count]) => `${itemName.get(id)!}:${count}`).join(", "),
            },
          ]),
        ),
      ),
      layer(
        4,
        "warps",
        CHAOS_STAIRS.map((stairs, index) => ({
          ...pointObject(nextId++, `stairs down ${index + 1}`, stairs.x, stairs.y, [
            { name: "direction", type: "string", value: "down" },
          ]),
          type: "stairs",
        })),
      ),
    ],
    tilesets: [
      {
        firstgid: 1,
        name: "chaos",
        tilecount: 2,
        columns: 2,
        tilewidth: TILE_PX,
        tileheight: TILE_PX,
        margin: 0,
        spacing: 0,
        // The client's own sheet by name: drawn with the built-in tiles by id.
        image: "tiles.tga",
        imagewidth: 2 * TILE_PX,
        imageheight: TILE_PX,
      },
    ],
  };
  const mapPath = join(dir, "chaos.tmj");
  writeFileSync(mapPath, JSON.stringify(tmj));
  writeFileSync(
    join(dir, "chaos.tiles.json"),
    JSON.stringify({
      version: 1,
      tiles: [
        { id: FLOOR, name: "floor" },
        { id: WALL, name: "wall", collides: true, opaque: true },
      ],
    }),
  );
  writeFileSync(join(dir, "chaos.items.json"), JSON.stringify({ version: 1, items: CHAOS_ITEMS }));
  const layoutPath = join(dir, "layout.json");
  writeFileSync(
    layoutPath,
    JSON.stringify({
      regions: [
        { region: 0, chunks: [0, 0, 1, 2] },
        { region: 1, chunks: [1, 0, 3, 2] },
      ],
    }),
  );
  return { mapPath, layoutPath, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}
