// Warps between two maps of one folder (issue 16: "warps move a client between
// two maps of one folder"), over real loopback UDP with the real wasm. The
// folder is written here: hall.tmj with our own warp spelling (type "warp",
// `map`, `to`) and a WorkAdventure exit (`exitUrl` "#far", a teleport within
// the map), cellar.tmj with Source of Tales' (type "WARP", DEST_MAP,
// DEST_NAME). The server composes both into one world (world-areas.ts, P-24);
// `map check` lists the warps as followed.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { GameClient } from "../ts/client/core/index.js";
import { CHUNK_TILE_COUNT } from "../ts/constants.js";
import { chunkX, chunkY } from "../ts/protocol/index.js";
import { inArea } from "../ts/server/world/areas.js";
import { cavesTileset } from "../ts/server/map/caves-tmj.js";
import { CAVE_TILE } from "../ts/server/map/generate-caves.js";
import { objectLayer, TiledObjects, tiledMapText, type TiledProperty } from "../ts/server/map/tiled-objects.js";
import { Logger } from "../ts/server/ops/log.js";
import { type RunningServer, startServer } from "../ts/server/server.js";
import { readWorld } from "../ts/server/world/world-areas.js";
import { checkMap } from "../ts/tools/map.js";
import { loadCore } from "../ts/wasm/node.js";
import { drive, joinOverUdp, neighbourhoodComplete, sleep } from "./client-core-support.js";

const SIZE = 40;

/** A walled room of floor, with `objects` as (name, type, x, y, properties). */
function roomMap(objects: [string, string, number, number, TiledProperty[]][]): string {
  const tiles = new Uint16Array(SIZE * SIZE);
  for (let y = 0; y < SIZE; y++) {
    for (let x = 0; x < SIZE; x++) {
      const rim = x === 0 || y === 0 || x === SIZE - 1 || y === SIZE - 1;
      tiles[y * SIZE + x] = rim ? CAVE_TILE.rockWall : CAVE_TILE.floor;
    }
  }
  const made = new TiledObjects();
  const points = objects.map(([name, type, x, y, properties]) => made.point(name, type, x, y, properties));
  return tiledMapText({
    width: SIZE,
    height: SIZE,
    tiles,
    objectLayers: [objectLayer(2, "objects", points)],
    nextObjectId: made.nextObjectId,
    properties: [],
    tileset: cavesTileset("tiles.tga"),
  });
}

const text = (name: string, value: string): TiledProperty => ({ name, type: "string", value });
let folder = "";
let hall = "";
let server: RunningServer | undefined;
const clients: GameClient[] = [];

beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), "caves-two-maps-"));
  hall = join(folder, "hall.tmj");
  writeFileSync(
    hall,
    roomMap([
      ["start", "spawn", 5, 5, []],
      ["to the cellar", "warp", 7, 5, [text("map", "cellar"), text("to", "arrival")]],
      ["back", "", 5, 12, []],
      ["shortcut", "", 5, 8, [text("exitUrl", "#far")]],
      ["far", "", 30, 30, []],
    ]),
  );
  writeFileSync(
    join(folder, "cellar.tmj"),
    roomMap([
      ["arrival", "", 10, 10, []],
      ["up the ladder", "WARP", 12, 10, [text("DEST_MAP", "hall"), text("DEST_NAME", "back")]],
    ]),
  );
});

afterAll(() => rmSync(folder, { recursive: true, force: true }));

afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  await server?.close();
  server = undefined;
});

function expectNeighbourhoodAsServer(running: RunningServer, client: GameClient): void {
  const serverTiles = new Uint16Array(CHUNK_TILE_COUNT);
  for (const entry of client.neighbourhood!.filter((candidate) => candidate.version > 0)) {
    running.game.world.copyChunkTiles(chunkX(entry.chunkId), chunkY(entry.chunkId), serverTiles);
    expect(Buffer.from(client.chunks.get(entry.chunkId)!.tiles.buffer).equals(Buffer.from(serverTiles.buffer))).toBe(
      true,
    );
  }
}

describe("warps between the maps of one folder", () => {
  it("the folder is one world of two areas, every warp followed; map check says so", async () => {
    const world = readWorld(hall);
    expect(world.files).toHaveLength(2);
    const [hallArea, cellarArea] = world.areas;
    expect(hallArea).toMatchObject({ x: 0, y: 0 });
    // The cellar lies below the hall, two chunks of nothing between.
    expect(cellarArea.y).toBeGreaterThanOrEqual(hallArea.height + 64);
    expect(world.reports.map((report) => report.unfollowed)).toEqual([null, null, null]);
    const check = checkMap(hall, await loadCore());
    expect(check.errors).toEqual([]);
    expect(check.lines.join("\n")).toMatch(/warps: 3 \(3 followed, 0 not\)/);
    expect(check.lines.join("\n")).toMatch(/world: 2 maps/);
  });

  it("a client steps onto warps and lands in the other map and back, chunks streaming each time", async () => {
    server = await startServer({
      host: "127.0.0.1",
      httpPort: 0,
      udpPort: 0,
      mapPath: hall,
      logger: new Logger("silent"),
    });
    const running = server;
    const [, cellarArea] = readWorld(hall).areas;
    const client = await joinOverUdp(`http://127.0.0.1:${running.httpPort}`, "Traveller", clients);
    expect(client.confirmed).toEqual({ x: 5, y: 5 });
    const at = (x: number, y: number) => () => client.confirmed?.x === x && client.confirmed.y === y;
    const entity = () => running.game.entities.get(client.ownEntityId)!;

    // A goal beyond the warp: the route through it ends where the warp sends the player, and no step of it
    // is taken in the cellar (the server drops the steps scheduled after the teleport, the client its route).
    expect(client.setGoal(10, 5)).toBe("planned");
    await drive(
      [client],
      "arrival in the cellar",
      () => !!client.confirmed && inArea(cellarArea, client.confirmed.x, client.confirmed.y),
    );
    await drive([client], "the route dropped", () => client.goal === null && client.pending.length === 0);
    await sleep(300);
    client.update();
    expect(client.confirmed).toEqual({ x: cellarArea.x + 10, y: cellarArea.y + 10 });
    expect({ x: entity().x, y: entity().y }).toEqual(client.confirmed);
    await drive([client], "the cellar's chunks", () => neighbourhoodComplete(client));
    expectNeighbourhoodAsServer(running, client);

    expect(client.setGoal(cellarArea.x + 12, cellarArea.y + 10)).toBe("planned");
    await drive([client], "back in the hall", at(5, 12));
    await drive([client], "the hall's chunks", () => neighbourhoodComplete(client));
    expectNeighbourhoodAsServer(running, client);

    // The exitUrl "#far": a teleport within the hall.
    expect(client.setGoal(5, 8)).toBe("planned");
    await drive([client], "the far corner", at(30, 30));
    expect({ x: entity().x, y: entity().y }).toEqual({ x: 30, y: 30 });
    expect(running.game.warps.stats.teleports).toBe(3);
    await drive([client], "the corner's chunks", () => neighbourhoodComplete(client));
    expectNeighbourhoodAsServer(running, client);
  }, 60_000);
});

describe("The Mana World's warps (dest_map, dest_x, dest_y)", () => {
  it("are followed to the tile they name in the map of the folder they name, written as text as old maps do", () => {
    const tmw = mkdtempSync(join(tmpdir(), "caves-tmw-maps-"));
    try {
      const first = join(tmw, "009-1.tmj");
      writeFileSync(
        first,
        roomMap([
          ["start", "spawn", 5, 5, []],
          ["to 009-2", "warp", 7, 5, [text("dest_map", "009-2"), text("dest_x", "12"), text("dest_y", "10")]],
          // manaserv's upper-case DEST_X / DEST_Y are pixels: not read as a tile.
          ["pixels", "warp", 9, 5, [text("dest_map", "009-2"), text("DEST_X", "384"), text("DEST_Y", "320")]],
        ]),
      );
      writeFileSync(
        join(tmw, "009-2.tmj"),
        roomMap([
          ["back to 009-1", "warp", 12, 12, [text("dest_map", "009-1"), text("dest_x", "6"), text("dest_y", "5")]],
        ]),
      );
      const world = readWorld(first);
      expect(world.files).toHaveLength(2);
      const [firstArea, secondArea] = world.areas;
      const byName = new Map(world.reports.map((report) => [report.warp.name, report]));
      expect(byName.get("to 009-2")).toMatchObject({
        unfollowed: null,
        arrival: { x: secondArea.x + 12, y: secondArea.y + 10 },
      });
      expect(byName.get("back to 009-1")).toMatchObject({
        unfollowed: null,
        arrival: { x: firstArea.x + 6, y: firstArea.y + 5 },
      });
      expect(byName.get("pixels")!.unfollowed).toMatch(/no destination/);
    } finally {
      rmSync(tmw, { recursive: true, force: true });
    }
  });
});
