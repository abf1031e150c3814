// Every way a map can be wrong ends in a MapError whose message names the file
// and the reason — never a crash, a silent short layer or a garbled world.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadMap, MapError } from "../ts/server/map/load-map.js";

const dir = mkdtempSync(join(tmpdir(), "map-errors-"));
let fileCounter = 0;
function write(name: string, text: string): string {
  const sub = mkdtempSync(join(dir, `${fileCounter++}-`));
  const path = join(sub, name);
  writeFileSync(path, text);
  return path;
}

/** Loads `path` expecting a MapError about `file` (default: the map itself) whose reason matches. */
function expectMapError(path: string, reason: RegExp | string, file: string = path): MapError {
  let caught: unknown;
  try {
    loadMap(path);
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(MapError);
  const error = caught as MapError;
  expect(error.file).toBe(file);
  expect(error.message.startsWith(`${file}: `)).toBe(true);
  if (typeof reason === "string") expect(error.reason).toContain(reason);
  else expect(error.reason).toMatch(reason);
  return error;
}

const TILESET = `<tileset firstgid="1" name="t" tilewidth="8" tileheight="8" tilecount="8" columns="4"><image source="t.png" width="32" height="16"/></tileset>`;
function tmx(data: string, attrs = 'orientation="orthogonal"', tileset = TILESET): string {
  return `<map ${attrs} width="2" height="2" tilewidth="8" tileheight="8">${tileset}<layer name="g" width="2" height="2">${data}</layer></map>`;
}
function tmj(fields: Record<string, unknown>): string {
  return JSON.stringify({
    type: "map",
    orientation: "orthogonal",
    width: 2,
    height: 2,
    tilewidth: 8,
    tileheight: 8,
    tilesets: [{ firstgid: 1, name: "t", tilecount: 8, columns: 4, image: "t.png", imagewidth: 32, imageheight: 16 }],
    layers: [{ type: "tilelayer", name: "g", width: 2, height: 2, data: [1, 1, 1, 1] }],
    ...fields,
  });
}

describe("files that cannot be read or parsed", () => {
  it("missing file", () => {
    expectMapError(join(dir, "nowhere.tmx"), "cannot read map file (ENOENT)");
  });
  it("unknown extension", () => {
    expectMapError(write("map.txt", "1,2"), "unknown map format");
  });
  it("bad XML, with line and column", () => {
    expectMapError(write("bad.tmx", "<map>\n<layer></map>"), /bad XML at line 2, column \d+/);
  });
  it("bad JSON", () => {
    expectMapError(write("bad.tmj", '{"type": "map", '), /bad JSON/);
  });
  it("a TMJ that is not a map", () => {
    expectMapError(write("t.tmj", JSON.stringify({ type: "tileset" })), 'type is "tileset"');
    expectMapError(write("t.tmj", "[1,2]"), "the map is not a JSON object");
  });
  it("a TMJ field of the wrong type", () => {
    expectMapError(write("w.tmj", tmj({ width: "2" })), 'map: width is "2", expected an integer');
    expectMapError(
      write("w.tmj", tmj({ layers: [{ type: "tilelayer", name: "g", width: 2, height: 2, data: "1,1,1,1" }] })),
      'layer "g": data is not an array',
    );
  });
  it("a TMJ layer of a type Tiled may add later is skipped with a warning, as the TMX reader skips an element", () => {
    const layers = [
      { type: "mystery", name: "m" },
      { type: "tilelayer", name: "g", width: 2, height: 2, data: [1, 1, 1, 1] },
    ];
    const map = loadMap(write("w.tmj", tmj({ layers })));
    expect(map.warnings).toEqual(['layer "m" has unknown type "mystery": skipped']);
    expect([...map.tiles]).toEqual([1, 1, 1, 1]);
  });
});

describe("layer data", () => {
  it("bad base64", () => {
    expectMapError(write("b64.tmx", tmx('<data encoding="base64">AAAA@@@@AAAA</data>')), 'layer "g": bad base64 data');
    expectMapError(
      write(
        "b64.tmj",
        tmj({ layers: [{ type: "tilelayer", name: "g", width: 2, height: 2, encoding: "base64", data: "AQ=" }] }),
      ),
      "bad base64 data",
    );
  });
  it("corrupt zlib / gzip streams", () => {
    const junk = Buffer.from("definitely not deflate data").toString("base64");
    expectMapError(write("z.tmx", tmx(`<data encoding="base64" compression="zlib">${junk}</data>`)), /bad zlib data/);
    expectMapError(write("z.tmx", tmx(`<data encoding="base64" compression="gzip">${junk}</data>`)), /bad gzip data/);
  });
  it("data of the wrong length", () => {
    const threeCells = Buffer.alloc(12).toString("base64");
    expectMapError(
      write("len.tmx", tmx(`<data encoding="base64">${threeCells}</data>`)),
      "base64 data is 16 characters, a 2×2 layer is 24 (16 bytes)",
    );
    expectMapError(write("len.tmx", tmx('<data encoding="csv">1,1,1</data>')), "CSV has 3 values, expected 4");
    expectMapError(
      write("len.tmj", tmj({ layers: [{ type: "tilelayer", name: "g", width: 2, height: 2, data: [1, 1] }] })),
      "data has 2 values, expected 4",
    );
  });
  it("non-numeric and oversized CSV values", () => {
    expectMapError(write("csv.tmx", tmx('<data encoding="csv">1,x,1,1</data>')), 'value 1 ("x") is not a tile id');
    expectMapError(write("csv.tmx", tmx('<data encoding="csv">1,4294967296,1,1</data>')), "larger than 32 bits");
    expectMapError(
      write("j.tmj", tmj({ layers: [{ type: "tilelayer", name: "g", width: 2, height: 2, data: [1, -1, 1, 1] }] })),
      "data[1] (-1) is not a tile id",
    );
  });
  it("unknown encoding and unsupported compression are named", () => {
    expectMapError(write("enc.tmx", tmx('<data encoding="base32">AAAA</data>')), "unknown encoding: base32");
    expectMapError(
      write("cmp.tmx", tmx('<data encoding="base64" compression="lz4">AAAA</data>')),
      "unsupported compression: lz4",
    );
  });
  it("a layer whose size differs from the map's", () => {
    const text = `<map orientation="orthogonal" width="2" height="2" tilewidth="8" tileheight="8">${TILESET}<layer name="g" width="3" height="2"><data encoding="csv">1,1,1,1,1,1</data></layer></map>`;
    expectMapError(write("size.tmx", text), 'layer "g" is 3×2, the map is 2×2');
  });
  it("ragged CSV maps", () => {
    expectMapError(write("r.csv", "1,2,3\n4,5\n"), "line 2 has 2 values, the first row has 3");
    expectMapError(write("e.csv", "\n\n"), "the CSV map has no tiles");
  });
});

describe("what a map may not contain", () => {
  it("non-orthogonal orientations", () => {
    expectMapError(
      write("s.tmx", tmx('<data encoding="csv">1,1,1,1</data>', 'orientation="staggered"')),
      "unsupported orientation: staggered",
    );
  });
  it("GIDs outside every tileset are no refusal: the cells are left empty, as Tiled shows them, and said", () => {
    // Past the last tileset (a tileset's image shrank after the map was made), and in a gap between two.
    const two = `${TILESET}<tileset firstgid="20" name="u" tilewidth="8" tileheight="8" tilecount="4" columns="2"><image source="u.png" width="16" height="16"/></tileset>`;
    const map = loadMap(write("gid.tmx", tmx('<data encoding="csv">1,9,12,9</data>', 'orientation="orthogonal"', two)));
    expect(map.tiles[0]).not.toBe(0);
    expect([map.tiles[1], map.tiles[2], map.tiles[3]]).toEqual([0, 0, 0]);
    expect(map.warnings).toEqual([
      'layer "g": tile id 9 is not in any tileset: 2 cells, the first at (1, 0) left empty, as Tiled shows it',
      'layer "g": tile id 12 is not in any tileset: the cell at (0, 1) left empty, as Tiled shows it',
    ]);
    expect(loadMap(write("ok.tmx", tmx('<data encoding="csv">1,2,3,4</data>'))).warnings).toEqual([]);
  });
  it("GIDs the u16 wire cannot carry", () => {
    const big = `<tileset firstgid="1" name="big" tilewidth="8" tileheight="8" tilecount="70000" columns="100"><image source="b.png" width="800" height="5600"/></tileset>`;
    expectMapError(
      write("big.tmx", tmx('<data encoding="csv">1,65534,1,1</data>', 'orientation="orthogonal"', big)),
      "uses tile id 65534 at (1, 0); ids above 65533 cannot be sent",
    );
    // Ids up to 0xFFFD are fine.
    expect(
      loadMap(write("big.tmx", tmx('<data encoding="csv">1,65533,1,1</data>', 'orientation="orthogonal"', big)))
        .tiles[1],
    ).toBe(65533);
  });
  it("a missing external tileset names the tileset and the map", () => {
    const path = write(
      "ext.tmx",
      tmx(
        '<data encoding="csv">1,1,1,1</data>',
        'orientation="orthogonal"',
        '<tileset firstgid="1" source="gone.tsx"/>',
      ),
    );
    expectMapError(path, 'external tileset "gone.tsx" cannot be read (ENOENT)');
  });
  it("a broken external tileset is reported against the tileset file", () => {
    const path = write(
      "ext.tmx",
      tmx(
        '<data encoding="csv">1,1,1,1</data>',
        'orientation="orthogonal"',
        '<tileset firstgid="1" source="broken.tsx"/>',
      ),
    );
    const tileset = join(path, "..", "broken.tsx");
    writeFileSync(tileset, "<tileset><tile></tileset>");
    expectMapError(path, /bad XML/, tileset);
  });
  it("spawn points off the map or on blocked tiles", () => {
    const tiles = `<tileset firstgid="1" name="t" tilewidth="8" tileheight="8" tilecount="2" columns="2"><image source="t.png" width="16" height="8"/><tile id="1"><properties><property name="collides" type="bool" value="true"/></properties></tile></tileset>`;
    const spawnAt = (x: number, y: number) =>
      `<map orientation="orthogonal" width="2" height="2" tilewidth="8" tileheight="8">${tiles}<layer name="g" width="2" height="2"><data encoding="csv">1,2,1,1</data></layer><objectgroup name="spawns"><object id="7" x="${x}" y="${y}"><point/></object></objectgroup></map>`;
    expectMapError(write("sp.tmx", spawnAt(12, 4)), "spawn point 7 at (1, 0) is outside the map or on a blocked tile");
    expectMapError(write("sp.tmx", spawnAt(40, 4)), "spawn point 7 at (5, 0)");
    expect(loadMap(write("sp.tmx", spawnAt(4, 12))).spawns).toEqual([{ x: 0, y: 1 }]);
  });
  it("an interactables layer object without a kind is no interactable, and said", () => {
    const text = tmx('<data encoding="csv">1,1,1,1</data>').replace(
      "</map>",
      '<objectgroup name="interactables"><object id="3" x="1" y="1"><point/></object></objectgroup></map>',
    );
    const map = loadMap(write("it.tmx", text));
    expect(map.interactables).toEqual([]);
    expect(map.warnings).toEqual([
      'object 3 in "interactables" is not a point with a string "kind" property: not an interactable',
    ]);
  });
  it("a map where nothing is walkable and no spawn is given", () => {
    expectMapError(write("solid.csv", "0,0\n0,0\n"), "no spawn points and no walkable cell");
  });
  it("an infinite map without chunks", () => {
    const text = `<map orientation="orthogonal" width="2" height="2" tilewidth="8" tileheight="8" infinite="1">${TILESET}<layer name="g" width="2" height="2"><data encoding="csv"></data></layer></map>`;
    expectMapError(write("inf.tmx", text), "infinite map has no chunks");
  });
});
