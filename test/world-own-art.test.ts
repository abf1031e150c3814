// A world of several maps that each have their own tileset art (issue 16,
// world-art.ts): two maps of one folder, hall.tmx and cellar.tmx, written here
// with tilesets of the same shape (GID 1 floor, GID 2 wall) but their own
// images (PNGs written here: the hall red and green, the cellar blue and
// yellow, colours that are exact RGB332 levels). The server gives them one
// atlas and distinct ids, and over real loopback UDP a client walks onto the
// hall's warp, lands in the cellar and receives chunks whose ids draw the
// cellar's art by the world's tile data and the served atlas. Tile sizes that
// differ, and a map with its own art beside one with the built-in art, are
// refused by name.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { encode } from "fast-png";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { GameClient } from "../ts/client/core/index.js";
import { fetchMapArt } from "../ts/client/core/session-api.js";
import { CHUNK_SIZE } from "../ts/constants.js";
import { chunkX, chunkY } from "../ts/protocol/index.js";
import { inArea } from "../ts/server/world/areas.js";
import { Logger } from "../ts/server/ops/log.js";
import { type RunningServer, startServer } from "../ts/server/server.js";
import { readWorld, WorldAreasError } from "../ts/server/world/world-areas.js";
import { checkMap } from "../ts/tools/map.js";
import { loadCore } from "../ts/wasm/node.js";
import { drive, joinOverUdp } from "./client-core-support.js";
import { neighbourhoodComplete } from "./client-core-support.js";

const SIZE = 20;
const TILE = 16;
/** RGB332 of the four solid colours (each channel on a level, so dithering leaves it exact). */
const RGB332 = { red: 0xe0, green: 0x1c, blue: 0x03, yellow: 0xfc };

/** A PNG of two solid tiles side by side. */
function tilesPng(first: [number, number, number], second: [number, number, number], tilePx = TILE): Uint8Array {
  const width = 2 * tilePx;
  const data = new Uint8Array(width * tilePx * 4);
  for (let y = 0; y < tilePx; y++) {
    for (let x = 0; x < width; x++) data.set([...(x < tilePx ? first : second), 255], (y * width + x) * 4);
  }
  return encode({ width, height: tilePx, data, channels: 4, depth: 8 });
}

/** A walled room (GID 2 on the rim, GID 1 inside) with point objects [name, type, tile x, tile y, properties]. */
function roomTmx(image: string, objects: [string, string, number, number, Record<string, string>][], tilePx = TILE) {
  const rows = [];
  for (let y = 0; y < SIZE; y++) {
    const row = [];
    for (let x = 0; x < SIZE; x++) row.push(x === 0 || y === 0 || x === SIZE - 1 || y === SIZE - 1 ? 2 : 1);
    rows.push(row.join(","));
  }
  const objectXml = objects
    .map(([name, type, x, y, properties], index) => {
      const props = Object.entries(properties)
        .map(([key, value]) => `<property name="${key}" value="${value}"/>`)
        .join("");
      return `<object id="${index + 1}" name="${name}" type="${type}" x="${x * tilePx + tilePx / 2}" y="${y * tilePx + tilePx / 2}"><properties>${props}</properties><point/></object>`;
    })
    .join("\n");
  return `<?xml version="1.0" encoding="UTF-8"?>
<map version="1.10" orientation="orthogonal" renderorder="right-down" width="${SIZE}" height="${SIZE}" tilewidth="${tilePx}" tileheight="${tilePx}" infinite="0" nextobjectid="${objects.length + 1}">
 <tileset firstgid="1" name="${image}" tilewidth="${tilePx}" tileheight="${tilePx}" tilecount="2" columns="2">
  <image source="${image}" width="${2 * tilePx}" height="${tilePx}"/>
  <tile id="1"><properties><property name="collides" type="bool" value="true"/></properties></tile>
 </tileset>
 <layer id="1" name="ground" width="${SIZE}" height="${SIZE}"><data encoding="csv">
${rows.join(",\n")}
</data></layer>
 <objectgroup id="2" name="objects">
${objectXml}
 </objectgroup>
</map>`;
}

let folder = "";
let hall = "";
let server: RunningServer | undefined;
const clients: GameClient[] = [];

beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), "caves-own-art-world-"));
  hall = join(folder, "hall.tmx");
  writeFileSync(join(folder, "hall.png"), tilesPng([255, 0, 0], [0, 255, 0]));
  writeFileSync(join(folder, "cellar.png"), tilesPng([0, 0, 255], [255, 255, 0]));
  writeFileSync(
    hall,
    roomTmx("hall.png", [
      ["start", "spawn", 5, 5, {}],
      ["down", "warp", 7, 5, { map: "cellar", to: "arrival" }],
    ]),
  );
  writeFileSync(join(folder, "cellar.tmx"), roomTmx("cellar.png", [["arrival", "", 10, 10, {}]]));
});

afterAll(() => rmSync(folder, { recursive: true, force: true }));

afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  await server?.close();
  server = undefined;
});

describe("a world of two maps with their own tileset art", () => {
  it("is one atlas; the same GIDs of the two maps are distinct world ids with their own map's art", async () => {
    const world = readWorld(hall);
    expect(world.files).toHaveLength(2);
    const art = world.map.art!;
    expect(art).toBeTruthy();
    expect(art.problems).toEqual([]);
    // Tile 0 unused, then the hall's floor and wall, then the cellar's.
    expect(art.tileCount).toBe(5);
    const [hallArea, cellarArea] = world.areas;
    const idAt = (x: number, y: number): number => world.map.tiles[y * world.map.width + x];
    const hallFloor = idAt(hallArea.x + 5, hallArea.y + 5);
    const cellarFloor = idAt(cellarArea.x + 5, cellarArea.y + 5);
    expect(cellarFloor).not.toBe(hallFloor);
    const pixelOf = (id: number): number => {
      const look = world.map.tileInfo.find((tile) => tile.id === id)!.look;
      const stride = art.columns * art.tileWidthPx;
      return art.pixels[Math.floor(look / art.columns) * art.tileHeightPx * stride + (look % art.columns) * TILE];
    };
    expect(pixelOf(hallFloor)).toBe(RGB332.red);
    expect(pixelOf(idAt(hallArea.x, hallArea.y))).toBe(RGB332.green);
    expect(pixelOf(cellarFloor)).toBe(RGB332.blue);
    expect(pixelOf(idAt(cellarArea.x, cellarArea.y))).toBe(RGB332.yellow);
    // map check says what the server makes of the folder.
    const check = checkMap(hall, await loadCore());
    expect(check.errors).toEqual([]);
    expect(check.lines).toContain("  one atlas for the world: 4 tiles of 16 px, 4096 bytes; 5 world ids");
    // Collision stays each map's: walls block, floors do not.
    const collides = (id: number): boolean => world.map.tileInfo.find((tile) => tile.id === id)!.collides;
    expect([collides(hallFloor), collides(cellarFloor), collides(idAt(cellarArea.x, cellarArea.y))]).toEqual([
      false,
      false,
      true,
    ]);
  });

  it("a client takes the warp over UDP and the cellar's chunks draw the cellar's art", async () => {
    server = await startServer({
      host: "127.0.0.1",
      httpPort: 0,
      udpPort: 0,
      mapPath: hall,
      logger: new Logger("silent"),
    });
    const baseUrl = `http://127.0.0.1:${server.httpPort}`;
    const [, cellarArea] = readWorld(hall).areas;
    const client = await joinOverUdp(baseUrl, "Delver", clients);
    expect(client.confirmed).toEqual({ x: 5, y: 5 });
    const art = client.world.art!;
    expect(art).toBeTruthy();
    const atlas = await fetchMapArt(baseUrl, art);
    /** The colour the client draws world id `id` with: its look's atlas tile, by the world's tile data. */
    const colourOf = (id: number): number | undefined => {
      const look = client.world.tiles.find((tile) => tile.id === id)?.look;
      if (look === undefined || look <= 0 || look >= art.tileCount) return undefined;
      const stride = art.columns * art.tileSizePx;
      return atlas[Math.floor(look / art.columns) * art.tileSizePx * stride + (look % art.columns) * art.tileSizePx];
    };
    /** The colours the client would draw for every cell of its held chunks inside `area`. */
    const coloursIn = (area: { x: number; y: number; width: number; height: number }): Set<number | undefined> => {
      const seen = new Set<number | undefined>();
      for (const entry of client.neighbourhood ?? []) {
        const chunk = client.chunks.get(entry.chunkId);
        if (!chunk) continue;
        for (let cell = 0; cell < CHUNK_SIZE * CHUNK_SIZE; cell++) {
          const x = chunkX(entry.chunkId) * CHUNK_SIZE + (cell % CHUNK_SIZE);
          const y = chunkY(entry.chunkId) * CHUNK_SIZE + Math.floor(cell / CHUNK_SIZE);
          if (inArea(area, x, y)) seen.add(colourOf(chunk.tiles[cell]));
        }
      }
      return seen;
    };
    await drive([client], "the hall's chunks", () => neighbourhoodComplete(client));
    expect(coloursIn({ x: 0, y: 0, width: SIZE, height: SIZE })).toEqual(new Set([RGB332.red, RGB332.green]));

    expect(client.setGoal(8, 5)).toBe("planned");
    await drive(
      [client],
      "arrival in the cellar",
      () => !!client.confirmed && inArea(cellarArea, client.confirmed.x, client.confirmed.y),
    );
    expect(client.confirmed).toEqual({ x: cellarArea.x + 10, y: cellarArea.y + 10 });
    await drive([client], "the cellar's chunks", () => neighbourhoodComplete(client));
    expect(coloursIn(cellarArea)).toEqual(new Set([RGB332.blue, RGB332.yellow]));
  }, 60_000);

  it("refuses maps of different tile sizes, and own art beside the built-in tiles, by name", () => {
    const sizes = mkdtempSync(join(tmpdir(), "caves-own-art-sizes-"));
    try {
      writeFileSync(join(sizes, "a.png"), tilesPng([255, 0, 0], [0, 255, 0]));
      writeFileSync(join(sizes, "b.png"), tilesPng([0, 0, 255], [255, 255, 0], 32));
      const a = join(sizes, "a.tmx");
      writeFileSync(a, roomTmx("a.png", [["go", "warp", 7, 5, { map: "b", to: "here" }]]));
      writeFileSync(join(sizes, "b.tmx"), roomTmx("b.png", [["here", "", 10, 10, {}]], 32));
      expect(() => readWorld(a)).toThrow(WorldAreasError);
      expect(() => readWorld(a)).toThrow(/b\.tmx: its tiles are 32×32 px, .*a\.tmx's 16×16: .*one tile size/);
      // A map drawn with the built-in tiles (its tileset names tiles.tga) beside one with its own art.
      writeFileSync(
        join(sizes, "b.tmx"),
        roomTmx("tiles.tga", [["here", "", 10, 10, {}]]).replace('width="32" height="16"', 'width="128" height="16"'),
      );
      expect(() => readWorld(a)).toThrow(
        /b\.tmx: draws with the built-in tiles while .*a\.tmx has its own tileset art/,
      );
    } finally {
      rmSync(sizes, { recursive: true, force: true });
    }
  });
});
