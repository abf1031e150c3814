// Over layers (issue 16, docs/maps.md § Over layers): tiles of a map's Over
// layers (sourceoftales), of the layers after WorkAdventure's floorLayer, or
// of a layer whose property says so, are drawn after the entities. The server
// gives each such cell's stack an over look in the atlas (transparent where
// nothing is over) and names it in the world's tile data; the real renderer
// on the real wasm blitter draws a roof over an entity standing under it, and
// the entity over plain ground.
import { NO_TINT } from "../ts/server/map/tile-stacks.js";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { encode } from "fast-png";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MapArtInfo } from "../ts/client/core/session-api.js";
import { installMapArt } from "../ts/client/render/map-art.js";
import { overLayersOf } from "../ts/server/map/flatten.js";
import { loadMap, readRawMap } from "../ts/server/map/load-map.js";
import { maskGid } from "../ts/server/map/gid.js";
import { readWorldMap } from "../ts/server/world/world-map.js";
import { checkMap } from "../ts/tools/map.js";
import { loadCore } from "../ts/wasm/node.js";
import { makeRenderRig, type RenderRig, renderAtRigCamera, rigScreenOf } from "./client-render-rig.js";
import { spriteCellFor } from "../ts/client/render/entity-sprites.js";
import { MAPS_REAL } from "./support/maps-real.js";

const dir = mkdtempSync(join(tmpdir(), "map-over-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** RGB332 of the test tileset's colours (exact levels: the dither leaves them as they are). */
const GRASS = 0x1c; // (0, 255, 0)
const ROOF = 0xe0; // (255, 0, 0)
/** The roof tile covers the top ROOF_ROWS rows of its cell; below them it is transparent (its eaves end). */
const ROOF_ROWS = 5;

/** A 2-tile 8 px tileset: tile 0 grass, tile 1 a roof over the top ROOF_ROWS rows, transparent below. */
function writeTileset(): void {
  const data = new Uint8Array(16 * 8 * 4);
  for (let y = 0; y < 8; y++) {
    for (let x = 0; x < 16; x++) {
      const at = (y * 16 + x) * 4;
      if (x < 8) data.set([0, 255, 0, 255], at);
      else if (y < ROOF_ROWS) data.set([255, 0, 0, 255], at);
    }
  }
  writeFileSync(join(dir, "t.png"), encode({ width: 16, height: 8, data, channels: 4 }));
}

/** A 16 × 16 map of grass with a roof tile at (10, 12) in a layer named `overName` (properties as given). */
function writeMap(name: string, overName: string, overProperties = ""): string {
  const ground = Array.from({ length: 256 }, () => 1).join(",");
  const over = Array.from({ length: 256 }, (_, i) => (i === 12 * 16 + 10 ? 2 : 0)).join(",");
  const path = join(dir, name);
  writeFileSync(
    path,
    `<map orientation="orthogonal" width="16" height="16" tilewidth="8" tileheight="8">
 <tileset firstgid="1" name="t" tilewidth="8" tileheight="8" tilecount="2" columns="2"><image source="t.png" width="16" height="8"/></tileset>
 <layer name="Ground" width="16" height="16"><data encoding="csv">${ground}</data></layer>
 <layer name="${overName}" width="16" height="16">${overProperties}<data encoding="csv">${over}</data></layer>
</map>`,
  );
  return path;
}

writeTileset();

describe("which layers are over", () => {
  it("named Over/OverN, after floorLayer, or by property; a property wins, collision layers never", () => {
    const layer = (name: string, properties: Record<string, unknown> = {}, path = name) =>
      ({ name, path, visible: true, properties, chunks: [] }) as Parameters<typeof overLayersOf>[0][number];
    const layers = [
      layer("Ground"),
      layer("Over"),
      layer("Over2"),
      layer("roof", { over: true }),
      layer("Over3", { over: false }),
      layer("tops", { layer: "over" }),
      layer("above1", {}, "above/above1"),
      layer("Collision"),
      layer("Overlay"),
    ];
    const names = (set: Set<unknown>) => layers.filter((one) => set.has(one)).map((one) => one.path);
    expect(names(overLayersOf(layers, []))).toEqual(["Over", "Over2", "roof", "tops"]);
    // WorkAdventure: every tile layer after the object layer floorLayer (here: after the first 6).
    expect(names(overLayersOf(layers, [{ name: "floorLayer", tileLayersBefore: 6 }]))).toEqual([
      "Over",
      "Over2",
      "roof",
      "tops",
      "above/above1",
      "Overlay",
    ]);
  });
});

describe("an over layer served and drawn", () => {
  let rig: RenderRig;
  beforeAll(async () => {
    rig = await makeRenderRig();
  });

  it("the world's tile data names the over look of the roof cell, and no other", () => {
    const path = writeMap("roof.tmx", "Over");
    const world = readWorldMap(path);
    const roofId = world.tiles[12 * 16 + 10];
    const withOver = world.tileInfo.filter((tile) => tile.over !== undefined);
    expect(withOver.map((tile) => tile.id)).toEqual([roofId]);
    expect(withOver[0].overStack).toEqual([2, 0, 0, 255, NO_TINT]);
    // Under the roof the cell draws its grass; the plain grass id has the same under look.
    const grassLook = world.tileInfo.find((tile) => tile.id === world.tiles[0])!.look;
    expect(withOver[0].look).toBe(grassLook);
    // The over look: the roof's rows, transparent (0) below.
    const art = world.art!;
    const over = withOver[0].over!;
    const stride = art.columns * 8;
    const top = Math.floor(over / art.columns) * 8 * stride + (over % art.columns) * 8;
    for (let y = 0; y < 8; y++) {
      expect([...art.pixels.subarray(top + y * stride, top + y * stride + 8)]).toEqual(
        new Array<number>(8).fill(y < ROOF_ROWS ? ROOF : 0),
      );
    }
    // The same map with the layer named otherwise draws the roof under the entities, in one look.
    const flat = readWorldMap(writeMap("flat.tmx", "Roofs"));
    expect(flat.tileInfo.some((tile) => tile.over !== undefined)).toBe(false);
    // ... and a property can make it over.
    const byProperty = readWorldMap(
      writeMap("prop.tmx", "Roofs", '<properties><property name="over" type="bool" value="true"/></properties>'),
    );
    expect(byProperty.tileInfo.filter((tile) => tile.over !== undefined)).toHaveLength(1);
  });

  it("the renderer draws the roof over an entity under it, and the entity over plain ground", () => {
    const world = readWorldMap(writeMap("roof-render.tmx", "Over"));
    const art = world.art!;
    const info: MapArtInfo = {
      url: "/art",
      tileSizePx: 8,
      columns: art.columns,
      tileCount: art.tileCount,
      bytes: art.pixels.length,
    };
    const sheet = installMapArt(rig.blitter, info, art.pixels, world.tileInfo);
    expect(sheet.hasOver).toBe(true);
    rig.renderer.setMapTiles(sheet);
    expect(rig.sim.initGrid(64, 64, 0, 0)).toBe(true);
    for (let y = 0; y < 16; y++) for (let x = 0; x < 16; x++) rig.sim.setTile(x, y, world.tiles[y * 16 + x]);

    const cellPixels = (x: number, y: number): number[][] => {
      const at = rigScreenOf(x, y);
      const fb = rig.blitter.framebuffer();
      const width = rig.blitter.width;
      return Array.from({ length: 8 }, (_, row) => [
        ...fb.subarray((at.y + row) * width + at.x, (at.y + row) * width + at.x + 8),
      ]);
    };
    const sprite = spriteCellFor(0, 0);
    // Without entities: the roof's rows over grass, grass below them; grass beside it.
    renderAtRigCamera(rig, []);
    const emptyRoof = cellPixels(10, 12);
    const emptyGround = cellPixels(11, 12);
    emptyRoof.forEach((row, y) => expect(row).toEqual(new Array<number>(8).fill(y < ROOF_ROWS ? ROOF : GRASS)));
    emptyGround.forEach((row) => expect(row).toEqual(new Array<number>(8).fill(GRASS)));

    // An entity on each: on plain ground it shows (in the roof's rows too), under the roof only below the eaves.
    renderAtRigCamera(rig, [
      { xPx: 10 * 8, yPx: 12 * 8, cell: sprite },
      { xPx: 11 * 8, yPx: 12 * 8, cell: sprite },
    ]);
    const ground = cellPixels(11, 12);
    const roof = cellPixels(10, 12);
    const changed = (cell: number[][], empty: number[][], rows: number[]) =>
      rows.some((y) => cell[y].some((pixel, x) => pixel !== empty[y][x]));
    const roofRows = Array.from({ length: ROOF_ROWS }, (_, y) => y);
    const lowRows = Array.from({ length: 8 - ROOF_ROWS }, (_, y) => ROOF_ROWS + y);
    // The sprite has ink in the roof's rows: without the over pass they would show it under the roof too.
    expect(changed(ground, emptyGround, roofRows)).toBe(true);
    expect(changed(roof, emptyRoof, roofRows)).toBe(false);
    // Below the eaves the entity shows as on the ground beside it.
    expect(changed(ground, emptyGround, lowRows)).toBe(true);
    for (const y of lowRows) expect(roof[y]).toEqual(ground[y]);
  });

  it("a map without over layers installs no over looks and the frame makes no over pass", () => {
    const world = readWorldMap(writeMap("no-over.tmx", "Roofs"));
    const art = world.art!;
    const info: MapArtInfo = {
      url: "/art",
      tileSizePx: 8,
      columns: art.columns,
      tileCount: art.tileCount,
      bytes: art.pixels.length,
    };
    expect(installMapArt(rig.blitter, info, art.pixels, world.tileInfo).hasOver).toBe(false);
  });
});

describe("sourceoftales served", () => {
  it("every cell with a tile in its Over layers gets an over look, and map check counts them", async () => {
    const path = join(MAPS_REAL, "sourceoftales/maps/goldenfields/main.tmx");
    const raw = readRawMap(path);
    const overLayers = [...overLayersOf(raw.tileLayers, raw.objectLayers)].map((layer) => layer.path);
    expect(overLayers).toEqual(["Over", "Over1", "Over2", "Over3"]);
    const map = loadMap(path);
    const world = readWorldMap(path);
    const overIds = new Set(world.tileInfo.filter((tile) => tile.over !== undefined).map((tile) => tile.id));
    let overCells = 0;
    for (const layer of raw.tileLayers.filter((one) => overLayers.includes(one.path))) {
      for (const chunk of layer.chunks) {
        for (let i = 0; i < chunk.gids.length; i++) {
          if (maskGid(chunk.gids[i]) === 0) continue;
          const cell = (chunk.y + Math.floor(i / chunk.width)) * map.width + chunk.x + (i % chunk.width);
          expect(overIds.has(map.tiles[cell])).toBe(true);
          overCells++;
        }
      }
    }
    expect(overCells).toBeGreaterThan(1000);
    expect(map.source.overCount).toBe(overIds.size);
    const check = checkMap(path, await loadCore());
    expect(check.errors).toEqual([]);
    expect(check.lines.join("\n")).toContain(
      `over the entities: layers "Over", "Over1", "Over2", "Over3", ${overIds.size} stack ids with an over look (${overIds.size} drawn)`,
    );
  });
});
