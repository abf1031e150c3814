// Flattening several layers into one id per cell, and the twin ids that keep
// collision a pure function of the id. The result is checked through the real
// wasm movement rule: the flags table goes into TILE_FLAGS, the tiles into the
// grid, and step_allowed must agree with the layers' combined collision.
import { NO_TINT } from "../ts/server/map/tile-stacks.js";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadMap, MapError, tileFlagsTable, tileLookTable } from "../ts/server/map/load-map.js";
import { loadCore } from "../ts/wasm/node.js";

const collides = { name: "collides", type: "bool", value: true };
const opaque = { name: "opaque", type: "bool", value: true };
const named = (value: string) => ({ name: "name", type: "string", value });
const TILESET = {
  firstgid: 1,
  name: "t",
  tilewidth: 8,
  tileheight: 8,
  tilecount: 8,
  columns: 8,
  image: "t.png",
  imagewidth: 64,
  imageheight: 8,
  tiles: [
    { id: 0, properties: [named("floor")] },
    { id: 1, properties: [named("wall"), collides, opaque] },
    { id: 2, properties: [named("rug")] },
    { id: 3, properties: [named("glass"), opaque] },
    { id: 4, properties: [named("marker")] },
  ],
};
const FLOOR = 1;
const WALL = 2;
const RUG = 3;
const GLASS = 4;
const MARKER = 5;

function writeMap(layers: unknown[], tileData?: unknown, tileset: unknown = TILESET): string {
  const dir = mkdtempSync(join(tmpdir(), "map-flatten-"));
  const map = { type: "map", orientation: "orthogonal", width: 4, height: 3, tilewidth: 8, tileheight: 8 };
  writeFileSync(join(dir, "m.tmj"), JSON.stringify({ ...map, tilesets: [tileset], layers }));
  if (tileData) writeFileSync(join(dir, "m.tiles.json"), JSON.stringify(tileData));
  return join(dir, "m.tmj");
}
const layer = (name: string, data: number[], extra: Record<string, unknown> = {}) => ({
  type: "tilelayer",
  name,
  width: 4,
  height: 3,
  data,
  ...extra,
});

// prettier-ignore
const LAYERS = [
  layer("ground", [
    FLOOR, FLOOR, WALL, FLOOR,
    FLOOR, WALL, FLOOR, FLOOR,
    FLOOR, FLOOR, FLOOR, FLOOR]),
  layer("hidden walls", [
    0, 0, 0, 0,
    WALL, 0, 0, 0,
    0, 0, 0, 0], { visible: false }),
  layer("deco", [
    0, 0, RUG, RUG,
    0, RUG, 0, 0,
    0, 0, GLASS, 0]),
  layer("Collision", [
    0, 0, 0, MARKER,
    0, 0, 0, 0,
    MARKER, 0, 0, 0]),
];

describe("flattening", () => {
  it("draws the top-most visible tile and allocates one twin per (tile, combined flags)", () => {
    // The author reserved 0xFFFD for something of their own: twins must skip it.
    const map = loadMap(writeMap(LAYERS, { version: 1, tiles: [{ id: 0xfffd, name: "author's own" }] }));
    // Issue 16: the map has its own art (t.png), so a cell that draws two layers is a stack id as well:
    // one per distinct (stack, flags), allocated in cell order like the twins.
    const rugOverWall = 0xfffc;
    const rugOverFloorMarked = 0xfffb;
    const floorMarked = 0xfffa;
    const glassOverFloor = 0xfff9;
    // prettier-ignore
    expect([...map.tiles]).toEqual([
      FLOOR, FLOOR, rugOverWall, rugOverFloorMarked,
      FLOOR, rugOverWall, FLOOR, FLOOR,
      floorMarked, FLOOR, glassOverFloor, FLOOR]);
    // Rug over a wall at (2, 0) and at (1, 1): one stack and flags, one id.
    expect(map.source.twinCount).toBe(4);
    expect(map.source.stackCount).toBe(3);
    expect(map.tileData.get(rugOverWall)).toEqual({
      id: rugOverWall,
      name: "rug (+collides, opaque, stack of 2)",
      collides: true,
      opaque: true,
      look: RUG,
      twinOf: RUG,
      stack: [WALL, 0, 0, 255, NO_TINT, RUG, 0, 0, 255, NO_TINT],
    });
    expect(map.tileData.get(glassOverFloor)).toMatchObject({
      look: GLASS,
      twinOf: GLASS,
      stack: [FLOOR, 0, 0, 255, NO_TINT, GLASS, 0, 0, 255, NO_TINT],
    });
    expect(map.tileData.get(rugOverFloorMarked)).toMatchObject({
      collides: true,
      opaque: false,
      look: RUG,
      twinOf: RUG,
    });
    expect(map.tileData.get(floorMarked)).toMatchObject({ collides: true, opaque: false, look: FLOOR, twinOf: FLOOR });
    // The collision layer is never drawn; its tiles' own data is irrelevant.
    expect(map.tiles.includes(MARKER)).toBe(false);
    expect(map.source.collisionLayers).toEqual(["Collision"]);
    const looks = tileLookTable(map.tileData);
    expect([looks[rugOverWall], looks[rugOverFloorMarked], looks[floorMarked]]).toEqual([RUG, RUG, FLOOR]);
  });

  it("the wasm movement rule sees the combined collision through the flags table alone", async () => {
    const map = loadMap(writeMap(LAYERS));
    const core = await loadCore();
    const gridInit = core.fn<(w: number, h: number, x: number, y: number) => number>("grid_init");
    const gridTiles = core.fn<() => number>("grid_tiles");
    const stepAllowed = core.fn<(x: number, y: number, action: number) => number>("step_allowed");
    expect(gridInit(map.width, map.height, 0, 0)).toBe(1);
    core.u16.set(map.tiles, gridTiles() >>> 1);
    core.u8.set(tileFlagsTable(map.tileData), core.layout.TILE_FLAGS);
    const [N, E, S, NE] = [1, 2, 3, 5];
    expect(stepAllowed(0, 0, E)).toBe(1); // floor
    expect(stepAllowed(1, 0, E)).toBe(0); // rug over a wall
    expect(stepAllowed(2, 1, N)).toBe(0); // same twin from below
    expect(stepAllowed(2, 1, NE)).toBe(0); // rug on a collision-layer cell
    expect(stepAllowed(0, 1, N)).toBe(1); // the hidden layer's wall does not count
    expect(stepAllowed(0, 1, S)).toBe(0); // floor on a collision-layer cell
    expect(stepAllowed(1, 2, E)).toBe(1); // glass: opaque, not solid
    expect(stepAllowed(3, 2, N)).toBe(1);
  });

  it("a layer is a collision layer by name (any case) or by a collision property", () => {
    const byName = loadMap(
      writeMap([layer("ground", Array(12).fill(FLOOR)), layer("COLLISIONS", [MARKER, ...Array(11).fill(0)])]),
    );
    expect(byName.source.collisionLayers).toEqual(["COLLISIONS"]);
    const byProperty = loadMap(
      writeMap([
        layer("ground", Array(12).fill(FLOOR)),
        layer("blocked cells", [MARKER, ...Array(11).fill(0)], {
          properties: [{ name: "collides", type: "bool", value: true }],
        }),
        layer("not collision", [0, MARKER, ...Array(10).fill(0)], {
          properties: [{ name: "collides", type: "bool", value: false }],
        }),
      ]),
    );
    expect(byProperty.source.collisionLayers).toEqual(["blocked cells"]);
    expect(byProperty.tiles[0]).toBe(0xfffd);
    // An ordinary layer, drawn on top (over the floor: a stack id since issue 16).
    expect(byProperty.tileData.get(byProperty.tiles[1])).toMatchObject({
      twinOf: MARKER,
      stack: [FLOOR, 0, 0, 255, NO_TINT, MARKER, 0, 0, 255, NO_TINT],
    });
  });

  it("fails clearly when every id is taken and a twin is needed", () => {
    const huge = { ...TILESET, tilecount: 0xfffd, columns: 0xfffd, imagewidth: 8 * 0xfffd };
    const path = writeMap(
      [layer("ground", Array(12).fill(FLOOR)), layer("collision", [MARKER, ...Array(11).fill(0)])],
      undefined,
      huge,
    );
    expect(() => loadMap(path)).toThrow(MapError);
    expect(() => loadMap(path)).toThrow(`${path}: no free tile ids left for collision twins`);
  });
});
