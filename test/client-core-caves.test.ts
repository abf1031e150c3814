// The networking core against the real server on the real default map
// (maps/caves.tmj, 7×7 chunks of generated caves), over real UDP loopback.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectGuest, GameClient } from "../ts/client/core/index.js";
import { udpTransportFor } from "../ts/client/transport/udp-node.js";
import { CHUNK_TILE_COUNT } from "../ts/constants.js";
import { chunkX, chunkY } from "../ts/protocol/index.js";
import type { RunningServer } from "../ts/server/server.js";
import { loadCore } from "../ts/wasm/node.js";
import { drive, neighbourhoodComplete } from "./client-core-support.js";
import { startCavesServer } from "./support/caves-server.js";

let server: RunningServer;
let baseUrl: string;
const clients: GameClient[] = [];

beforeAll(async () => {
  ({ server, baseUrl } = await startCavesServer());
});

afterAll(async () => {
  for (const client of clients) client.close();
  await server?.close();
});

async function join(nick: string): Promise<GameClient> {
  const client = GameClient.create({
    core: await loadCore(),
    ...(await connectGuest(baseUrl, nick, udpTransportFor(baseUrl))),
  });
  clients.push(client);
  await drive([client], `${nick} playing`, () => client.state === "playing" && client.confirmed !== null);
  return client;
}

describe("on the default caves map", () => {
  it("receives the full 3×3 neighbourhood, identical to the server's chunks", async () => {
    const client = await join("Spelunker");
    await drive([client], "the neighbourhood", () => neighbourhoodComplete(client));
    const existing = client.neighbourhood!.filter((entry) => entry.version > 0);
    expect(existing.length).toBeGreaterThanOrEqual(4);
    const serverTiles = new Uint16Array(CHUNK_TILE_COUNT);
    for (const entry of existing) {
      server.game.world.copyChunkTiles(chunkX(entry.chunkId), chunkY(entry.chunkId), serverTiles);
      const tiles = client.chunks.get(entry.chunkId)!.tiles;
      expect(tiles.every((tile, index) => tile === serverTiles[index])).toBe(true);
    }
  });

  it("walks a winding route of 20+ tiles by click-to-move and ends with predicted == confirmed == goal", async () => {
    const client = await join("Wanderer");
    await drive([client], "the neighbourhood", () => neighbourhoodComplete(client));
    const start = client.confirmed!;
    const world = server.game.world;
    // The first goal (in a fixed scan order) 20–24 tiles away whose shortest route is longer than the straight
    // line: the caves force turns around walls.
    let goal: { x: number; y: number } | null = null;
    let routeSteps = 0;
    search: for (let distance = 20; distance <= 24; distance++) {
      for (let dy = -distance; dy <= distance; dy++) {
        for (let dx = -distance; dx <= distance; dx++) {
          if (Math.max(Math.abs(dx), Math.abs(dy)) !== distance) continue;
          const x = start.x + dx;
          const y = start.y + dy;
          if (!world.walkable(x, y)) continue;
          const found = client.sim.astar(start.x, start.y, x, y, 20_000);
          if (found.status > distance + 2 && found.status <= distance + 20) {
            goal = { x, y };
            routeSteps = found.status;
            break search;
          }
        }
      }
    }
    expect(goal, "a reachable goal 20+ tiles away with a detour").not.toBeNull();
    expect(client.setGoal(goal!.x, goal!.y)).toBe("planned");
    expect(client.route).toHaveLength(routeSteps);
    await drive(
      [client],
      "arrival",
      () => client.goal === null && client.pending.length === 0,
      20_000,
      () => {
        const at = client.predicted!;
        if (!world.walkable(at.x, at.y)) throw new Error(`prediction inside a wall at ${at.x},${at.y}`);
      },
    );
    expect(client.predicted).toEqual(goal);
    expect(client.confirmed).toEqual(goal);
    const entity = server.game.entities.get(client.ownEntityId)!;
    expect({ x: entity.x, y: entity.y }).toEqual(goal);
    expect(client.stats.stepsSent).toBeGreaterThanOrEqual(routeSteps);
  });
});
