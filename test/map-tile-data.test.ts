// The tile data file (<map>.tiles.json): strict validation with the field in
// every message, the merge over Tiled properties (file wins, field by field),
// and the flags / look tables built from it.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { TILE_BORDER, TILE_FLAG_COLLIDES, TILE_FLAG_OPAQUE, TILE_UNKNOWN } from "../ts/constants.js";
import {
  LOOK_NONE,
  loadMap,
  MapError,
  parseTileDataFile,
  tileDataPathFor,
  tileFlagsTable,
  tileLookTable,
  type TileData,
} from "../ts/server/map/load-map.js";

const FILE = "/maps/x.tiles.json";

function reasonOf(text: string): string {
  try {
    parseTileDataFile(text, FILE);
  } catch (error) {
    expect(error).toBeInstanceOf(MapError);
    expect((error as MapError).file).toBe(FILE);
    return (error as MapError).reason;
  }
  throw new Error("expected a MapError");
}
const withTiles = (tiles: unknown[]): string => JSON.stringify({ version: 1, tiles });

describe("tile data file validation", () => {
  it("accepts a valid file, keeping only the fields given", () => {
    const entries = parseTileDataFile(
      withTiles([
        { id: 5, name: "rock wall", collides: true, opaque: true, look: 5 },
        { id: 7 },
        { id: 0, collides: false },
      ]),
      FILE,
    );
    expect(entries).toEqual([
      { id: 5, name: "rock wall", collides: true, opaque: true, look: 5 },
      { id: 7 },
      { id: 0, collides: false },
    ]);
  });

  it("names the field of every problem", () => {
    expect(reasonOf("{")).toMatch(/^bad JSON/);
    expect(reasonOf("[]")).toBe("tile data is not a JSON object");
    expect(reasonOf(JSON.stringify({ version: 2, tiles: [] }))).toBe("version: expected 1, got 2");
    expect(reasonOf(JSON.stringify({ tiles: [] }))).toBe("version: expected 1, got undefined");
    expect(reasonOf(JSON.stringify({ version: 1, tiles: {} }))).toBe("tiles: expected an array");
    expect(reasonOf(JSON.stringify({ version: 1, tiles: [], extra: 1 }))).toBe('unknown field "extra"');
    expect(reasonOf(withTiles([5]))).toBe("tiles[0]: expected an object");
    expect(reasonOf(withTiles([{ name: "x" }]))).toBe("tiles[0].id: missing");
    expect(reasonOf(withTiles([{ id: 1.5 }]))).toBe("tiles[0].id: expected an integer 0..65533, got 1.5");
    expect(reasonOf(withTiles([{ id: 65536 }]))).toBe("tiles[0].id: expected an integer 0..65533, got 65536");
    expect(reasonOf(withTiles([{ id: 0xfffe }]))).toBe("tiles[0].id: 65534 is reserved (TILE_BORDER / TILE_UNKNOWN)");
    expect(reasonOf(withTiles([{ id: 0xffff }]))).toBe("tiles[0].id: 65535 is reserved (TILE_BORDER / TILE_UNKNOWN)");
    expect(reasonOf(withTiles([{ id: 1 }, { id: 2, collides: "yes" }]))).toBe(
      'tiles[1].collides: expected true or false, got "yes"',
    );
    expect(reasonOf(withTiles([{ id: 1, opaque: 1 }]))).toBe("tiles[0].opaque: expected true or false, got 1");
    expect(reasonOf(withTiles([{ id: 1, look: -1 }]))).toBe("tiles[0].look: expected an integer 0..65535, got -1");
    expect(reasonOf(withTiles([{ id: 1, name: 3 }]))).toBe("tiles[0].name: expected a string, got 3");
    expect(reasonOf(withTiles([{ id: 1, solid: true }]))).toBe('tiles[0]: unknown field "solid"');
    expect(reasonOf(withTiles([{ id: 4 }, { id: 4 }]))).toBe("tiles[1].id: 4 appears twice");
  });

  it("an invalid tile data file stops the map from loading, naming the tile data file", () => {
    const dir = mkdtempSync(join(tmpdir(), "map-tile-data-"));
    writeFileSync(join(dir, "m.csv"), "1,2\n");
    writeFileSync(join(dir, "m.tiles.json"), withTiles([{ id: 1, collides: "no" }]));
    expect(() => loadMap(join(dir, "m.csv"))).toThrow(
      `${join(dir, "m.tiles.json")}: tiles[0].collides: expected true or false`,
    );
  });

  it("lives beside the map as <basename>.tiles.json", () => {
    expect(tileDataPathFor("/a/b/caves.tmj")).toBe("/a/b/caves.tiles.json");
    expect(tileDataPathFor("rel/town.v2.tmx")).toBe(join("rel", "town.v2.tiles.json"));
  });
});

describe("merging over Tiled tile properties", () => {
  it("the file wins field by field; fields it leaves out keep the tileset's values", () => {
    const dir = mkdtempSync(join(tmpdir(), "map-tile-data-"));
    const tileset = {
      firstgid: 1,
      name: "t",
      tilecount: 4,
      columns: 4,
      image: "t.png",
      imagewidth: 32,
      imageheight: 8,
      tiles: [
        {
          id: 0,
          properties: [
            { name: "collides", type: "bool", value: true },
            { name: "name", type: "string", value: "wall" },
          ],
        },
        { id: 1, type: "glass", properties: [{ name: "opaque", type: "bool", value: false }] },
      ],
    };
    const map = { type: "map", orientation: "orthogonal", width: 4, height: 1, tilewidth: 8, tileheight: 8 };
    const layers = [{ type: "tilelayer", name: "g", width: 4, height: 1, data: [1, 2, 3, 4] }];
    writeFileSync(join(dir, "m.tmj"), JSON.stringify({ ...map, tilesets: [tileset], layers }));
    writeFileSync(
      join(dir, "m.tiles.json"),
      withTiles([
        { id: 1, opaque: true },
        { id: 2, collides: true, look: 40 },
        { id: 900, name: "unused extra" },
      ]),
    );
    const loaded = loadMap(join(dir, "m.tmj"));
    expect(loaded.tileData.get(1)).toEqual({ id: 1, name: "wall", collides: true, opaque: true, look: 1 });
    expect(loaded.tileData.get(2)).toEqual({ id: 2, name: "glass", collides: true, opaque: false, look: 40 });
    expect(loaded.tileData.get(3)).toEqual({ id: 3, collides: false, opaque: false, look: 3 });
    expect(loaded.tileData.get(900)).toEqual({
      id: 900,
      name: "unused extra",
      collides: false,
      opaque: false,
      look: 900,
    });
    expect(loaded.source.tileDataFile).toBe(join(dir, "m.tiles.json"));
  });
});

describe("flags and look tables", () => {
  const tileData: TileData = new Map([
    [0, { id: 0, collides: true, opaque: false, look: LOOK_NONE }],
    [3, { id: 3, collides: false, opaque: true, look: 3 }],
    [9, { id: 9, collides: true, opaque: true, look: 12 }],
    [300, { id: 300, collides: false, opaque: false, look: 300 }],
  ]);

  it("flags: bit 0 collides, bit 1 opaque; border and unknown always collide; nothing else is set", () => {
    const flags = tileFlagsTable(tileData);
    expect(flags.length).toBe(65536);
    expect(flags[0]).toBe(TILE_FLAG_COLLIDES);
    expect(flags[3]).toBe(TILE_FLAG_OPAQUE);
    expect(flags[9]).toBe(TILE_FLAG_COLLIDES | TILE_FLAG_OPAQUE);
    expect(flags[300]).toBe(0);
    expect(flags[TILE_BORDER]).toBe(TILE_FLAG_COLLIDES);
    expect(flags[TILE_UNKNOWN]).toBe(TILE_FLAG_COLLIDES);
    const set = [...flags.keys()].filter((id) => flags[id] !== 0);
    expect(set).toEqual([0, 3, 9, TILE_BORDER, TILE_UNKNOWN]);
  });

  it("look: the entry's look, LOOK_NONE for ids without tile data and for the reserved ids", () => {
    const looks = tileLookTable(tileData);
    expect(looks.length).toBe(65536);
    expect([looks[0], looks[3], looks[9], looks[300], looks[4]]).toEqual([LOOK_NONE, 3, 12, 300, LOOK_NONE]);
    expect([looks[TILE_BORDER], looks[TILE_UNKNOWN]]).toEqual([LOOK_NONE, LOOK_NONE]);
  });
});
