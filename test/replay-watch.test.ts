// Watching a recording (`replay watch`, docs/recording.md § Watch): a real server records a player
// walking on real UDP; the recording is replayed by the watch server (the same ReplayRun `verify` runs)
// and a spectator joined over real UDP follows the walker. It sees the walker at the tiles the verified
// replay has it at those ticks; a pause stops the ticks; a seek backwards (the world made again) and
// forwards lands on the asked tick with the digest verify computes there; a seek outside the recording is
// refused; the speed changes the rate. The command line refuses a file that is not a whole recording
// with verify's words and exit 2, serving nothing, and serves a good one at the URL it prints.
import { execFile, execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACTION_E, ACTION_W } from "../ts/protocol/action.js";
import { summarize } from "../ts/server/recording/cut.js";
import { bytesSource } from "../ts/server/recording/format.js";
import { Logger } from "../ts/server/ops/log.js";
import type { ReplayState } from "../ts/replay-control.js";
import { ReplayPlayer } from "../ts/server/replay-viewer/replay-player.js";
import { serveReplay, type ViewerServer } from "../ts/server/replay-viewer/viewer-server.js";
import { replayRecording } from "../ts/server/replay-world.js";
import { DEFAULT_CLIENT_DIR, startServer } from "../ts/server/server.js";
import { writeTestMap } from "./support/test-map.js";
import { sleep } from "./support/transport-client.js";
import { joinGuest, joinSpectator, UdpTestClient } from "./support/udp-client.js";
import { walkSteps } from "./support/walk.js";

const run = promisify(execFile);
const TSX = fileURLToPath(new URL("../node_modules/.bin/tsx", import.meta.url));
const REPLAY_TOOL = fileURLToPath(new URL("../ts/tools/replay.ts", import.meta.url));

const dir = mkdtempSync(join(tmpdir(), "caves-replay-watch-"));
const map = writeTestMap();
const clients: UdpTestClient[] = [];
let recording = "";
let walkerId = 0;
/** What verify's replay has at every tick: the walker's tile (when it is in the world) and the digest. */
const reference = new Map<number, { at: { x: number; y: number } | null; digest: number[] }>();
let player: ReplayPlayer | null = null;
let viewer: ViewerServer | null = null;

beforeAll(async () => {
  const server = await startServer({
    host: "127.0.0.1",
    httpPort: 0,
    udpPort: 0,
    mapPath: map.path,
    logger: new Logger("silent"),
    record: { dir: join(dir, "recordings") },
  });
  try {
    const joined = await joinGuest(server.httpPort, "Walker");
    const walker = (await UdpTestClient.withSession(joined)).sign();
    clients.push(walker);
    await walker.placed();
    walkerId = joined.entityId;
    await walkSteps(walker, [ACTION_E, ACTION_E, ACTION_E, ACTION_E, ACTION_W, ACTION_W, ACTION_W, ACTION_W]);
    // Seconds of the world standing on, to seek about in.
    const until = server.game.tick + 72;
    await walker.waitFor("three seconds more", () => server.game.tick >= until, 10_000);
  } finally {
    await server.close();
  }
  const folder = join(dir, "recordings");
  recording = join(
    folder,
    readdirSync(folder).find((name) => name.endsWith(".fcrec"))!,
  );
  const verified = await replayRecording({
    file: recording,
    onTick: (game) => {
      const entity = game.entities.get(walkerId);
      reference.set(game.tick, {
        at: entity === undefined ? null : { x: entity.x, y: entity.y },
        digest: [...game.digest()],
      });
    },
  });
  expect(verified.divergence).toBeNull();
  const { lastTick } = summarize(bytesSource(readFileSync(recording)));
  player = await ReplayPlayer.open({ file: recording, lastTick, log: new Logger("silent") });
  viewer = await serveReplay(player, {
    host: "127.0.0.1",
    httpPort: 0,
    udpPort: 0,
    clientDir: DEFAULT_CLIENT_DIR,
    log: new Logger("silent"),
  });
}, 60_000);

afterAll(async () => {
  for (const client of clients) client.close();
  await viewer?.close();
  await player?.close();
  map.dispose();
  rmSync(dir, { recursive: true, force: true });
});

const url = (path: string) => `http://127.0.0.1:${viewer!.httpPort}${path}`;

async function state(): Promise<ReplayState> {
  return (await (await fetch(url("/api/replay"))).json()) as ReplayState;
}

async function control(body: unknown): Promise<{ status: number; body: ReplayState & { error?: string } }> {
  const response = await fetch(url("/api/replay"), {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as ReplayState & { error?: string } };
}

/** Seeks and waits until the seek has landed. */
async function seek(tick: number): Promise<ReplayState> {
  const asked = await control({ seekTick: tick });
  expect(asked.status).toBe(200);
  await expect.poll(async () => (await state()).seeking, { timeout: 30_000 }).toBeNull();
  return state();
}

/** The ticks (in order) the walker was in the world, per verify's replay. */
function walkerTicks(): number[] {
  return [...reference.entries()].filter(([, tick]) => tick.at !== null).map(([tick]) => tick);
}

/** A spectator of the replay over real UDP, bound (its first keep-alive proven). */
async function spectator(): Promise<UdpTestClient> {
  const joined = await joinSpectator(viewer!.httpPort);
  const client = (await UdpTestClient.withSession(joined)).sign();
  clients.push(client);
  return client;
}

describe("replay watch", () => {
  it("shows a spectator following the walker at the tiles the recording's world has it at", async () => {
    const ticks = walkerTicks();
    expect(ticks.length).toBeGreaterThan(48);
    const initial = await state();
    expect(initial).toMatchObject({ playing: false, speed: 1, tick: initial.firstTick - 1, divergence: null });
    // Where the walker is in the world: the player list names it there.
    const landed = await seek(ticks[0]);
    expect(landed.tick).toBe(ticks[0]);
    expect(landed.players).toEqual([{ entityId: walkerId, nick: "Walker", ...reference.get(ticks[0])!.at! }]);

    const watcher = await spectator();
    watcher.action(0, 0);
    watcher.camera(0, 0, walkerId);
    await expect.poll(() => player!.world.spectators.status().following, { timeout: 5000 }).toBe(1);
    expect((await control({ play: true, speed: 2 })).body).toMatchObject({ playing: true, speed: 2 });
    await watcher.waitFor("the replay's end", () => player!.world.tick >= ticks[ticks.length - 1], 30_000);
    await control({ play: false });

    // Every entity update the spectator had names the walker where verify's replay had it at that tick.
    const seen = watcher.entityPackets.flatMap((packet) =>
      packet.entities.filter((entity) => entity.id === walkerId).map((entity) => ({ tick: packet.tick, entity })),
    );
    expect(seen.length).toBeGreaterThanOrEqual(5);
    for (const { tick, entity } of seen) {
      expect({ tick, x: entity.x, y: entity.y }).toEqual({ tick, ...reference.get(tick)!.at! });
    }
    // It walked, and the spectator saw it walk.
    expect(new Set(seen.map(({ entity }) => `${entity.x},${entity.y}`)).size).toBeGreaterThan(2);
  }, 60_000);

  it("pauses: the ticks stop", async () => {
    await seek(walkerTicks()[0]);
    await control({ play: true, speed: 1 });
    await expect.poll(async () => (await state()).tick, { timeout: 5000 }).toBeGreaterThan(walkerTicks()[0] + 2);
    const paused = await control({ play: false });
    expect(paused.body.playing).toBe(false);
    const at = player!.world.tick;
    await sleep(500);
    expect(player!.world.tick).toBe(at);
    expect((await state()).tick).toBe(at);
    // A viewer who joins the paused replay is shown where it stands (once: the tick does not move).
    const late = await spectator();
    late.action(0, 0);
    await late.waitFor("the paused tick shown", () => late.lastState()?.tick === at, 5000);
    await sleep(300);
    expect(new Set(late.states.map((one) => one.tick))).toEqual(new Set([at]));
  });

  it("seeks backwards and forwards to the asked tick, with the digest verify computes there", async () => {
    const ticks = walkerTicks();
    const late = ticks[ticks.length - 10];
    const early = ticks[5];
    const before = await seek(late);
    expect(before.tick).toBe(late);
    expect([...player!.world.digest()]).toEqual(reference.get(late)!.digest);

    // Backwards: the world is made again from the snapshot (a new epoch) and run to the tick.
    const back = await seek(early);
    expect(back.tick).toBe(early);
    expect(back.epoch).toBe(before.epoch + 1);
    expect([...player!.world.digest()]).toEqual(reference.get(early)!.digest);
    expect(back.players[0]).toMatchObject({ entityId: walkerId, ...reference.get(early)!.at! });
    expect(player!.world.spectators.status().count).toBe(0); // the old world's viewers ended with it

    // A page coming back to the world made again asks to follow whom it followed: its camera starts on them.
    const rejoin = async (body: unknown) =>
      fetch(url("/api/spectate"), {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const rejoined = (await (await rejoin({ x: 1, y: 1, follow: walkerId })).json()) as {
      camera: { x: number; y: number };
    };
    expect(rejoined.camera).toEqual(reference.get(early)!.at);
    expect(player!.world.spectators.status().following).toBe(1);
    expect((await rejoin({ follow: "Walker" })).status).toBe(400);

    // Forwards: the same world, run on.
    const forward = await seek(early + 30);
    expect(forward.tick).toBe(early + 30);
    expect(forward.epoch).toBe(back.epoch);
    expect([...player!.world.digest()]).toEqual(reference.get(early + 30)!.digest);

    // By time: seconds after the recording's start.
    const second = await control({ seekSeconds: 2 });
    expect(second.status).toBe(200);
    await expect.poll(async () => (await state()).seeking, { timeout: 30_000 }).toBeNull();
    expect((await state()).tick).toBe(second.body.firstTick - 1 + 2 * second.body.tickHz);
  }, 60_000);

  it("refuses a seek outside the recording, a bad speed and a bad body, changing nothing", async () => {
    const now = await state();
    const outside = await control({ seekTick: now.lastTick + 1 });
    expect(outside.status).toBe(400);
    expect(outside.body.error).toMatch(
      new RegExp(`outside the recording: it holds ticks ${now.firstTick - 1}–${now.lastTick}`),
    );
    expect((await control({ seekSeconds: -5 })).status).toBe(400);
    const fast = await control({ speed: 100 });
    expect(fast.status).toBe(400);
    expect(fast.body.error).toMatch(/between 0.25 and 8/);
    expect((await control({ play: "yes" })).status).toBe(400);
    expect((await control({ rewind: true })).body.error).toMatch(/unknown field "rewind"/);
    expect(await state()).toMatchObject({ tick: now.tick, speed: now.speed, playing: false, epoch: now.epoch });
  });

  it("plays faster at a higher speed", async () => {
    // Rates compared with each other, never with a bound: ×8 runs several times the ticks ×0.5 does.
    const ticksIn = async (speed: number) => {
      await seek(walkerTicks()[0]);
      await control({ play: true, speed });
      const from = player!.world.tick;
      await sleep(1000);
      await control({ play: false });
      return player!.world.tick - from;
    };
    const slow = await ticksIn(0.5);
    const fast = await ticksIn(8);
    expect(slow).toBeGreaterThan(0);
    expect(fast).toBeGreaterThan(3 * slow);
  }, 30_000);
});

describe("replay watch of a recording the replay leaves", () => {
  it("shows the divergence to the viewers and tells it once, at the tick verify names", async () => {
    const folder = join(dir, "tampered");
    const server = await startServer({
      host: "127.0.0.1",
      httpPort: 0,
      udpPort: 0,
      mapPath: map.path,
      logger: new Logger("silent"),
      record: { dir: folder },
    });
    let tamperedAt = 0;
    try {
      const joined = await joinGuest(server.httpPort, "Tampered");
      const walker = (await UdpTestClient.withSession(joined)).sign();
      clients.push(walker);
      await walker.placed();
      // What nondeterministic code would do: the world changed by something that is not an input.
      const entity = server.game.entities.get(joined.entityId)!;
      tamperedAt = server.game.tick;
      entity.elo += 7;
      server.game.entities.changed(entity);
      const until = server.game.tick + 24;
      await walker.waitFor("a second more", () => server.game.tick >= until, 10_000);
    } finally {
      await server.close();
    }
    const file = join(
      folder,
      readdirSync(folder).find((name) => name.endsWith(".fcrec"))!,
    );
    const told: number[] = [];
    const tampered = await ReplayPlayer.open({
      file,
      lastTick: summarize(bytesSource(readFileSync(file))).lastTick,
      log: new Logger("silent"),
      onDivergence: (divergence) => told.push(divergence.tick),
    });
    try {
      tampered.setSpeed(8);
      tampered.play();
      await expect.poll(() => tampered.state().divergence, { timeout: 20_000 }).not.toBeNull();
      expect(tampered.state().divergence).toMatchObject({ tick: tamperedAt + 1, what: ["entities"] });
      await expect.poll(() => tampered.state().playing, { timeout: 20_000 }).toBe(false);
      expect(told).toEqual([tamperedAt + 1]);
    } finally {
      await tampered.close();
    }
  }, 120_000);
});

describe("replay watch on the command line", () => {
  async function watchTool(...args: string[]): Promise<{ code: number; out: string }> {
    try {
      const { stdout, stderr } = await run(TSX, [REPLAY_TOOL, "watch", ...args], { timeout: 60_000 });
      return { code: 0, out: stdout + stderr };
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string };
      return { code: failed.code, out: failed.stdout + failed.stderr };
    }
  }

  it("refuses a missing, foreign, corrupt or other map's recording with exit 2, serving nothing", async () => {
    const bytes = readFileSync(recording);
    const corrupt = Uint8Array.from(bytes);
    corrupt[bytes.length - 40] ^= 0xff;
    writeFileSync(join(dir, "foreign.fcrec"), "a text file, not a recording at all");
    writeFileSync(join(dir, "corrupt.fcrec"), corrupt);
    writeFileSync(join(dir, "short.fcrec"), bytes.subarray(0, 200));
    const other = fileURLToPath(new URL("../maps/caves.tmj", import.meta.url));
    const cases: [string[], RegExp][] = [
      [[join(dir, "missing.fcrec")], /no such recording/],
      [[join(dir, "foreign.fcrec")], /not a recording of this game/],
      [[join(dir, "corrupt.fcrec")], /corrupt recording/],
      [[join(dir, "short.fcrec")], /ends before its snapshot is whole|cut short|truncated/],
      [[recording, "--map", other], /is not the one recorded/],
      [[recording, "--speed", "20"], /--speed must be a number from 0.25 to 8/],
    ];
    for (const [args, message] of cases) {
      const result = await watchTool(...args);
      expect(result.out, args.join(" ")).toMatch(message);
      expect(result.out).not.toMatch(/open http/);
      expect(result.code, args.join(" ")).toBe(2);
    }
  }, 120_000);

  it("serves a good recording at the URL it prints, until stopped", async () => {
    // The page it serves is the built client, which `npm run replay` builds first when it is missing, as
    // `npm test` does before any test runs: built here the same way when this file runs alone.
    execFileSync(
      process.execPath,
      [fileURLToPath(new URL("../scripts/build-client.mjs", import.meta.url)), "--if-missing"],
      {
        stdio: "ignore",
      },
    );
    const child = spawn(TSX, [REPLAY_TOOL, "watch", recording, "--port", "0"], { stdio: ["ignore", "pipe", "pipe"] });
    try {
      let out = "";
      child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
      await expect
        .poll(() => out, { timeout: 30_000, interval: 100 })
        .toMatch(/open http:\/\/127\.0\.0\.1:\d+\/\?replay/);
      const address = /open (http:\/\/127\.0\.0\.1:\d+)\//.exec(out)![1];
      const answered = (await (await fetch(`${address}/api/replay`)).json()) as ReplayState;
      expect(answered).toMatchObject({ playing: false, tick: answered.firstTick - 1, divergence: null });
      const page = await fetch(`${address}/?replay`);
      expect(page.status).toBe(200);
      expect(await page.text()).toMatch(/<canvas/);
      child.kill("SIGTERM");
      const [code] = (await once(child, "exit")) as [number | null];
      expect(code).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
    }
  }, 120_000);
});
