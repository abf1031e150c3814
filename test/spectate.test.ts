// Spectators (issue 40, docs/server.md § Spectators, docs/protocol.md § 12.3) on the real server, over
// real UDP loopback: a session with no body joined through POST /api/spectate sees what a player at its
// camera would — the entities near the camera and not the far ones, the chunks there — moves its camera,
// follows a walking player; the players never see it and it is counted apart from them; who may watch is
// the host's to say; bad camera packets are dropped, counted, without harm; and a recording holds nothing of
// a spectator and replays exactly.
import { createSocket } from "node:dgram";
import { once } from "node:events";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { connectWebSocket } from "../ts/client/transport/connect.js";
import { CameraFeed, connectSpectator, GameClient } from "../ts/client/core/index.js";
import { UdpNodeTransport } from "../ts/client/transport/udp-node.js";
import { loadCore } from "../ts/wasm/node.js";
import { drive } from "./client-core-support.js";
import { ACTION_E } from "../ts/protocol/action.js";
import { CAMERA_BYTES, encodeCamera } from "../ts/protocol/camera.js";
import { encodeChatPost } from "../ts/protocol/chat-post.js";
import { chunkId } from "../ts/protocol/chunk-id.js";
import { MANIFEST_CENTRE } from "../ts/protocol/state.js";
import { CHUNK_SIZE } from "../ts/constants.js";
import { summarize } from "../ts/server/recording/cut.js";
import { bytesSource } from "../ts/server/recording/format.js";
import { replayRecording } from "../ts/server/replay-world.js";
import { CAMERA_ENTITY_ID } from "../ts/server/spectators/camera.js";
import { Logger } from "../ts/server/ops/log.js";
import { startServer } from "../ts/server/server.js";
import { startServerOnTestMap, type TestServer } from "./support/test-server.js";
import { actionDatagram, DatagramLog, sleep, waitFor } from "./support/transport-client.js";
import { TEST_MAP_HEIGHT, TEST_MAP_WIDTH, writeTestMap } from "./support/test-map.js";
import { joinGuest, joinSpectator, UdpTestClient } from "./support/udp-client.js";
import { walkSteps } from "./support/walk.js";

const ADMIN_TOKEN = "spectator-admin-token-0123456789abcdef";

let running: TestServer | undefined;
const clients: UdpTestClient[] = [];
const others: TestServer[] = [];

beforeAll(async () => {
  // One player fills the server: a spectator never takes a player's place.
  running = await startServerOnTestMap({ adminToken: ADMIN_TOKEN, maxPlayers: 1 });
}, 30_000);

afterAll(async () => {
  for (const client of clients) client.close();
  await running?.close();
  for (const other of others) await other.close();
});

function port(): number {
  return running!.server.httpPort;
}

/** A signed protocol client on a fresh socket, kept for closing. */
async function client(joined: Parameters<typeof UdpTestClient.withSession>[0]): Promise<UdpTestClient> {
  const made = (await UdpTestClient.withSession(joined)).sign();
  clients.push(made);
  return made;
}

/** Binds a spectator and waits until its address is proven and StatePackets come. */
async function watching(spectator: UdpTestClient): Promise<UdpTestClient> {
  spectator.action(0, 0);
  await spectator.waitFor(
    "the spectator's first state",
    () => {
      if (spectator.states.length === 0) spectator.action(0, 0);
      return spectator.states.length > 0;
    },
    5000,
  );
  return spectator;
}

/** The ids in the spectator's latest complete entity update. */
function idsInView(spectator: UdpTestClient): number[] {
  return spectator.inView().map((entity) => entity.id);
}

/** The chunk a StatePacket's manifest is centred on. */
function centreOf(spectator: UdpTestClient): number | undefined {
  return spectator.lastState()?.chunks[MANIFEST_CENTRE].chunkId;
}

interface Status {
  players: number;
  maxPlayers: number;
  spectators: { count: number; max: number; bound: number; following: number; cameraMoves: number };
  playersByTransport: Record<string, number>;
  drops: Record<string, number>;
}

async function status(): Promise<Status> {
  return (await (await fetch(`http://127.0.0.1:${port()}/api/status`)).json()) as Status;
}

async function spectateStatus(httpPort: number, authorization?: string): Promise<{ status: number; body: string }> {
  const response = await fetch(`http://127.0.0.1:${httpPort}/api/spectate`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(authorization ? { authorization } : {}) },
    body: "{}",
  });
  return { status: response.status, body: await response.text() };
}

describe("spectators on the live world", () => {
  let player: UdpTestClient;
  let spectator: UdpTestClient;
  let spawn: { x: number; y: number };

  beforeAll(async () => {
    player = await client(await joinGuest(port(), "Walker"));
    await player.placed();
    spawn = player.position()!;
  }, 20_000);

  it("sees the entities near its camera and not the far ones, and the chunks where it looks", async () => {
    const joined = await joinSpectator(port(), { adminToken: ADMIN_TOKEN, at: spawn });
    expect(joined.entityId).toBe(CAMERA_ENTITY_ID);
    expect(joined.camera).toEqual(spawn);
    spectator = await watching(await client(joined));
    // Near: the player standing at the camera is in view, and the State names no body of its own.
    await spectator.waitFor("the player in view", () => idsInView(spectator).includes(player.joined.entityId));
    expect(spectator.lastState()!.playerEntityId).toBe(CAMERA_ENTITY_ID);
    expect(centreOf(spectator)).toBe(chunkId(Math.floor(spawn.x / CHUNK_SIZE), Math.floor(spawn.y / CHUNK_SIZE)));

    // Far: the camera in the opposite corner (more than 15 tiles away) shows nobody, and that corner's chunks.
    const far = { x: spawn.x < TEST_MAP_WIDTH / 2 ? 75 : 4, y: spawn.y < TEST_MAP_HEIGHT / 2 ? 65 : 4 };
    expect(Math.max(Math.abs(far.x - spawn.x), Math.abs(far.y - spawn.y))).toBeGreaterThan(15);
    const farChunk = chunkId(Math.floor(far.x / CHUNK_SIZE), Math.floor(far.y / CHUNK_SIZE));
    spectator.camera(far.x, far.y);
    await spectator.waitFor("the state centred on the far corner", () => centreOf(spectator) === farChunk);
    await spectator.waitFor("nobody in view", () => spectator.latestEntities() && idsInView(spectator).length === 0);
    spectator.action(0, 0); // its cache list is empty: the chunks around the camera come
    await spectator.waitFor("the far corner's chunk", () =>
      spectator.chunks.some((chunk) => chunk.chunkId === farChunk),
    );

    // And back: the player is in view again.
    spectator.camera(spawn.x, spawn.y);
    await spectator.waitFor("the player in view again", () => idsInView(spectator).includes(player.joined.entityId));
  });

  it("follows a walking player, its camera kept on it by the server", async () => {
    const far = { x: spawn.x < TEST_MAP_WIDTH / 2 ? 75 : 4, y: spawn.y < TEST_MAP_HEIGHT / 2 ? 65 : 4 };
    spectator.camera(far.x, far.y);
    await spectator.waitFor("nobody in view", () => idsInView(spectator).length === 0);
    // Following jumps the camera to the player, wherever the packet's tile says.
    spectator.camera(far.x, far.y, player.joined.entityId);
    await spectator.waitFor("the followed player in view", () => idsInView(spectator).includes(player.joined.entityId));
    const game = running!.server.game;
    const [watcher] = [...game.spectators.sessions.values()];
    expect({ x: watcher.entity.x, y: watcher.entity.y }).toEqual(spawn);

    // The player walks east (away from the wall at x = 40 when it stands west of it): the camera goes with it.
    const end = await walkSteps(player, [ACTION_E, ACTION_E, ACTION_E, ACTION_E]);
    expect(end.x).toBeGreaterThan(spawn.x);
    await spectator.waitFor("the camera on the player's new tile", () => {
      const seen = spectator.inView().find((entity) => entity.id === player.joined.entityId);
      return seen !== undefined && seen.x === end.x && watcher.entity.x === end.x && watcher.entity.y === end.y;
    });
    expect((await status()).spectators.following).toBe(1);

    // A free camera stops following: the player steps on, the camera stays.
    spectator.camera(end.x, end.y);
    await spectator.waitFor("the camera free", () => game.spectators.status().following === 0);
    const after = await walkSteps(player, [ACTION_E]);
    expect(after.x).toBe(end.x + 1);
    expect({ x: watcher.entity.x, y: watcher.entity.y }).toEqual(end);
  });

  it("is never seen by the players, nor counted among them or in their cap", async () => {
    const game = running!.server.game;
    // The player sees itself only: no entity for the spectator, whose camera stands beside it.
    const own = player.position()!;
    spectator.camera(own.x, own.y);
    await spectator.waitFor("the spectator by the player", () => idsInView(spectator).includes(player.joined.entityId));
    player.action(0, 0); // a keep-alive re-sends the player's view
    await player.waitFor("the player's view re-sent", () => player.latestEntities()!.tick > game.tick - 4);
    expect(player.inView().map((entity) => entity.id)).toEqual([player.joined.entityId]);
    expect(game.entities.get(CAMERA_ENTITY_ID)).toBeUndefined();

    const now = await status();
    expect(now.players).toBe(1);
    expect(now.spectators).toMatchObject({ count: 1, bound: 1, max: 32 });
    expect(Object.values(now.playersByTransport).reduce((a, b) => a + b, 0)).toBe(1);
    const online = (await (await fetch(`http://127.0.0.1:${port()}/api/online`)).json()) as { count: number };
    expect(online.count).toBe(1);
    const metrics = await (await fetch(`http://127.0.0.1:${port()}/metrics`)).text();
    expect(metrics).toMatch(/^caves_players 1$/m);
    expect(metrics).toMatch(/^caves_spectators 1$/m);

    // The server is full of players (one), and still takes a spectator; a second player is refused.
    const second = await joinSpectator(port(), { adminToken: ADMIN_TOKEN });
    expect(game.spectators.size).toBe(2);
    await expect(joinGuest(port(), "Latecomer")).rejects.toThrow(/503/);
    // A spectator that leaves (P-26) is gone at once; the player plays on.
    const leaving = await watching(await client(second));
    leaving.leave();
    await leaving.waitFor("the second spectator gone", () => game.spectators.size === 1);
    expect(game.sessions.size).toBe(1);
  });

  it("acts in nothing: its chat and steps change nothing, and its camera packets are checked", async () => {
    const game = running!.server.game;
    const dropped = async (reason: string) => (await status()).drops[reason] ?? 0;
    // A chat line from a spectator is dropped, not said.
    const chatBefore = game.chat.stats;
    const watchesBefore = await dropped("spectator_watches");
    const out = new Uint8Array(1200);
    const size = encodeChatPost(
      { type: "chat_post", clientType: 0, authToken: spectator.token, seq: 1, text: "boo" },
      out,
    );
    spectator.sendRaw(out.slice(0, size));
    await expect.poll(() => dropped("spectator_watches")).toBe(watchesBefore + 1);
    expect(game.chat.stats).toEqual(chatBefore);

    // A step from a spectator moves nothing: it has no body, and no entity gained one.
    const entitiesBefore = game.entities.size;
    spectator.action(spectator.lastState()!.tick + 4, ACTION_E);
    await expect.poll(() => game.tick).toBeGreaterThan(spectator.lastState()!.tick + 8);
    expect(game.entities.size).toBe(entitiesBefore);

    // Bad camera packets: short, long, an unknown token, the spectator's token from another socket, the
    // player's token over the player's own link. Each is dropped and counted; the server goes on.
    const before = (await status()).drops;
    const good = new Uint8Array(CAMERA_BYTES);
    encodeCamera({ type: "camera", clientType: 0, authToken: spectator.token, x: 1, y: 1, followEntityId: 0 }, good);
    spectator.sendRaw(good.slice(0, CAMERA_BYTES - 1));
    spectator.sendRaw(new Uint8Array([...good, 0]));
    const unknown = new Uint8Array(good);
    unknown[6] ^= 0xff;
    spectator.sendRaw(unknown);
    const stranger = createSocket("udp4");
    stranger.bind(0, "127.0.0.1");
    await once(stranger, "listening");
    stranger.send(good, spectator.udpPort, "127.0.0.1");
    const fromPlayer = new Uint8Array(CAMERA_BYTES);
    encodeCamera({ type: "camera", clientType: 0, authToken: player.token, x: 1, y: 1, followEntityId: 0 }, fromPlayer);
    player.sendRaw(fromPlayer);
    const grew = (reason: string, by: number) => async () =>
      ((await status()).drops[reason] ?? 0) - (before[reason] ?? 0) >= by;
    await expect.poll(grew("truncated", 1)).toBe(true);
    await expect.poll(grew("trailing_bytes", 1)).toBe(true);
    await expect.poll(grew("unknown_token", 2)).toBe(true);
    await expect.poll(grew("not_bound_link", 1)).toBe(true);
    stranger.close();
    const [watcher] = [...game.spectators.sessions.values()];
    expect(watcher.entity.x).not.toBe(1);

    // A tile far off the map is clamped to its edge; following an entity the world does not hold stays free.
    spectator.camera(-5000, 30000);
    await spectator.waitFor("the camera at the map's corner", () => watcher.entity.x === 0);
    expect({ x: watcher.entity.x, y: watcher.entity.y }).toEqual({ x: 0, y: TEST_MAP_HEIGHT - 1 });
    spectator.camera(10, 12, 999_999);
    await spectator.waitFor("the camera free at its tile", () => watcher.entity.y === 12);
    expect({ x: watcher.entity.x, following: game.spectators.status().following }).toEqual({ x: 10, following: 0 });
    // Camera moves are rationed (ten a second, burst twenty): a flood of them is dropped past the burst.
    const limitedBefore = await dropped("camera_rate_limited");
    for (let move = 0; move < 60; move++) spectator.camera(20 + (move % 30), 20);
    await expect.poll(() => dropped("camera_rate_limited")).toBeGreaterThan(limitedBefore + 20);
    // Still watched, still served.
    const states = spectator.states.length;
    await spectator.waitFor("more states", () => spectator.states.length > states + 2);
  });

  it("watches through the networking core: connectSpectator and a CameraFeed", async () => {
    const game = running!.server.game;
    const connection = await connectSpectator(
      running!.baseUrl,
      { adminToken: ADMIN_TOKEN, at: { x: 3, y: 3 } },
      async (session) => UdpNodeTransport.connect("127.0.0.1", session.udpPort, session.key),
    );
    expect(connection.session.camera).toEqual({ x: 3, y: 3 });
    const watcher = GameClient.create({ core: await loadCore(), ...connection });
    const feed = new CameraFeed(watcher);
    try {
      await drive([watcher], "the spectator watching", () => watcher.state === "playing");
      // No body: no own entity, no predicted position.
      expect(watcher.ownEntityId).toBe(CAMERA_ENTITY_ID);
      expect(watcher.predicted).toBeNull();
      const walker = player.joined.entityId;
      const at = player.position()!;
      feed.follow(walker, at.x, at.y);
      await drive(
        [watcher, { update: () => feed.update(performance.now()) }],
        "the walker in the spectator's view, its name known",
        () => watcher.entities.has(walker) && watcher.names.get(walker) === "Walker",
      );
      const session = [...game.spectators.sessions.values()].find((one) => one.token === watcher.session.token)!;
      expect(game.spectators.status().following).toBeGreaterThanOrEqual(1);
      // A free camera far away: the walker leaves the view.
      feed.aim(75, 65);
      await drive(
        [watcher, { update: () => feed.update(performance.now()) }],
        "an empty view",
        () => !watcher.entities.has(walker),
      );
      expect({ x: session.entity.x, y: session.entity.y }).toEqual({ x: 75, y: 65 });
      expect(feed.sent).toBeGreaterThanOrEqual(2);
    } finally {
      watcher.close();
    }
    // Its LeavePacket (GameClient.close) ends it at once.
    await expect
      .poll(() => [...game.spectators.sessions.values()].some((one) => one.token === watcher.session.token))
      .toBe(false);
  });
});

describe("a spectator over a WebSocket", () => {
  it("is kept as a player's link is (not reaped as unused), and ends when its link closes", async () => {
    // A short grace: a link carrying no session is closed after 300 ms.
    const short = await startServerOnTestMap({ adminToken: ADMIN_TOKEN, websocket: { unboundGraceMs: 300 } });
    others.push(short);
    const joined = await joinSpectator(short.server.httpPort, { adminToken: ADMIN_TOKEN });
    const transport = await connectWebSocket(short.baseUrl, {
      WebSocket: WebSocket as unknown as typeof globalThis.WebSocket,
    });
    const log = new DatagramLog();
    transport.onDatagram(log.record);
    transport.send(actionDatagram(BigInt(`0x${joined.token}`)));
    await waitFor("the spectator's states", () => log.states.length > 0);
    expect(log.states.at(-1)!.playerEntityId).toBe(CAMERA_ENTITY_ID);
    // Well past the grace, the link is open and the states still come.
    await sleep(900);
    const states = log.states.length;
    await waitFor("more states", () => log.states.length > states + 2);
    expect(short.server.websocket.counts()).toMatchObject({ open: 1, reaped: 0 });
    expect(short.server.game.spectators.size).toBe(1);
    // The page goes: the link closes, and the spectator ends at once.
    transport.close();
    await waitFor("the spectator gone", () => short.server.game.spectators.size === 0);
    expect(short.server.game.spectators.stats.left).toBe(1);
  });
});

describe("spectators and the flight recorder", () => {
  it("records nothing of a spectator: a player's walk replays exactly, and only the player's datagrams are in it", async () => {
    const folder = mkdtempSync(join(tmpdir(), "caves-spectate-rec-"));
    // The map outlives the server: the replay reads it again.
    const map = writeTestMap();
    try {
      const server = await startServer({
        host: "127.0.0.1",
        httpPort: 0,
        udpPort: 0,
        mapPath: map.path,
        logger: new Logger("silent"),
        adminToken: ADMIN_TOKEN,
        record: { dir: folder },
      });
      const recorded = { server, close: () => server.close() };
      let walker: UdpTestClient;
      let watcher: UdpTestClient;
      try {
        const httpPort = recorded.server.httpPort;
        walker = await client(await joinGuest(httpPort, "Recorded"));
        await walker.placed();
        watcher = await watching(await client(await joinSpectator(httpPort, { adminToken: ADMIN_TOKEN })));
        watcher.camera(0, 0, walker.joined.entityId);
        await walkSteps(walker, [ACTION_E, ACTION_E, ACTION_E]);
        // Many more datagrams from the spectator than from the player: camera moves (ten a second), keep-alives, a query.
        for (let round = 0; round < 20; round++) {
          watcher.camera(5 + round, 5, round % 2 === 0 ? walker.joined.entityId : 0);
          watcher.action(0, 0);
          if (round % 10 === 9) await sleep(150);
        }
        watcher.query(walker.joined.entityId);
        await expect.poll(() => recorded.server.game.spectators.stats.cameraMoves).toBeGreaterThanOrEqual(21);
        expect(watcher.datagramsSent).toBeGreaterThan(2 * walker.datagramsSent);
      } finally {
        await recorded.close();
      }
      const file = join(
        folder,
        readdirSync(folder).find((name) => name.endsWith(".fcrec"))!,
      );
      const inputs = summarize(bytesSource(readFileSync(file))).inputs;
      // Every recorded datagram is the player's (had one spectator's been recorded, they would outnumber them).
      expect(inputs.datagram).toBeGreaterThan(0);
      expect(inputs.datagram).toBeLessThanOrEqual(walker!.datagramsSent);
      expect(inputs.joinGuest).toBe(1);
      const replay = await replayRecording({ file });
      expect(replay.divergence).toBeNull();
    } finally {
      rmSync(folder, { recursive: true, force: true });
      map.dispose();
    }
  }, 30_000);
});

describe("who may spectate", () => {
  it("an admin always; without the token, or with a wrong one, no one by default (401)", async () => {
    expect((await spectateStatus(port())).status).toBe(401);
    expect((await spectateStatus(port(), "Bearer not-the-admin-token-at-all-000000000")).status).toBe(401);
    expect((await spectateStatus(port(), `Bearer ${ADMIN_TOKEN}`)).status).toBe(200);
  });

  it("anyone where the host says so; no one where it is off; a cap of its own", async () => {
    const open = await startServerOnTestMap({ spectators: "anyone", maxSpectators: 1 });
    others.push(open);
    const openPort = open.server.httpPort;
    const first = await spectateStatus(openPort);
    expect(first.status).toBe(200);
    // Its own cap: a second is refused (503), though no player plays.
    const full = await spectateStatus(openPort);
    expect(full.status).toBe(503);
    expect(full.body).toMatch(/spectators full/);
    // A presented token is checked, and this server has none to check it against.
    expect((await spectateStatus(openPort, `Bearer ${ADMIN_TOKEN}`)).status).toBe(403);

    const closed = await startServerOnTestMap({ spectators: "off", adminToken: ADMIN_TOKEN });
    others.push(closed);
    const refused = await spectateStatus(closed.server.httpPort, `Bearer ${ADMIN_TOKEN}`);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatch(/off/);
    // The default policy without an admin token: nobody can be an admin, so nobody watches.
    const tokenless = await startServerOnTestMap();
    others.push(tokenless);
    expect((await spectateStatus(tokenless.server.httpPort)).status).toBe(403);
  }, 30_000);

  it("refuses a camera tile that is not two whole numbers", async () => {
    const response = await fetch(`http://127.0.0.1:${port()}/api/spectate`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${ADMIN_TOKEN}` },
      body: JSON.stringify({ x: 3 }),
    });
    expect(response.status).toBe(400);
  });
});
