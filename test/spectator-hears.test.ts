// A spectator hears and sees what a player at its camera would (issue 40, docs/server.md § Spectators), on
// the real server over real UDP loopback with the real wasm: a fighter bumps a creature while a talker
// speaks. A spectator following the fighter is told each blow (the CombatPackets the fighter is told, at
// the same ticks) and hears the talker's public line; a spectator looking at the far end of the map is
// told no blow but hears the line (chat is global); neither ever hears the talker's private line to the
// fighter, and their acknowledgements are taken (nothing stays queued for them); the one near hears who
// joins and leaves there. The same run, recorded,
// replayed in `replay watch`: a viewer following the fighter is told the same blows at the same ticks and
// hears the public line, never the private one.
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACTION_E } from "../ts/protocol/action.js";
import { COMBAT_HIT, type CombatPacket } from "../ts/protocol/combat.js";
import { Logger } from "../ts/server/ops/log.js";
import { openWatch, type OpenedWatch } from "../ts/server/replay-viewer/open-watch.js";
import type { ReplayPlayer } from "../ts/server/replay-viewer/replay-player.js";
import type { ViewerServer } from "../ts/server/replay-viewer/viewer-server.js";
import { DEFAULT_CLIENT_DIR, type RunningServer, startServer } from "../ts/server/server.js";
import { acknowledgeLines, hearLine, lines, post } from "./support/chat-lines.js";
import { type NpcMap, testKind, writeNpcMap } from "./support/npc-map.js";
import { sleep } from "./support/transport-client.js";
import { joinGuest, joinSpectator, UdpTestClient } from "./support/udp-client.js";

const ADMIN_TOKEN = "spectator-hears-token-0123456789abcdef";
const SPAWN = { x: 4, y: 4 };
/** The far end of the map: more than the view's 15 tiles from anything at the spawn. */
const FAR = { x: 44, y: 6 };
const PUBLIC_LINE = "the dummy is tougher than it looks";
const SECRET = "psst the password is swordfish";
const AFTER_SECRET = "anyway, back to work";

const dir = mkdtempSync(join(tmpdir(), "caves-spectator-hears-"));
let map: NpcMap;
let server: RunningServer | null = null;
const clients: UdpTestClient[] = [];
let fighter: UdpTestClient;
let talker: UdpTestClient;
let dummyId = 0;

type Blow = { tick: number; kind: number; attackerId: number; targetId: number; amount: number; targetHp: number };

/** The blows a client was told, with their ticks, in order. */
function blows(client: UdpTestClient): Blow[] {
  return client.received.flatMap(({ packet }) =>
    packet?.type === "combat" ? (packet as CombatPacket).events.map((event) => ({ tick: packet.tick, ...event })) : [],
  );
}

async function signed(joined: Parameters<typeof UdpTestClient.withSession>[0]): Promise<UdpTestClient> {
  const client = (await UdpTestClient.withSession(joined)).sign();
  clients.push(client);
  return client;
}

/** A spectator joined at `at`, bound, its first state seen. */
async function spectatorAt(httpPort: number, at: { x: number; y: number }, adminToken?: string) {
  const joined = await joinSpectator(httpPort, { ...(adminToken === undefined ? {} : { adminToken }), at });
  const spectator = await signed(joined);
  spectator.action(0, 0);
  await spectator.waitFor("the spectator's first state", () => {
    if (spectator.states.length === 0) spectator.action(0, 0);
    return spectator.states.length > 0;
  });
  return spectator;
}

/** The texts of the lines a client was told. */
const texts = (client: UdpTestClient) => lines(client).map((line) => line.text);
/** The texts of the players' lines a client was told (not the system's: joins, leaves). */
const said = (client: UdpTestClient) =>
  lines(client)
    .filter((line) => line.speakerEntityId !== 0)
    .map((line) => line.text);

beforeAll(async () => {
  map = writeNpcMap({
    width: 48,
    height: 12,
    spawn: SPAWN,
    // A creature that never moves and never fights back, with hp to spare: something to hit.
    kinds: [testKind({ name: "dummy", typeId: 16, wander: 0, hp: 500 })],
    spawns: [{ kind: "dummy", x: SPAWN.x + 1, y: SPAWN.y }],
  });
  server = await startServer({
    host: "127.0.0.1",
    httpPort: 0,
    udpPort: 0,
    mapPath: map.path,
    logger: new Logger("silent"),
    adminToken: ADMIN_TOKEN,
    record: { dir: join(dir, "recordings") },
  });
  fighter = await signed(await joinGuest(server.httpPort, "Fighter"));
  await fighter.placed();
  expect(fighter.position()).toEqual(SPAWN);
  talker = await signed(await joinGuest(server.httpPort, "Talker"));
  await talker.placed();
  dummyId = (await fighter.waitFor("the dummy", () => fighter.inView(16)[0])).id;
}, 30_000);

afterAll(async () => {
  for (const client of clients) client.close();
  await server?.close();
  map?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

describe("a spectator of the live world", () => {
  let near: UdpTestClient;
  let far: UdpTestClient;

  it("following a fighter is told its blows as the fighter is; one looking elsewhere is told none", async () => {
    near = await spectatorAt(server!.httpPort, SPAWN, ADMIN_TOKEN);
    far = await spectatorAt(server!.httpPort, FAR, ADMIN_TOKEN);
    near.camera(SPAWN.x, SPAWN.y, fighter.joined.entityId);
    await expect.poll(() => server!.game.spectators.status().following, { timeout: 5000 }).toBe(1);

    // Bumps until three blows have landed, then the last one's packets settle.
    const bumping = setInterval(() => fighter.action(fighter.lastState()!.tick + 4, ACTION_E), 170);
    try {
      await fighter.waitFor(
        "three blows",
        () => blows(fighter).filter((b) => b.kind === COMBAT_HIT).length >= 3,
        15_000,
      );
    } finally {
      clearInterval(bumping);
    }
    const told = blows(fighter);
    await near.waitFor("the blows the fighter was told", () => blows(near).length >= told.length, 5000);
    await sleep(300);

    const seen = blows(near);
    expect(seen).toEqual(blows(fighter));
    for (const blow of seen) expect(blow).toMatchObject({ attackerId: fighter.joined.entityId, targetId: dummyId });
    // The damage numbers a viewer floats are the dummy's hp drops.
    const dealt = seen.filter((b) => b.kind === COMBAT_HIT).reduce((sum, b) => sum + b.amount, 0);
    expect(seen.filter((b) => b.kind === COMBAT_HIT).at(-1)!.targetHp).toBe(500 - dealt);
    // The far camera saw no fight, and was told none.
    expect(blows(far)).toEqual([]);
    expect(server!.game.spectators.status().blowsShown).toBe(seen.length);
  }, 30_000);

  it("hears the public lines, never a private one, and its acknowledgements are taken", async () => {
    post(talker, 1, PUBLIC_LINE);
    for (const spectator of [near, far]) {
      const line = await hearLine(spectator, "the public line", (one) => one.text === PUBLIC_LINE);
      expect(line).toMatchObject({ speakerEntityId: talker.joined.entityId, speakerName: "Talker" });
    }
    // A private line: the fighter hears it; then a public one, which every spectator hears after it.
    post(talker, 2, `/tell Fighter ${SECRET}`);
    await hearLine(fighter, "the private line", (one) => one.text === SECRET);
    post(talker, 3, AFTER_SECRET);
    for (const spectator of [near, far]) {
      await hearLine(spectator, "the line after the secret", (one) => one.text === AFTER_SECRET);
      expect(texts(spectator).some((text) => text.includes("swordfish"))).toBe(false);
      expect(said(spectator)).toEqual([PUBLIC_LINE, AFTER_SECRET]);
    }
    // Each spectator acknowledged what it heard: nothing waits to be sent again.
    for (const spectator of [near, far]) acknowledgeLines(spectator);
    await expect
      .poll(() => [...server!.game.spectators.sessions.values()].map((session) => session.chat.pending), {
        timeout: 5000,
      })
      .toEqual([0, 0]);
  }, 30_000);

  it("hears who joins and leaves near its camera, as a player there would", async () => {
    const latecomer = await signed(await joinGuest(server!.httpPort, "Latecomer"));
    await latecomer.placed();
    await hearLine(near, "the join", (one) => one.text === "Latecomer joined");
    latecomer.leave();
    await hearLine(near, "the leave", (one) => one.text === "Latecomer left");
    expect(texts(near).slice(-2)).toEqual(["Latecomer joined", "Latecomer left"]);
  }, 30_000);
});

describe("a viewer of the recording (replay watch)", () => {
  let watched: OpenedWatch | null = null;
  let player: ReplayPlayer | null = null;
  let viewer: ViewerServer | null = null;
  /** The fighter's blows and ticks, as it was told them live. */
  let liveBlows: Blow[] = [];

  beforeAll(async () => {
    liveBlows = blows(fighter);
    // A second more of the world, so the last datagrams (the latecomer's leave) are in ticks it ran.
    const until = server!.game.tick + 24;
    await fighter.waitFor("a second more", () => server!.game.tick >= until, 5000);
    await server!.close();
    server = null;
    const folder = join(dir, "recordings");
    const recording = join(
      folder,
      readdirSync(folder).find((name) => name.endsWith(".fcrec"))!,
    );
    // Opened as `replay watch` and the console's viewers open one.
    watched = await openWatch(recording, {
      host: "127.0.0.1",
      httpPort: 0,
      clientDir: DEFAULT_CLIENT_DIR,
      speed: 1,
      log: new Logger("silent"),
    });
    player = watched.player;
    viewer = watched.server;
  }, 60_000);

  afterAll(async () => {
    await watched?.close();
  });

  it("following the fighter, is told the blows the fighter was told and hears the public lines only", async () => {
    const control = (body: unknown) =>
      fetch(`http://127.0.0.1:${viewer!.httpPort}/api/replay`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    // From the tick the fighter stood in the world (the blows come later): the camera can follow it there.
    const placedTick = liveBlows[0].tick - 1;
    const seek = await control({ seekTick: placedTick });
    expect(seek.status, await seek.text()).toBe(200);
    await expect.poll(() => player!.state().seeking, { timeout: 30_000 }).toBeNull();
    const watcher = await spectatorAt(viewer!.httpPort, SPAWN);
    watcher.camera(SPAWN.x, SPAWN.y, fighter.joined.entityId);
    await expect.poll(() => player!.world.spectators.status().following, { timeout: 5000 }).toBe(1);
    expect((await control({ play: true, speed: 4 })).status).toBe(200);
    await watcher.waitFor(
      "the replay's end",
      () => {
        acknowledgeLines(watcher);
        return player!.world.tick >= player!.lastTick;
      },
      60_000,
    );
    await sleep(300);
    acknowledgeLines(watcher);

    expect(player!.state().divergence).toBeNull();
    expect(blows(watcher)).toEqual(liveBlows);
    expect(said(watcher)).toEqual([PUBLIC_LINE, AFTER_SECRET]);
    expect(texts(watcher).slice(-2)).toEqual(["Latecomer joined", "Latecomer left"]);
    expect(texts(watcher).some((text) => text.includes("swordfish"))).toBe(false);
  }, 90_000);
});
