// The real maps of ../shared/maps-real (see its README) served by the real
// server over real loopback UDP to the networking core: each loadable map —
// including those whose chunks hold more than 64 tile ids, which once refused
// to start — starts, sends its 3×3 neighbourhood (ChunkPackets and
// ChunkWidePackets, every datagram ≤ 1200 bytes and decoding cleanly), and a
// scripted client walks on it with the server agreeing step for step. Then
// the loss model: wide parts dropped on their first arrival are re-requested
// through the cache diff until every chunk completes.
import { resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { connectGuest, GameClient } from "../ts/client/core/index.js";
import type { Transport } from "../ts/client/core/index.js";
import { UdpNodeTransport } from "../ts/client/transport/udp-node.js";
import { CHUNK_TILE_COUNT } from "../ts/constants.js";
import { MAX_DATAGRAM_BYTES, chunkX, chunkY, decodePacket } from "../ts/protocol/index.js";
import { Logger } from "../ts/server/ops/log.js";
import { type RunningServer, startServer } from "../ts/server/server.js";
import { loadCore } from "../ts/wasm/node.js";
import { drive, neighbourhoodComplete } from "./client-core-support.js";
import { MAPS_REAL, ORTHOGONAL_MAPS as MAPS, reachableGoal } from "./support/maps-real.js";
import { expectCorrectionsExplained } from "./support/late-steps.js";

const REAL = MAPS_REAL;

interface Tap {
  datagrams: number;
  wideParts: number;
  narrowChunks: number;
  oversize: number;
  undecodable: number;
  dropped: number;
}

/**
 * A transport that records what arrives and, with `dropFirst`, loses the
 * first copy of every wide part that does not start at row 0 — so every
 * chunk of more than one part is incomplete after its first sending.
 */
function tapped(inner: Transport, tap: Tap, dropFirst: boolean): Transport {
  const seen = new Set<string>();
  return {
    name: inner.name,
    send: (datagram) => inner.send(datagram),
    onDatagram: (handler) =>
      inner.onDatagram((datagram) => {
        tap.datagrams++;
        if (datagram.length > MAX_DATAGRAM_BYTES) tap.oversize++;
        const result = decodePacket(datagram);
        if (!result.ok) tap.undecodable++;
        else if (result.packet.type === "chunk") tap.narrowChunks++;
        else if (result.packet.type === "chunk_wide") {
          tap.wideParts++;
          const view = result.packet;
          const key = `${view.chunkId}/${view.version}/${view.rowStart}`;
          if (dropFirst && view.rowStart > 0 && !seen.has(key)) {
            seen.add(key);
            tap.dropped++;
            return;
          }
        }
        handler(datagram);
      }),
    close: () => inner.close(),
  };
}

let server: RunningServer | undefined;
const clients: GameClient[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  await server?.close();
  server = undefined;
});

async function serve(file: string): Promise<RunningServer> {
  server = await startServer({
    host: "127.0.0.1",
    httpPort: 0,
    udpPort: 0,
    mapPath: resolve(REAL, file),
    logger: new Logger("silent"),
  });
  return server;
}

async function join(running: RunningServer, nick: string, tap: Tap, dropFirst = false): Promise<GameClient> {
  const connection = await connectGuest(`http://127.0.0.1:${running.httpPort}`, nick, async (session) =>
    tapped(await UdpNodeTransport.connect("127.0.0.1", session.udpPort), tap, dropFirst),
  );
  const client = GameClient.create({ core: await loadCore(), ...connection });
  clients.push(client);
  await drive([client], `${nick} playing`, () => client.state === "playing" && client.confirmed !== null);
  return client;
}

function newTap(): Tap {
  return { datagrams: 0, wideParts: 0, narrowChunks: 0, oversize: 0, undecodable: 0, dropped: 0 };
}

/** Every chunk of the client's manifest held tile for tile as the server has it. */
function expectNeighbourhoodAsServer(running: RunningServer, client: GameClient): void {
  const serverTiles = new Uint16Array(CHUNK_TILE_COUNT);
  for (const entry of client.neighbourhood!.filter((candidate) => candidate.version > 0)) {
    running.game.world.copyChunkTiles(chunkX(entry.chunkId), chunkY(entry.chunkId), serverTiles);
    const held = client.chunks.get(entry.chunkId);
    expect(held?.version).toBe(entry.version);
    expect(Buffer.from(held!.tiles.buffer).equals(Buffer.from(serverTiles.buffer))).toBe(true);
  }
}

describe("the real maps start, serve over UDP and play", () => {
  for (const { file, name, wide, walks } of MAPS) {
    it(`${name}: neighbourhood as the server has it${wide ? " (wide chunks)" : ""}, and a walk`, async () => {
      const running = await serve(file);
      const tap = newTap();
      const client = await join(running, "Walker", tap);
      await drive([client], "the neighbourhood", () => neighbourhoodComplete(client));
      expectNeighbourhoodAsServer(running, client);
      expect(tap.oversize).toBe(0);
      expect(tap.undecodable).toBe(0);
      expect(client.chunks.rejected).toBe(0);
      if (wide) expect(tap.wideParts).toBeGreaterThan(0);
      else expect(tap.wideParts).toBe(0);

      const start = client.confirmed!;
      const goal = reachableGoal(running, start, 6);
      const entity = () => running.game.entities.get(client.ownEntityId)!;
      if (goal !== start) {
        expect(client.setGoal(goal.x, goal.y)).toBe("planned");
        await drive(
          [client],
          `arrival at ${goal.x},${goal.y}`,
          () => client.goal === null && client.pending.length === 0,
          15_000,
        );
        expect(client.confirmed).toEqual(goal);
      }
      expect({ x: entity().x, y: entity().y }).toEqual(client.confirmed);
      expectCorrectionsExplained(client, running.game);
      // Tiled maps often have isolated cells; the bigger ones must give the walk somewhere to go.
      if (walks !== false) expect(goal).not.toEqual(start);
      // Starting builds the map's own atlas (issue 16: 8139 tiles for sourceoftales, seconds on a busy machine).
    }, 60_000);
  }
});

describe("wide chunks under loss", () => {
  it("parts lost on first arrival are re-requested by the cache diff until every chunk is complete", async () => {
    const running = await serve("sourceoftales/maps/goldenfields/main.tmx");
    const tap = newTap();
    const client = await join(running, "Lossy", tap, true);
    await drive([client], "the neighbourhood despite lost parts", () => neighbourhoodComplete(client), 15_000);
    expectNeighbourhoodAsServer(running, client);
    // Multi-part chunks were in view, their later parts were lost once, and came again.
    expect(tap.dropped).toBeGreaterThan(0);
    expect(tap.wideParts).toBeGreaterThan(tap.dropped);
    expect(client.chunks.pendingCount).toBe(0);
    expect(client.chunks.rejected).toBe(0);
  }, 60_000);
});
