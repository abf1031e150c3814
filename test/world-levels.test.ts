// Dungeon levels in the running world (issue 15, docs/dungeons.md § Where
// levels live), over real loopback UDP with the real wasm: a client walks onto
// the bundled map's stairs, waits on them while the worker generates the level,
// arrives at the level's stairs up in its slot (P-24: a rectangle beside the
// map), the level's chunks stream to it, and stairs up lead back to the same
// overworld cell. Left empty, the level is dropped (its chunks cease to exist:
// version 0), and taken again it comes back tile for tile from its seed, with
// new chunk versions so caches ask again.
import { afterEach, describe, expect, it } from "vitest";
import { resolve } from "node:path";
import type { GameClient } from "../ts/client/core/index.js";
import { CHUNK_SIZE, CHUNK_TILE_COUNT } from "../ts/constants.js";
import { chunkX, chunkY } from "../ts/protocol/index.js";
import { inArea } from "../ts/server/areas.js";
import { Logger } from "../ts/server/log.js";
import { type RunningServer, startServer } from "../ts/server/server.js";
import { readWorld } from "../ts/server/world-areas.js";
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
});
