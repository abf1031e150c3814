// A host's own map art (issue 16, docs/art.md § Map art): the atlas the server
// builds from the tileset images, drawn through the real wasm blitter, against
// a reference painting made from the same images by an independent painter
// (test/support/map-painter.ts); a missing image is a placeholder and a
// message, not a crash; the bundled map keeps the client's own art; the atlas
// route serves exactly the atlas, cached for ever under its hash.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { checkMap } from "../ts/tools/map.js";
import { HttpApi } from "../ts/server/http/http-api.js";
import { installMapArtRoute, mapArtDescription, mapArtPath } from "../ts/server/http/map-art-route.js";
import { loadMap, readRawMap } from "../ts/server/map/load-map.js";
import { OVER_BLACK } from "../ts/server/map/map-atlas.js";
import { NO_TINT } from "../ts/server/map/tile-stacks.js";
import { ditherRgb332, expandRgb332 } from "../ts/server/map/rgb332-dither.js";
import { pngFile } from "./support/png-file.js";
import { readWorldMap } from "../ts/server/world/world-map.js";
import { installMapArt } from "../ts/client/render/map-art.js";
import type { MapArtInfo } from "../ts/client/core/session-api.js";
import { WasmBlitter } from "../ts/wasm/blit.js";
import { loadCore } from "../ts/wasm/node.js";
import { paintedColour, paintRegion } from "./support/map-painter.js";
import { MAPS_REAL } from "./support/maps-real.js";

const real = (file: string): string => resolve(MAPS_REAL, file);
const FB_WIDTH = 320;

describe("map art through the atlas and the wasm blitter", () => {
  it("draws tiled_flipped's four flips of GID 3 as Tiled paints them (H+V+D, V, H, D)", async () => {
    const file = real("rs-tiled/tiled_flipped.tmx");
    const world = readWorldMap(file);
    const art = world.art!;
    expect(art.problems).toEqual([]);
    expect(art.tileWidthPx).toBe(32);
    const info: MapArtInfo = mapArtDescription(art) as unknown as MapArtInfo;
    const blitter = new WasmBlitter(await loadCore());
    const sheet = installMapArt(blitter, info, art.pixels, world.tileInfo);
    const tilesPtr = blitter.stageTiles(world.tiles);
    blitter.fillRect(0, 0, 320, 240, 0);
    blitter.drawTilemap(tilesPtr, 2, 2, 2, 0, 0, sheet.ptr, sheet.columns, 32, 32, 0, 0, 320, 240);
    const fb = blitter.framebuffer();

    const painting = paintRegion(readRawMap(file), 0, 0, 64, 64);
    let exact = 0;
    for (let y = 0; y < 64; y++) {
      for (let x = 0; x < 64; x++) {
        const [r, g, b] = paintedColour(painting, x, y);
        if (fb[y * FB_WIDTH + x] === ditherRgb332(Math.round(r), Math.round(g), Math.round(b), x, y)) exact++;
      }
    }
    // The same dithering of the same colours; only rounding at soft alpha edges may differ.
    expect(exact / (64 * 64)).toBeGreaterThan(0.99);
    // The four cells differ: each flip really is drawn (GID 3 is not symmetric).
    const cell = (cx: number, cy: number): string =>
      Array.from({ length: 32 }, (_, y) =>
        fb.subarray((cy * 32 + y) * FB_WIDTH + cx * 32, (cy * 32 + y) * FB_WIDTH + cx * 32 + 32).join(","),
      ).join(";");
    expect(new Set([cell(0, 0), cell(1, 0), cell(0, 1), cell(1, 1)]).size).toBe(4);
  });

  it("draws a layer tinted as Tiled's tintcolor, a group's times its layer's, its alpha as opacity", async () => {
    const dir = mkdtempSync(join(tmpdir(), "map-tint-"));
    try {
      // A 16 × 16 tileset image: tile 1 white at the top, mid grey below (a tint must keep the picture's shading).
      const rows: number[] = [];
      for (let y = 0; y < 16; y++) {
        rows.push(0);
        for (let x = 0; x < 16; x++) rows.push(...(y < 8 ? [255, 255, 255, 255] : [128, 128, 128, 255]));
      }
      writeFileSync(join(dir, "white.png"), pngFile(16, 16, Buffer.from(rows)));
      const file = join(dir, "tinted.tmx");
      // Cells: 0 untinted; 1 tinted orange; 2 a group's cyan times its layer's yellow (= green); 3 a tint whose
      // alpha (#80…) halves the layer over black; 4 a tint that is not a colour (drawn untinted, and said); 5 a
      // tile object of a red-tinted object layer (Tiled tints an object layer's tile objects).
      writeFileSync(
        file,
        `<map orientation="orthogonal" width="6" height="1" tilewidth="16" tileheight="16">
 <tileset firstgid="1" name="white" tilewidth="16" tileheight="16" tilecount="1" columns="1"><image source="white.png" width="16" height="16"/></tileset>
 <layer name="plain" width="6" height="1"><data encoding="csv">1,0,0,0,0,0</data></layer>
 <layer name="orange" width="6" height="1" tintcolor="#ff8000"><data encoding="csv">0,1,0,0,0,0</data></layer>
 <group name="sea" tintcolor="#00ffff"><layer name="sun" width="6" height="1" tintcolor="#ffff00"><data encoding="csv">0,0,1,0,0,0</data></layer></group>
 <layer name="faint" width="6" height="1" tintcolor="#80ffffff"><data encoding="csv">0,0,0,1,0,0</data></layer>
 <layer name="odd" width="6" height="1" tintcolor="orange"><data encoding="csv">0,0,0,0,1,0</data></layer>
 <objectgroup name="lamps" tintcolor="#ff0000"><object id="1" gid="1" x="80" y="16" width="16" height="16"/></objectgroup>
</map>`,
      );
      const raw = readRawMap(file);
      expect(raw.tileLayers.map((layer) => [layer.path, layer.tint, layer.opacity])).toEqual([
        ["plain", undefined, 1],
        ["orange", 0xff8000, 1],
        ["sea/sun", 0x00ff00, 1],
        ["faint", undefined, 128 / 255],
        ["odd", undefined, 1],
      ]);
      expect(raw.warnings).toEqual(['layer "odd" has tintcolor "orange", not a colour: drawn untinted']);
      const world = readWorldMap(file);
      const art = world.art!;
      expect(art.problems).toEqual([]);
      const stackOf = (cell: number) => world.tileInfo.find((tile) => tile.id === world.tiles[cell])?.stack;
      expect(stackOf(0)).toBeUndefined(); // the plain cell stays a plain id
      expect(stackOf(1)).toEqual([1, 0, 0, 255, 0xff8000]);
      expect(stackOf(2)).toEqual([1, 0, 0, 255, 0x00ff00]);
      expect(stackOf(3)).toEqual([1, 0, 0, 128, NO_TINT]);
      expect(stackOf(4)).toBeUndefined();
      expect(stackOf(5)).toEqual([1, 0, 0, 255, 0xff0000]);
      // Drawn through the atlas and the wasm blitter, each cell's mean colour is the independent painter's.
      const info: MapArtInfo = mapArtDescription(art) as unknown as MapArtInfo;
      const blitter = new WasmBlitter(await loadCore());
      const sheet = installMapArt(blitter, info, art.pixels, world.tileInfo);
      const tilesPtr = blitter.stageTiles(world.tiles);
      blitter.fillRect(0, 0, 320, 240, 0);
      blitter.drawTilemap(tilesPtr, 6, 6, 1, 0, 0, sheet.ptr, sheet.columns, 16, 16, 0, 0, 320, 240);
      const fb = blitter.framebuffer();
      const painting = paintRegion(raw, 0, 0, 96, 16);
      const means = (cell: number, colourAt: (x: number, y: number) => readonly number[]): number[] => {
        const sum = [0, 0, 0];
        for (let y = 0; y < 16; y++)
          for (let x = cell * 16; x < cell * 16 + 16; x++) colourAt(x, y).forEach((v, c) => (sum[c] += v));
        return sum.map((value) => value / 256);
      };
      const drawn = (cell: number) => means(cell, (x, y) => expandRgb332(fb[y * FB_WIDTH + x]));
      const painted = (cell: number) => means(cell, (x, y) => paintedColour(painting, x, y));
      for (let cell = 0; cell < 5; cell++) {
        drawn(cell).forEach((value, channel) => expect(Math.abs(value - painted(cell)[channel])).toBeLessThan(12));
      }
      // What the painter says, in numbers: orange keeps red, halves green, drops blue; green; half grey.
      expect(painted(1).map(Math.round)).toEqual([192, 96, 0]);
      expect(painted(2).map(Math.round)).toEqual([0, 192, 0]);
      expect(painted(3).map(Math.round)).toEqual([96, 96, 96]);
      expect(painted(4).map(Math.round)).toEqual(painted(0).map(Math.round));
      // The tile object, which the painter does not place: red, shaded as its tile.
      const [red, green, blue] = drawn(5);
      expect([Math.abs(red - 192) < 12, green < 12, blue < 12]).toEqual([true, true, true]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("draws a layer as opaque as Tiled's layer opacity, a group's times its layer's (a 25 % blue over red)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "map-opacity-"));
    try {
      // A 32 × 16 tileset image: tile 1 solid red, tile 2 solid blue.
      const rows: number[] = [];
      for (let y = 0; y < 16; y++) {
        rows.push(0);
        for (let x = 0; x < 32; x++) rows.push(...(x < 16 ? [255, 0, 0, 255] : [0, 0, 255, 255]));
      }
      writeFileSync(join(dir, "two.png"), pngFile(32, 16, Buffer.from(rows)));
      const file = join(dir, "glass.tmx");
      writeFileSync(
        file,
        `<map orientation="orthogonal" width="3" height="1" tilewidth="16" tileheight="16">
 <tileset firstgid="1" name="two" tilewidth="16" tileheight="16" tilecount="2" columns="2"><image source="two.png" width="32" height="16"/></tileset>
 <layer name="ground" width="3" height="1"><data encoding="csv">1,1,1</data></layer>
 <layer name="glass" width="3" height="1" opacity="0.25"><data encoding="csv">2,0,0</data></layer>
 <group name="shade" opacity="0.5"><layer name="inner" width="3" height="1" opacity="0.5"><data encoding="csv">0,2,0</data></layer></group>
</map>`,
      );
      const world = readWorldMap(file);
      const art = world.art!;
      expect(art.problems).toEqual([]);
      // Both blue cells carry a quarter's alpha (64 of 255); the plain red cell is no stack at all.
      const stackOf = (cell: number) => world.tileInfo.find((tile) => tile.id === world.tiles[cell])?.stack;
      expect(stackOf(0)).toEqual([1, 0, 0, 255, NO_TINT, 2, 0, 0, 64, NO_TINT]);
      expect(stackOf(1)).toEqual([1, 0, 0, 255, NO_TINT, 2, 0, 0, 64, NO_TINT]);
      expect(world.tiles[0]).toBe(world.tiles[1]);
      expect(stackOf(2)).toBeUndefined();
      // Drawn through the atlas and the wasm blitter: each channel's mean over a blue cell is red × 0.75 + blue × 0.25.
      const info: MapArtInfo = mapArtDescription(art) as unknown as MapArtInfo;
      const blitter = new WasmBlitter(await loadCore());
      const sheet = installMapArt(blitter, info, art.pixels, world.tileInfo);
      const tilesPtr = blitter.stageTiles(world.tiles);
      blitter.fillRect(0, 0, 320, 240, 0);
      blitter.drawTilemap(tilesPtr, 3, 3, 1, 0, 0, sheet.ptr, sheet.columns, 16, 16, 0, 0, 320, 240);
      const fb = blitter.framebuffer();
      const meanOf = (cell: number): number[] => {
        const sum = [0, 0, 0];
        for (let y = 0; y < 16; y++) {
          for (let x = cell * 16; x < cell * 16 + 16; x++) {
            expandRgb332(fb[y * FB_WIDTH + x]).forEach((value, channel) => (sum[channel] += value));
          }
        }
        return sum.map((value) => value / 256);
      };
      for (const cell of [0, 1]) {
        const [red, green, blue] = meanOf(cell);
        expect(Math.abs(red - 191)).toBeLessThan(12);
        expect(green).toBeLessThan(12);
        expect(Math.abs(blue - 64)).toBeLessThan(12);
      }
      expect(meanOf(2)[0]).toBeGreaterThan(240);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a missing tileset image is a message and a placeholder, never a crash (island: the beach tileset is absent)", async () => {
    const world = readWorldMap(real("mapeditor-tiled/rpg/island.tmx"));
    const art = world.art!;
    expect(art.problems).toEqual(['tileset "beach_tileset": image beach_tileset.png cannot be used (ENOENT)']);
    expect(art.tileWidthPx).toBe(16);
    // Every drawn tile is the magenta (0xe3) and black checker: no other colour in the atlas. The tiles of its
    // Over layer are over looks, where 0 is transparent: their checker's black is OVER_BLACK.
    expect([...new Set(art.pixels)].sort((a, b) => a - b)).toEqual([0x00, OVER_BLACK, 0xe3].sort((a, b) => a - b));
    expect(art.overLooks.size).toBeGreaterThan(0);
    // Every cell the map draws has a look in the atlas.
    const looks = new Map(world.tileInfo.map((tile) => [tile.id, tile.look]));
    for (const id of new Set(world.tiles)) if (id !== 0) expect(looks.get(id)).toBeLessThan(art.tileCount);
    const check = checkMap(real("mapeditor-tiled/rpg/island.tmx"), await loadCore());
    expect(check.errors).toEqual([]);
    expect(check.lines.join("\n")).toContain(
      'warning: tileset "beach_tileset": image beach_tileset.png cannot be used',
    );
  });

  it("a collision twin of a plain cell draws the tile it twins (a Collision layer over the art)", () => {
    const dir = mkdtempSync(join(tmpdir(), "map-art-twin-"));
    try {
      const file = join(dir, "twin.tmx");
      writeFileSync(
        file,
        `<map orientation="orthogonal" width="2" height="1" tilewidth="32" tileheight="32">
 <tileset firstgid="1" source="${real("rs-tiled/tilesheet.tsx")}"/>
 <layer name="ground" width="2" height="1"><data encoding="csv">5,5</data></layer>
 <layer name="Collision" width="2" height="1"><data encoding="csv">0,5</data></layer></map>`,
      );
      const world = readWorldMap(file);
      const [plain, twin] = world.tiles;
      expect(twin).not.toBe(plain);
      const look = (id: number): number => world.tileInfo.find((tile) => tile.id === id)!.look;
      expect(look(twin)).toBe(look(plain));
      expect(look(plain)).toBeGreaterThan(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("the bundled caves map keeps the client's built-in art: no atlas, every look as the loader has it", () => {
    const caves = fileURLToPath(new URL("../maps/caves.tmj", import.meta.url));
    const world = readWorldMap(caves);
    expect(world.art).toBeNull();
    const loaded = loadMap(caves);
    expect(world.tileInfo.map((tile) => [tile.id, tile.look])).toEqual(
      [...loaded.tileData.values()].map((tile) => [tile.id, tile.look]),
    );
    expect(loaded.source.stackCount).toBe(0);
  });

  it("serves the atlas at its hash, gzipped when asked, cached for ever", async () => {
    const art = readWorldMap(real("rs-tiled/tiled_flipped.tmx")).art!;
    const http = new HttpApi(() => {});
    installMapArtRoute(http, art);
    await new Promise<void>((done) => http.server.listen(0, "127.0.0.1", done));
    try {
      const { port } = http.server.address() as AddressInfo;
      expect(mapArtPath(art)).toBe(`/api/map-art/${art.hash}.rgb332`);
      expect((mapArtDescription(art) as { url: string }).url).toBe(mapArtPath(art));
      const zipped = await fetch(`http://127.0.0.1:${port}${mapArtPath(art)}`, {
        headers: { "accept-encoding": "gzip" },
      });
      expect(zipped.headers.get("content-encoding")).toBe("gzip");
      expect(zipped.headers.get("cache-control")).toContain("immutable");
      expect(Buffer.from(await zipped.arrayBuffer()).equals(Buffer.from(art.pixels))).toBe(true);
      const plain = await fetch(`http://127.0.0.1:${port}${mapArtPath(art)}`, {
        headers: { "accept-encoding": "identity" },
      });
      expect(plain.headers.get("content-encoding")).toBeNull();
      expect(Buffer.from(await plain.arrayBuffer()).equals(Buffer.from(art.pixels))).toBe(true);
      expect((await fetch(`http://127.0.0.1:${port}/api/map-art/0000.rgb332`)).status).toBe(404);
    } finally {
      await new Promise<void>((done) => http.server.close(() => done()));
    }
  });
});
