// The loader on small hand-written maps in every supported form: CSV grids,
// TMX and TMJ with each layer encoding, external tilesets, infinite maps,
// hidden groups and objects. Each test writes its files to a fresh temp dir.
import { NO_TINT } from "../ts/server/map/tile-stacks.js";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { deflateSync, gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { TILE_FLAG_COLLIDES, TILE_FLAG_OPAQUE } from "../ts/constants.js";
import { loadMap, readRawMap, tileFlagsTable } from "../ts/server/map/load-map.js";

const dir = mkdtempSync(join(tmpdir(), "map-formats-"));
let fileCounter = 0;
function write(name: string, text: string): string {
  const path = join(dir, `${fileCounter++}-${name}`);
  writeFileSync(path, text);
  return path;
}
/** Writes files under one fresh sub-directory so relative references (tilesets, tile data) resolve. */
function writeSet(files: Record<string, string>): string {
  const sub = mkdtempSync(join(dir, "set-"));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(sub, name), text);
  return sub;
}

function base64Gids(gids: number[], compression: "" | "zlib" | "gzip"): string {
  const bytes = Buffer.alloc(gids.length * 4);
  gids.forEach((gid, i) => bytes.writeUInt32LE(gid >>> 0, i * 4));
  const packed = compression === "zlib" ? deflateSync(bytes) : compression === "gzip" ? gzipSync(bytes) : bytes;
  return packed.toString("base64");
}

const TILESET_TMX = `<tileset firstgid="1" name="t" tilewidth="8" tileheight="8" tilecount="16" columns="4">
  <image source="t.png" width="32" height="32"/>
  <tile id="4"><properties><property name="collides" type="bool" value="true"/><property name="opaque" type="bool" value="true"/></properties></tile>
 </tileset>`;

/** Each cell's drawn tile: flipped tiles are stack ids (issue 16: the flip is drawn) whose twinOf is the masked GID. */
function drawnIds(map: { tiles: Uint16Array; tileData: Map<number, { twinOf?: number }> }): number[] {
  return [...map.tiles].map((id) => map.tileData.get(id)?.twinOf ?? id);
}

function tmxMap(width: number, height: number, body: string, extra = ""): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<map version="1.10" orientation="orthogonal" renderorder="right-down" width="${width}" height="${height}" tilewidth="8" tileheight="8" infinite="0" ${extra}>
 ${TILESET_TMX}
 ${body}
</map>`;
}

describe("CSV maps (the seed's format)", () => {
  it("derives the size from the content and masks flip flags", () => {
    const path = write("grid.csv", "1,2,3,\r\n4,5,6,\r\n\r\n" + [0x80000001, 0x40000002, 0x10000003].join(",") + "\n");
    const map = loadMap(path);
    expect([map.width, map.height]).toEqual([3, 3]);
    expect([...map.tiles]).toEqual([1, 2, 3, 4, 5, 6, 1, 2, 3]);
    expect(map.source.format).toBe("csv");
    expect(map.source.layers).toBe(1);
    expect(map.name).toMatch(/grid$/);
  });

  it("takes tile meaning from <name>.tiles.json; ids it does not list are walkable and drawn as themselves", () => {
    const sub = writeSet({
      "cave.csv": "5,5,5\n5,1,5\n5,5,5\n",
      "cave.tiles.json": JSON.stringify({ version: 1, tiles: [{ id: 5, name: "wall", collides: true, opaque: true }] }),
    });
    const map = loadMap(join(sub, "cave.csv"));
    expect(map.tileData.get(5)).toEqual({ id: 5, name: "wall", collides: true, opaque: true, look: 5 });
    expect(map.tileData.get(1)).toEqual({ id: 1, collides: false, opaque: false, look: 1 });
    expect(map.spawns).toEqual([{ x: 1, y: 1 }]); // the only free cell, nearest the centre
    expect(map.source.spawnFallback).toBe(true);
    const flags = tileFlagsTable(map.tileData);
    expect(flags[5]).toBe(TILE_FLAG_COLLIDES | TILE_FLAG_OPAQUE);
    expect(flags[1]).toBe(0);
  });

  it("treats id 0 (no tile) as solid unless the tile data says otherwise", () => {
    const plain = loadMap(write("holes.csv", "1,0\n0,1\n"));
    expect(plain.tileData.get(0)).toMatchObject({ collides: true, look: 0xffff });
    const sub = writeSet({
      "open.csv": "1,0\n0,1\n",
      "open.tiles.json": JSON.stringify({ version: 1, tiles: [{ id: 0, collides: false }] }),
    });
    expect(loadMap(join(sub, "open.csv")).tileData.get(0)).toMatchObject({ collides: false, name: "empty" });
  });
});

describe("TMX layer encodings", () => {
  const gids = [1, 2, 3, 4, 0x80000005, 6];
  const expected = [1, 2, 3, 4, 5, 6];
  const layer = (data: string) => `<layer id="1" name="ground" width="3" height="2">${data}</layer>`;

  it("csv, base64, base64+zlib, base64+gzip and XML <tile> elements decode alike", () => {
    const bodies = [
      `<data encoding="csv">\n${gids.slice(0, 3).join(",")},\n${gids.slice(3).join(",")}\n</data>`,
      `<data encoding="base64">\n   ${base64Gids(gids, "")}\n  </data>`,
      `<data encoding="base64" compression="zlib">${base64Gids(gids, "zlib")}</data>`,
      `<data encoding="base64" compression="gzip">${base64Gids(gids, "gzip")}</data>`,
      `<data>${gids.map((gid) => `<tile gid="${gid}"/>`).join("")}</data>`,
    ];
    for (const body of bodies) {
      const map = loadMap(write("enc.tmx", tmxMap(3, 2, layer(body))));
      expect(drawnIds(map)).toEqual(expected);
      expect(map.source.format).toBe("tmx");
    }
  });

  it("masks all four flag bits, including the hexagonal 120° rotation bit", () => {
    const flagged = [0x10000001, 0x20000002, 0x40000003, 0x80000004, 0xf0000005, 6];
    const map = loadMap(write("flags.tmx", tmxMap(3, 2, layer(`<data encoding="csv">${flagged.join(",")}</data>`))));
    expect(drawnIds(map)).toEqual(expected);
    // The three flips are drawn (each its own stack id); the hexagonal rotation bit means nothing here.
    expect(map.tiles[0]).toBe(1);
    expect([1, 2, 3, 4].map((cell) => map.tileData.get(map.tiles[cell])!.stack)).toEqual([
      [0x20000002, 0, 0, 255, NO_TINT],
      [0x40000003, 0, 0, 255, NO_TINT],
      [0x80000004, 0, 0, 255, NO_TINT],
      [0xe0000005, 0, 0, 255, NO_TINT],
    ]);
    // Raw layers keep the flags, for checksums over the file's exact data.
    expect(
      Array.from(
        readRawMap(write("flags.tmx", tmxMap(3, 2, layer(`<data encoding="csv">${flagged.join(",")}</data>`))))
          .tileLayers[0].chunks[0].gids,
      ),
    ).toEqual(flagged);
  });

  it("reads tile properties from an external .tsx relative to the map", () => {
    const sub = writeSet({
      "tiles.tsx": `<?xml version="1.0"?><tileset name="ext" tilewidth="8" tileheight="8" tilecount="4" columns="2">
        <image source="x.png" width="16" height="16"/>
        <tile id="1"><properties><property name="Solid" value="true"/></properties></tile>
        <tile id="2" type="lava"><properties><property name="blocked" type="bool" value="false"/></properties></tile>
      </tileset>`,
      "m.tmx": `<map orientation="orthogonal" width="2" height="1" tilewidth="8" tileheight="8">
        <tileset firstgid="10" source="tiles.tsx"/>
        <layer name="g" width="2" height="1"><data encoding="csv">11,12</data></layer></map>`,
    });
    const map = loadMap(join(sub, "m.tmx"));
    expect(map.tileData.get(11)?.collides).toBe(true); // old-style untyped "true", any case of the name
    expect(map.tileData.get(12)).toMatchObject({ collides: false, name: "lava" });
    expect(map.tileData.has(13) && !map.tileData.has(14)).toBe(true);
  });

  it("derives tilecount from the image when the tileset has none (old maps)", () => {
    const body = `<layer name="g" width="2" height="1"><data encoding="csv">1,12</data></layer>`;
    const old = `<map orientation="orthogonal" width="2" height="1" tilewidth="8" tileheight="8">
      <tileset firstgid="1" name="old" tilewidth="8" tileheight="8" spacing="1" margin="1"><image source="o.png" width="35" height="26"/></tileset>${body}</map>`;
    // (35 - 2 + 1) / 9 = 3 columns, (26 - 2 + 1) / 9 = 2 rows: GIDs 1..6, so 12 is outside.
    expect(loadMap(write("old.tmx", old)).warnings).toEqual([
      'layer "g": tile id 12 is not in any tileset: the cell at (1, 0) left empty, as Tiled shows it',
    ]);
    const ok = loadMap(write("old.tmx", old.replace("1,12", "1,6")));
    expect([...ok.tiles]).toEqual([1, 6]);
  });
});

describe("TMJ", () => {
  const tileset = {
    firstgid: 1,
    name: "t",
    tilewidth: 8,
    tileheight: 8,
    tilecount: 16,
    columns: 4,
    image: "t.png",
    imagewidth: 32,
    imageheight: 32,
    tiles: [{ id: 4, properties: [{ name: "collides", type: "bool", value: true }] }],
  };
  function tmj(layers: unknown[], extra: Record<string, unknown> = {}): string {
    return JSON.stringify({
      type: "map",
      orientation: "orthogonal",
      width: 3,
      height: 2,
      tilewidth: 8,
      tileheight: 8,
      infinite: false,
      tilesets: [tileset],
      layers,
      ...extra,
    });
  }
  const gids = [1, 2, 3, 4, 0x40000005, 6];
  const tileLayer = (fields: Record<string, unknown>) => ({
    type: "tilelayer",
    name: "g",
    width: 3,
    height: 2,
    ...fields,
  });

  it("reads arrays and base64 (plain, zlib, gzip) data alike", () => {
    for (const fields of [
      { data: gids },
      { encoding: "base64", data: base64Gids(gids, "") },
      { encoding: "base64", compression: "zlib", data: base64Gids(gids, "zlib") },
      { encoding: "base64", compression: "gzip", data: base64Gids(gids, "gzip") },
    ]) {
      const map = loadMap(write("m.tmj", tmj([tileLayer(fields)])));
      expect(drawnIds(map)).toEqual([1, 2, 3, 4, 5, 6]);
      expect(map.tileData.get(5)?.collides).toBe(true);
    }
  });

  it("walks groups depth-first; a hidden group hides its layers, but collision layers count even when hidden", () => {
    const layers = [
      tileLayer({ name: "floor", data: [1, 1, 1, 1, 1, 1] }),
      {
        type: "group",
        name: "hidden",
        visible: false,
        layers: [
          tileLayer({ name: "deco", data: [2, 2, 2, 2, 2, 2] }),
          tileLayer({ name: "Collisions", data: [0, 0, 9, 0, 0, 0] }),
        ],
      },
      {
        type: "group",
        name: "top",
        layers: [
          tileLayer({ name: "marks", data: [0, 3, 0, 0, 0, 0] }),
          tileLayer({
            name: "blockers",
            data: [0, 0, 0, 0, 0, 7],
            properties: [{ name: "collides", type: "bool", value: true }],
          }),
        ],
      },
    ];
    const map = loadMap(write("groups.tmj", tmj(layers)));
    expect(map.source.groupLayers).toBe(2);
    expect(map.source.collisionLayers).toEqual(["hidden/Collisions", "top/blockers"]);
    const flags = tileFlagsTable(map.tileData);
    const drawn = Array.from(map.tiles, (id) => map.tileData.get(id)!.twinOf ?? id);
    expect(drawn).toEqual([1, 3, 1, 1, 1, 1]);
    expect(Array.from(map.tiles, (id) => flags[id] & TILE_FLAG_COLLIDES)).toEqual([0, 0, 1, 0, 0, 1]);
  });

  it("assembles infinite maps from chunks and shifts objects with them", () => {
    const chunk = (x: number, y: number, fill: number) => ({
      x,
      y,
      width: 2,
      height: 2,
      data: [fill, fill, fill, fill],
    });
    const text = tmj(
      [
        { type: "tilelayer", name: "g", startx: -2, starty: -4, chunks: [chunk(-2, -4, 1), chunk(2, 0, 2)] },
        {
          type: "objectgroup",
          name: "Spawns",
          objects: [{ id: 1, name: "s", x: -12, y: -28, point: true }],
        },
      ],
      { infinite: true, width: 1, height: 1 },
    );
    const map = loadMap(write("inf.tmj", text));
    expect([map.width, map.height, map.source.originX, map.source.originY]).toEqual([6, 6, -2, -4]);
    const row = (y: number) => Array.from(map.tiles.subarray(y * 6, y * 6 + 6));
    expect(row(0)).toEqual([1, 1, 0, 0, 0, 0]);
    expect(row(4)).toEqual([0, 0, 0, 0, 2, 2]);
    // Pixel (-12, -28) is Tiled tile (-2, -4): world (0, 0).
    expect(map.spawns).toEqual([{ x: 0, y: 0 }]);
  });

  it("reads old-style (pre-1.2) object properties and tileproperties", () => {
    const old = { ...tileset, tiles: undefined, tileproperties: { "1": { collides: true } } };
    const map = loadMap(
      write("old.tmj", tmj([tileLayer({ data: [1, 2, 1, 1, 1, 1], properties: { note: "x" } })], { tilesets: [old] })),
    );
    expect(map.tileData.get(2)?.collides).toBe(true);
    expect(map.tileData.get(1)?.collides).toBe(false);
  });
});

describe("objects: spawns and interactables", () => {
  const body = (objects: string, layerName = "spawns") =>
    `<layer name="g" width="4" height="4"><data encoding="csv">${Array(16).fill(1).join(",")}</data></layer>
     <objectgroup name="${layerName}">${objects}</objectgroup>`;

  it("spawns are point objects of type/class spawn or in a layer named like spawn; areas are not", () => {
    const objects = `<object id="1" x="9" y="1"><point/></object>
      <object id="2" x="20" y="20" width="8" height="8"/>`;
    const map = loadMap(write("sp.tmx", tmxMap(4, 4, body(objects, "Player Spawns"))));
    expect(map.spawns).toEqual([{ x: 1, y: 0 }]);
    const typed = `<object id="1" class="Spawn" x="17" y="25"><point/></object><object id="2" type="door" x="1" y="1"><point/></object>`;
    expect(loadMap(write("sp.tmx", tmxMap(4, 4, body(typed, "misc")))).spawns).toEqual([{ x: 2, y: 3 }]);
  });

  it("interactables carry kind and text", () => {
    const objects = `<object id="3" name="sign" x="4" y="12"><properties><property name="kind" value="sign"/><property name="text" value="Hello&#10;there &amp; &lt;welcome&gt;"/></properties><point/></object>
      <object id="4" x="28" y="28"><properties><property name="kind" value="notice_board"/></properties><point/></object>`;
    const map = loadMap(write("it.tmx", tmxMap(4, 4, body(objects, "interactables"))));
    expect(map.interactables.map(({ id, kind, text, x, y }) => ({ id, kind, text, x, y }))).toEqual([
      { id: 3, kind: "sign", text: "Hello\nthere & <welcome>", x: 0, y: 1 },
      { id: 4, kind: "notice_board", text: undefined, x: 3, y: 3 },
    ]);
    expect(map.objects.length).toBe(2);
  });
});
