// The authoritative server over real loopback UDP and HTTP.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHUNK_SIZE } from "../ts/constants.js";
import { lastWindowConsumedAt, tickOfWindow } from "../ts/window.js";
import { chunkCoords, chunkId } from "../ts/protocol/chunk-id.js";
import type { ChunkEntry } from "../ts/protocol/chunk-id.js";
import { entityChecksum } from "../ts/protocol/entity-checksum.js";
import { paletteExpand, unpack6 } from "../ts/ref/codec.js";
import { Logger } from "../ts/server/ops/log.js";
import { type RunningServer, startServer } from "../ts/server/server.js";
import { VIEW_ENTITIES_MAX } from "../ts/server/entities/view.js";
import { joinGuest, UdpTestClient } from "./support/udp-client.js";
import { testMapTile, TEST_MAP_HEIGHT, TEST_MAP_WIDTH, writeTestMap, type TestMap } from "./support/test-map.js";
import { TILE_BORDER } from "../ts/constants.js";

const quiet = new Logger("silent");
let map: TestMap;
let server: RunningServer;
const clients: UdpTestClient[] = [];

/** Nicks of players in play are unique (look-alikes are refused): each default client gets its own. */
let testers = 0;

async function client(nick = `tester${++testers}`): Promise<UdpTestClient> {
  const c = await UdpTestClient.connect(server.httpPort, nick);
  clients.push(c);
  return c;
}

/** Binds a fresh client (a keep-alive) and waits for its first state and entity update. */
async function boundClient(nick?: string): Promise<UdpTestClient> {
  const c = await client(nick);
  c.action(0, 0);
  await c.waitFor("first state", () => c.lastState());
  await c.waitFor("own position", () => c.position());
  return c;
}

function post(path: string, body: string): Promise<Response> {
  return fetch(`http://127.0.0.1:${server.httpPort}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
  });
}

/** The tiles of a received chunk, decoded with the JS reference codec. */
function chunkTiles(chunk: { palette: ArrayLike<number>; packedTiles: Uint8Array }): Uint16Array {
  const indices = new Uint8Array(1024);
  unpack6(chunk.packedTiles, indices);
  const tiles = new Uint16Array(1024);
  expect(paletteExpand(Uint16Array.from(chunk.palette), chunk.palette.length, indices, tiles)).toBe(0);
  return tiles;
}

beforeAll(async () => {
  map = writeTestMap();
  server = await startServer({ host: "127.0.0.1", httpPort: 0, udpPort: 0, mapPath: map.path, logger: quiet });
});

afterAll(async () => {
  for (const c of clients) c.close();
  await server?.close();
  map?.dispose();
});

describe("joining", () => {
  it("answers POST /api/guest with a token, entity id, protocol version and UDP port", async () => {
    const joined = await joinGuest(server.httpPort, "Ada");
    expect(joined.token).toMatch(/^[0-9a-f]{16}$/);
    expect(joined.entityId).toBeGreaterThan(0);
    expect(joined.protocolVersion).toBe(1);
    expect(joined.udpPort).toBe(server.udpPort);
  });

  it("refuses bad nicks and bad bodies with 400 and an error message", async () => {
    for (const body of [
      '{"nick": ""}',
      '{"nick": "a\\u0000b"}',
      '{"nick": "xxxxxxxxxxxxxxxxxxxxx"}',
      '{"nick": 5}',
      "nope",
      "[]",
    ]) {
      const response = await post("/api/guest", body);
      expect(response.status).toBe(400);
      const json = (await response.json()) as { error: string };
      expect(json.error).toEqual(expect.any(String));
    }
  });

  it("ends the previous guest session at once when a rejoin names its token", async () => {
    const first = await joinGuest(server.httpPort, "Phoenix");
    expect(server.game.entities.get(first.entityId)).toBeDefined();
    const response = await post("/api/guest", JSON.stringify({ nick: "Phoenix", replaces: first.token }));
    expect(response.status).toBe(200);
    const second = (await response.json()) as { entityId: number };
    expect(server.game.entities.get(first.entityId)).toBeUndefined();
    expect(server.game.entities.get(second.entityId)).toBeDefined();
    expect((await post("/api/guest", JSON.stringify({ nick: "Phoenix", replaces: "xyz" }))).status).toBe(400);
  });

  it("answers unknown routes with 404 and wrong methods with 405, as JSON errors", async () => {
    expect((await fetch(`http://127.0.0.1:${server.httpPort}/api/nope`)).status).toBe(404);
    const wrong = await fetch(`http://127.0.0.1:${server.httpPort}/api/guest`);
    expect(wrong.status).toBe(405);
    expect(((await wrong.json()) as { error: string }).error).toContain("GET");
  });

  it("reports status and Prometheus metrics", async () => {
    const status = (await (await fetch(`http://127.0.0.1:${server.httpPort}/api/status`)).json()) as Record<
      string,
      unknown
    >;
    expect(status).toMatchObject({ protocolVersion: 1, tickHz: 24 });
    // The tick it was at when it answered: no later than now. (These tests are quick: it may not have run one yet.)
    expect(status.tick as number).toBeGreaterThanOrEqual(0);
    expect(status.tick as number).toBeLessThanOrEqual(server.game.tick);
    // On Linux, where npm install builds native/udp-mmsg, UDP goes through batched system calls.
    const udp = status.udp as { backend: string; sendCalls?: number };
    expect(udp.backend).toBe(process.platform === "linux" ? "mmsg" : "dgram");
    // ?ticks narrows the timing percentiles to the newest ticks; anything else is a 400. (The server may have run
    // no tick or a single one yet, which the status would rightly report as the whole of what it holds.)
    const deadline = Date.now() + 5000;
    while (server.game.tick < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    const recent = (await (await fetch(`http://127.0.0.1:${server.httpPort}/api/status?ticks=2`)).json()) as {
      tick: number;
      tickMs: { ticks: number; p50: number };
    };
    expect(recent.tick).toBeGreaterThanOrEqual(2);
    expect(recent.tickMs.ticks).toBe(2);
    for (const bad of ["0", "1025", "2.5", "x"]) {
      const refused = await fetch(`http://127.0.0.1:${server.httpPort}/api/status?ticks=${bad}`);
      expect(refused.status, bad).toBe(400);
    }
    const metrics = await (await fetch(`http://127.0.0.1:${server.httpPort}/metrics`)).text();
    expect(metrics).toContain("# TYPE caves_players gauge");
    expect(metrics).toMatch(/^caves_ticks_total \d+$/m);
  });
});

describe("streaming", () => {
  it("sends State packets on every second tick with the 3×3 manifest around the player", async () => {
    const c = await boundClient();
    await c.waitFor("10 states", () => c.states.length >= 10, 4000);
    const ticks = c.states.map((s) => s.tick);
    for (let i = 1; i < ticks.length; i++) expect(ticks[i] - ticks[i - 1]).toBe(2);
    const state = c.lastState()!;
    expect(state.playerEntityId).toBe(c.joined.entityId);
    const pos = c.position()!;
    const centre = chunkCoords(state.chunks[4].chunkId);
    expect(centre).toEqual({ cx: Math.floor(pos.x / CHUNK_SIZE), cy: Math.floor(pos.y / CHUNK_SIZE) });
    for (let i = 0; i < 9; i++) {
      const { cx, cy } = chunkCoords(state.chunks[i].chunkId);
      expect([cx - centre.cx, cy - centre.cy]).toEqual([(i % 3) - 1, Math.floor(i / 3) - 1]);
      const inWorld = cx >= 0 && cy >= 0 && cx < 3 && cy < 3;
      expect(state.chunks[i].version > 0).toBe(inWorld);
    }
  });

  it("sends the missing chunks of the neighbourhood, with the map's tiles and the border", async () => {
    const c = await boundClient();
    const manifest = c.lastState()!.chunks.filter((e) => e.version > 0);
    c.action(0, 0, []);
    await c.waitFor("all chunks", () => manifest.every((m) => c.chunks.some((k) => k.chunkId === m.chunkId)));
    for (const chunk of c.chunks) {
      const { cx, cy } = chunkCoords(chunk.chunkId);
      const tiles = chunkTiles(chunk);
      for (let ly = 0; ly < CHUNK_SIZE; ly++) {
        for (let lx = 0; lx < CHUNK_SIZE; lx++) {
          const x = cx * CHUNK_SIZE + lx;
          const y = cy * CHUNK_SIZE + ly;
          const expected = x < TEST_MAP_WIDTH && y < TEST_MAP_HEIGHT ? testMapTile(x, y) : TILE_BORDER;
          if (tiles[ly * CHUNK_SIZE + lx] !== expected) throw new Error(`tile (${x}, ${y}) differs`);
        }
      }
    }
  });

  it("does not re-send chunks the client holds at the current version", async () => {
    const c = await boundClient();
    await c.waitFor("initial chunks", () => c.chunks.length >= 4);
    await new Promise((resolve) => setTimeout(resolve, 200)); // past the server's re-send guard
    const held: ChunkEntry[] = c.lastState()!.chunks.map((e) => ({ ...e }));
    const before = c.chunks.length;
    c.action(0, 0, held);
    c.ping();
    await c.waitFor("pong", () => c.received.some((r) => r.packet?.type === "pong"));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(c.chunks).toHaveLength(before);
  });

  it("recovers a lost ChunkPacket when the client retransmits its ActionPacket", async () => {
    const c = await client();
    const entity = server.game.entities.get(c.joined.entityId)!;
    const wantedId = chunkId(Math.floor(entity.x / CHUNK_SIZE), Math.floor(entity.y / CHUNK_SIZE));
    let lost = 0;
    // Lose the first copy of the chunk the player stands in.
    c.dropInbound = (p) => {
      if (p.type !== "chunk" || p.chunkId !== wantedId || lost > 0) return false;
      lost++;
      return true;
    };
    c.action(0, 0);
    await c.waitFor("first state", () => c.lastState());
    const wanted = c.lastState()!.chunks[4];
    await new Promise((resolve) => setTimeout(resolve, 250)); // the client's retransmit timeout
    expect(c.chunks.some((k) => k.chunkId === wanted.chunkId)).toBe(false);
    const held = c.chunks.map((k) => ({ chunkId: k.chunkId, version: k.version }));
    c.action(0, 0, held);
    await c.waitFor("re-sent chunk", () => c.chunks.find((k) => k.chunkId === wanted.chunkId));
    expect(lost).toBe(1);
  });

  it("answers Ping with Pong carrying the same timestamp", async () => {
    const c = await boundClient();
    c.ping(123456789n);
    const pong = await c.waitFor("pong", () => c.received.find((r) => r.packet?.type === "pong"));
    expect(pong.packet).toMatchObject({ type: "pong", timestampMs: 123456789n });
  });

  it("answers EntityQuery with EntityDetail carrying the nick, and to the player itself its bag and its experience", async () => {
    const c = await boundClient("Grace");
    c.query(c.joined.entityId);
    const detail = await c.waitFor("detail", () => c.received.find((r) => r.packet?.type === "entity_detail"));
    // Its own bag (issue 14, docs/protocol.md § 18.3): empty, version 1, 20 slots.
    expect(detail.packet).toMatchObject({
      entityId: c.joined.entityId,
      meta: [
        // The player's look (issue 18), inline on the entity, comes along in its detail.
        { kind: "appearance", value: expect.any(Number) },
        // Its level (issue 39), inline too.
        { kind: "level", value: 1 },
        { kind: "name", value: "Grace" },
        { kind: "inventory", version: 1, capacity: 20, stacks: [] },
        // Its party (issue 39, docs/protocol.md § 18.9): none.
        { kind: "party", members: [] },
        // Its experience, to itself alone: none yet, level 2 at 50.
        { kind: "progress", xp: 0, levelXp: 0, nextXp: 50 },
      ],
    });
  });
});

describe("tick-addressed movement", () => {
  /** A target tick inside the window `ahead` windows after the current one. */
  function targetFor(c: UdpTestClient, ahead: number): number {
    const window = lastWindowConsumedAt(c.lastState()!.tick) + ahead;
    return tickOfWindow(window);
  }

  async function settle(c: UdpTestClient, windows: number): Promise<void> {
    const start = c.lastState()!.tick;
    await c.waitFor("ticks to pass", () => c.lastState()!.tick >= start + tickOfWindow(windows) + 2, 5000);
    c.action(0, 0); // fetch the current entries even if unchanged
    const after = c.entityPackets.length;
    await c.waitFor("fresh entity update", () => c.entityPackets.length > after);
  }

  it("moves one tile for an action, through the movement rule", async () => {
    const c = await boundClient();
    const start = c.position()!;
    c.action(targetFor(c, 2), 3); // south
    await settle(c, 4);
    expect(c.position()).toEqual({ x: start.x, y: start.y + 1 });
  });

  it("moves at most once per window under a flood of actions", async () => {
    const c = await boundClient();
    const start = c.position()!;
    const firstUpdate = c.entityPackets.length;
    // 20 bursts over about a second, each addressing every window in reach (and some late ones).
    for (let burst = 0; burst < 20; burst++) {
      const base = Math.max(1, c.lastState()!.tick - 8);
      for (let i = 0; i < 50; i++) c.action(base + (i % 24), 2); // east
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await settle(c, 2);
    const updates = c.entityPackets.slice(firstUpdate - 1);
    const mine = updates.map((p) => ({ tick: p.tick, e: p.entities.find((e) => e.id === c.joined.entityId)! }));
    for (let i = 1; i < mine.length; i++) {
      const windows = lastWindowConsumedAt(mine[i].tick) - lastWindowConsumedAt(mine[i - 1].tick);
      const moved = Math.max(Math.abs(mine[i].e.x - mine[i - 1].e.x), Math.abs(mine[i].e.y - mine[i - 1].e.y));
      expect(moved).toBeLessThanOrEqual(windows);
    }
    expect(c.position()!.x - start.x).toBeGreaterThan(3);
  });

  it("replaces an action with a later one to the same window (NOOP retraction)", async () => {
    const c = await boundClient();
    const start = c.position()!;
    const target = targetFor(c, 3);
    c.action(target, 3);
    c.action(target, 0); // retract
    await settle(c, 5);
    expect(c.position()).toEqual(start);
  });

  it("moves a late action to the next empty window but drops a late NOOP", async () => {
    const c = await boundClient();
    const start = c.position()!;
    const before = ((await statusOf()).actions as Record<string, number>) ?? {};
    const past = Math.max(1, c.lastState()!.tick - tickOfWindow(3));
    c.action(past, 0);
    c.action(past, 3);
    await settle(c, 3);
    expect(c.position()).toEqual({ x: start.x, y: start.y + 1 });
    const after = (await statusOf()).actions as Record<string, number>;
    expect(after.late_noop ?? 0).toBeGreaterThan(before.late_noop ?? 0);
    expect(after.late_moved ?? 0).toBeGreaterThan(before.late_moved ?? 0);
  });

  it("drops actions addressed beyond the horizon", async () => {
    const c = await boundClient();
    const start = c.position()!;
    c.action(targetFor(c, 8), 3);
    await settle(c, 10);
    expect(c.position()).toEqual(start);
  });

  it("applies the movement rule: no corner cutting past the wall's end", async () => {
    const c = await boundClient();
    const entity = server.game.entities.get(c.joined.entityId)!;
    server.game.entities.move(entity, 39, 29); // west of the wall's southern end at (40, 29)
    c.action(targetFor(c, 2), 6); // south-east would cut the wall's corner
    await settle(c, 4);
    expect(c.position()).toEqual({ x: 39, y: 29 });
    c.action(targetFor(c, 2), 3); // south is free
    await settle(c, 4);
    expect(c.position()).toEqual({ x: 39, y: 30 });
  });
});

async function statusOf(): Promise<Record<string, unknown>> {
  return (await (await fetch(`http://127.0.0.1:${server.httpPort}/api/status`)).json()) as Record<string, unknown>;
}

describe("entity updates", () => {
  it("splits a view too big for one datagram over datagrams with the more flag and a matching checksum", async () => {
    const c = await boundClient();
    const me = c.position()!;
    // A hundred creatures around the player, each with its name in its entry (a name TLV): the view lists its 64
    // nearest (P-33, docs/protocol.md § 8.6), and 64 such entries are more than one datagram holds (64 bare ones fit).
    for (let i = 0; i < 100; i++) {
      server.game.entities.spawn({
        typeId: 1,
        x: me.x + (i % 10) - 5,
        y: me.y + Math.floor(i / 10) - 5,
        hp: 10,
        hpMax: 10,
        elo: 0,
        flags: 2,
        name: `creature-${String(i).padStart(3, "0")}`,
        meta: [{ kind: "name", value: `creature-${String(i).padStart(3, "0")}` }],
      });
    }
    const update = await c.waitFor("a split update", () => {
      const latest = c.latestEntities();
      return latest && latest.packets.length >= 2 ? latest : undefined;
    });
    expect(update.packets[0].more).toBe(true);
    expect(update.packets[update.packets.length - 1].more).toBe(false);
    expect(update.packets.reduce((n, p) => n + p.entities.length, 0)).toBe(VIEW_ENTITIES_MAX);
    const datagrams = c.received
      .filter((r) => r.packet?.type === "entity" && (r.packet as { tick: number }).tick === update.tick)
      .map((r) => r.bytes);
    // The first datagram is full: no room is left in it for another named entry (18 bytes and a name of 12, or a
    // player's with its look and level).
    expect(datagrams[0].length).toBeGreaterThan(1200 - 48);
    const state = c.states.find((s) => s.tick === update.tick)!;
    expect(entityChecksum(datagrams)).toBe(state.entityChecksum);
    for (const r of c.received) expect(r.bytes.length).toBeLessThanOrEqual(1200);
  });

  it("skips unchanged updates, and re-sends them after a keep-alive (checksum mismatch recovery)", async () => {
    const c = await boundClient();
    // Alone in a corner, so other tests' clients (moving, or evicted) stay out of view.
    server.game.entities.move(server.game.entities.get(c.joined.entityId)!, 70, 60);
    const moved = c.states.length;
    await c.waitFor("a few states", () => c.states.length >= moved + 4);
    const countBefore = c.entityPackets.length;
    const stateCountBefore = c.states.length;
    await c.waitFor("more states", () => c.states.length >= stateCountBefore + 6);
    // Nothing in view moved, so only StatePackets arrived, all with the same checksum.
    expect(c.entityPackets.length).toBe(countBefore);
    const checksums = new Set(c.states.slice(stateCountBefore).map((s) => s.entityChecksum));
    expect(checksums.size).toBe(1);
    // Pretend the last entity update was lost: a keep-alive gets it re-sent.
    c.action(0, 0);
    await c.waitFor("re-sent entities", () => c.entityPackets.length > countBefore);
  });
});

describe("sessions and hostile input", () => {
  // Moving needs the authentication trailer now (docs/protocol.md § 6.1): a spec-only packet from a new
  // address is a replay as far as the server can tell (test/session-security.test.ts).
  it("moves a session to a new source address (NAT rebinding)", async () => {
    const first = await client();
    first.sign();
    first.action(0, 0);
    await first.waitFor("first state", () => first.lastState());
    const second = await UdpTestClient.withSession(first.joined);
    second.continueFrom(first);
    clients.push(second);
    second.action(0, 0);
    await second.waitFor("state on the new address", () => second.lastState());
    const count = first.states.length;
    await second.waitFor("more states on the new address", () => second.states.length > 4);
    expect(first.states.length - count).toBeLessThanOrEqual(1);
  });

  it("sends nothing at all to a datagram with an unknown token", async () => {
    const stranger = await UdpTestClient.withSession({
      token: "0123456789abcdef",
      entityId: 0,
      protocolVersion: 1,
      udpPort: server.udpPort,
    });
    clients.push(stranger);
    stranger.action(0, 0);
    stranger.query(1);
    stranger.ping();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(stranger.received).toHaveLength(0);
  });

  it("survives 10,000 random and mutated datagrams, keeps answering, and counts drops by reason", async () => {
    const c = await boundClient();
    const attacker = await UdpTestClient.withSession(c.joined);
    clients.push(attacker);
    let seed = 12345;
    const random = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32) * 1;
    const valid = new Uint8Array(74);
    valid.set([0x4c, 0x52, 1, 1]);
    for (let i = 0; i < 10_000; i++) {
      let bytes: Uint8Array;
      if (i % 3 === 0) {
        bytes = new Uint8Array(Math.floor(random() * 1300));
        for (let j = 0; j < bytes.length; j++) bytes[j] = random() * 256;
      } else {
        bytes = valid.slice(0, Math.floor(random() * 80));
        const flips = 1 + Math.floor(random() * 4);
        for (let f = 0; f < flips && bytes.length > 0; f++) bytes[Math.floor(random() * bytes.length)] = random() * 256;
      }
      attacker.sendRaw(bytes);
      // Paced so the kernel's socket buffer, not the server, is never the one dropping.
      if (i % 100 === 0) await new Promise((resolve) => setTimeout(resolve, 3));
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    const status = await statusOf();
    const drops = status.drops as Record<string, number>;
    expect(Object.keys(drops).length).toBeGreaterThan(3);
    expect(Object.values(drops).reduce((a, b) => a + b, 0)).toBeGreaterThan(5000);
    c.ping(7n);
    await c.waitFor("pong after the storm", () => c.received.some((r) => r.packet?.type === "pong"));
  });
});

describe("limits and eviction", () => {
  it("refuses joins beyond --max-players with 503, and evicts sessions unseen for the timeout", async () => {
    const small = await startServer({
      host: "127.0.0.1",
      httpPort: 0,
      udpPort: 0,
      mapPath: map.path,
      logger: quiet,
      maxPlayers: 1,
      sessionTimeoutMs: 500,
    });
    try {
      const joined = await joinGuest(small.httpPort, "one");
      const response = await fetch(`http://127.0.0.1:${small.httpPort}/api/guest`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ nick: "two" }),
      });
      expect(response.status).toBe(503);
      expect(((await response.json()) as { error: string }).error).toMatch(/full/);
      expect(small.game.entities.get(joined.entityId)).toBeDefined();
      const deadline = performance.now() + 3000;
      while (small.game.sessions.size > 0 && performance.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(small.game.sessions.size).toBe(0);
      expect(small.game.entities.get(joined.entityId)).toBeUndefined();
      await joinGuest(small.httpPort, "three"); // room again
    } finally {
      await small.close();
    }
  });
});
