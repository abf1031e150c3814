// A client written from the seed's protocol alone (docs/protocol.md § 19.1) on every orthogonal map of
// ../shared/maps-real, over real loopback UDP: it joins without naming anything it reads, decodes only the
// seed's packet types 0–7 (everything else is dropped before the client core sees it, as such a client
// drops unknown types) and sends only the seed's forms (74-byte ActionPackets, no addition). Before § 7.2
// it could not play 6 of these maps: a chunk of more than 64 ids came only as ChunkWidePackets, never
// completed, and the player stood in unknown, solid tiles. Now every chunk in view completes as a
// ChunkPacket whose cells keep their class exactly — so the rule allows exactly the steps it allows a full
// client, cell for cell — and it walks with the server agreeing step for step. Bounded, cleans up.
import { resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { connectGuest, type FetchFn, GameClient, type Transport } from "../ts/client/core/index.js";
import { UdpNodeTransport } from "../ts/client/transport/udp-node.js";
import { CHUNK_SIZE, CHUNK_TILE_COUNT, TILE_BORDER, TILE_FLAG_COLLIDES, TILE_FLAG_OPAQUE } from "../ts/constants.js";
import { chunkX, chunkY, PACKET_CHUNK, PACKET_CHUNK_WIDE } from "../ts/protocol/index.js";
import { Logger } from "../ts/server/ops/log.js";
import { type RunningServer, startServer } from "../ts/server/server.js";
import { tileFlagsTable } from "../ts/tile-flags.js";
import { loadCore } from "../ts/wasm/node.js";
import { drive, neighbourhoodComplete } from "./client-core-support.js";
import { MAPS_REAL, ORTHOGONAL_MAPS as MAPS, reachableGoal } from "./support/maps-real.js";
import { expectCorrectionsExplained } from "./support/late-steps.js";

/** The seed's packet types: State, Action, Chunk, Entity, EntityQuery, EntityDetail, Ping, Pong. */
const SEED_TYPES = 8;
const SEED_ACTION_BYTES = 74;

interface SeedTap {
  chunks: number;
  dropped: number;
  wide: number;
}

/** What a seed client's decoder does to a datagram: types 0–7 pass, the rest are dropped (and counted). */
function seedOnly(inner: Transport, tap: SeedTap): Transport {
  return {
    name: inner.name,
    send: (datagram) => {
      // It sends only the seed's packets, and an ActionPacket in the seed's 74 bytes.
      if (datagram[3] >= SEED_TYPES) return;
      inner.send(datagram[3] === 1 ? datagram.subarray(0, SEED_ACTION_BYTES) : datagram);
    },
    onDatagram: (handler) =>
      inner.onDatagram((datagram) => {
        if (datagram[3] === PACKET_CHUNK_WIDE) tap.wide++;
        if (datagram[3] >= SEED_TYPES) {
          tap.dropped++;
          return;
        }
        if (datagram[3] === PACKET_CHUNK) tap.chunks++;
        handler(datagram);
      }),
    close: () => inner.close(),
  };
}

/** A seed client's join: the request names nothing it reads. */
const seedJoin: FetchFn = (input, init) => {
  if (typeof init?.body !== "string") return fetch(input, init);
  const body = JSON.parse(init.body) as Record<string, unknown>;
  delete body.reads;
  return fetch(input, { ...init, body: JSON.stringify(body) });
};

let server: RunningServer | undefined;
const clients: GameClient[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  await server?.close();
  server = undefined;
});

async function join(running: RunningServer, nick: string, seed: SeedTap | null): Promise<GameClient> {
  const base = `http://127.0.0.1:${running.httpPort}`;
  const connection = await connectGuest(
    base,
    nick,
    async (session) => {
      const udp = await UdpNodeTransport.connect("127.0.0.1", session.udpPort);
      return seed ? seedOnly(udp, seed) : udp;
    },
    seed ? seedJoin : fetch,
  );
  // The seed client asks for no entity deltas (types 24–27 are additions).
  const client = GameClient.create({
    core: await loadCore(),
    ...connection,
    options: seed ? { entityDeltas: false } : {},
  });
  clients.push(client);
  await drive([client], `${nick} playing`, () => client.state === "playing" && client.confirmed !== null);
  return client;
}

describe("a seed-spec client plays every real map", () => {
  for (const { file, name, wide, walks } of MAPS) {
    it(`${name}: every chunk in view completes as ChunkPackets, of the same classes as the full client's, and it walks`, async () => {
      server = await startServer({
        host: "127.0.0.1",
        httpPort: 0,
        udpPort: 0,
        mapPath: resolve(MAPS_REAL, file),
        logger: new Logger("silent"),
      });
      const running = server;
      const tap: SeedTap = { chunks: 0, dropped: 0, wide: 0 };
      const full = await join(running, "Full", null);
      const seed = await join(running, "Seed", tap);
      await drive(
        [full, seed],
        "both neighbourhoods",
        () => neighbourhoodComplete(full) && neighbourhoodComplete(seed),
      );
      // Not one wide part was sent to it: the server knew from its join.
      expect(tap.wide).toBe(0);
      expect(tap.chunks).toBeGreaterThan(0);
      expect(seed.chunks.rejected).toBe(0);
      expect(seed.chunks.pendingCount).toBe(0);

      // Every cell of every chunk in its view: the class of the server's tile (collides, opaque, border).
      const flags = tileFlagsTable(running.game.world.tileInfo);
      const classOf = (id: number) => (id === TILE_BORDER ? 4 : flags[id] & (TILE_FLAG_COLLIDES | TILE_FLAG_OPAQUE));
      const serverTiles = new Uint16Array(CHUNK_TILE_COUNT);
      let differing = 0;
      let cells = 0;
      for (const entry of seed.neighbourhood!.filter((candidate) => candidate.version > 0)) {
        const cx = chunkX(entry.chunkId);
        const cy = chunkY(entry.chunkId);
        running.game.world.copyChunkTiles(cx, cy, serverTiles);
        const held = seed.chunks.get(entry.chunkId)!;
        expect(held.version).toBe(entry.version);
        for (let index = 0; index < CHUNK_TILE_COUNT; index++) {
          cells++;
          if (held.tiles[index] !== serverTiles[index]) differing++;
          if (classOf(held.tiles[index]) !== classOf(serverTiles[index])) {
            throw new Error(
              `chunk ${cx},${cy} cell ${index}: class ${classOf(held.tiles[index])}, the server's ${classOf(serverTiles[index])}`,
            );
          }
        }
      }
      // A map of wide chunks was narrowed (some look approximated); any other came as it is.
      if (wide) expect(differing).toBeGreaterThan(0);
      else expect(differing).toBe(0);
      expect(differing).toBeLessThan(cells);

      // THE rule allows the same steps from every cell both clients hold: the same prediction and A*.
      for (const entry of seed.neighbourhood!.filter((candidate) => candidate.version > 0)) {
        if (full.chunks.version(entry.chunkId) !== entry.version) continue; // another neighbourhood
        const x0 = chunkX(entry.chunkId) * CHUNK_SIZE;
        const y0 = chunkY(entry.chunkId) * CHUNK_SIZE;
        for (let y = y0; y < y0 + CHUNK_SIZE; y++) {
          for (let x = x0; x < x0 + CHUNK_SIZE; x++) {
            if (seed.sim.allowedSteps(x, y) !== full.sim.allowedSteps(x, y)) {
              throw new Error(
                `(${x}, ${y}): steps ${seed.sim.allowedSteps(x, y)} for the seed client, ${full.sim.allowedSteps(x, y)} for the full one`,
              );
            }
          }
        }
      }

      // And it walks where the server's rule lets it, the server agreeing step for step.
      const start = seed.confirmed!;
      const goal = reachableGoal(running, start, 6);
      if (goal !== start) {
        expect(seed.setGoal(goal.x, goal.y)).toBe("planned");
        await drive(
          [full, seed],
          `arrival at ${goal.x},${goal.y}`,
          () => seed.goal === null && seed.pending.length === 0,
          15_000,
        );
        expect(seed.confirmed).toEqual(goal);
      }
      const entity = running.game.entities.get(seed.ownEntityId)!;
      expect({ x: entity.x, y: entity.y }).toEqual(seed.confirmed);
      expectCorrectionsExplained(seed, running.game);
      if (walks !== false) expect(goal).not.toEqual(start);
    }, 60_000);
  }
});

describe("a join names what its client reads", () => {
  it("echoes the names the server honours, ignores names it does not know, and refuses a malformed list", async () => {
    server = await startServer({
      host: "127.0.0.1",
      httpPort: 0,
      udpPort: 0,
      mapPath: resolve(MAPS_REAL, "rs-tiled/tiled_flipped.tmx"),
      logger: new Logger("silent"),
    });
    const post = async (body: Record<string, unknown>) => {
      const response = await fetch(`http://127.0.0.1:${server!.httpPort}/api/guest`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    expect((await post({ nick: "Newer", reads: ["chunk_wide", "hologram"] })).body.reads).toEqual(["chunk_wide"]);
    expect((await post({ nick: "Seed" })).body.reads).toEqual([]);
    const sessions = [...server.game.sessions.values()];
    expect(sessions.map((session) => [session.nick, session.reads])).toEqual([
      ["Newer", 1],
      ["Seed", 0],
    ]);
    for (const reads of ["chunk_wide", [1], [""], Array(33).fill("chunk_wide"), { chunk_wide: true }]) {
      const refused = await post({ nick: "Odd", reads });
      expect(refused.status).toBe(400);
      expect(String(refused.body.error)).toMatch(/"reads"/);
    }
  });
});
