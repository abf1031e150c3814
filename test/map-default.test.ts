// The bundled map, maps/caves.tmj: big enough (>= 6×6 chunks), every walkable
// cell reachable from every spawn under the real wasm movement rule, the
// features the design asks for, and the committed files exactly what
// scripts/make-map.ts generates.
import { copyFileSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { CHUNK_SIZE, PALETTE_MAX, TILE_FLAG_COLLIDES } from "../ts/constants.js";
import { cavesNpcKindsJson } from "../ts/server/map/caves-npcs.js";
import { cavesItemsJson } from "../ts/server/map/caves-items.js";
import { cavesTileDataJson, cavesTmj } from "../ts/server/map/caves-tmj.js";
import { CAVE_TILE, CAVE_TILE_DATA, CAVE_VAULT_KEY, generateCaves } from "../ts/server/map/generate-caves.js";
import { loadMap, tileFlagsTable, type LoadedMap } from "../ts/server/map/load-map.js";
import { loadCore } from "../ts/wasm/node.js";

const MAP_PATH = fileURLToPath(new URL("../maps/caves.tmj", import.meta.url));
const TILE_DATA_PATH = fileURLToPath(new URL("../maps/caves.tiles.json", import.meta.url));
const NPC_KINDS_PATH = fileURLToPath(new URL("../maps/caves.npcs.json", import.meta.url));
const ITEMS_PATH = fileURLToPath(new URL("../maps/caves.items.json", import.meta.url));

let map: LoadedMap;
let flags: Uint8Array;
beforeAll(() => {
  map = loadMap(MAP_PATH);
  flags = tileFlagsTable(map.tileData);
});
const idAt = (x: number, y: number): number => map.tiles[y * map.width + x];
const walkable = (id: number): boolean => (flags[id] & TILE_FLAG_COLLIDES) === 0;

describe("the bundled map", () => {
  it("is a single-layer TMJ of at least 6×6 chunks with its tile data file", () => {
    expect(map.name).toBe("Forgotten Caves");
    expect(Math.floor(map.width / CHUNK_SIZE)).toBeGreaterThanOrEqual(6);
    expect(Math.floor(map.height / CHUNK_SIZE)).toBeGreaterThanOrEqual(6);
    expect(map.source.format).toBe("tmj");
    expect(map.source.layers).toBe(1);
    expect(map.source.tileDataFile).toBe(TILE_DATA_PATH);
    expect(map.source.twinCount).toBe(0);
    expect(map.source.spawnFallback).toBe(false);
  });

  // Doors (docs/maps.md § Doors) are ways through: the rule runs with every door open, i.e. with the
  // closed door tile free. A closed door cuts its corridor until someone opens it; a locked one, its vault.
  it("lets every spawn reach every walkable cell under the wasm step rule, doors opened", async () => {
    const core = await loadCore();
    expect(
      core.fn<(w: number, h: number, x: number, y: number) => number>("grid_init")(map.width, map.height, 0, 0),
    ).toBe(1);
    core.u16.set(map.tiles, core.fn<() => number>("grid_tiles")() >>> 1);
    const doorsOpen = flags.slice();
    doorsOpen[CAVE_TILE.door] = 0;
    core.u8.set(doorsOpen, core.layout.TILE_FLAGS);
    const walkable = (id: number): boolean => (doorsOpen[id] & TILE_FLAG_COLLIDES) === 0;
    const allowedSteps = core.fn<(x: number, y: number) => number>("allowed_steps");
    const actionDx = core.fn<(action: number) => number>("action_dx");
    const actionDy = core.fn<(action: number) => number>("action_dy");
    const walkableCount = map.tiles.reduce((count, id) => count + (walkable(id) ? 1 : 0), 0);
    expect(walkableCount).toBeGreaterThan(map.width * map.height * 0.3);
    for (const spawn of map.spawns) {
      const seen = new Uint8Array(map.width * map.height);
      const queue = [spawn.y * map.width + spawn.x];
      seen[queue[0]] = 1;
      for (let head = 0; head < queue.length; head++) {
        const x = queue[head] % map.width;
        const y = Math.floor(queue[head] / map.width);
        const steps = allowedSteps(x, y);
        for (let action = 1; action <= 8; action++) {
          if (((steps >> action) & 1) === 0) continue;
          const next = (y + actionDy(action)) * map.width + x + actionDx(action);
          if (!seen[next]) {
            seen[next] = 1;
            queue.push(next);
          }
        }
      }
      expect(queue.length, `cells reached from spawn (${spawn.x}, ${spawn.y})`).toBe(walkableCount);
    }
  });

  it("has several spawns in the central flagstone hall, with a sign and a notice board near them", () => {
    expect(map.spawns.length).toBeGreaterThanOrEqual(4);
    for (const spawn of map.spawns) {
      expect(idAt(spawn.x, spawn.y)).toBe(CAVE_TILE.flagstone);
      expect(Math.abs(spawn.x - map.width / 2)).toBeLessThan(16);
      expect(Math.abs(spawn.y - map.height / 2)).toBeLessThan(10);
    }
    const near = (x: number, y: number) =>
      map.spawns.some((spawn) => Math.max(Math.abs(spawn.x - x), Math.abs(spawn.y - y)) <= 8);
    const sign = map.interactables.find((item) => item.kind === "sign")!;
    const board = map.interactables.find((item) => item.kind === "notice_board")!;
    expect(map.interactables.filter((item) => item.kind !== "chest").length).toBe(2);
    expect(idAt(sign.x, sign.y)).toBe(CAVE_TILE.sign);
    expect(sign.text).toMatch(/Forgotten Caves/);
    expect(idAt(board.x, board.y)).toBe(CAVE_TILE.noticeBoard);
    expect(near(sign.x, sign.y) && near(board.x, board.y)).toBe(true);
    expect(map.tiles.filter((id) => id === CAVE_TILE.sign || id === CAVE_TILE.noticeBoard).length).toBe(2);
  });

  it("has doors far from the spawn points, one of them locked by the rusty key in front of a dead end", () => {
    expect(map.doors.length).toBeGreaterThanOrEqual(3);
    for (const door of map.doors) {
      expect(idAt(door.x, door.y)).toBe(door.open ? CAVE_TILE.openDoor : CAVE_TILE.door);
      expect({ closed: door.closedTile, open: door.openTile }).toEqual({
        closed: CAVE_TILE.door,
        open: CAVE_TILE.openDoor,
      });
      for (const spawn of map.spawns)
        expect(Math.max(Math.abs(spawn.x - door.x), Math.abs(spawn.y - door.y))).toBeGreaterThan(40);
    }
    expect(map.doors.some((door) => door.open)).toBe(true);
    const locked = map.doors.filter((door) => door.locked);
    expect(locked).toHaveLength(1);
    expect(locked[0]).toMatchObject({ name: "vault door", key: CAVE_VAULT_KEY, open: false });
    expect(CAVE_VAULT_KEY).toBe("rusty key");
    // A vault: with the doors as the map has them, one side of the locked door is out of reach of the spawn.
    const seen = new Uint8Array(map.width * map.height);
    const queue = [map.spawns[0].y * map.width + map.spawns[0].x];
    seen[queue[0]] = 1;
    for (let head = 0; head < queue.length; head++) {
      for (const next of [queue[head] - 1, queue[head] + 1, queue[head] - map.width, queue[head] + map.width]) {
        if (!seen[next] && walkable(map.tiles[next])) {
          seen[next] = 1;
          queue.push(next);
        }
      }
    }
    const vault = locked[0];
    const sides = [-1, 1, -map.width, map.width]
      .map((offset) => vault.y * map.width + vault.x + offset)
      .filter((cell) => walkable(map.tiles[cell]));
    expect(sides.map((cell) => seen[cell])).toEqual(expect.arrayContaining([0, 1]));
    expect(map.interactables.some((item) => item.kind === "door")).toBe(false);
  });

  it("is closed by a solid rock rim", () => {
    const open: [number, number][] = [];
    for (let y = 0; y < map.height; y++) {
      for (let x = 0; x < map.width; x++) {
        const onRim = x < 3 || y < 3 || x >= map.width - 3 || y >= map.height - 3;
        if (onRim && walkable(idAt(x, y))) open.push([x, y]);
      }
    }
    expect(open).toEqual([]);
  });

  it("uses every tile but the stairs up, stairs down under its stairs, with water, bridges, halls, crystals and torches in earnest", () => {
    const counts = new Map<number, number>();
    for (const id of map.tiles) counts.set(id, (counts.get(id) ?? 0) + 1);
    // Every tile but the stairs up, which only dungeon levels have (docs/dungeons.md).
    expect([...counts.keys()].sort((a, b) => a - b)).toEqual(
      CAVE_TILE_DATA.map((tile) => tile.id).filter((id) => id !== CAVE_TILE.stairsUp),
    );
    const count = (id: number) => counts.get(id) ?? 0;
    // The stairs down are drawn where the stairs objects are, and nowhere else.
    const stairsAt = generateCaves().stairs.map((stairs) => stairs.y * map.width + stairs.x);
    expect(stairsAt.length).toBeGreaterThan(0);
    expect([...map.tiles.keys()].filter((cell) => map.tiles[cell] === CAVE_TILE.stairsDown)).toEqual(
      stairsAt.sort((a, b) => a - b),
    );
    expect(count(CAVE_TILE.water) + count(CAVE_TILE.deepWater)).toBeGreaterThan(300);
    expect(count(CAVE_TILE.bridge)).toBeGreaterThan(40);
    expect(count(CAVE_TILE.flagstone)).toBeGreaterThan(1000);
    expect(count(CAVE_TILE.pillar)).toBeGreaterThan(20);
    expect(count(CAVE_TILE.crystalWall)).toBeGreaterThan(100);
    expect(count(CAVE_TILE.torchWall)).toBeGreaterThan(100);
    for (const id of [CAVE_TILE.gravel, CAVE_TILE.moss, CAVE_TILE.rubble, CAVE_TILE.mushrooms]) {
      expect(count(id)).toBeGreaterThan(200);
    }
    // Bridges span water: every bridge cell touches water or deep water.
    const wet = (id: number) => id === CAVE_TILE.water || id === CAVE_TILE.deepWater;
    const dryBridges = [...map.tiles.keys()].filter((cell) => {
      if (map.tiles[cell] !== CAVE_TILE.bridge) return false;
      const x = cell % map.width;
      const y = Math.floor(cell / map.width);
      for (let dy = -1; dy <= 1; dy++) for (let dx = -1; dx <= 1; dx++) if (wet(idAt(x + dx, y + dy))) return false;
      return true;
    });
    expect(dryBridges).toEqual([]);
  });

  it("fits the wire: at most 64 distinct ids in every chunk", () => {
    let most = 0;
    for (let chunkY = 0; chunkY * CHUNK_SIZE < map.height; chunkY++) {
      for (let chunkX = 0; chunkX * CHUNK_SIZE < map.width; chunkX++) {
        const ids = new Set<number>();
        for (let y = chunkY * CHUNK_SIZE; y < Math.min(map.height, (chunkY + 1) * CHUNK_SIZE); y++) {
          for (let x = chunkX * CHUNK_SIZE; x < Math.min(map.width, (chunkX + 1) * CHUNK_SIZE); x++)
            ids.add(idAt(x, y));
        }
        most = Math.max(most, ids.size);
      }
    }
    expect(most).toBeLessThanOrEqual(PALETTE_MAX);
    expect(map.source.maxIdsPerChunk).toBe(most);
  });

  it("carries the same tile meaning in its Tiled tileset as in caves.tiles.json", () => {
    const dir = mkdtempSync(join(tmpdir(), "map-default-"));
    copyFileSync(MAP_PATH, join(dir, "caves.tmj"));
    copyFileSync(NPC_KINDS_PATH, join(dir, "caves.npcs.json"));
    copyFileSync(ITEMS_PATH, join(dir, "caves.items.json"));
    const fromTileset = loadMap(join(dir, "caves.tmj"));
    expect(fromTileset.source.tileDataFile).toBeNull();
    expect(Buffer.from(tileFlagsTable(fromTileset.tileData)).equals(Buffer.from(flags))).toBe(true);
    for (const tile of CAVE_TILE_DATA) expect(fromTileset.tileData.get(tile.id)).toEqual({ ...tile, look: tile.id });
  });

  it("is exactly what the generator makes (npx tsx scripts/make-map.ts regenerates it)", () => {
    const caves = generateCaves();
    expect(cavesTmj(caves)).toBe(readFileSync(MAP_PATH, "utf8"));
    expect(cavesTileDataJson()).toBe(readFileSync(TILE_DATA_PATH, "utf8"));
    expect(cavesNpcKindsJson()).toBe(readFileSync(NPC_KINDS_PATH, "utf8"));
    expect(cavesItemsJson()).toBe(readFileSync(ITEMS_PATH, "utf8"));
  });

  it("has items: a supply chest in the great hall, three in other halls, the rusty key out in the caves, the vault chest behind its door", () => {
    expect(map.items.map((item) => item.name)).toContain("rusty key");
    expect(map.chests.map((chest) => chest.name)).toEqual([
      "supply chest",
      "old chest",
      "iron chest",
      "dusty chest",
      "vault chest",
    ]);
    const hall = map.safeZones[0];
    const inHall = (chest: { x: number; y: number }) =>
      chest.x >= hall.x && chest.y >= hall.y && chest.x < hall.x + hall.width && chest.y < hall.y + hall.height;
    expect(map.chests.filter(inHall).map((chest) => chest.name)).toEqual(["supply chest"]);
    const keys = map.chests.filter((chest) => chest.items.some(({ item }) => item.name === "rusty key"));
    expect(keys.map((chest) => chest.name)).toEqual(["dusty chest"]);
    // Walking from the spawn through every unlocked door: the key is reachable, the vault chest is not;
    // with the vault door open too, it is.
    const vault = map.doors.find((door) => door.locked)!;
    expect(vault.key).toBe("rusty key");
    const reachable = (vaultOpen: boolean): Set<number> => {
      const seen = new Set<number>();
      const start = map.spawns[0].y * map.width + map.spawns[0].x;
      const queue = [start];
      seen.add(start);
      const doorCells = new Set(
        map.doors.filter((door) => vaultOpen || !door.locked).map((door) => door.y * map.width + door.x),
      );
      for (let head = 0; head < queue.length; head++) {
        const cell = queue[head];
        for (const next of [cell + 1, cell - 1, cell + map.width, cell - map.width]) {
          if (seen.has(next) || next < 0 || next >= map.tiles.length) continue;
          if (!walkable(map.tiles[next]) && !doorCells.has(next)) continue;
          seen.add(next);
          queue.push(next);
        }
      }
      return seen;
    };
    const cellOf = (name: string) => {
      const chest = map.chests.find((candidate) => candidate.name === name)!;
      return chest.y * map.width + chest.x;
    };
    const shut = reachable(false);
    for (const name of ["supply chest", "old chest", "iron chest", "dusty chest"])
      expect(shut.has(cellOf(name))).toBe(true);
    expect(shut.has(cellOf("vault chest"))).toBe(false);
    expect(reachable(true).has(cellOf("vault chest"))).toBe(true);
  });

  it("has creatures: critters, guards and the hall's people in view of the spawn points, hostiles only outside the great hall", () => {
    const spawnPoint = map.spawns[0];
    const inView = (x: number, y: number) => Math.abs(x - spawnPoint.x) <= 15 && Math.abs(y - spawnPoint.y) <= 15;
    const byBehaviour = (behaviour: string) => map.npcSpawns.filter((spawn) => spawn.kind.behaviour === behaviour);
    expect(map.npcKinds.map((kind) => kind.behaviour).sort()).toEqual([
      "guard",
      "guard",
      "guard",
      "hostile",
      "hostile",
      "wander",
      "wander",
    ]);
    // The people of the great hall (maps/caves.content): in view of the spawn points, at their posts.
    for (const name of ["Mira the merchant", "Old Tom"]) {
      const spawn = map.npcSpawns.find((each) => each.kind.name === name)!;
      expect(
        spawn.cells.every((cell) => inView(cell.x, cell.y)),
        name,
      ).toBe(true);
    }
    // A new player sees the world move at once: every cell of some critter areas is in view of the spawn.
    const critterAreasInView = byBehaviour("wander").filter((spawn) => spawn.cells.every((c) => inView(c.x, c.y)));
    expect(critterAreasInView.length).toBeGreaterThanOrEqual(2);
    expect(byBehaviour("guard").length).toBeGreaterThanOrEqual(1);
    // No hostile lives where its leash could bring it into view of the spawn points.
    for (const spawn of byBehaviour("hostile")) {
      for (const cell of spawn.cells) {
        const distance = Math.max(Math.abs(cell.x - spawnPoint.x), Math.abs(cell.y - spawnPoint.y));
        expect(distance, spawn.name).toBeGreaterThan(15 + spawn.kind.leash);
      }
    }
  });
});

describe("the cave generator", () => {
  it("connects everything for other seeds and sizes too, doors opened", () => {
    const collides = new Set(
      CAVE_TILE_DATA.filter((tile) => tile.collides && tile.opensTo === undefined).map((tile) => tile.id),
    );
    for (const [seed, width, height] of [
      [1, 128, 112],
      [2024, 160, 96],
    ]) {
      const caves = generateCaves({ seed, width, height });
      const free = (cell: number) => !collides.has(caves.tiles[cell]);
      const start = caves.spawns[0].y * width + caves.spawns[0].x;
      const seen = new Uint8Array(width * height);
      const queue = [start];
      seen[start] = 1;
      for (let head = 0; head < queue.length; head++) {
        const cell = queue[head];
        for (const next of [cell - 1, cell + 1, cell - width, cell + width]) {
          if (!seen[next] && free(next)) {
            seen[next] = 1;
            queue.push(next);
          }
        }
      }
      const freeCount = caves.tiles.filter((_, cell) => free(cell)).length;
      expect(queue.length, `seed ${seed}`).toBe(freeCount);
      expect(generateCaves({ seed, width, height }).tiles).toEqual(caves.tiles);
    }
  });
});
