// The networking core against the real server, in-process, over real UDP
// loopback, on the small known test map: joining, the chunk neighbourhood,
// keyboard walking, click-to-move, a lossy link, two players, reconnecting.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectGuest, GameClient, impairTransport } from "../ts/client/core/index.js";
import type { GameClientOptions, Transport } from "../ts/client/core/index.js";
import { UdpNodeTransport } from "../ts/client/transport/udp-node.js";
import { CHUNK_TILE_COUNT, TILE_BORDER } from "../ts/constants.js";
import { parseProfileSpec } from "../ts/netsim/index.js";
import { chunkX, chunkY, decodePacket } from "../ts/protocol/index.js";
import type { RunningServer } from "../ts/server/server.js";
import { loadCore } from "../ts/wasm/node.js";
import { testMapTile, TEST_MAP_HEIGHT, TEST_MAP_WIDTH } from "./support/test-map.js";
import { startServerOnTestMap, type TestServer } from "./support/test-server.js";
import { cuttable, drive, neighbourhoodComplete } from "./client-core-support.js";

const S = 3;
let running: TestServer | undefined;
let server: RunningServer;
let baseUrl: string;
const clients: GameClient[] = [];

beforeAll(async () => {
  running = await startServerOnTestMap();
  server = running.server;
  baseUrl = running.baseUrl;
});

afterAll(async () => {
  for (const client of clients) client.close();
  await running?.close();
});

async function join(
  nick: string,
  wrap: (udp: Transport) => Transport = (udp) => udp,
  options: Partial<GameClientOptions> = {},
) {
  const connection = await connectGuest(baseUrl, nick, async (session) =>
    wrap(await UdpNodeTransport.connect("127.0.0.1", session.udpPort, session.key)),
  );
  const client = GameClient.create({ core: await loadCore(), ...connection, options });
  clients.push(client);
  await drive([client], `${nick} playing`, () => client.state === "playing" && client.confirmed !== null);
  return client;
}

function serverPosition(client: GameClient): { x: number; y: number } {
  const entity = server.game.entities.get(client.ownEntityId)!;
  return { x: entity.x, y: entity.y };
}

/** Fails the test if the predicted position ever stands where the server's map does not let anyone stand. */
function neverInWall(client: GameClient): () => void {
  return () => {
    const at = client.predicted;
    if (at && !server.game.world.walkable(at.x, at.y)) throw new Error(`prediction inside a wall at ${at.x},${at.y}`);
  };
}

/** Click-to-move to `goal` and wait until the client has arrived and released the goal. */
async function walkTo(client: GameClient, goal: { x: number; y: number }, timeoutMs = 15_000): Promise<void> {
  expect(client.setGoal(goal.x, goal.y)).toBe("planned");
  await drive(
    [client],
    `arrival at ${goal.x},${goal.y}`,
    () => client.goal === null && client.pending.length === 0,
    timeoutMs,
    neverInWall(client),
  );
}

describe("joining", () => {
  it("binds, plays, and receives the whole 3×3 neighbourhood, tile for tile the server's", async () => {
    const client = await join("Ada");
    await drive([client], "the neighbourhood", () => neighbourhoodComplete(client));
    const world = server.game.world;
    const existing = client.neighbourhood!.filter((entry) => entry.version > 0);
    expect(existing).toHaveLength(9); // the spawn is in the middle chunk of the 3×3-chunk map
    const serverTiles = new Uint16Array(CHUNK_TILE_COUNT);
    for (const entry of existing) {
      world.copyChunkTiles(chunkX(entry.chunkId), chunkY(entry.chunkId), serverTiles);
      const tiles = client.chunks.get(entry.chunkId)!.tiles;
      expect(tiles.every((tile, index) => tile === serverTiles[index])).toBe(true);
    }
    // The grid the rule reads holds the map, the border beyond it, and nothing invented.
    for (let y = 0; y < 96; y++) {
      for (let x = 0; x < 96; x++) {
        const expected = x < TEST_MAP_WIDTH && y < TEST_MAP_HEIGHT ? testMapTile(x, y) : TILE_BORDER;
        if (client.sim.getTile(x, y) !== expected) throw new Error(`tile ${x},${y}: ${client.sim.getTile(x, y)}`);
      }
    }
    expect(client.confirmed).toEqual(serverPosition(client));
    await drive([client], "a pong", () => client.stats.pongsReceived > 0);
    // Measured now, not the 100 ms assumed at start (loopback, but the sample includes event-loop delays).
    expect(client.stats.rttMs).not.toBe(100);
    expect(client.stats.rttMs).toBeLessThan(1000);
  });
});

describe("movement", () => {
  it("walks with a held key one step per window; every step the client counts is one the server made", async () => {
    const client = await join("Keys");
    const start = client.confirmed!;
    client.setHeldAction(S);
    const heldUntil = performance.now() + 1200;
    await drive([client], "the walk", () => performance.now() > heldUntil, 5000, neverInWall(client));
    client.setHeldAction(0);
    await drive([client], "settling", () => client.pending.length === 0, 5000, neverInWall(client));
    const end = client.confirmed!;
    const stats = client.stats;
    expect(end).toEqual(serverPosition(client));
    expect(client.predicted).toEqual(end);
    expect(end.x).toBe(start.x);
    expect(end.y - start.y).toBeGreaterThanOrEqual(5); // 1.2 s at 6 windows/s
    expect(end.y - start.y).toBe(stats.stepsSent - stats.retractions);
    expect(stats.corrections).toBe(0);
  });

  it("click-to-move: a route with a turn, 20+ tiles, ends with predicted == confirmed == goal", async () => {
    const client = await join("Click");
    const start = client.confirmed!;
    const goal = { x: start.x + 21, y: start.y + 13 }; // 13 diagonal steps, then 8 straight east
    expect(client.setGoal(goal.x, goal.y)).toBe("planned");
    const route = [start, ...client.route];
    const actions = new Set(
      route.slice(1).map((tile, index) => `${tile.x - route[index].x},${tile.y - route[index].y}`),
    );
    expect(actions.size).toBeGreaterThanOrEqual(2);
    await drive(
      [client],
      "arrival",
      () => client.goal === null && client.pending.length === 0,
      15_000,
      neverInWall(client),
    );
    expect(client.predicted).toEqual(goal);
    expect(client.confirmed).toEqual(goal);
    expect(serverPosition(client)).toEqual(goal);
    expect(client.stats.stepsSent).toBeGreaterThanOrEqual(21);
  });

  it("gets every chunk whose first copy was lost, by retransmitting its cache list", async () => {
    const seen = new Set<number>();
    let dropped = 0;
    const dropFirstChunks = (udp: Transport): Transport => ({
      name: udp.name,
      send: (datagram) => udp.send(datagram),
      onDatagram: (handler) =>
        udp.onDatagram((datagram) => {
          const decoded = decodePacket(datagram);
          if (decoded.ok && decoded.packet.type === "chunk" && !seen.has(decoded.packet.chunkId)) {
            seen.add(decoded.packet.chunkId);
            dropped++;
            return;
          }
          handler(datagram);
        }),
      close: () => udp.close(),
    });
    const client = await join("Holes", dropFirstChunks);
    await drive([client], "the neighbourhood despite lost chunks", () => neighbourhoodComplete(client));
    expect(dropped).toBe(9);
    expect(client.stats.chunkRequests).toBeGreaterThanOrEqual(1);
    expect(client.chunks.size).toBe(9);
  });

  it("converges over a lossy, jittery link: chunks, entity updates and a click-to-move walk", async () => {
    const { profile } = parseProfileSpec("loss=15,delay=30,jitter=15");
    let impaired: ReturnType<typeof impairTransport> | null = null;
    const client = await join("Lossy", (udp) => (impaired = impairTransport(udp, profile, 7)));
    await drive([client], "the neighbourhood over loss", () => neighbourhoodComplete(client), 10_000);
    const start = client.confirmed!;
    await walkTo(client, { x: start.x + 21, y: start.y + 13 }, 20_000);
    expect(client.predicted).toEqual({ x: start.x + 21, y: start.y + 13 });
    expect(client.confirmed).toEqual(client.predicted);
    expect(serverPosition(client)).toEqual(client.confirmed);
    const counts = impaired!.duplex;
    expect(counts.up.counts.dropped).toBeGreaterThan(0);
    expect(counts.down.counts.dropped).toBeGreaterThan(0);
    // On entity deltas the loss is measured by pings (one a second, each lost with 1 − 0.85² ≈ 28 %).
    await drive([client], "a lost round trip counted", () => client.stats.lossPercent > 0, 30_000);
    expect(client.stats.lossFrom).toBe("pings");
    // And the States the protocol says were sent (idle: one every 8 ticks) see the loss on the way down.
    await drive([client], "a lost State counted", () => client.stats.stateLossPercent > 0, 30_000);
    expect(client.stats.rttMs).toBeGreaterThan(30);
  });

  it("reports no loss on a clean link while the server holds back the broadcasts that change nothing", async () => {
    // Compact deltas (the client's default): an idle player is sent a State every 8 ticks, not every 2 —
    // counted as gaps, the F3 overlay read "loss 52 %" on loopback.
    const client = await join("Idle");
    const statesBefore = client.stats.statesReceived;
    await drive([client], "ten States", () => client.stats.statesReceived > statesBefore + 10, 10_000);
    await new Promise((resolve) => setTimeout(resolve, 2500));
    await drive([client], "a moment more", () => true);
    expect(client.stats.lossFrom).toBe("pings");
    expect(client.stats.statesMissed).toBe(0);
    expect(client.stats.lossPercent).toBe(0);
    expect(client.stats.stateLossPercent).toBe(0);
  });
});

describe("run-time tile changes", () => {
  it("reach the client's grid, so the rule it predicts with stays the server's", async () => {
    const client = await join("Mason");
    await drive([client], "the neighbourhood", () => neighbourhoodComplete(client));
    const at = client.confirmed!;
    const target = { x: at.x + 1, y: at.y };
    expect(client.sim.stepAllowed(at.x, at.y, 2)).toBe(server.game.world.walkable(target.x, target.y));
    expect(server.game.setTile(target.x, target.y, 5)).toBe(true); // a wall appears east of the player
    await drive([client], "the wall", () => client.sim.getTile(target.x, target.y) === 5);
    expect(client.sim.stepAllowed(at.x, at.y, 2)).toBe(false);
    await drive([client], "the neighbourhood", () => neighbourhoodComplete(client));
  });
});

describe("players", () => {
  it("two clients see each other and learn each other's names", async () => {
    const ada = await join("Ada2");
    const bea = await join("Bea");
    await drive(
      [ada, bea],
      "mutual sight and names",
      () => ada.names.get(bea.ownEntityId) === "Bea" && bea.names.get(ada.ownEntityId) === "Ada2",
    );
    expect(ada.entities.get(bea.ownEntityId)).toMatchObject({ typeId: 0, ...bea.confirmed! });
    expect(bea.entities.get(ada.ownEntityId)).toMatchObject({ typeId: 0, ...ada.confirmed! });
  });
});

describe("reconnecting", () => {
  it("notices a dead link by silence and rejoins as a new session through the factory", async () => {
    let link: ReturnType<typeof cuttable> | null = null;
    const client = await join(
      "Phoenix",
      (udp) => {
        if (link) return udp; // the reconnect's fresh link is not cut
        link = cuttable(udp);
        return link.transport;
      },
      { disconnectAfterMs: 1000 },
    );
    const firstId = client.ownEntityId;
    link!.cut();
    await drive([client], "the disconnect", () => client.state !== "playing", 5000);
    await drive([client], "playing again", () => client.state === "playing" && client.confirmed !== null, 10_000);
    expect(client.stats.reconnects).toBe(1);
    expect(client.ownEntityId).not.toBe(firstId);
    expect(client.session.nick).toBe("Phoenix");
    expect(client.confirmed).toEqual(serverPosition(client));
  });
});
