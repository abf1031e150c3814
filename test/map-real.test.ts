// Every map in ../shared/maps-real (Tiled files from public repositories; see
// its README) against the README's independently computed expectations. The
// SHA-256 of the raw decoded GIDs proves the decoders are bit-exact; the
// loaded-map checks prove what flattening makes of them.
import { NO_TINT } from "../ts/server/map/tile-stacks.js";
import { createHash } from "node:crypto";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { TILE_FLAG_COLLIDES } from "../ts/constants.js";
import { maskGid } from "../ts/server/map/gid.js";
import { loadMap, MapError, rawGidBytes, readRawMap, tileFlagsTable } from "../ts/server/map/load-map.js";
import { MAPS_REAL } from "./support/maps-real.js";

const REAL = MAPS_REAL;
const real = (path: string): string => resolve(REAL, path);

interface Expectation {
  file: string;
  width: number;
  height: number;
  tileLayers: number;
  objectLayers: number;
  groupLayers: number;
  chunks: number;
  cells: number;
  nonzero: number;
  maxGid: number;
  flagPatterns: number[];
  digest: string;
}

// The README's verification table, row by row.
const EXPECTED: Expectation[] = [
  row("mapeditor-tiled/forest/forest.tmx", 40, 16, 1, 4, 0, 0, 640, 22, 1, [], "d8fc2443209ce8e2"),
  row("mapeditor-tiled/hexagonal-mini.tmx", 20, 20, 1, 0, 0, 0, 400, 400, 17, [], "0098e8f134d08691"),
  row("mapeditor-tiled/isometric_grass_and_water.tmx", 25, 25, 1, 0, 0, 0, 625, 625, 24, [], "00131882a73db018"),
  row("mapeditor-tiled/rpg/island.tmx", 58, 47, 3, 1, 0, 0, 8178, 2876, 805, [0x60000000], "b2f5bbe3e786c3c2"),
  row("rs-tiled/tiled_base64.tmx", 100, 100, 1, 1, 0, 0, 10000, 161, 47, [], "3500c8aad5a6c3db"),
  row("rs-tiled/tiled_base64_gzip.tmx", 100, 100, 1, 1, 0, 0, 10000, 161, 47, [], "3500c8aad5a6c3db"),
  row("rs-tiled/tiled_base64_zlib_infinite.tmx", 100, 100, 3, 1, 0, 7, 7168, 2580, 120, [], "22e37473808994db"),
  row(
    "rs-tiled/tiled_flipped.tmx",
    2,
    2,
    1,
    0,
    0,
    0,
    4,
    4,
    3,
    [0x20000000, 0x40000000, 0x80000000, 0xe0000000],
    "cef7cde17d4d50d0",
  ),
  row(
    "sourceoftales/maps/goldenfields/main.tmx",
    200,
    200,
    13,
    32,
    0,
    0,
    520000,
    81618,
    2967,
    [0x80000000],
    "1333e6105b94d432",
  ),
  row(
    "workadventure-map-starter-kit/office.tmj",
    31,
    21,
    11,
    1,
    4,
    0,
    7161,
    1394,
    2929,
    [0x80000000],
    "c39cc6b58d84fe7e",
  ),
];

function row(
  file: string,
  width: number,
  height: number,
  tileLayers: number,
  objectLayers: number,
  groupLayers: number,
  chunks: number,
  cells: number,
  nonzero: number,
  maxGid: number,
  flagPatterns: number[],
  digest: string,
): Expectation {
  return {
    file,
    width,
    height,
    tileLayers,
    objectLayers,
    groupLayers,
    chunks,
    cells,
    nonzero,
    maxGid,
    flagPatterns,
    digest,
  };
}

function digestOf(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

describe("raw decoding of the real maps matches the README", () => {
  for (const expected of EXPECTED) {
    it(expected.file, () => {
      const map = readRawMap(real(expected.file));
      expect([map.width, map.height]).toEqual([expected.width, expected.height]);
      expect(map.tileLayers.length).toBe(expected.tileLayers);
      expect(map.objectLayerCount).toBe(expected.objectLayers);
      expect(map.groupLayerCount).toBe(expected.groupLayers);
      const chunkCount = map.infinite ? map.tileLayers.reduce((sum, layer) => sum + layer.chunks.length, 0) : 0;
      expect(chunkCount).toBe(expected.chunks);

      let cells = 0;
      let nonzero = 0;
      let maxGid = 0;
      const patterns = new Set<number>();
      for (const layer of map.tileLayers) {
        for (const chunk of layer.chunks) {
          cells += chunk.gids.length;
          for (const raw of chunk.gids) {
            if (raw !== 0) nonzero++;
            maxGid = Math.max(maxGid, maskGid(raw));
            if (raw >= 0x10000000) patterns.add((raw & 0xf0000000) >>> 0);
          }
        }
      }
      expect(cells).toBe(expected.cells);
      expect(nonzero).toBe(expected.nonzero);
      expect(maxGid).toBe(expected.maxGid);
      expect([...patterns].sort((a, b) => a - b)).toEqual(expected.flagPatterns);
      expect(digestOf(rawGidBytes(map.tileLayers)).slice(0, 16)).toBe(expected.digest);
    });
  }

  it("zstd decodes (fzstd) to exactly the uncompressed map's GIDs", () => {
    // Before issue 16 this map was refused on Node 20 ("unsupported compression: zstd").
    const bytes = rawGidBytes(readRawMap(real("rs-tiled/tiled_base64_zstandard.tmx")).tileLayers);
    expect(digestOf(bytes).slice(0, 16)).toBe("3500c8aad5a6c3db");
  });

  it("per-layer counts of the infinite map and office.tmj", () => {
    const infinite = readRawMap(real("rs-tiled/tiled_base64_zlib_infinite.tmx"));
    const summary = infinite.tileLayers.map((layer) => ({
      name: layer.name,
      chunks: layer.chunks.length,
      nonzero: layer.chunks.reduce((sum, chunk) => sum + chunk.gids.filter((gid) => gid !== 0).length, 0),
    }));
    expect(summary).toEqual([
      { name: "Background", chunks: 4, nonzero: 2304 },
      { name: "Ground", chunks: 2, nonzero: 273 },
      { name: "Overlay", chunks: 1, nonzero: 3 },
    ]);
    const office = readRawMap(real("workadventure-map-starter-kit/office.tmj"));
    const counts = office.tileLayers.map((layer) => [
      layer.path,
      layer.chunks[0].gids.filter((gid) => gid !== 0).length,
    ]);
    expect(counts).toEqual([
      ["start", 2],
      ["collisions", 285],
      ["floor/floor1", 558],
      ["floor/floor2", 59],
      ["walls/walls1", 219],
      ["walls/walls2", 11],
      ["furniture/furniture1", 29],
      ["furniture/furniture2", 139],
      ["furniture/furniture3", 42],
      ["above/above1", 40],
      ["above/above2", 10],
    ]);
  });
});

describe("loading the real maps", () => {
  it("loads every orthogonal map with the README's dimensions and layer counts", () => {
    for (const expected of EXPECTED) {
      const file = real(expected.file);
      if (/hexagonal|isometric/.test(expected.file)) continue;
      const map = loadMap(file);
      const infinite = expected.chunks > 0;
      if (!infinite) expect([map.width, map.height]).toEqual([expected.width, expected.height]);
      expect(map.tiles.length).toBe(map.width * map.height);
      expect(map.source.layers).toBe(expected.tileLayers);
      // Every id on the map has tile data, and no id is a reserved one.
      for (const id of new Set(map.tiles)) expect(map.tileData.has(id), `${expected.file} id ${id}`).toBe(true);
      expect(Math.max(...map.tiles)).toBeLessThanOrEqual(0xfffd);
      expect(map.spawns.length).toBeGreaterThan(0);
    }
  });

  it("rejects non-orthogonal maps, naming the orientation", () => {
    for (const [file, orientation] of [
      ["mapeditor-tiled/hexagonal-mini.tmx", "hexagonal"],
      ["mapeditor-tiled/isometric_grass_and_water.tmx", "isometric"],
    ]) {
      const path = real(file);
      expect(() => loadMap(path)).toThrow(MapError);
      expect(() => loadMap(path)).toThrow(`${path}: unsupported orientation: ${orientation}`);
    }
  });

  it("tiled_base64 and tiled_base64_gzip give identical worlds", () => {
    const plain = loadMap(real("rs-tiled/tiled_base64.tmx"));
    const gzip = loadMap(real("rs-tiled/tiled_base64_gzip.tmx"));
    expect(Buffer.from(gzip.tiles.buffer).equals(Buffer.from(plain.tiles.buffer))).toBe(true);
    expect([...gzip.tiles].filter((id) => id !== 0).length).toBe(161);
  });

  it("masks all flip flags: every cell of tiled_flipped draws GID 3, each flip its own stack id", () => {
    const map = loadMap(real("rs-tiled/tiled_flipped.tmx"));
    // Issue 16: a flipped tile is drawn flipped, so each (GID, flips) is a stack id whose drawn tile is GID 3.
    expect([...map.tiles].map((id) => map.tileData.get(id)!.twinOf ?? id)).toEqual([3, 3, 3, 3]);
    expect(new Set(map.tiles).size).toBe(4);
    expect([...map.tiles].map((id) => map.tileData.get(id)!.stack)).toEqual([
      [0xe0000003, 0, 0, 255, NO_TINT],
      [0x40000003, 0, 0, 255, NO_TINT],
      [0x80000003, 0, 0, 255, NO_TINT],
      [0x20000003, 0, 0, 255, NO_TINT],
    ]);
  });

  it("masks the flipped cells of island.tmx and resolves GIDs through beach_tileset.tsx", () => {
    const map = loadMap(real("mapeditor-tiled/rpg/island.tmx"));
    expect(map.source.tilesets).toBe(1);
    expect(map.tileData.get(936)).toBeDefined(); // the external tileset's last tile
    expect(map.tileData.get(937)).toBeUndefined();
    const raw = readRawMap(real("mapeditor-tiled/rpg/island.tmx"));
    const ground = raw.tileLayers[0].chunks[0].gids;
    const flipped = [...ground.keys()].filter((i) => ground[i] >= 0x10000000);
    expect(flipped.length).toBe(4);
    for (const cell of flipped) {
      // Ground is the bottom layer; where nothing is drawn above, the drawn tile is the masked GID
      // (a stack id since issue 16: the flip is drawn).
      const above = raw.tileLayers.slice(1).some((layer) => layer.chunks[0].gids[cell] !== 0);
      const id = map.tiles[cell];
      if (!above) expect(map.tileData.get(id)!.twinOf ?? id).toBe(maskGid(ground[cell]));
    }
  });

  it("assembles the infinite map from its chunks, shifting the min corner (-32, 0) to (0, 0)", () => {
    const file = real("rs-tiled/tiled_base64_zlib_infinite.tmx");
    const map = loadMap(file);
    expect([map.width, map.height]).toEqual([64, 64]);
    expect([map.source.originX, map.source.originY]).toEqual([-32, 0]);
    const raw = readRawMap(file);
    // Independent placement: the top-most non-empty GID of each Tiled cell.
    const expected = new Uint32Array(64 * 64);
    for (const layer of raw.tileLayers) {
      for (const chunk of layer.chunks) {
        chunk.gids.forEach((gid, i) => {
          if (gid === 0) return;
          const x = chunk.x + (i % chunk.width) + 32;
          const y = chunk.y + Math.floor(i / chunk.width);
          expected[y * 64 + x] = maskGid(gid);
        });
      }
    }
    const flags = tileFlagsTable(map.tileData);
    const drawn = Array.from(map.tiles, (id) => map.tileData.get(id)!.twinOf ?? id);
    expect(drawn).toEqual(Array.from(expected));
    const emptyButWalkable = [...expected.keys()].filter(
      (cell) => expected[cell] === 0 && (flags[map.tiles[cell]] & TILE_FLAG_COLLIDES) === 0,
    );
    expect(emptyButWalkable).toEqual([]);
    // The embedded tileset (firstgid 1) and the external tilesheet.tsx (firstgid 85) both count.
    expect(map.tileData.has(84) && map.tileData.has(85) && map.tileData.has(168)).toBe(true);
  });

  it("walks office.tmj's group layers and honours its collision layer and collides tile property", () => {
    const file = real("workadventure-map-starter-kit/office.tmj");
    const map = loadMap(file);
    expect([map.width, map.height]).toEqual([31, 21]);
    expect(map.source.groupLayers).toBe(4);
    expect(map.source.collisionLayers).toEqual(["collisions"]);
    // WA_Special_Zones tile 2 has collides=true: GID 3.
    expect(map.tileData.get(3)?.collides).toBe(true);
    const raw = readRawMap(file);
    const collisions = raw.tileLayers.find((layer) => layer.path === "collisions")!.chunks[0].gids;
    const flags = tileFlagsTable(map.tileData);
    const cells = [...collisions.keys()];
    const walkableCollision = cells.filter(
      (cell) => collisions[cell] !== 0 && (flags[map.tiles[cell]] & TILE_FLAG_COLLIDES) === 0,
    );
    expect(walkableCollision).toEqual([]);
    expect(cells.some((cell) => collisions[cell] !== 0)).toBe(true);
    // The top-most drawn layer wins: "above/above2" tiles are on top wherever they are.
    const above2 = raw.tileLayers.find((layer) => layer.path === "above/above2")!.chunks[0].gids;
    const covered = cells.filter((cell) => above2[cell] !== 0);
    expect(covered.map((cell) => map.tileData.get(map.tiles[cell])!.twinOf ?? map.tiles[cell])).toEqual(
      covered.map((cell) => maskGid(above2[cell])),
    );
  });

  it("office.tmj's players start on its start layer's free cells (WorkAdventure's convention)", () => {
    const file = real("workadventure-map-starter-kit/office.tmj");
    const map = loadMap(file);
    const start = readRawMap(file).tileLayers.find((layer) => layer.name === "start")!.chunks[0];
    const painted = [...start.gids.keys()].filter((cell) => start.gids[cell] !== 0);
    expect(painted.length).toBeGreaterThan(0);
    expect(map.source.spawnFallback).toBe(false);
    expect(map.source.spawnsFromStartLayer).toBe(true);
    const flags = tileFlagsTable(map.tileData);
    expect(map.spawns.length).toBeGreaterThan(0);
    for (const { x, y } of map.spawns) {
      expect(painted).toContain(y * start.width + x);
      expect(flags[map.tiles[y * map.width + x]] & TILE_FLAG_COLLIDES).toBe(0);
    }
  });

  it("loads sourceoftales goldenfields: 200×200, 13 layers, its Collision layer blocks", () => {
    const file = real("sourceoftales/maps/goldenfields/main.tmx");
    const map = loadMap(file);
    expect(map.name).toBe("Goldenfields");
    expect([map.width, map.height]).toEqual([200, 200]);
    expect(map.source.layers).toBe(13);
    expect(map.source.tilesets).toBe(58);
    expect(map.source.collisionLayers).toEqual(["Collision"]);
    const raw = readRawMap(file);
    const collision = raw.tileLayers.find((layer) => layer.name === "Collision")!.chunks[0].gids;
    const flags = tileFlagsTable(map.tileData);
    const blocked = [...collision.keys()].filter((cell) => collision[cell] !== 0);
    expect(blocked.length).toBe(26966);
    expect(blocked.filter((cell) => (flags[map.tiles[cell]] & TILE_FLAG_COLLIDES) === 0)).toEqual([]);
    // Collision-only cells need twins: their drawn tiles do not collide on their own.
    expect(map.source.twinCount).toBeGreaterThan(0);
    // Its SPAWN objects are monster areas (rectangles), not spawn points.
    expect(map.objects.filter((object) => object.type === "SPAWN").length).toBe(31);
    expect(map.source.spawnFallback).toBe(true);
    // More than a ChunkPacket palette holds: such chunks go as ChunkWidePackets (test/map-real-server.test.ts).
    expect(map.source.maxIdsPerChunk).toBeGreaterThan(64);
  });
});
