// Tiled object templates (issue 42: object-templates.ts): an object placed with
// template="….tx" (TMX) or "template": "….tj" (TMJ) takes every field it does
// not state from the template's object, properties merged by name; a template's
// tile is numbered in its own tileset reference (relative to the template) and
// renumbered into the map's GIDs, that tileset added to the map when the map
// lacks it; a missing or malformed template is a warning naming the object, the
// template and why (in `map check` too), and the map loads. Every object kind
// goes through the same merge: tile objects, spawns, signs. And Tiled's
// sticker-knight maps, whose hero, blocks and gems are all placed by template.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadMap, readRawMap } from "../ts/server/map/load-map.js";
import { checkMap } from "../ts/tools/map.js";
import type { Core } from "../ts/wasm/core.js";
import { loadCore } from "../ts/wasm/node.js";
import { STICKER_KNIGHT } from "./support/maps-real.js";

const dir = mkdtempSync(join(tmpdir(), "map-templates-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let counter = 0;

/** Writes `files` (paths relative to a fresh folder) and returns the folder. */
function folder(files: Record<string, string>): string {
  const root = join(dir, String(counter++));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(root, name, ".."), { recursive: true });
    writeFileSync(join(root, name), text);
  }
  return root;
}

const SIZE = 6;
const GROUND = Array.from({ length: SIZE * SIZE }, () => 1).join(",");
/** A 6×6 map of 8-px tiles, GID 1..16 its own tileset "t", its objects in one layer "objects"; `tilesets` more <tileset>s. */
function tmx(objects: string, tilesets = ""): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<map version="1.10" orientation="orthogonal" width="${SIZE}" height="${SIZE}" tilewidth="8" tileheight="8" infinite="0">
 <tileset firstgid="1" name="t" tilewidth="8" tileheight="8" tilecount="16" columns="4"><image source="t.png" width="32" height="32"/></tileset>
 ${tilesets}
 <layer id="1" name="ground" width="${SIZE}" height="${SIZE}"><data encoding="csv">${GROUND}</data></layer>
 <objectgroup id="2" name="objects">${objects}</objectgroup>
</map>`;
}

/** The same map in TMJ, its objects given as JSON. */
function tmj(objects: unknown[]): string {
  return JSON.stringify({
    type: "map",
    orientation: "orthogonal",
    width: SIZE,
    height: SIZE,
    tilewidth: 8,
    tileheight: 8,
    infinite: false,
    tilesets: [
      {
        firstgid: 1,
        name: "t",
        tilewidth: 8,
        tileheight: 8,
        tilecount: 16,
        columns: 4,
        image: "t.png",
        imagewidth: 32,
        imageheight: 32,
      },
    ],
    layers: [
      { type: "tilelayer", name: "ground", width: SIZE, height: SIZE, data: GROUND.split(",").map(Number) },
      { type: "objectgroup", name: "objects", objects },
    ],
  });
}

/** A 2×2 tileset of 8-px tiles kept apart from the map, as sticker-knight's objs.tsx is. */
const OTHER_TSX = `<?xml version="1.0" encoding="UTF-8"?>
<tileset version="1.10" name="other" tilewidth="8" tileheight="8" tilecount="4" columns="2"><image source="o.png" width="16" height="16"/></tileset>`;

const SIGN_TX = `<?xml version="1.0" encoding="UTF-8"?>
<template>
 <object name="sign" type="notice">
  <properties>
   <property name="kind" value="sign"/>
   <property name="text" value="from the template"/>
   <property name="colour" value="red"/>
  </properties>
  <point/>
 </object>
</template>`;

/** A tile object whose tile is local id 1 of ../art/other.tsx (numbered from 5 in the template), flipped horizontally. */
const GEM_TX = `<?xml version="1.0" encoding="UTF-8"?>
<template>
 <tileset firstgid="5" source="../art/other.tsx"/>
 <object type="coin" gid="${(0x80000000 | 6) >>> 0}" width="8" height="8"/>
</template>`;

describe("object templates", () => {
  it("the instance's own attributes and properties override the template's; the rest is the template's", () => {
    const root = folder({
      "tpl/sign.tx": SIGN_TX,
      "map.tmx": tmx(`
  <object id="1" template="tpl/sign.tx" x="12" y="12"/>
  <object id="2" template="tpl/sign.tx" name="own" x="28" y="20" visible="0">
   <properties><property name="text" value="mine"/></properties>
  </object>`),
    });
    const map = loadMap(join(root, "map.tmx"));
    expect(map.warnings).toEqual([]);
    const [first, second] = map.objects;
    expect(first).toMatchObject({ id: 1, name: "sign", type: "notice", point: true, x: 1, y: 1 });
    expect(first.properties).toEqual({ kind: "sign", text: "from the template", colour: "red" });
    expect(second).toMatchObject({ id: 2, name: "own", type: "notice", point: true, x: 3, y: 2 });
    expect(second.properties).toEqual({ kind: "sign", text: "mine", colour: "red" });
    // Signs are read from the merged objects like any other: the template's kind and text make them interactables.
    expect(map.interactables.map(({ id, kind, text }) => ({ id, kind, text }))).toEqual([
      { id: 1, kind: "sign", text: "from the template" },
      { id: 2, kind: "sign", text: "mine" },
    ]);
    const raw = readRawMap(join(root, "map.tmx")).objects;
    expect(raw.map((object) => object.visible)).toEqual([true, false]);
    expect(raw[0].shape).toMatchObject({ kind: "point", x: 12, y: 12 });
  });

  it("a template's tile is renumbered from its own tileset (relative to the template), added to the map when the map lacks it", () => {
    const files = { "tpl/gem.tx": GEM_TX, "art/other.tsx": OTHER_TSX };
    const lacking = folder({
      ...files,
      "map.tmx": tmx(`<object id="1" template="tpl/gem.tx" x="16" y="24"/>`),
    });
    const raw = readRawMap(join(lacking, "map.tmx"));
    expect(raw.warnings).toEqual([]);
    expect(raw.tilesets.map(({ name, firstGid }) => ({ name, firstGid }))).toEqual([
      { name: "t", firstGid: 1 },
      { name: "other", firstGid: 17 },
    ]);
    // Local id 1 of "other", the horizontal flip kept.
    expect(raw.objects[0]).toMatchObject({ type: "coin", gid: (0x80000000 | 18) >>> 0, widthPx: 8, heightPx: 8 });
    const map = loadMap(join(lacking, "map.tmx"));
    expect(map.source.tileObjects).toMatchObject({ stamped: 1, notDrawn: [] });
    expect(map.art!.tilesets.map((tileset) => tileset.name)).toEqual(["t", "other"]);

    // The map has that tileset already (at 30): the template's tile is the map's copy of it, nothing added.
    const having = folder({
      ...files,
      "map.tmx": tmx(
        `<object id="1" template="tpl/gem.tx" x="16" y="24"/><object id="2" template="tpl/gem.tx" gid="2" x="8" y="8"/>`,
        `<tileset firstgid="30" source="art/other.tsx"/>`,
      ),
    });
    const rawHaving = readRawMap(join(having, "map.tmx"));
    expect(rawHaving.tilesets.map((tileset) => tileset.firstGid)).toEqual([1, 30]);
    // The second instance states its own gid (in the map's numbering): it wins over the template's.
    expect(rawHaving.objects.map((object) => object.gid)).toEqual([(0x80000000 | 31) >>> 0, 2]);
  });

  it("TMJ maps read templates too, of either format, and a templated spawn is a spawn", () => {
    const root = folder({
      "tpl/gem.tx": GEM_TX,
      "art/other.tsx": OTHER_TSX,
      "tpl/start.tj": JSON.stringify({ type: "template", object: { name: "start", type: "spawn", point: true } }),
      "map.tmj": tmj([
        { id: 1, template: "tpl/start.tj", x: 20, y: 36 },
        { id: 2, template: "tpl/gem.tx", x: 8, y: 16, name: "gem" },
      ]),
    });
    const map = loadMap(join(root, "map.tmj"));
    expect(map.warnings).toEqual([]);
    expect(map.spawns).toEqual([{ x: 2, y: 4 }]);
    expect(map.source.spawnFallback).toBe(false);
    expect(map.objects[1]).toMatchObject({ name: "gem", type: "coin" });
    expect(readRawMap(join(root, "map.tmj")).objects[1].gid).toBe((0x80000000 | 18) >>> 0);
    expect(map.source.tileObjects).toMatchObject({ stamped: 1, notDrawn: [] });
  });

  it("a missing or malformed template, or one whose tileset is missing, is a warning naming the object, template and reason; the map loads", async () => {
    const root = folder({
      "tpl/broken.tx": `<?xml version="1.0"?><template><object name="x"`,
      "tpl/map.tx": `<?xml version="1.0"?><map/>`,
      "tpl/bad.tj": `{"type": "template", "object": `,
      "tpl/lost.tx": GEM_TX.replace("../art/other.tsx", "../art/lost.tsx"),
      "tpl/untiled.tx": GEM_TX.replace(/ <tileset [^>]*\/>\n/, ""),
      "map.tmx": tmx(`
  <object id="3" template="tpl/nothere.tx" x="8" y="8"/>
  <object id="4" name="b" template="tpl/broken.tx" x="8" y="8"/>
  <object id="5" template="tpl/map.tx" x="8" y="8"/>
  <object id="6" template="tpl/bad.tj" x="8" y="8"/>
  <object id="7" template="tpl/lost.tx" x="16" y="24"/>
  <object id="8" template="tpl/untiled.tx" x="16" y="24"/>`),
    });
    const map = loadMap(join(root, "map.tmx"));
    expect(map.warnings).toHaveLength(6);
    expect(map.warnings[0]).toBe(
      'object 3 in layer "objects": template "tpl/nothere.tx" cannot be read (ENOENT): the object kept as the map states it',
    );
    expect(map.warnings[1]).toMatch(/^object 4 "b" in layer "objects": template "tpl\/broken.tx" is malformed \(.+\)/);
    expect(map.warnings[2]).toMatch(/template "tpl\/map.tx" is malformed \(root element <map>, not <template>\)/);
    expect(map.warnings[3]).toMatch(/^object 6 .*template "tpl\/bad.tj" is malformed \(bad JSON: /);
    expect(map.warnings[4]).toMatch(
      /^object 7 in layer "objects": template "tpl\/lost.tx" has tileset "..\/art\/lost.tsx" that cannot be used \(.*ENOENT.*\): its tile is not drawn$/,
    );
    expect(map.warnings[5]).toBe(
      'object 8 in layer "objects": template "tpl/untiled.tx" has a tile (gid 6) but no <tileset>: its tile is not drawn',
    );
    // The objects are there as the map states them; the one with a lost tileset keeps the template's other fields.
    expect(map.objects.map((object) => object.id)).toEqual([3, 4, 5, 6, 7, 8]);
    expect(map.objects.slice(4).map((object) => object.type)).toEqual(["coin", "coin"]);
    expect(map.source.tileObjects).toMatchObject({ stamped: 0, free: 0 });
    const core: Core = await loadCore();
    const check = checkMap(join(root, "map.tmx"), core);
    expect(check.errors).toEqual([]);
    expect(check.lines).toContain(`  warning: ${map.warnings[0]}`);
  });
});

/** The objects sticker-knight's maps place through templates/hero.tx, block.tx and diamond.tx. */
const TEMPLATED = {
  sandbox: [58, 111, 182, 190, 191, 192, 200, 201, 202],
  sandbox2: [58, 111, 231],
};

describe.skipIf(!existsSync(join(STICKER_KNIGHT, "map/sandbox.tmx")))("sticker-knight's templated objects", () => {
  for (const [name, ids] of Object.entries(TEMPLATED)) {
    it(`${name}.tmx: the hero, blocks and gems are tile objects of objs.tsx, drawn free, no warning`, () => {
      const file = join(STICKER_KNIGHT, "map", `${name}.tmx`);
      const raw = readRawMap(file);
      expect(raw.warnings).toEqual([]);
      // Their templates name the map's own objs.tsx (from ../objs.tsx): nothing is added.
      expect(raw.tilesets).toHaveLength(1);
      const templated = raw.objects.filter((object) => ids.includes(object.id));
      expect(templated.map((object) => object.id).sort((a, b) => a - b)).toEqual(ids);
      for (const object of templated) {
        expect(object.gid).not.toBe(0);
        expect({ id: object.id, w: object.widthPx, h: object.heightPx }).toEqual({
          id: object.id,
          ...{ 22: { w: 128, h: 160 }, 44: { w: 96, h: 96 }, 17: { w: 64, h: 64 } }[object.gid],
        });
      }
      const map = loadMap(file);
      expect(map.warnings).toEqual([]);
      expect(map.source.tileObjects.notDrawn).toEqual([]);
      expect(map.objects.find((object) => object.id === 58)).toMatchObject({ name: "hero", type: "hero" });
    });
  }
});
