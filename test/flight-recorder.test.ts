// The flight recorder (issue 40, docs/recording.md) on the real server and the bundled map, over real UDP
// loopback: two minutes of bots fighting creatures, going down the stairs and talking to the scripted
// creatures, an account's player opening and closing a door, and a guest taking the supply chest's
// contents and putting them back — recorded while the server runs, then replayed through the same code
// and wasm core with every tick's digest equal, an admin's spectator watching all along (no input of the
// world). A change made behind the recorder's back (an entity's rating set by the test, as nondeterministic
// code would) is caught at its tick and named to the entity and field; and the command line says what is
// wrong with a file that is not a whole recording.
import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type GameClient } from "../ts/client/core/index.js";
import { Swarm, type SwarmConfig } from "../ts/bots/swarm.js";
import { AccountStore } from "../ts/server/accounts/account-store.js";
import { hashPassword } from "../ts/server/accounts/password.js";
import { Logger } from "../ts/server/ops/log.js";
import { CharacterStore, NEW_CHARACTER } from "../ts/server/persistence/character-store.js";
import { MEMORY_DATABASE, openGameDatabase } from "../ts/server/persistence/database.js";
import { summarize } from "../ts/server/recording/cut.js";
import { bytesSource } from "../ts/server/recording/format.js";
import { replayRecording } from "../ts/server/replay-world.js";
import { type RunningServer, type ServerOptions, startServer } from "../ts/server/server.js";
import { loadCore } from "../ts/wasm/node.js";
import { drive, joinOverUdp } from "./client-core-support.js";
import { playAccount } from "./support/account-client.js";
import { startServerProcess } from "./support/server-process.js";
import { writeTestMap } from "./support/test-map.js";
import { joinSpectator, UdpTestClient } from "./support/udp-client.js";
import { replayTool } from "./support/replay-tool.js";

const CAVES = fileURLToPath(new URL("../maps/caves.tmj", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "caves-recorder-"));
const SESSION_MS = 120_000;

let server: RunningServer | null = null;
const swarms: Swarm[] = [];
const clients: GameClient[] = [];
const spectators: UdpTestClient[] = [];
const intervals: ReturnType<typeof setInterval>[] = [];
const ADMIN_TOKEN = "flight-recorder-admin-token-0123456789";

function only(folder: string): string {
  const files = readdirSync(folder).filter((name) => name.endsWith(".fcrec"));
  expect(files).toHaveLength(1);
  return join(folder, files[0]);
}

function swarm(behaviour: SwarmConfig["behaviour"], count: number, seed: number): Swarm {
  const bots = new Swarm({
    count,
    http: `http://127.0.0.1:${server!.httpPort}`,
    server: null,
    behaviour,
    goal: null,
    netsim: null,
    seed,
    nickPrefix: behaviour,
    joinParallel: 4,
    updateMs: 20,
    loadCore: () => loadCore(),
  });
  swarms.push(bots);
  return bots;
}

/** The real server on the bundled map, silent, on free ports, recording as `options` say; its game. */
async function recordedServer(options: Partial<ServerOptions>): Promise<RunningServer["game"]> {
  server = await startServer({
    host: "127.0.0.1",
    httpPort: 0,
    udpPort: 0,
    mapPath: CAVES,
    logger: new Logger("silent"),
    ...options,
  });
  return server.game;
}

async function stopAll(): Promise<void> {
  for (const interval of intervals.splice(0)) clearInterval(interval);
  for (const spectator of spectators.splice(0)) spectator.close();
  for (const bots of swarms.splice(0)) bots.stop();
  for (const client of clients.splice(0)) client.close();
  await server?.close();
  server = null;
}

afterAll(async () => {
  await stopAll();
  rmSync(dir, { recursive: true, force: true });
});

describe("the flight recorder", () => {
  let recording = "";

  beforeAll(async () => {
    // An account saved beside the door of the east-west corridor at (66, 50): the recording's snapshot holds it, a login brings it back.
    const database = openGameDatabase(MEMORY_DATABASE);
    const characters = new CharacterStore(database.db);
    new AccountStore(database.db, characters).create(
      "porter",
      "Porter",
      await hashPassword("door-keeper-99"),
      { ...NEW_CHARACTER, map: "Forgotten Caves", x: 65, y: 50 },
      Date.now(),
    );
    await recordedServer({
      database,
      record: { dir: join(dir, "run") },
      checkpointSeconds: 5,
      // An admin's spectator watches the whole run: no input of the world, so the replay is exact all the same.
      adminToken: ADMIN_TOKEN,
    });
  }, 30_000);

  it(
    "records two minutes of bots fighting, delving and talking, a door used and items moved, and replays them bit for bit",
    async () => {
      const startMs = performance.now();
      const bots = [swarm("fight", 5, 40), swarm("delve", 4, 41), swarm("talk", 3, 42)];
      for (const bots_ of bots) bots_.start();
      await Promise.all(bots.map((bots_) => bots_.joinAll()));

      // An admin's spectator follows a fighting bot (its camera among the creatures), then pans the map.
      const spectator = (
        await UdpTestClient.withSession(await joinSpectator(server!.httpPort, { adminToken: ADMIN_TOKEN }))
      ).sign();
      spectators.push(spectator);
      spectator.action(0, 0);
      await spectator.waitFor("the spectator's first state", () => {
        if (spectator.states.length === 0) spectator.action(0, 0);
        return spectator.states.length > 0;
      });
      const fighter = [...server!.game.sessions.values()].find((session) => session.nick.startsWith("fight"))!;
      spectator.camera(0, 0, fighter.entity.id);
      const panning = setInterval(() => {
        // Following for most of the run; a pan across the map now and then, then back to the fighter.
        const second = Math.floor(performance.now() / 1000);
        if (second % 10 === 0) spectator.camera((second * 7) % 120, (second * 13) % 120);
        else spectator.camera(0, 0, fighter.entity.id);
        spectator.action(0, 0);
      }, 500);
      intervals.push(panning);

      // A player opens and closes the north door, twice.
      const porter = await playAccount(server!.httpPort, { kind: "login", name: "porter", password: "door-keeper-99" });
      clients.push(porter);
      const game = server!.game;
      const door = [...game.entities.values()].find((entity) => entity.x === 66 && entity.y === 50)!;
      expect(door.name).toBe("door");
      const uses = () => game.doors.stats.opened + game.doors.stats.closed;
      for (let use = 0; use < 4; use++) {
        // A use a second after the last (sooner is taken for a re-sent query of it: DOOR_REPEAT_TICKS).
        const before = uses();
        const notBefore = game.tick + 30;
        await drive(
          [porter],
          "the door used",
          () => uses() > before || (game.tick >= notBefore && porter.interact(door.id) === null && false),
          8000,
        );
      }

      // A guest takes everything from the supply chest and puts it back.
      const keeper = await joinOverUdp(`http://127.0.0.1:${server!.httpPort}`, "Keeper", clients);
      const chest = game.items.chestNamed("supply chest")!;
      const beside = [-1, 0, 1]
        .flatMap((dy) => [-1, 0, 1].map((dx) => ({ x: chest.x + dx, y: chest.y + dy })))
        .find((tile) => game.world.walkable(tile.x, tile.y) && (tile.x !== chest.x || tile.y !== chest.y))!;
      keeper.setGoal(beside.x, beside.y);
      await drive([keeper], "beside the chest", () => keeper.goal === null && keeper.pending.length === 0, 20_000);
      await drive(
        [keeper],
        "the chest open",
        () => keeper.items.chest !== null || (keeper.interact(chest.id), false),
        8000,
      );
      keeper.takeAll(chest.id);
      await drive(
        [keeper],
        "the chest's things in the bag",
        () => (keeper.items.inventory?.stacks.length ?? 0) > 0,
        8000,
      );
      for (const stack of [...keeper.items.inventory!.stacks]) keeper.put(chest.id, stack.slot);
      await drive([keeper], "the bag empty again", () => keeper.items.inventory!.stacks.length === 0, 8000);

      // The rest of the two minutes: the bots play on.
      const rest = SESSION_MS - (performance.now() - startMs);
      if (rest > 0)
        await drive([porter, keeper], "two minutes", () => performance.now() - startMs >= SESSION_MS, rest + 5000);
      const status = game.status() as {
        combat: { kills: { npcs: number; players: number } };
        levels: { generated: number };
        items: { done: number; lootDropped: number };
        scripts: { events: number } | null;
        recording: { recording: boolean };
      };
      // What the two minutes held, so the replay checks more than walking.
      expect(status.combat.kills.npcs).toBeGreaterThan(0);
      expect(status.levels.generated).toBeGreaterThan(0);
      expect(status.items.done).toBeGreaterThan(1);
      expect(game.doors.stats.opened).toBeGreaterThanOrEqual(2);
      expect(status.recording.recording).toBe(true);
      // The spectator watched throughout, counted apart from the players.
      expect(spectator.entityPackets.length).toBeGreaterThan(100);
      expect(game.spectators.status()).toMatchObject({ count: 1, bound: 1 });
      expect(game.spectators.stats.cameraMoves).toBeGreaterThan(100);
      const ticks = game.tick;
      await stopAll();

      recording = only(join(dir, "run"));
      const result = await replayRecording({ file: recording });
      expect(result.divergence).toBeNull();
      expect(result.ended).toBe("the server stopped");
      expect(result.truncated).toBeNull();
      expect(result.lastTick).toBe(ticks);
      expect(result.checkpoints).toBeGreaterThan(20);
      const inputs = summarize(bytesSource(readFileSync(recording))).inputs;
      expect(inputs.joinGuest).toBeGreaterThanOrEqual(13);
      expect(inputs.joinAccount).toBe(1);
      expect(inputs.datagram).toBeGreaterThan(5000);
    },
    SESSION_MS + 90_000,
  );

  it("says exact from the command line, and cuts the minutes around a moment into a file that replays alone", async () => {
    expect(recording).not.toBe("");
    const verified = await replayTool("verify", recording);
    expect(verified.out).toMatch(/exact: every tick's digest matches/);
    expect(verified.code).toBe(0);
    const cut = join(dir, "cut.fcrec");
    const made = await replayTool(
      "cut",
      recording,
      "--at-tick",
      "1200",
      "--before",
      "10",
      "--after",
      "5",
      "--out",
      cut,
    );
    expect(made.code).toBe(0);
    const info = await replayTool("info", cut);
    expect(info.out).toMatch(/window +ticks 960–1320/);
    const replayed = await replayRecording({ file: cut });
    expect(replayed.divergence).toBeNull();
    expect(replayed.lastTick).toBe(1320);
  }, 120_000);

  it("names a file that is not a whole recording, and never replays it as right", async () => {
    const bytes = readFileSync(recording);
    const cases: [string, Uint8Array, RegExp][] = [
      [
        "foreign.fcrec",
        new TextEncoder().encode("a text file, not a recording at all"),
        /not a recording of this game/,
      ],
      ["cut-short.fcrec", bytes.subarray(0, 2000), /ends before its snapshot is whole/],
      [
        "other-format.fcrec",
        Uint8Array.from(bytes.subarray(0, 64), (byte, index) => (index === 8 ? 9 : byte)),
        /format 9/,
      ],
    ];
    // A byte flipped inside the third block: its checksum no longer matches.
    const corrupt = Uint8Array.from(bytes);
    corrupt[Math.floor(bytes.length / 2)] ^= 0xff;
    cases.push(["corrupt.fcrec", corrupt, /corrupt recording/]);
    for (const [name, content, message] of cases) {
      const path = join(dir, name);
      writeFileSync(path, content);
      const result = await replayTool("verify", path);
      expect(result.out, name).toMatch(message);
      expect(result.code, name).toBe(2);
    }
    // A recording replayed against another map.
    const map = writeTestMap();
    try {
      const other = await replayTool("verify", recording, "--map", map.path);
      expect(other.code).toBe(2);
      expect(other.out).toMatch(/is not the one recorded/);
    } finally {
      map.dispose();
    }
  }, 120_000);

  it("stops recording at its size limit, loudly, while the world plays on; what was written still verifies", async () => {
    await stopAll(); // the first test's server, when that test did not get to stop it
    const game = await recordedServer({ record: { dir: join(dir, "limited"), limits: { maxBytes: 40_000 } } });
    const bots = swarm("wander", 3, 44);
    bots.start();
    await bots.joinAll();
    const recording = () =>
      (game.status() as { recording: { stopped: string | null; bytesWritten: number } }).recording;
    await drive([], "the size limit", () => recording().stopped !== null, 60_000);
    expect(recording().stopped).toMatch(/size limit \(40000 bytes; --record-max-mb\)/);
    expect(recording().bytesWritten).toBeLessThanOrEqual(40_000);
    const stoppedAt = game.tick;
    await drive([], "the world playing on", () => game.tick >= stoppedAt + 48, 10_000);
    expect(bots.figures()).toMatchObject({ joined: 3 });
    await stopAll();
    const result = await replayRecording({ file: only(join(dir, "limited")) });
    expect(result.divergence).toBeNull();
    expect(result.ended).toBeNull();
    expect(result.lastTick).toBeGreaterThan(24);
    expect(result.lastTick).toBeLessThanOrEqual(stoppedAt);
  }, 90_000);

  it("loses at most the second being written when the server is killed, and verifies what it kept", async () => {
    await stopAll();
    const folder = join(dir, "killed");
    const children: ChildProcess[] = [];
    try {
      const killed = await startServerProcess(join(dir, "killed.sqlite"), CAVES, children, ["--record", folder]);
      const bots = new Swarm({
        count: 3,
        http: `http://127.0.0.1:${killed.httpPort}`,
        server: null,
        behaviour: "fight",
        goal: null,
        netsim: null,
        seed: 45,
        nickPrefix: "killed",
        joinParallel: 3,
        updateMs: 20,
        loadCore: () => loadCore(),
      });
      swarms.push(bots);
      bots.start();
      await bots.joinAll();
      type Status = { tick: number; recording: { pendingBytes: number } };
      const status = async () =>
        (await (await fetch(`http://127.0.0.1:${killed.httpPort}/api/status`)).json()) as Status;
      // Killed at a moment every sealed block is on disk (pendingBytes 0), after at least five seconds.
      let before = await status();
      while (before.tick < 120 || before.recording.pendingBytes > 0) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        before = await status();
      }
      killed.child.kill("SIGKILL");
      await once(killed.child, "exit");
      bots.stop();
      const result = await replayRecording({ file: only(folder) });
      expect(result.divergence).toBeNull();
      expect(result.ended).toBeNull();
      // Blocks are sealed at each second's last tick: with every sealed block on disk, what the kill took is
      // the second being recorded (and what the milliseconds until the kill added).
      expect(result.lastTick).toBeGreaterThanOrEqual(before.tick - 23);
      const verified = await replayTool("verify", only(folder));
      expect(verified.code).toBe(0);
      expect(verified.out).toMatch(/no end record|ends early/);
    } finally {
      for (const child of children) child.kill("SIGKILL");
    }
  }, 60_000);

  it("catches a change the recording never saw, at its tick, and names the entity and field", async () => {
    await stopAll(); // the first test's server, when that test did not get to stop it
    const game = await recordedServer({ record: { dir: join(dir, "tampered") }, checkpointSeconds: 1 });
    const bots = swarm("fight", 3, 43);
    bots.start();
    await bots.joinAll();
    await drive([], "three seconds", () => game.tick >= 72, 10_000);
    // What nondeterministic code would do: the world changed by something that is not an input.
    // Old Tom: nobody fights him, so what is changed stays changed until the next checkpoint names it.
    const creature = [...game.entities.values()].find((entity) => entity.name === "Old Tom")!;
    const tamperedAt = game.tick;
    creature.elo += 7;
    game.entities.changed(creature);
    await drive([], "two seconds more", () => game.tick >= tamperedAt + 48, 10_000);
    await stopAll();
    const result = await replayRecording({ file: only(join(dir, "tampered")) });
    expect(result.divergence).not.toBeNull();
    expect(result.divergence!.tick).toBe(tamperedAt + 1);
    expect(result.divergence!.what).toContain("entities");
    expect(result.divergence!.details.join("\n")).toMatch(
      new RegExp(`entity ${creature.id} .*: elo recorded \\d+, replayed \\d+`),
    );
    const verified = await replayTool("verify", only(join(dir, "tampered")));
    expect(verified.code).toBe(1);
    expect(verified.out).toMatch(/DIVERGED at tick \d+: entities/);
  }, 60_000);
});
