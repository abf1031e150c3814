// Chunk streaming driven alone, through its real ports: a real World over the real wasm core, the real
// egress and sessions, a peer that keeps what it is sent, and chosen times instead of a clock.
import { describe, expect, it } from "vitest";
import { CHUNK_SIZE } from "../../constants.js";
import { chunkId } from "../../protocol/chunk-id.js";
import { decodePacket } from "../../protocol/packet.js";
import { MANIFEST_ENTRIES } from "../../protocol/state.js";
import { loadCore } from "../../wasm/node.js";
import { Egress } from "../edge/egress.js";
import { ENTITY_TYPE_PLAYER, EntityStore } from "../entities/entities.js";
import { Metrics } from "../ops/metrics.js";
import { type Session, SessionRegistry } from "../sessions/session.js";
import type { Peer } from "../edge/peer.js";
import { CHUNK_RESEND_GUARD_MS, ChunkStream, holdsInView } from "./chunk-stream.js";
import { World, type WorldMap } from "./world.js";

/** A peer that keeps what it is sent. */
class KeepingPeer implements Peer {
  readonly transport = "udp";
  readonly address = "127.0.0.1";
  readonly datagrams: Uint8Array[] = [];
  constructor(readonly key: string) {}
  send(datagram: Uint8Array): void {
    this.datagrams.push(datagram.slice());
  }
}

/** A 96×64 floor map (3×2 chunks); tile ids vary with x so every chunk has its own bytes. */
function map(): WorldMap {
  const width = 3 * CHUNK_SIZE;
  const height = 2 * CHUNK_SIZE;
  const tiles = new Uint16Array(width * height);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) tiles[y * width + x] = 1 + (x % 5);
  return {
    name: "stream",
    width,
    height,
    tiles,
    flags: new Uint8Array(65536),
    spawns: [{ x: 1, y: 1 }],
    tileInfo: [1, 2, 3, 4, 5].map((id) => ({ id, collides: false, opaque: false, look: id })),
  };
}

async function setUp() {
  const world = new World(await loadCore(), map());
  const egress = new Egress(new Metrics());
  const stream = new ChunkStream({ world, egress });
  const sessions = new SessionRegistry({ ratePerSecond: 60, burst: 120 });
  const entities = new EntityStore();
  const entity = entities.spawn({
    typeId: ENTITY_TYPE_PLAYER,
    x: 40, // chunk (1, 0)
    y: 10,
    hp: 10,
    hpMax: 10,
    elo: 0,
    flags: 0,
    name: "Ada",
    meta: [],
  });
  const session: Session = sessions.create(entity, "Ada", 0);
  const peer = new KeepingPeer("udp:ada");
  sessions.bind(session, peer, true);
  return { world, stream, session, peer };
}

/** The chunk ids the peer was sent, in order (one ChunkPacket each: this map's palettes fit 64 ids). */
function sentChunks(peer: KeepingPeer): number[] {
  return peer.datagrams.map((datagram) => {
    const result = decodePacket(datagram);
    if (!result.ok || result.packet.type !== "chunk") throw new Error("expected ChunkPackets only");
    return result.packet.chunkId;
  });
}

/** A cache list holding `held` (chunk id → version); the other entries empty. */
function cacheList(held: [number, number][]): { ids: Uint32Array; versions: Uint16Array } {
  const ids = new Uint32Array(MANIFEST_ENTRIES);
  const versions = new Uint16Array(MANIFEST_ENTRIES);
  held.forEach(([id, version], index) => {
    ids[index] = id;
    versions[index] = version;
  });
  return { ids, versions };
}

describe("chunk stream", () => {
  it("writes the manifest of the 3×3 neighbourhood, 0 where no chunk exists", async () => {
    const { world, stream } = await setUp();
    const versions = new Uint16Array(MANIFEST_ENTRIES);
    stream.writeManifest(0, 0, versions);
    // Row by row from (-1, -1): only (0, 0), (1, 0), (0, 1), (1, 1) exist.
    expect([...versions]).toEqual([0, 0, 0, 0, 1, 1, 0, 1, 1]);
    world.setTile(33, 1, 2);
    stream.writeManifest(0, 0, versions);
    expect(versions[5]).toBe(2);
  });

  it("answers a cache list with every chunk of the neighbourhood the client lacks or holds stale", async () => {
    const { stream, session, peer } = await setUp();
    const held = cacheList([
      [chunkId(0, 0), 1],
      [chunkId(2, 1), 7], // a stale version
    ]);
    stream.answerCacheList(session, held.ids, held.versions, 0);
    expect(sentChunks(peer).sort((a, b) => a - b)).toEqual(
      [chunkId(1, 0), chunkId(2, 0), chunkId(0, 1), chunkId(1, 1), chunkId(2, 1)].sort((a, b) => a - b),
    );
  });

  it("does not send the same version again within the re-send guard, and does after it or for a new version", async () => {
    const { world, stream, session, peer } = await setUp();
    const all = cacheList([
      [chunkId(0, 0), 1],
      [chunkId(2, 0), 1],
      [chunkId(0, 1), 1],
      [chunkId(1, 1), 1],
      [chunkId(2, 1), 1],
    ]);
    stream.answerCacheList(session, all.ids, all.versions, 1000);
    expect(sentChunks(peer)).toEqual([chunkId(1, 0)]);
    stream.answerCacheList(session, all.ids, all.versions, 1000 + CHUNK_RESEND_GUARD_MS - 1);
    expect(sentChunks(peer)).toEqual([chunkId(1, 0)]);
    world.setTile(40, 10, 2); // version 2: sent at once, whatever the guard
    stream.answerCacheList(session, all.ids, all.versions, 1000 + CHUNK_RESEND_GUARD_MS - 1);
    expect(sentChunks(peer)).toEqual([chunkId(1, 0), chunkId(1, 0)]);
    stream.answerCacheList(session, all.ids, all.versions, 1000 + 2 * CHUNK_RESEND_GUARD_MS);
    expect(sentChunks(peer)).toEqual([chunkId(1, 0), chunkId(1, 0), chunkId(1, 0)]);
  });

  it("encodes each version once: the same bytes for every client until the chunk changes", async () => {
    const { world } = await setUp();
    const first = world.chunkDatagrams(1, 0);
    expect(world.chunkDatagrams(1, 0)).toBe(first);
    world.setTile(40, 10, 3);
    const second = world.chunkDatagrams(1, 0);
    expect(second).not.toBe(first);
    const decoded = decodePacket(second[0]);
    expect(decoded.ok && decoded.packet.type === "chunk" && decoded.packet.version).toBe(2);
  });

  it("says which players hold a chunk: those whose 3×3 neighbourhood contains it", () => {
    expect(holdsInView(40, 10, 0, 0)).toBe(true);
    expect(holdsInView(40, 10, 2, 1)).toBe(true);
    expect(holdsInView(40, 10, 3, 0)).toBe(false);
    expect(holdsInView(5, 5, 2, 0)).toBe(false);
    expect(holdsInView(-1, 5, -1, 0)).toBe(true);
  });
});
