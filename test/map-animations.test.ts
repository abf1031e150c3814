// Tile animations in tilesets (issue 16): Tiled's <animation><frame tileid duration/> in TSX and
// TMX tilesets and a JSON tile's `animation` array are read into Tileset.animations, frames in
// order; a frame that names no tile of the set or has no positive duration is a MapError naming the
// tileset and the tile. (They are not played yet: docs/art.md § Map art.)
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { MapError, readRawMap } from "../ts/server/map/load-map.js";

const dir = mkdtempSync(join(tmpdir(), "map-animations-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let counter = 0;
function write(name: string, text: string): string {
  const path = join(dir, `${counter++}-${name}`);
  writeFileSync(path, text);
  return path;
}

function tmx(tiles: string): string {
  return `<map orientation="orthogonal" width="2" height="2" tilewidth="8" tileheight="8">
 <tileset firstgid="1" name="water" tilewidth="8" tileheight="8" tilecount="8" columns="4"><image source="t.png" width="32" height="16"/>${tiles}</tileset>
 <layer name="g" width="2" height="2"><data encoding="csv">1,1,1,1</data></layer></map>`;
}

function tmj(tiles: unknown[]): string {
  return JSON.stringify({
    type: "map",
    orientation: "orthogonal",
    width: 2,
    height: 2,
    tilewidth: 8,
    tileheight: 8,
    tilesets: [
      { firstgid: 1, name: "water", tilecount: 8, columns: 4, image: "t.png", imagewidth: 32, imageheight: 16, tiles },
    ],
    layers: [{ type: "tilelayer", name: "g", width: 2, height: 2, data: [1, 1, 1, 1] }],
  });
}

function reason(path: string): string {
  try {
    readRawMap(path);
  } catch (error) {
    expect(error).toBeInstanceOf(MapError);
    return (error as MapError).reason;
  }
  throw new Error("read without an error");
}

describe("tile animations", () => {
  const frames = [
    { localId: 0, durationMs: 250 },
    { localId: 5, durationMs: 100 },
    { localId: 2, durationMs: 650 },
  ];

  it("TMX and JSON tilesets give the same frames, in order", () => {
    const fromTmx = readRawMap(
      write(
        "a.tmx",
        tmx(
          `<tile id="0"><animation><frame tileid="0" duration="250"/><frame tileid="5" duration="100"/><frame tileid="2" duration="650"/></animation></tile><tile id="3"/>`,
        ),
      ),
    );
    expect([...fromTmx.tilesets[0].animations]).toEqual([[0, frames]]);
    const fromJson = readRawMap(
      write(
        "a.tmj",
        tmj([
          {
            id: 0,
            animation: [
              { tileid: 0, duration: 250 },
              { tileid: 5, duration: 100 },
              { tileid: 2, duration: 650 },
            ],
          },
        ]),
      ),
    );
    expect([...fromJson.tilesets[0].animations]).toEqual([[0, frames]]);
  });

  it("a frame outside the tileset, a bad duration or a malformed list is refused by name", () => {
    expect(
      reason(write("out.tmx", tmx(`<tile id="1"><animation><frame tileid="8" duration="100"/></animation></tile>`))),
    ).toBe('tileset "water" tile 1 animation: frame tile 8 is not in the tileset');
    expect(
      reason(write("zero.tmx", tmx(`<tile id="1"><animation><frame tileid="2" duration="0"/></animation></tile>`))),
    ).toBe('tileset "water" tile 1 animation: frame duration 0 is not a positive number of ms');
    expect(
      reason(write("text.tmx", tmx(`<tile id="1"><animation><frame tileid="x" duration="5"/></animation></tile>`))),
    ).toBe('tileset "water" tile 1 animation: frame tile id "x" is not a tile id');
    expect(reason(write("list.tmj", tmj([{ id: 2, animation: { tileid: 1 } }])))).toBe(
      'tileset "water" tile 2 animation is not an array',
    );
    expect(reason(write("neg.tmj", tmj([{ id: 2, animation: [{ tileid: 1, duration: -5 }] }])))).toBe(
      'tileset "water" tile 2 animation: frame duration -5 is not a positive number of ms',
    );
  });
});
