// Creatures drawn with the host's own art (issue 38, docs/art.md § Creatures in the map's art), the
// server's half, on a real map: forest.tmx (../shared/maps-real) with a kinds file beside it that names
// tiles of its "forest" tileset — the squirrel, animated in Tiled (tiles 10 and 11, 150 ms each), and one
// of its frames still. The squirrel is 25 px on the map's 16 px grid: it covers its cell, the one to its
// right and the two above. The map's atlas gets each of those cells cut transparent, per frame of the
// animation, and GET /api/world names them; a tile the map's tilesets do not have, or a map drawn with the
// built-in tiles, is refused at load naming the kind.
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { MapError } from "../ts/server/content/map-error.js";
import { Logger } from "../ts/server/ops/log.js";
import { startServer } from "../ts/server/server.js";
import { readWorldMap } from "../ts/server/world/world-map.js";
import { MAPS_REAL } from "./support/maps-real.js";
import { writeTestMap } from "./support/test-map.js";

const FOREST = resolve(MAPS_REAL, "mapeditor-tiled/forest");
const dir = mkdtempSync(join(tmpdir(), "kind-looks-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const kind = (name: string, typeId: number, tile?: { tileset: string; id: number }, image?: unknown) => ({
  name,
  typeId,
  behaviour: "wander",
  speed: 25,
  hp: 8,
  perception: 0,
  leash: 0,
  wander: 3,
  respawnSeconds: 30,
  sprite: "rat",
  attack: 0,
  armor: 0,
  elo: 800,
  ...(tile ? { tile } : {}),
  ...(image !== undefined ? { image } : {}),
});

/** A copy of forest.tmx (its tileset and the squirrel's image beside it) with `kinds` as its kinds file. */
function forestWith(kinds: unknown[]): string {
  const folder = mkdtempSync(join(dir, "forest-"));
  for (const file of ["forest.tmx", "forest.tsx", "squirrel.png"]) copyFileSync(join(FOREST, file), join(folder, file));
  writeFileSync(join(folder, "forest.npcs.json"), JSON.stringify({ version: 1, kinds }));
  return join(folder, "forest.tmx");
}

/** The atlas pixels of a look's cells, in order. */
/** Each kind's `look` as a real server on `path` serves it at GET /api/world, by type id. */
async function servedLooks(path: string): Promise<Map<number, unknown>> {
  const server = await startServer({
    host: "127.0.0.1",
    httpPort: 0,
    udpPort: 0,
    mapPath: path,
    logger: new Logger("silent"),
  });
  try {
    const body = (await (await fetch(`http://127.0.0.1:${server.httpPort}/api/world`)).json()) as {
      kinds: { typeId: number; look?: unknown }[];
    };
    return new Map(body.kinds.map((each) => [each.typeId, each.look]));
  } finally {
    await server.close();
  }
}

function pixelsOf(art: NonNullable<ReturnType<typeof readWorldMap>["art"]>, looks: readonly number[]): number[] {
  const size = art.tileWidthPx;
  return looks.flatMap((look) => {
    const out: number[] = [];
    const left = (look % art.columns) * size;
    const top = Math.floor(look / art.columns) * size;
    for (let y = 0; y < size; y++) {
      for (let x = 0; x < size; x++) out.push(art.pixels[(top + y) * art.columns * size + left + x]);
    }
    return out;
  });
}

describe("a kind drawn with a tile of the map's tilesets", () => {
  it("gets the tile in the atlas, cut transparent, and an animated tile's frames; GET /api/world names them", async () => {
    const path = forestWith([
      kind("squirrel", 20, { tileset: "forest", id: 13 }),
      kind("still squirrel", 21, { tileset: "forest", id: 10 }),
      kind("rat", 22),
    ]);
    const world = readWorldMap(path);
    const art = world.art!;
    const animated = art.kindLooks.get(20)!;
    const still = art.kindLooks.get(21)!;
    expect(art.kindLooks.has(22)).toBe(false);
    // Two cells wide, two high, standing on the creature's cell: from one up (dy −1) to its own row.
    expect({ dx: animated.dx, dy: animated.dy, width: animated.width, height: animated.height }).toEqual({
      dx: 0,
      dy: -1,
      width: 2,
      height: 2,
    });
    expect(animated.frames.map((frame) => frame.durationMs)).toEqual([150, 150]);
    expect(still.frames).toHaveLength(1);
    expect(still.frames[0].durationMs).toBe(0);
    // Frame one is tile 10: the same picture as the still kind.
    expect(animated.frames[0].looks).toEqual(still.frames[0].looks);
    const [first, second] = animated.frames.map((frame) => pixelsOf(art, frame.looks));
    expect(first).not.toEqual(second);
    // Cut transparent: the squirrel shows on nothing (0), not on black; and it is there.
    expect(first.filter((pixel) => pixel === 0).length).toBeGreaterThan(first.length / 4);
    expect(first.filter((pixel) => pixel !== 0).length).toBeGreaterThan(100);

    const byType = await servedLooks(path);
    expect(byType.get(20)).toEqual(animated);
    expect(byType.get(21)).toEqual(still);
    expect(byType.get(22)).toBeUndefined();
  });

  it("is refused at load, naming the kind, for a tileset or a tile the map does not have", () => {
    const load = (tile: { tileset: string; id: number }) => () =>
      readWorldMap(forestWith([kind("squirrel", 20, tile)]));
    expect(load({ tileset: "trees", id: 1 })).toThrow(MapError);
    expect(load({ tileset: "trees", id: 1 })).toThrow(
      /kinds\[0\]\.tile\.tileset: the map has no tileset "trees" \(it has "forest"\)/,
    );
    // The forest's image collection has ids 0 … 13 with gaps: 12 is one of them.
    expect(load({ tileset: "forest", id: 12 })).toThrow(/kinds\[0\]\.tile\.id: tileset "forest" has no tile 12/);
    expect(load({ tileset: "forest", id: 400 })).toThrow(/kinds\[0\]\.tile\.id: tileset "forest" has no tile 400/);
  });

  it("is refused on a map drawn with the built-in tiles", () => {
    const map = writeTestMap();
    try {
      writeFileSync(
        map.path.replace(/\.csv$/, ".npcs.json"),
        JSON.stringify({ version: 1, kinds: [kind("baker", 20, undefined, "baker.png")] }),
      );
      expect(() => readWorldMap(map.path)).toThrow(/kinds\[0\]\.image: the map draws with the built-in tiles/);
    } finally {
      map.dispose();
    }
  });

  it("is refused on a map drawn with the built-in tiles (a tile)", () => {
    const map = writeTestMap();
    try {
      writeFileSync(
        map.path.replace(/\.csv$/, ".npcs.json"),
        JSON.stringify({ version: 1, kinds: [kind("squirrel", 20, { tileset: "tiles", id: 1 })] }),
      );
      expect(() => readWorldMap(map.path)).toThrow(/kinds\[0\]\.tile: the map draws with the built-in tiles/);
    } finally {
      map.dispose();
    }
  });
});

describe("a kind drawn with an image beside the map", () => {
  it("draws the image's rectangle — and each frame of an animated one — as Tiled draws the same picture as a tile", async () => {
    // forest.tsx's tiles 10 and 11 are the squirrel's two frames: 25 × 25 px of squirrel.png at (116, 824)
    // and (116, 850). The same rectangles named as an image beside the map must draw the same cells.
    const path = forestWith([
      kind("squirrel", 20, { tileset: "forest", id: 13 }),
      kind("image squirrel", 21, undefined, {
        file: "squirrel.png",
        width: 25,
        height: 25,
        frames: [
          { x: 116, y: 824 },
          { x: 116, y: 850 },
        ],
        frameMs: 150,
      }),
      kind("still image squirrel", 22, undefined, { file: "squirrel.png", x: 116, y: 824, width: 25, height: 25 }),
    ]);
    const world = readWorldMap(path);
    const art = world.art!;
    expect(art.problems).toEqual([]);
    const tile = art.kindLooks.get(20)!;
    const image = art.kindLooks.get(21)!;
    const still = art.kindLooks.get(22)!;
    expect({ dx: image.dx, dy: image.dy, width: image.width, height: image.height }).toEqual({
      dx: tile.dx,
      dy: tile.dy,
      width: tile.width,
      height: tile.height,
    });
    expect(image.frames.map((frame) => frame.durationMs)).toEqual([150, 150]);
    expect(image.frames.map((frame) => pixelsOf(art, frame.looks))).toEqual(
      tile.frames.map((frame) => pixelsOf(art, frame.looks)),
    );
    expect(still.frames).toHaveLength(1);
    expect(still.frames[0].durationMs).toBe(0);
    expect(pixelsOf(art, still.frames[0].looks)).toEqual(pixelsOf(art, tile.frames[0].looks));
    // The first frame's cells are shared with the still look (same rectangle): the atlas holds them once.
    expect(still.frames[0].looks).toEqual(image.frames[0].looks);

    expect((await servedLooks(path)).get(21)).toEqual(image);
  });

  it("draws a missing image as the placeholder and says so; a frame past the image's edge is reported", () => {
    const world = readWorldMap(
      forestWith([
        kind("ghost", 20, undefined, "nowhere.png"),
        kind("edge", 21, undefined, { file: "squirrel.png", x: 1000, y: 1000, width: 32, height: 32 }),
      ]),
    );
    const art = world.art!;
    expect(art.problems).toContain("creature image nowhere.png cannot be used (ENOENT)");
    expect(
      art.problems.some((line) =>
        line.includes("creature image squirrel.png: frame 1 (32×32 at 1000,1000) reaches past the 1024×1024 image"),
      ),
    ).toBe(true);
    // The placeholder: one cell (the map's tile size), magenta and black.
    const ghost = art.kindLooks.get(20)!;
    expect({ width: ghost.width, height: ghost.height }).toEqual({ width: 1, height: 1 });
    expect(new Set(pixelsOf(art, ghost.frames[0].looks)).size).toBeGreaterThan(1);
  });

  it("is refused at load, naming the kind, for a file that is not a PNG beside the map or a bad rectangle", () => {
    const load = (image: unknown) => () => readWorldMap(forestWith([kind("baker", 20, undefined, image)]));
    expect(load("../elsewhere/baker.png")).toThrow(
      /kinds\[0\]\.image: "..\/elsewhere\/baker.png" is outside the kinds file's folder/,
    );
    expect(load("/etc/baker.png")).toThrow(/outside the kinds file's folder/);
    expect(load("baker.gif")).toThrow(/kinds\[0\]\.image: expected the name of a PNG file/);
    expect(load({ file: "squirrel.png", width: 25 })).toThrow(/give both width and height/);
    expect(load({ file: "squirrel.png", width: 300, height: 25 })).toThrow(/kinds\[0\]\.image\.width/);
    expect(load({ file: "squirrel.png", frames: [{ x: 0, y: 0 }] })).toThrow(/frames need a width and a height/);
    expect(load({ file: "squirrel.png", width: 8, height: 8, frames: [] })).toThrow(/kinds\[0\]\.image\.frames/);
    expect(load({ file: "squirrel.png", colour: "red" })).toThrow(/colour/);
    expect(() => readWorldMap(forestWith([kind("both", 20, { tileset: "forest", id: 10 }, "squirrel.png")]))).toThrow(
      /kinds\[0\]: a kind is drawn with a tile or an image, not both/,
    );
  });
});
