// Run-time tile changes over loopback UDP: game code changes tiles, the
// clients holding the chunk get one TileUpdate per chunk and tick, a client
// that loses it converges through the manifest and the cache diff, and a
// client whose neighbourhood lacks the chunk gets nothing.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHUNK_SIZE } from "../ts/constants.js";
import { type ChunkEntry, type ChunkPacket, type TileUpdatePacket, chunkId } from "../ts/protocol/index.js";
import { paletteExpand, unpack6 } from "../ts/ref/codec.js";
import { type Harness, startHarnessOnTestMap } from "./support/game-harness.js";
import { FLOOR, WALL } from "./support/test-map.js";
import { UdpTestClient } from "./support/udp-client.js";

let server: Harness;
const clients: UdpTestClient[] = [];

beforeAll(async () => {
  server = await startHarnessOnTestMap();
});

afterAll(async () => {
  for (const client of clients) client.close();
  await server?.close();
});

/** A client at the spawn (chunk (1, 1) of the 3×3-chunk test map) holding every chunk of its neighbourhood. */
async function holder(nick: string): Promise<UdpTestClient> {
  const client = await UdpTestClient.connect(server.httpPort, nick);
  clients.push(client);
  // The first datagram binds the session; its cache list is empty, so it also fetches the neighbourhood.
  client.action(0, 0, []);
  const state = await client.waitFor("first state", () => client.lastState());
  const wanted = state.chunks.filter((entry) => entry.version > 0);
  await client.waitFor("every chunk", () => wanted.every((entry) => latestChunk(client, entry.chunkId)));
  return client;
}

function latestChunk(client: UdpTestClient, id: number): ChunkPacket | undefined {
  for (let index = client.chunks.length - 1; index >= 0; index--)
    if (client.chunks[index].chunkId === id) return client.chunks[index];
  return undefined;
}

function tileUpdates(client: UdpTestClient): TileUpdatePacket[] {
  return client.received.flatMap(({ packet }) => (packet?.type === "tile_update" ? [packet] : []));
}

function chunkTiles(chunk: ChunkPacket): Uint16Array {
  const indices = new Uint8Array(1024);
  unpack6(chunk.packedTiles, indices);
  const tiles = new Uint16Array(1024);
  expect(paletteExpand(Uint16Array.from(chunk.palette), chunk.palette.length, indices, tiles)).toBe(0);
  return tiles;
}

function serverTiles(cx: number, cy: number): Uint16Array {
  const tiles = new Uint16Array(1024);
  server.game.world.copyChunkTiles(cx, cy, tiles);
  return tiles;
}

/** What a client does with an update: apply it to the cached chunk only when it holds exactly from_version. */
function applyUpdate(cached: { version: number; tiles: Uint16Array }, update: TileUpdatePacket): boolean {
  if (cached.version !== update.fromVersion) return false;
  for (const { tileIndex, tileId } of update.changes) cached.tiles[tileIndex] = tileId;
  cached.version = update.toVersion;
  return true;
}

const index = (x: number, y: number) => (y % CHUNK_SIZE) * CHUNK_SIZE + (x % CHUNK_SIZE);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("tile updates", () => {
  it("reach every client holding the chunk: one update per chunk and tick, turning its copy into the server's", async () => {
    const ann = await holder("Ann");
    const bob = await holder("Bob");
    const world = server.game.world;
    const centre = { version: world.chunkVersion(1, 1), tiles: chunkTiles(latestChunk(ann, chunkId(1, 1))!) };
    const corner = { version: world.chunkVersion(2, 2), tiles: chunkTiles(latestChunk(ann, chunkId(2, 2))!) };
    expect(centre.version).toBe(latestChunk(ann, chunkId(1, 1))!.version);

    expect(server.game.setTile(50, 40, WALL)).toBe(true);
    expect(server.game.setTile(51, 40, 2)).toBe(true);
    expect(server.game.setTile(50, 40, FLOOR)).toBe(true); // the same tile again: the last id wins
    expect(server.game.setTile(70, 65, WALL)).toBe(true);
    for (const client of [ann, bob]) {
      await client.waitFor("two updates", () => tileUpdates(client).length >= 2);
    }
    await sleep(150);
    for (const client of [ann, bob]) {
      const updates = tileUpdates(client);
      expect(updates).toHaveLength(2);
      const centreUpdate = updates.find((u) => u.chunkId === chunkId(1, 1))!;
      expect(centreUpdate).toMatchObject({ fromVersion: centre.version, toVersion: centre.version + 3 });
      expect(centreUpdate.changes).toEqual([
        { tileIndex: index(50, 40), tileId: FLOOR },
        { tileIndex: index(51, 40), tileId: 2 },
      ]);
      expect(updates.find((u) => u.chunkId === chunkId(2, 2))!.changes).toEqual([
        { tileIndex: index(70, 65), tileId: WALL },
      ]);
    }
    expect(
      applyUpdate(
        centre,
        tileUpdates(ann).find((u) => u.chunkId === chunkId(1, 1))!,
      ),
    ).toBe(true);
    expect(
      applyUpdate(
        corner,
        tileUpdates(ann).find((u) => u.chunkId === chunkId(2, 2))!,
      ),
    ).toBe(true);
    expect(centre.tiles).toEqual(serverTiles(1, 1));
    expect(corner.tiles).toEqual(serverTiles(2, 2));
    expect(centre.version).toBe(world.chunkVersion(1, 1));
    // The manifest shows the new versions, so a client holding them asks for nothing.
    await ann.waitFor("a manifest with the new version", () => ann.lastState()!.chunks[4].version === centre.version);
  });

  it("a client that lost the update converges through the manifest and the cache diff", async () => {
    const cal = await holder("Cal");
    cal.dropInbound = (packet) => packet.type === "tile_update";
    const world = server.game.world;
    const oldVersion = world.chunkVersion(1, 1);
    const held: ChunkEntry[] = (await cal.waitFor("state", () => cal.lastState()))!.chunks.map((entry) => ({
      ...entry,
    }));
    server.game.setTile(45, 50, WALL);
    const newVersion = world.chunkVersion(1, 1);
    expect(newVersion).toBe(oldVersion + 1);
    // The client's manifest now differs from what it holds: it asks again with its (stale) cache list.
    await cal.waitFor("the new version in the manifest", () => cal.lastState()!.chunks[4].version === newVersion);
    const chunksBefore = cal.chunks.length;
    cal.action(0, 0, held);
    const fresh = await cal.waitFor("the re-sent chunk", () =>
      cal.chunks.slice(chunksBefore).find((chunk) => chunk.chunkId === chunkId(1, 1)),
    );
    expect(fresh.version).toBe(newVersion);
    expect(chunkTiles(fresh)[index(45, 50)]).toBe(WALL);
    expect(chunkTiles(fresh)).toEqual(serverTiles(1, 1));
    // Only the stale chunk was sent.
    await sleep(150);
    expect(cal.chunks.slice(chunksBefore).map((chunk) => chunk.chunkId)).toEqual([chunkId(1, 1)]);
  });

  it("a client out of range gets nothing; a lost update to a changed copy is ignored, not misapplied", async () => {
    const near = await holder("Near");
    const far = await holder("Far");
    const farEntity = server.game.sessions.byTokenValue(far.token)!.entity;
    server.game.entities.move(farEntity, 5, 5); // chunk (0, 0): its neighbourhood lacks chunk (2, 2)
    await far.waitFor("the move seen", () => far.position()?.x === 5);
    const before = tileUpdates(far).length;
    server.game.setTile(75, 66, 2);
    await near.waitFor("the update near", () =>
      tileUpdates(near).some((u) => u.changes[0].tileIndex === index(75, 66)),
    );
    await sleep(200);
    expect(tileUpdates(far).length).toBe(before);

    // Two updates in a row: a client that missed the first cannot apply the second.
    const world = server.game.world;
    const stale = { version: world.chunkVersion(2, 2), tiles: serverTiles(2, 2) };
    const inCorner = () => tileUpdates(near).filter((u) => u.chunkId === chunkId(2, 2));
    server.game.setTile(76, 66, WALL);
    await near.waitFor("the first update", () => inCorner().length >= 2);
    server.game.setTile(77, 66, WALL);
    await near.waitFor("the second update", () => inCorner().length >= 3);
    const [, first, second] = inCorner();
    expect(second.fromVersion).toBe(first.toVersion);
    expect(applyUpdate(stale, second)).toBe(false);
    expect(applyUpdate(stale, first) && applyUpdate(stale, second)).toBe(true);
    expect(stale.tiles).toEqual(serverTiles(2, 2));
  });

  it("no-op and out-of-map changes send nothing; more changes than one update carries leave it to the cache diff", async () => {
    const dee = await holder("Dee");
    const world = server.game.world;
    const version = world.chunkVersion(0, 0);
    const before = tileUpdates(dee).length;
    expect(server.game.setTile(0, 0, world.tileAt(0, 0))).toBe(true);
    expect(server.game.setTile(-1, 0, WALL)).toBe(false);
    expect(server.game.setTile(80, 0, WALL)).toBe(false); // in chunk (2, 0), beyond the map's edge
    expect(() => server.game.setTile(1, 1, 0xffff)).toThrow(RangeError);
    expect(world.chunkVersion(0, 0)).toBe(version);
    for (let y = 1; y < 30; y++) for (let x = 1; x < 11; x++) server.game.setTile(x, y, 2 + ((x + y) % 2) * 3);
    const tooLarge = server.game.status().tileUpdates as { tooLarge: number };
    await sleep(200);
    expect(tileUpdates(dee).length).toBe(before);
    expect(tooLarge.tooLarge).toBeGreaterThanOrEqual(1);
    await dee.waitFor(
      "the new version in the manifest",
      () => dee.lastState()!.chunks[0].version === world.chunkVersion(0, 0),
    );
    const chunksBefore = dee.chunks.length;
    dee.action(0, 0, []);
    const fresh = await dee.waitFor("the chunk", () =>
      dee.chunks.slice(chunksBefore).find((c) => c.chunkId === chunkId(0, 0)),
    );
    expect(chunkTiles(fresh)).toEqual(serverTiles(0, 0));
  });
});
