// Dungeon levels in the running world (issue 15, docs/dungeons.md § Where
// levels live), over real loopback UDP with the real wasm: a client walks onto
// the bundled map's stairs, waits on them while the worker generates the level,
// arrives at the level's stairs up in its slot (P-24: a rectangle beside the
// map), the level's chunks stream to it, and stairs up lead back to the same
// overworld cell. Left empty, the level is dropped (its chunks cease to exist:
// version 0), and taken again it comes back tile for tile from its seed, with
// new chunk versions so caches ask again. A level's doors open as the map's do:
// a use from beside one turns its tile through a TileUpdate the client applies,
// the player walks through, and the level dropped and made again from its seed
// has every door closed as before.
import { afterEach, describe, expect, it } from "vitest";
import { resolve } from "node:path";
import type { GameClient } from "../ts/client/core/index.js";
import { CHUNK_SIZE, CHUNK_TILE_COUNT } from "../ts/constants.js";
import { chunkX, chunkY } from "../ts/protocol/index.js";
import { inArea } from "../ts/server/world/areas.js";
import { CAVE_TILE } from "../ts/server/map/generate-caves.js";
import { Logger } from "../ts/server/ops/log.js";
import { type RunningServer, startServer } from "../ts/server/server.js";
import { readWorld } from "../ts/server/world/world-areas.js";
import { drive, joinOverUdp, neighbourhoodComplete } from "./client-core-support.js";

const MAP = resolve(import.meta.dirname, "../maps/caves.tmj");
let server: RunningServer | undefined;
const clients: GameClient[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  await server?.close();
  server = undefined;
});

/** Every chunk of the client's manifest held tile for tile as the server has it. */
function expectNeighbourhoodAsServer(running: RunningServer, client: GameClient): number {
  const serverTiles = new Uint16Array(CHUNK_TILE_COUNT);
  const present = client.neighbourhood!.filter((entry) => entry.version > 0);
  for (const entry of present) {
    running.game.world.copyChunkTiles(chunkX(entry.chunkId), chunkY(entry.chunkId), serverTiles);
    const held = client.chunks.get(entry.chunkId);
    expect(held?.version).toBe(entry.version);
    expect(Buffer.from(held!.tiles.buffer).equals(Buffer.from(serverTiles.buffer))).toBe(true);
  }
  return present.length;
}

/** A free cell next to (x, y) the rule lets one step reach. */
function besides(running: RunningServer, x: number, y: number): { x: number; y: number } {
  for (const [dx, dy] of [
    [1, 0],
    [-1, 0],
    [0, 1],
    [0, -1],
  ]) {
    if (running.game.world.walkable(x + dx, y + dy)) return { x: x + dx, y: y + dy };
  }
  throw new Error(`no free cell beside ${x},${y}`);
}

async function walkTo(client: GameClient, goal: { x: number; y: number }, what: string, arrived: () => boolean) {
  expect(client.setGoal(goal.x, goal.y)).toBe("planned");
  await drive([client], what, arrived, 20_000);
}

/** The slot's tiles, row-major, as the server holds them. */
function slotTiles(running: RunningServer, slot: number): Uint16Array {
  const area = running.game.world.levelSlots[slot];
  const out = new Uint16Array(area.width * area.height);
  const chunk = new Uint16Array(CHUNK_TILE_COUNT);
  for (let cy = 0; cy < area.height / CHUNK_SIZE; cy++) {
    for (let cx = 0; cx < area.width / CHUNK_SIZE; cx++) {
      running.game.world.copyChunkTiles(area.x / CHUNK_SIZE + cx, area.y / CHUNK_SIZE + cy, chunk);
      for (let y = 0; y < CHUNK_SIZE; y++) {
        out.set(
          chunk.subarray(y * CHUNK_SIZE, (y + 1) * CHUNK_SIZE),
          (cy * CHUNK_SIZE + y) * area.width + cx * CHUNK_SIZE,
        );
      }
    }
  }
  return out;
}

/**
 * The level door nearest `from` by the steps the server's rule allows with every door as it is (closed):
 * the door, the way there (cells from `from` to the one beside it) and the cell beyond it.
 */
function nearestDoor(running: RunningServer, slot: number, from: { x: number; y: number }) {
  const { world, doors } = running.game;
  const area = world.levelSlots[slot];
  const key = (x: number, y: number) => (y - area.y) * area.width + (x - area.x);
  const previous = new Int32Array(area.width * area.height).fill(-2);
  const queue = [from];
  previous[key(from.x, from.y)] = -1;
  for (let head = 0; head < queue.length; head++) {
    const at = queue[head];
    for (const [dx, dy] of [
      [1, 0],
      [-1, 0],
      [0, 1],
      [0, -1],
    ]) {
      const x = at.x + dx;
      const y = at.y + dy;
      if (!inArea(area, x, y) || previous[key(x, y)] !== -2) continue;
      previous[key(x, y)] = head;
      const door = doors.at(x, y);
      if (door !== undefined) {
        const way = [at];
        for (let step = previous[key(at.x, at.y)]; step >= 0; step = previous[key(queue[step].x, queue[step].y)]) {
          way.unshift(queue[step]);
        }
        return { door, way, near: at, beyond: { x: x + dx, y: y + dy } };
      }
      if (world.walkable(x, y)) queue.push({ x, y });
    }
  }
  throw new Error("no door reachable from the stairs up");
}

describe("dungeon levels over UDP", () => {
  it("stairs down, chunks stream, stairs up to the same spot; an empty level is dropped and comes back identical", async () => {
    server = await startServer({
      host: "127.0.0.1",
      httpPort: 0,
      udpPort: 0,
      mapPath: MAP,
      logger: new Logger("silent"),
      levelSlots: 2,
      levelKeepEmptyMs: 1500,
    });
    const running = server;
    const game = running.game;
    const stairs = readWorld(MAP).warps.find((warp) => warp.stairs === "down")!;
    expect(stairs).toBeDefined();
    expect(game.world.levelSlots).toHaveLength(2);
    const slot = game.world.levelSlots[0];
    // The slot lies beside the map, chunk-aligned, with a gap of chunks that exist nowhere.
    expect(slot.x).toBeGreaterThanOrEqual(game.world.mapWidth + 2 * CHUNK_SIZE);
    expect(game.world.chunkVersion(slot.x / CHUNK_SIZE, slot.y / CHUNK_SIZE)).toBe(0);

    const client = await joinOverUdp(`http://127.0.0.1:${running.httpPort}`, "Delver", clients);
    const entity = () => game.entities.get(client.ownEntityId)!;
    const inLevel = () => client.confirmed !== null && inArea(slot, client.confirmed.x, client.confirmed.y);
    await drive([client], "the neighbourhood", () => neighbourhoodComplete(client));

    // Down: the step onto the stairs waits for the worker, then the player is in the level.
    await walkTo(client, stairs, "arrival in the level", inLevel);
    expect(game.levels.size).toBe(1);
    const level = game.levels.inSlot(0)!;
    expect(level.depth).toBe(1);
    const entry = { x: entity().x, y: entity().y };
    expect(game.warps.at(entry.x, entry.y)?.stairs).toBe("up");
    await drive([client], "the level's chunks", () => neighbourhoodComplete(client) && client.confirmed!.x === entry.x);
    expect(expectNeighbourhoodAsServer(running, client)).toBeGreaterThan(0);
    // The teleport was snapped to, not predicted across: the client stands where the server put it.
    expect(client.confirmed).toEqual(entry);
    const firstTiles = slotTiles(running, 0);
    const firstVersion = game.world.chunkVersion(slot.x / CHUNK_SIZE, slot.y / CHUNK_SIZE);
    expect(firstVersion).toBeGreaterThan(0);

    // Up: step off the stairs and back on; the player is on the overworld stairs it took.
    const off = besides(running, entry.x, entry.y);
    await walkTo(
      client,
      off,
      "a step off the stairs up",
      () => client.confirmed?.x === off.x && client.confirmed.y === off.y,
    );
    await walkTo(client, entry, "back on the overworld", () => !inLevel() && client.confirmed !== null);
    expect(client.confirmed).toEqual({ x: stairs.x, y: stairs.y });
    expect({ x: entity().x, y: entity().y }).toEqual({ x: stairs.x, y: stairs.y });
    await drive([client], "the overworld's chunks", () => neighbourhoodComplete(client));
    expectNeighbourhoodAsServer(running, client);

    // Nobody in it for keepEmptyMs: dropped, its chunks gone from the world.
    await drive([client], "the empty level dropped", () => game.levels.size === 0, 10_000);
    expect(game.levels.stats.dropped).toBe(1);
    expect(game.world.chunkVersion(slot.x / CHUNK_SIZE, slot.y / CHUNK_SIZE)).toBe(0);

    // Down again: the same level from its seed, tile for tile, under new versions.
    const off2 = besides(running, stairs.x, stairs.y);
    await walkTo(
      client,
      off2,
      "a step off the stairs",
      () => client.confirmed?.x === off2.x && client.confirmed.y === off2.y,
    );
    await walkTo(client, stairs, "the level again", inLevel);
    const again = game.levels.inSlot(0)!;
    expect(again.seed).toBe(level.seed);
    expect(Buffer.from(slotTiles(running, 0).buffer).equals(Buffer.from(firstTiles.buffer))).toBe(true);
    expect(game.world.chunkVersion(slot.x / CHUNK_SIZE, slot.y / CHUNK_SIZE)).not.toBe(firstVersion);
    expect({ x: entity().x, y: entity().y }).toEqual(entry);
    await drive([client], "the level's chunks again", () => neighbourhoodComplete(client));
    expectNeighbourhoodAsServer(running, client);
    // Generation ran in the worker; the tick only put the level in place.
    expect(game.levels.stats.generated).toBe(2);
    expect(Math.max(...game.levels.stats.installMs)).toBeLessThan(250);
  }, 90_000);

  it("a level's door opens through a tile update, lets the player through, and is closed again when the level comes back", async () => {
    server = await startServer({
      host: "127.0.0.1",
      httpPort: 0,
      udpPort: 0,
      mapPath: MAP,
      logger: new Logger("silent"),
      levelSlots: 1,
      levelKeepEmptyMs: 1000,
    });
    const running = server;
    const game = running.game;
    const stairs = readWorld(MAP).warps.find((warp) => warp.stairs === "down")!;
    const slot = game.world.levelSlots[0];
    const mapDoors = game.doors.size;
    const client = await joinOverUdp(`http://127.0.0.1:${running.httpPort}`, "Opener", clients);
    const inLevel = () => client.confirmed !== null && inArea(slot, client.confirmed.x, client.confirmed.y);
    await drive([client], "the neighbourhood", () => neighbourhoodComplete(client));
    await walkTo(client, stairs, "arrival in the level", inLevel);
    const entry = { ...client.confirmed! };
    await drive([client], "the level's chunks", () => neighbourhoodComplete(client) && inLevel());
    const firstTiles = slotTiles(running, 0);
    // The level's doors joined the map's, every one closed on its closed door tile.
    const levelDoors = game.doors.size - mapDoors;
    expect(levelDoors).toBeGreaterThan(0);
    const { door, way, near, beyond } = nearestDoor(running, 0, entry);
    expect(door.open).toBe(false);
    expect(game.world.tileAt(door.spec.x, door.spec.y)).toBe(CAVE_TILE.door);
    expect(game.world.walkable(door.spec.x, door.spec.y)).toBe(false);

    // There in hops the client's A* plans within the chunks it holds, then beside it, used as a click does:
    // the tile update reaches the client, which then plans through.
    for (let i = 12; i < way.length - 1; i += 12) {
      const hop = way[i];
      await walkTo(
        client,
        hop,
        "a hop toward the door",
        () => client.confirmed?.x === hop.x && client.confirmed.y === hop.y,
      );
      await drive([client], "the chunks around", () => neighbourhoodComplete(client));
    }
    await walkTo(
      client,
      near,
      "beside the door",
      () => client.confirmed?.x === near.x && client.confirmed.y === near.y,
    );
    await drive([client], "the door in view", () => client.entities.has(door.entity.id));
    await drive(
      [client],
      "the door's tile on the client",
      () => client.sim.getTile(door.spec.x, door.spec.y) === CAVE_TILE.door,
    );
    expect(client.setGoal(beyond.x, beyond.y)).not.toBe("planned");
    const updatesBefore = (game.status().tileUpdates as { updates: number }).updates;
    expect(client.interact(door.entity.id)).toBeNull();
    await drive(
      [client],
      "the open door on the client",
      () => client.sim.getTile(door.spec.x, door.spec.y) === CAVE_TILE.openDoor,
    );
    expect(door.open).toBe(true);
    expect(game.world.walkable(door.spec.x, door.spec.y)).toBe(true);
    expect((game.status().tileUpdates as { updates: number }).updates).toBeGreaterThan(updatesBefore);
    await walkTo(
      client,
      beyond,
      "through the door",
      () => client.confirmed?.x === beyond.x && client.confirmed.y === beyond.y,
    );

    // Back up the stairs; the empty level is dropped, and its doors with it.
    await walkTo(client, entry, "back on the overworld", () => client.confirmed !== null && !inLevel());
    await drive([client], "the empty level dropped", () => game.levels.size === 0, 10_000);
    expect(game.doors.size).toBe(mapDoors);
    expect(game.doors.at(door.spec.x, door.spec.y)).toBeUndefined();

    // Down again: the level from its seed, tile for tile as first made — the door closed again, a new entity.
    const off = besides(running, stairs.x, stairs.y);
    await walkTo(
      client,
      off,
      "a step off the stairs",
      () => client.confirmed?.x === off.x && client.confirmed.y === off.y,
    );
    await walkTo(client, stairs, "the level again", inLevel);
    expect(Buffer.from(slotTiles(running, 0).buffer).equals(Buffer.from(firstTiles.buffer))).toBe(true);
    expect(game.doors.size - mapDoors).toBe(levelDoors);
    const again = game.doors.at(door.spec.x, door.spec.y)!;
    expect(again.open).toBe(false);
    expect(again.entity.id).not.toBe(door.entity.id);
    expect(game.world.walkable(door.spec.x, door.spec.y)).toBe(false);
    // The client holds the level as the server made it again (the door's chunk is out of its view here:
    // its cached copy, with the door open, is stale under the new versions and is asked again when near).
    await drive([client], "the level's chunks again", () => neighbourhoodComplete(client) && inLevel());
    expect(expectNeighbourhoodAsServer(running, client)).toBeGreaterThan(0);
  }, 150_000);
});
