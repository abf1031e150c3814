// Collision drawn as shapes (issue 16): objects in a collision object layer
// (rectangles, ellipses, polygons, rotated or not) and collision shapes drawn
// inside tiles, rasterised by one rule — a cell blocks when a shape covers its
// centre — into the same collision twins as collision tile layers, so
// TILE_FLAGS says it for the server, the prediction and A* alike.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { TILE_FLAG_COLLIDES } from "../ts/constants.js";
import { loadMap, MapError, tileFlagsTable, type LoadedMap } from "../ts/server/map/load-map.js";
import { rasteriseShape, shapeCovers } from "../ts/server/map/collision-shapes.js";
import type { ObjectShape } from "../ts/server/map/object-shapes.js";

const dir = mkdtempSync(join(tmpdir(), "map-collision-shapes-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let counter = 0;
function write(name: string, text: string): string {
  const path = join(dir, `${counter++}-${name}`);
  writeFileSync(path, text);
  return path;
}

const SIZE = 10;
const floor = Array.from({ length: SIZE * SIZE }, () => 1).join(",");

/** A 10×10 map of 8 px floor tiles (GID 1) with `objects` (TMX <objectgroup>s) and an extra tileset. */
function tmx(objects: string, options: { tileset?: string; layer?: string } = {}): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<map version="1.10" orientation="orthogonal" width="${SIZE}" height="${SIZE}" tilewidth="8" tileheight="8" infinite="0">
 <tileset firstgid="1" name="t" tilewidth="8" tileheight="8" tilecount="16" columns="4"><image source="t.png" width="32" height="32"/></tileset>
 ${options.tileset ?? ""}
 <layer id="1" name="ground" width="${SIZE}" height="${SIZE}"><data encoding="csv">${floor}</data></layer>
 ${options.layer ?? ""}
 ${objects}
 <objectgroup id="9" name="spawns"><object id="99" type="spawn" x="76" y="76"><point/></object></objectgroup>
</map>`;
}

/** The blocked cells of a loaded map as "x,y" strings, row by row. */
function blocked(map: LoadedMap): string[] {
  const flags = tileFlagsTable(map.tileData);
  const cells: string[] = [];
  for (let y = 0; y < map.height; y++) {
    for (let x = 0; x < map.width; x++) {
      if ((flags[map.tiles[y * map.width + x]] & TILE_FLAG_COLLIDES) !== 0) cells.push(`${x},${y}`);
    }
  }
  return cells;
}

describe("the rule: a cell blocks when a shape covers its centre", () => {
  const grid = { width: 4, height: 4, cellWidthPx: 8, cellHeightPx: 8 };
  const rectangle = (x: number, y: number, w: number, h: number, rotationDeg = 0): ObjectShape => ({
    kind: "rectangle",
    x,
    y,
    widthPx: w,
    heightPx: h,
    rotationDeg,
    points: [],
  });

  it("centres on a shape's left or top edge are in, on its right or bottom edge out", () => {
    const shape = rectangle(4, 4, 8, 8);
    expect([shapeCovers(shape, 4, 4), shapeCovers(shape, 12, 4), shapeCovers(shape, 4, 12)]).toEqual([
      true,
      false,
      false,
    ]);
    const cells = new Uint8Array(16);
    expect(rasteriseShape(shape, grid, cells)).toBe(1); // only cell (0, 0): its centre (4, 4) is the top-left corner
    expect([...cells].indexOf(1)).toBe(0);
  });

  it("a rectangle smaller than a cell that misses its centre blocks nothing", () => {
    const cells = new Uint8Array(16);
    expect(rasteriseShape(rectangle(0, 0, 3, 3), grid, cells)).toBe(0);
  });

  it("a rectangle rotated 90° about its anchor covers the cells to the anchor's left", () => {
    // Tiled rotates clockwise around (x, y): a 16 × 8 rectangle at (16, 0) rotated 90° spans x 8..16, y 0..16.
    const cells = new Uint8Array(16);
    expect(rasteriseShape(rectangle(16, 0, 16, 8, 90), grid, cells)).toBe(2);
    expect([cells[1], cells[5]]).toEqual([1, 1]);
  });
});

describe("collision objects", () => {
  it("rectangles, ellipses, polygons and a rotated rectangle in a Collisions layer block the cells whose centre they cover", () => {
    const map = loadMap(
      write(
        "shapes.tmx",
        tmx(`<objectgroup id="2" name="Collisions">
  <object id="1" x="8" y="8" width="16" height="8"/>
  <object id="2" x="40" y="0" width="24" height="24"><ellipse/></object>
  <object id="3" x="0" y="40"><polygon points="0,0 25,0 0,25"/></object>
  <object id="4" x="64" y="64" width="16" height="8" rotation="90"/>
  <object id="5" x="0" y="0"><polyline points="0,0 80,0"/></object>
  <object id="6" x="33" y="73" width="2" height="2"/>
 </objectgroup>`),
      ),
    );
    // The rectangle: (1, 1) (2, 1). The ellipse, centre (52, 12) radius 12: all nine centres of cells 5..7 × 0..2
    // (a corner centre is at 0.89 of the radius). The triangle (legs 25): six cells. The rectangle rotated 90°
    // about (64, 64): x 56..64, y 64..80.
    // The polyline along the map's top edge blocks the cells below it: all of row 0.
    const rowZero = Array.from({ length: SIZE }, (_, x) => `${x},0`);
    expect(blocked(map)).toEqual([...rowZero, ...SHAPES_BLOCK.filter((cell) => !cell.endsWith(",0"))]);
    expect(map.source.collisionObjectLayers).toEqual(["Collisions"]);
    expect(map.source.collisionObjects).toBe(6);
    expect(map.source.collisionObjectCells).toBe(19 + 7);
    expect(map.source.collisionNotes).toEqual([
      'collision object 6 in "Collisions" covers no cell\'s centre: it blocks nothing',
    ]);
    // Through the twin scheme: blocked floor cells are a twin of the floor, not the floor.
    const twin = map.tileData.get(map.tiles[1 * SIZE + 1])!;
    expect(twin).toMatchObject({ twinOf: 1, collides: true, name: "tile 1 (+collides)" });
    expect(map.tileData.get(map.tiles[3 * SIZE + 3])!.collides).toBe(false);
  });

  it("a hidden collision layer, a layer with a collides property and an object of class collision all count", () => {
    const map = loadMap(
      write(
        "kinds.tmx",
        tmx(`<objectgroup id="2" name="collision" visible="0"><object id="1" x="0" y="0" width="8" height="8"/></objectgroup>
 <objectgroup id="3" name="walls"><properties><property name="solid" type="bool" value="true"/></properties>
  <object id="2" x="8" y="0" width="8" height="8"/></objectgroup>
 <objectgroup id="4" name="Objects">
  <object id="3" class="collision" x="16" y="0" width="8" height="8"/>
  <object id="4" x="24" y="0" width="8" height="8"/>
 </objectgroup>`),
      ),
    );
    expect(blocked(map)).toEqual(["0,0", "1,0", "2,0"]);
    expect(map.source.collisionObjectLayers).toEqual(["collision", "walls"]);
  });

  it("TMJ objects (ellipse, polygon, rotation) rasterise as their TMX twins", () => {
    const json = {
      type: "map",
      orientation: "orthogonal",
      width: SIZE,
      height: SIZE,
      tilewidth: 8,
      tileheight: 8,
      tilesets: [
        { firstgid: 1, name: "t", tilecount: 16, columns: 4, image: "t.png", imagewidth: 32, imageheight: 32 },
      ],
      layers: [
        { type: "tilelayer", name: "ground", width: SIZE, height: SIZE, data: floor.split(",").map(Number) },
        {
          type: "objectgroup",
          name: "Collisions",
          objects: [
            { id: 1, x: 8, y: 8, width: 16, height: 8 },
            { id: 2, x: 40, y: 0, width: 24, height: 24, ellipse: true },
            {
              id: 3,
              x: 0,
              y: 40,
              polygon: [
                { x: 0, y: 0 },
                { x: 25, y: 0 },
                { x: 0, y: 25 },
              ],
            },
            { id: 4, x: 64, y: 64, width: 16, height: 8, rotation: 90 },
          ],
        },
        { type: "objectgroup", name: "spawns", objects: [{ id: 9, type: "spawn", x: 76, y: 76, point: true }] },
      ],
    };
    const map = loadMap(write("shapes.tmj", JSON.stringify(json)));
    expect(blocked(map)).toEqual(SHAPES_BLOCK);
  });

  it("polylines block the cells they pass through: a bent fence, a rotated line, one outside the map", () => {
    const map = loadMap(
      write(
        "lines.tmx",
        tmx(`<objectgroup id="2" name="Collisions">
  <object id="1" x="4" y="12"><polyline points="0,0 40,0 40,48"/></object>
  <object id="2" x="64" y="40" rotation="90"><polyline points="0,0 24,0"/></object>
  <object id="3" x="1000000000" y="1000000000"><polyline points="0,0 1000000000,1000000000"/></object>
  <object id="4" x="76" y="4"><polyline points="0,0 3,2"/></object>
 </objectgroup>`),
      ),
    );
    // The fence: row 1 from x 0.5 to 5.5 cells, then down column 5 to y 7.5. The rotated line: x = 64 (the edge
    // between columns 7 and 8: the cells right of it) from y 40 to 64 (rows 5..7; 64 is an edge, not reached).
    // The short one stays in cell (9, 0).
    const fence = ["0,1", "1,1", "2,1", "3,1", "4,1", "5,1"].concat(["5,2", "5,3", "5,4", "5,5", "5,6", "5,7"]);
    expect(blocked(map)).toEqual(
      ["9,0", ...fence, "8,5", "8,6", "8,7"].sort((p, q) => {
        const [px, py] = p.split(",").map(Number);
        const [qx, qy] = q.split(",").map(Number);
        return py - qy || px - qx;
      }),
    );
    expect(map.source.collisionObjects).toBe(4);
    expect(map.source.collisionNotes).toEqual([
      'collision object 3 in "Collisions" lies outside the map: it blocks nothing',
    ]);
  });

  it("a spawn point a collision object covers is refused, as on a wall", () => {
    const path = write(
      "spawn.tmx",
      tmx(`<objectgroup id="2" name="Collisions"><object id="1" x="72" y="72" width="8" height="8"/></objectgroup>`),
    );
    expect(() => loadMap(path)).toThrow(MapError);
    expect(() => loadMap(path)).toThrow(/spawn point 99 at \(9, 9\) is outside the map or on a blocked tile/);
  });

  it("malformed polygon points are an error naming the object", () => {
    const path = write(
      "bad.tmx",
      tmx(
        `<objectgroup id="2" name="Collisions"><object id="7" x="0" y="0"><polygon points="0,0 8,x 0,8"/></object></objectgroup>`,
      ),
    );
    expect(() => loadMap(path)).toThrow(/object 7: point "8,x" is not "x,y"/);
  });
});

describe("collision shapes drawn inside tiles", () => {
  // GID 17: a 16 × 8 tile (two cells wide on the 8 px grid) whose collision shape is its left half.
  const wideTileset = `<tileset firstgid="17" name="wide" tilewidth="16" tileheight="8" tilecount="1" columns="1">
  <image source="wide.png" width="16" height="8"/>
  <tile id="0"><objectgroup draworder="index"><object id="1" x="0" y="0" width="8" height="8"/></objectgroup></tile>
 </tileset>`;
  const decor = (cells: Record<number, number>) => {
    const gids = Array.from({ length: SIZE * SIZE }, (_, cell) => cells[cell] ?? 0);
    return `<layer id="2" name="decor" width="${SIZE}" height="${SIZE}"><data encoding="csv">${gids.join(",")}</data></layer>`;
  };

  it("block the cells the placed tile's shapes cover, honouring the horizontal and diagonal flips", () => {
    const H = 0x80000000;
    const D = 0x20000000;
    const V = 0x40000000;
    const map = loadMap(
      write(
        "tile-shapes.tmx",
        tmx("", {
          tileset: wideTileset,
          // Row 0: plain at x=0 (covers 0..1, shape on 0); row 2: flipped H (shape on the right cell, 1);
          // row 5: diagonal (8 wide, 16 tall: cells (0,4) and (0,5); the left half becomes the top half → (0,4)).
          // row 8: diagonal + vertical (the shape moves to the bottom: (0,8)).
          layer: decor({
            0: 17,
            [2 * SIZE]: (17 | H) >>> 0,
            [5 * SIZE]: (17 | D) >>> 0,
            [8 * SIZE]: (17 | D | V) >>> 0,
          }),
        }),
      ),
    );
    expect(blocked(map)).toEqual(["0,0", "1,2", "0,4", "0,8"]);
    expect(map.source.collisionShapeTiles).toBe(1);
    expect(map.source.collisionShapeCells).toBe(4);
  });

  it("count only where a visible drawn layer places the tile", () => {
    const hidden = decor({ 0: 17 }).replace('name="decor"', 'name="decor" visible="0"');
    const map = loadMap(write("hidden.tmx", tmx("", { tileset: wideTileset, layer: hidden })));
    expect(blocked(map)).toEqual([]);
  });

  it("TMJ tilesets carry them too (tiles[].objectgroup)", () => {
    const gids = floor.split(",").map(Number);
    const decorGids = gids.map((_, cell) => (cell === 3 ? 17 : 0));
    const json = {
      type: "map",
      orientation: "orthogonal",
      width: SIZE,
      height: SIZE,
      tilewidth: 8,
      tileheight: 8,
      tilesets: [
        { firstgid: 1, name: "t", tilecount: 16, columns: 4, image: "t.png", imagewidth: 32, imageheight: 32 },
        {
          firstgid: 17,
          name: "wide",
          tilewidth: 16,
          tileheight: 8,
          tilecount: 1,
          columns: 1,
          image: "wide.png",
          imagewidth: 16,
          imageheight: 8,
          tiles: [
            { id: 0, objectgroup: { type: "objectgroup", objects: [{ id: 1, x: 8, y: 0, width: 8, height: 8 }] } },
          ],
        },
      ],
      layers: [
        { type: "tilelayer", name: "ground", width: SIZE, height: SIZE, data: gids },
        { type: "tilelayer", name: "decor", width: SIZE, height: SIZE, data: decorGids },
        { type: "objectgroup", name: "spawns", objects: [{ id: 9, type: "spawn", x: 76, y: 76, point: true }] },
      ],
    };
    expect(blocked(loadMap(write("tiles.tmj", JSON.stringify(json))))).toEqual(["4,0"]);
  });
});

/** What the four shapes with an area of both "shapes" maps block, row by row. */
const SHAPES_BLOCK = ["5,0", "6,0", "7,0", "1,1", "2,1", "5,1", "6,1", "7,1", "5,2", "6,2", "7,2"].concat([
  "0,5",
  "1,5",
  "2,5",
  "0,6",
  "1,6",
  "0,7",
  "7,8",
  "7,9",
]);
