// Procedural dungeon levels (issue 15): deterministic per seed, every walkable
// cell reachable from the stairs up under THE movement rule (the real wasm
// `allowed_steps`, counted with the doors open: a door is a way through), stairs
// both ways, loops, doors in the gaps of room walls; the CLI writes a Tiled map
// that the server's loader reads and a server plays over real UDP.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tileFlagsTable } from "../ts/tile-flags.js";
import { CAVE_TILE, CAVE_TILE_DATA } from "../ts/server/map/generate-caves.js";
import { doorShare, generateDungeon, type GeneratedDungeon } from "../ts/server/dungeon/generate-dungeon.js";
import { loadMap } from "../ts/server/map/load-map.js";
import { readWorldMap } from "../ts/server/world/world-map.js";
import { main as dungeonCli } from "../ts/tools/dungeon.js";
import type { Core } from "../ts/wasm/core.js";
import { loadCore } from "../ts/wasm/node.js";
import { startHarness } from "./support/game-harness.js";
import { UdpTestClient } from "./support/udp-client.js";

let core: Core;
const flags = tileFlagsTable(new Map(CAVE_TILE_DATA.map((tile) => [tile.id, { ...tile, look: tile.id }])));
const dir = mkdtempSync(join(tmpdir(), "caves-dungeon-"));

beforeAll(async () => {
  core = await loadCore();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const walkable = (level: GeneratedDungeon, cell: number) => (flags[level.tiles[cell]] & 1) === 0;

/** The level's tiles with every door open (a player opens any of them: none is locked). */
function doorsOpen(level: GeneratedDungeon): Uint16Array {
  return level.tiles.map((tile) => (tile === CAVE_TILE.door ? CAVE_TILE.openDoor : tile));
}

/**
 * Cells reached from the entry through the steps the wasm rule allows over `tiles` (the level's with
 * its doors open unless told), and the walkable count.
 */
function reach(
  level: GeneratedDungeon,
  tiles: Uint16Array = doorsOpen(level),
): { reached: Uint8Array; count: number; walkableCount: number } {
  const { width, height } = level;
  expect(core.fn<(w: number, h: number, x: number, y: number) => number>("grid_init")(width, height, 0, 0)).toBe(1);
  core.u16.set(tiles, core.fn<() => number>("grid_tiles")() >>> 1);
  core.u8.set(flags, core.layout.TILE_FLAGS);
  const allowedSteps = core.fn<(x: number, y: number) => number>("allowed_steps");
  const actionDx = core.fn<(action: number) => number>("action_dx");
  const actionDy = core.fn<(action: number) => number>("action_dy");
  const reached = new Uint8Array(width * height);
  const queue = [level.entry.y * width + level.entry.x];
  reached[queue[0]] = 1;
  for (let head = 0; head < queue.length; head++) {
    const x = queue[head] % width;
    const y = Math.floor(queue[head] / width);
    const steps = allowedSteps(x, y);
    for (let action = 1; action <= 8; action++) {
      if (((steps >> action) & 1) === 0) continue;
      const next = (y + actionDy(action)) * width + x + actionDx(action);
      if (!reached[next]) {
        reached[next] = 1;
        queue.push(next);
      }
    }
  }
  let walkableCount = 0;
  for (let cell = 0; cell < width * height; cell++) if ((flags[tiles[cell]] & 1) === 0) walkableCount++;
  return { reached, count: queue.length, walkableCount };
}

describe("dungeon generator", () => {
  it("is deterministic: the same seed and depth give the same level, another seed another", () => {
    const a = generateDungeon({ seed: 42, depth: 3 });
    const b = generateDungeon({ seed: 42, depth: 3 });
    expect(Buffer.from(a.tiles.buffer).equals(Buffer.from(b.tiles.buffer))).toBe(true);
    expect({ ...a, tiles: null }).toEqual({ ...b, tiles: null });
    const c = generateDungeon({ seed: 43, depth: 3 });
    expect(Buffer.from(a.tiles.buffer).equals(Buffer.from(c.tiles.buffer))).toBe(false);
    const deeper = generateDungeon({ seed: 42, depth: 4 });
    expect(Buffer.from(a.tiles.buffer).equals(Buffer.from(deeper.tiles.buffer))).toBe(false);
  });

  it("for 1,000 seeds: every walkable cell is reachable from the stairs up under the wasm rule, the stairs down too, and there is a loop", () => {
    for (let seed = 1; seed <= 1000; seed++) {
      const depth = 1 + (seed % 6);
      const level = generateDungeon({ seed: (seed * 2654435761) >>> 0, depth, width: 48, height: 48 });
      const { reached, count, walkableCount } = reach(level);
      if (count !== walkableCount) expect.fail(`seed ${seed}: ${count} of ${walkableCount} walkable cells reached`);
      if (!reached[level.exit.y * level.width + level.exit.x]) expect.fail(`seed ${seed}: stairs down unreachable`);
      if (level.loops < 1) expect.fail(`seed ${seed}: no loop`);
    }
  });

  it("puts closed doors in the gaps of square rooms' walls, more of them deeper, never near the stairs", () => {
    const tile = (level: GeneratedDungeon, x: number, y: number) => level.tiles[y * level.width + x];
    const solid = (level: GeneratedDungeon, x: number, y: number) => !walkable(level, y * level.width + x);
    const doorCells: number[] = [0, 0];
    for (let seed = 1; seed <= 400; seed++) {
      const depth = seed % 2 === 0 ? 1 : 6;
      const level = generateDungeon({ seed, depth, width: 64, height: 64 });
      const onTiles = level.tiles.reduce((n, id) => n + (id === CAVE_TILE.door ? 1 : 0), 0);
      if (onTiles !== level.doors.length)
        expect.fail(`seed ${seed}: ${onTiles} door tiles, ${level.doors.length} doors`);
      doorCells[depth === 1 ? 0 : 1] += level.doors.length;
      for (const { x, y } of level.doors) {
        const where = `seed ${seed} door at ${x},${y}`;
        if (!solid(level, x, y)) expect.fail(`${where}: a closed door must collide`);
        // Wall to either side, a room's flagstone floor ahead or behind, a way through the other.
        const acrossX = solid(level, x - 1, y) && solid(level, x + 1, y);
        const acrossY = solid(level, x, y - 1) && solid(level, x, y + 1);
        const through = acrossX
          ? [tile(level, x, y - 1), tile(level, x, y + 1)]
          : acrossY
            ? [tile(level, x - 1, y), tile(level, x + 1, y)]
            : [];
        if (through.length === 0) expect.fail(`${where}: no wall on two opposite sides`);
        if (!through.includes(CAVE_TILE.flagstone)) expect.fail(`${where}: opens onto no room`);
        if (through.some((id) => (flags[id] & 1) !== 0)) expect.fail(`${where}: leads into a wall`);
        for (const stairs of [level.entry, level.exit]) {
          if (Math.max(Math.abs(stairs.x - x), Math.abs(stairs.y - y)) < 3) expect.fail(`${where}: by the stairs`);
        }
        if (level.chests.some((chest) => chest.x === x && chest.y === y)) expect.fail(`${where}: on a chest`);
      }
      // With the doors closed the stairs up still lead somewhere; opened, everything is reached (above).
      if (reach(level, level.tiles).count < 2) expect.fail(`seed ${seed}: shut in at the stairs`);
    }
    expect(doorShare(1)).toBeLessThan(doorShare(6));
    // Deeper levels grow more caves (which have no walls to hold doors) but a larger share of entrances
    // with a door: both depths get doors, and many.
    expect(doorCells[0]).toBeGreaterThan(200);
    expect(doorCells[1]).toBeGreaterThan(200);
  });

  it("at the default size too, with stairs apart, and chests and creatures growing with depth", () => {
    let lastCreatures = -1;
    for (const depth of [1, 3, 6]) {
      let creatures = 0;
      for (let seed = 1; seed <= 8; seed++) {
        const level = generateDungeon({ seed, depth });
        const { count, walkableCount } = reach(level);
        expect(count).toBe(walkableCount);
        expect(walkableCount).toBeGreaterThan(level.width * level.height * 0.2);
        expect(Math.abs(level.entry.x - level.exit.x) + Math.abs(level.entry.y - level.exit.y)).toBeGreaterThan(40);
        expect(level.chests.length).toBeGreaterThanOrEqual(1);
        creatures += level.spawns.reduce((sum, spawn) => sum + spawn.count, 0);
        // Deeper chests hold better things.
        if (depth >= 3) expect(level.chests.some((chest) => /short sword|chain mail/.test(chest.items))).toBe(true);
      }
      // On average over the seeds: deeper levels hold more creatures.
      expect(creatures).toBeGreaterThan(lastCreatures);
      lastCreatures = creatures;
    }
  });

  it("refuses what it cannot make, with the limit named", () => {
    expect(() => generateDungeon({ seed: 1, depth: 0 })).toThrow(/depth must be 1\.\.99/);
    expect(() => generateDungeon({ seed: 1, depth: 1, width: 20 })).toThrow(/width must be 48\.\.512/);
    expect(() => generateDungeon({ seed: -1, depth: 1 })).toThrow(/seed must be a u32/);
  });
});

describe("npm run -s dungeon", () => {
  it("writes a Tiled map with its data files that the loader reads and a server plays", async () => {
    const out = join(dir, "level.tmj");
    expect(dungeonCli(["--seed", "42", "--depth", "2", "--out", out])).toBe(0);
    const level = generateDungeon({ seed: 42, depth: 2 });
    const map = loadMap(out);
    expect(map.spawns).toEqual([level.entry]);
    expect(map.chests.map(({ x, y }) => ({ x, y }))).toEqual(level.chests.map(({ x, y }) => ({ x, y })));
    expect(map.npcSpawns.length).toBe(level.spawns.length);
    // The doors are the maps' door objects on closed door tiles: played as a map, they open.
    expect(level.doors.length).toBeGreaterThan(0);
    expect(map.doors!.map(({ x, y, open, locked }) => ({ x, y, open, locked }))).toEqual(
      level.doors.map(({ x, y }) => ({ x, y, open: false, locked: false })),
    );
    expect(map.doors!.every((door) => door.closedTile === CAVE_TILE.door && door.openTile === CAVE_TILE.openDoor)).toBe(
      true,
    );
    expect(map.objects.filter((object) => object.type === "stairs").map(({ x, y }) => ({ x, y }))).toEqual([
      level.entry,
      level.exit,
    ]);
    const harness = await startHarness(readWorldMap(out));
    const client = await UdpTestClient.connect(harness.httpPort, "delver");
    try {
      client.action(0, 0);
      expect(await client.waitFor("own position", () => client.position())).toEqual(level.entry);
      // The chunks stream: the client is sent the chunk it stands in.
      await client.waitFor("a chunk", () => client.received.some((r) => r.packet?.type === "chunk"));
    } finally {
      client.close();
      await harness.close();
    }
  });

  it("prints usage for --help (exit 0) and refuses bad flags (exit 2)", () => {
    expect(dungeonCli(["--help"])).toBe(0);
    expect(dungeonCli(["--seed", "1", "--depth", "1"])).toBe(2);
    expect(dungeonCli(["--seed", "x", "--depth", "1", "--out", join(dir, "x.tmj")])).toBe(2);
    expect(dungeonCli(["--seed", "1", "--depth", "100", "--out", join(dir, "x.tmj")])).toBe(2);
    expect(dungeonCli(["--bogus"])).toBe(2);
  });
});
