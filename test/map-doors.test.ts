// Doors in a map (docs/maps.md § Doors) through the real loader: door objects
// in the "interactables" layer on door tiles, read into DoorSpecs, and every
// bad door refused with a MapError that names the object and the problem.
import { describe, expect, it } from "vitest";
import { doorTilePairs } from "../ts/server/map/map-doors.js";
import { MapError } from "../ts/server/content/map-error.js";
import { parseTileDataFile, type TileData } from "../ts/server/map/tile-data.js";
import { type DoorObject, NPC_DOOR, NPC_FLOOR, NPC_OPEN_DOOR, NPC_WALL, writeNpcMap } from "./support/npc-map.js";

const WIDTH = 12;
const HEIGHT = 8;

/** A walled room with a closed door tile at (4, 2) and an open one at (6, 2); `doors` are the objects. */
function roomWith(doors: DoorObject[]) {
  return writeNpcMap({
    width: WIDTH,
    height: HEIGHT,
    tile: (x, y) => {
      if (x === 0 || y === 0 || x === WIDTH - 1 || y === HEIGHT - 1) return NPC_WALL;
      if (x === 4 && y === 2) return NPC_DOOR;
      if (x === 6 && y === 2) return NPC_OPEN_DOOR;
      return NPC_FLOOR;
    },
    spawn: { x: 2, y: 5 },
    kinds: [],
    spawns: [],
    doors,
  });
}

const LOCKED = { name: "locked", type: "bool", value: true };
const KEY = { name: "key", type: "string", value: "rusty key" };

function refusal(doors: DoorObject[]): string {
  try {
    roomWith(doors).dispose();
  } catch (error) {
    expect(error).toBeInstanceOf(MapError);
    return (error as Error).message;
  }
  throw new Error("the map loaded");
}

describe("doors in a map", () => {
  it("are read with their tiles, state, lock and key, and are not signs", () => {
    const map = roomWith([
      { x: 4, y: 2, name: "vault", properties: [LOCKED, KEY] },
      { x: 6, y: 2 },
    ]);
    try {
      expect(map.map.doors).toEqual([
        {
          id: expect.any(Number),
          name: "vault",
          x: 4,
          y: 2,
          closedTile: NPC_DOOR,
          openTile: NPC_OPEN_DOOR,
          open: false,
          locked: true,
          key: "rusty key",
        },
        {
          id: expect.any(Number),
          name: "",
          x: 6,
          y: 2,
          closedTile: NPC_DOOR,
          openTile: NPC_OPEN_DOOR,
          open: true,
          locked: false,
          key: null,
        },
      ]);
      expect(map.map.interactables).toEqual([]);
    } finally {
      map.dispose();
    }
  });

  it.each([
    [
      "on a tile that is no door",
      [{ x: 3, y: 3 }],
      /door object \d+ at \(3, 3\) stands on tile 1, which is no door tile/,
    ],
    ["locked without a key", [{ x: 4, y: 2, properties: [LOCKED] }], /is locked but names no "key"/],
    ["a key without the lock", [{ x: 4, y: 2, properties: [KEY] }], /names a "key" but is not locked/],
    [
      "locked on the open tile",
      [{ x: 6, y: 2, properties: [LOCKED, KEY] }],
      /is locked but its cell \(6, 2\) shows the open door tile/,
    ],
    [
      "locked as a string",
      [{ x: 4, y: 2, properties: [{ name: "locked", type: "string", value: "yes" }, KEY] }],
      /"locked" must be a bool, got "yes"/,
    ],
    [
      "an empty key",
      [{ x: 4, y: 2, properties: [LOCKED, { name: "key", type: "string", value: " " }] }],
      /"key" must be an item name/,
    ],
    [
      "an unknown property",
      [{ x: 4, y: 2, properties: [{ name: "open", type: "bool", value: true }] }],
      /unknown property "open"/,
    ],
    [
      "two on one cell",
      [
        { x: 4, y: 2 },
        { x: 4, y: 2 },
      ],
      /another door stands on \(4, 2\)/,
    ],
    ["an area, not a point", [{ x: 4, y: 2, area: true }], /must be a point object/],
    ["a name too long for the wire", [{ x: 4, y: 2, name: "d".repeat(80) }], /the name is at most \d+ bytes/],
  ])("are refused with a clear message: %s", (_, doors, message) => {
    expect(refusal(doors as DoorObject[])).toMatch(message);
  });
});

describe("door tiles in the tile data", () => {
  const tiles = (entries: object[]): TileData =>
    new Map(
      parseTileDataFile(JSON.stringify({ version: 1, tiles: entries }), "t.tiles.json").map((entry) => [
        entry.id,
        { collides: false, opaque: false, look: entry.id, ...entry },
      ]),
    );

  it("pair each closed door tile with the tile it opens to", () => {
    const pairs = doorTilePairs(tiles([{ id: 3, collides: true, opensTo: 4 }, { id: 4 }]), "t.tiles.json");
    expect([...pairs]).toEqual([[3, 4]]);
  });

  it.each([
    ["opensTo not a number", [{ id: 3, opensTo: "4" }], /tiles\[0\]\.opensTo: expected an integer/],
    ["opensTo its own id", [{ id: 3, collides: true, opensTo: 3 }], /a door cannot open to its own tile 3/],
  ])("are refused when read: %s", (_, entries, message) => {
    expect(() => tiles(entries)).toThrow(message);
  });

  it.each([
    ["opening to no tile", [{ id: 3, collides: true, opensTo: 9 }], /tile 3: opensTo 9 is no tile/],
    ["a closed tile that does not collide", [{ id: 3, opensTo: 4 }, { id: 4 }], /a closed door tile must collide/],
    [
      "an open tile that collides",
      [
        { id: 3, collides: true, opensTo: 4 },
        { id: 4, collides: true },
      ],
      /opensTo 4 collides/,
    ],
    [
      "an open tile that is itself a door",
      [{ id: 3, collides: true, opensTo: 4 }, { id: 4, opensTo: 5 }, { id: 5 }],
      /opensTo 4 is itself a closed door tile/,
    ],
    [
      "two closed tiles opening to one",
      [{ id: 3, collides: true, opensTo: 5 }, { id: 4, collides: true, opensTo: 5 }, { id: 5 }],
      /opensTo 5, which tile 3 opens to already/,
    ],
  ])("are refused when paired: %s", (_, entries, message) => {
    expect(() => doorTilePairs(tiles(entries), "t.tiles.json")).toThrow(message);
  });
});
