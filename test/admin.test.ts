// The operators' interface (issue 17 item 10), against a real server on real
// sockets and a real SQLite file: the admin API exists only with a token and
// answers only to it; kick, ban (account, address, timed, persisted across a
// restart), mute and announce do what they say; every action is in the admin
// log; the command-line client drives it with the exit codes it promises.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, afterEach, describe, expect, it, onTestFinished } from "vitest";
import { encodePacketToBytes } from "../ts/protocol/packet.js";
import { checkAdminToken } from "../ts/server/http/admin-routes.js";
import { Logger } from "../ts/server/ops/log.js";
import { openGameDatabase } from "../ts/server/persistence/database.js";
import { type RunningServer, startServer } from "../ts/server/server.js";
import { postJson } from "./support/game-harness.js";
import { writeTestMap } from "./support/test-map.js";
import { type Joined, UdpTestClient } from "./support/udp-client.js";

const TOKEN = "a-long-operator-token-0123456789abcdef";
const map = writeTestMap();
const dir = mkdtempSync(join(tmpdir(), "caves-admin-"));
let server: RunningServer | undefined;
const clients: UdpTestClient[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  await server?.close();
  server = undefined;
});
afterAll(() => {
  map.dispose();
  rmSync(dir, { recursive: true, force: true });
});

async function start(options: { adminToken?: string; dbPath?: string } = {}): Promise<RunningServer> {
  server = await startServer({
    host: "127.0.0.1",
    httpPort: 0,
    udpPort: 0,
    mapPath: map.path,
    logger: new Logger("silent"),
    adminToken: options.adminToken,
    database: options.dbPath === undefined ? undefined : openGameDatabase(options.dbPath),
  });
  return server;
}

async function admin(
  method: "GET" | "POST",
  path: string,
  body?: Record<string, unknown>,
  token = TOKEN,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`http://127.0.0.1:${server!.httpPort}/api/admin/${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function play(joined: Joined): Promise<UdpTestClient> {
  const client = await UdpTestClient.withSession(joined);
  clients.push(client);
  client.action(0, 0);
  await client.waitFor("own position", () => client.position(), 5000);
  return client;
}

async function guest(nick: string): Promise<UdpTestClient> {
  return play((await postJson(server!.httpPort, "/api/guest", { nick })).body as unknown as Joined);
}

function chatLines(client: UdpTestClient): { speakerName: string; text: string }[] {
  return client.received.flatMap((r) =>
    r.packet?.type === "chat" ? [{ speakerName: r.packet.speakerName, text: r.packet.text }] : [],
  );
}

describe("the admin API", () => {
  it("does not exist without a token; with one it answers only a bearer of it, and logs every refusal", async () => {
    await start();
    expect((await admin("GET", "players")).status).toBe(404);
    await server!.close();
    await start({ adminToken: TOKEN, dbPath: join(dir, "auth.sqlite") });
    expect((await admin("GET", "players", undefined, "wrong-token-wrong-token-wrong-token")).status).toBe(401);
    const bare = await fetch(`http://127.0.0.1:${server!.httpPort}/api/admin/players`);
    expect(bare.status).toBe(401);
    expect(bare.headers.get("www-authenticate")).toMatch(/Bearer/);
    expect((await admin("GET", "players")).status).toBe(200);
    const log = (await admin("GET", "log?limit=10")).body.entries as { action: string }[];
    expect(log.filter((entry) => entry.action === "players refused")).toHaveLength(2);
    expect(() => checkAdminToken("short")).toThrow(/at least 32 characters/);
  });

  it("lists players; kick ends a session; announce reaches everyone as the server", async () => {
    await start({ adminToken: TOKEN });
    const ada = await guest("Ada");
    const bo = await guest("Bo");
    const players = (await admin("GET", "players")).body.players as { nick: string; address: string }[];
    expect(players.map((p) => p.nick).sort()).toEqual(["Ada", "Bo"]);
    expect(players[0].address).toBe("127.0.0.1");
    // Each with its level and experience (issue 39): newcomers, level 1.
    expect(players[0]).toMatchObject({ level: 1, xp: 0 });
    const announced = await admin("POST", "announce", { text: "Restart in 5 minutes." });
    expect(announced.status).toBe(200);
    for (const client of [ada, bo]) {
      await client.waitFor("the announcement", () =>
        chatLines(client).some((line) => line.speakerName === "server" && line.text === "Restart in 5 minutes."),
      );
    }
    expect((await admin("POST", "kick", { nick: "bo", reason: "testing" })).status).toBe(200);
    expect(server!.game.sessions.size).toBe(1);
    expect((await admin("POST", "kick", { nick: "Nobody" })).status).toBe(404);
    expect((await admin("POST", "kick", {})).status).toBe(400);
  });

  it("bans an account (timed: it ends by itself) and an address, kicking who it covers; unban lifts it", async () => {
    await start({ adminToken: TOKEN, dbPath: join(dir, "bans.sqlite") });
    const registered = await postJson(server!.httpPort, "/api/register", {
      name: "Mallory",
      password: "mallory-password",
      nick: "Mal",
    });
    await play(registered.body as unknown as Joined);
    const banned = await admin("POST", "ban", { nick: "Mal", minutes: 0.02, reason: "griefing" });
    expect(banned.status).toBe(200);
    expect(banned.body).toMatchObject({ account: "Mallory", kicked: ["Mal"] });
    expect(server!.game.sessions.size).toBe(0);
    const refused = await postJson(server!.httpPort, "/api/login", { name: "Mallory", password: "mallory-password" });
    expect(refused.status).toBe(403);
    expect(String(refused.body.error)).toMatch(/banned until .*: griefing/);
    await new Promise((resolve) => setTimeout(resolve, 1300));
    const after = await postJson(server!.httpPort, "/api/login", { name: "Mallory", password: "mallory-password" });
    expect(after.status).toBe(200);
    await play(after.body as unknown as Joined);

    // An address: every way in from it is refused, with the reason.
    expect((await admin("POST", "ban", { address: "127.0.0.1", reason: "flooding" })).body).toMatchObject({
      address: "127.0.0.1",
      kicked: ["Mal"],
    });
    const guestRefused = await postJson(server!.httpPort, "/api/guest", { nick: "Eve" });
    expect(guestRefused.status).toBe(403);
    expect(String(guestRefused.body.error)).toMatch(/this address is banned: flooding/);
    expect(((await admin("GET", "bans")).body.addresses as unknown[]).length).toBe(1);
    expect((await admin("POST", "unban", { address: "127.0.0.1" })).body).toMatchObject({ lifted: true });
    expect((await postJson(server!.httpPort, "/api/guest", { nick: "Eve" })).status).toBe(200);
    expect((await admin("POST", "ban", { account: "Nobody", reason: "x" })).status).toBe(404);
    expect((await admin("POST", "ban", { address: "not an address", reason: "x" })).status).toBe(400);
    expect((await admin("POST", "ban", { nick: "Eve", minutes: -1, reason: "x" })).status).toBe(400);
  });

  it("a ban survives a restart, and so does the log of it", async () => {
    const dbPath = join(dir, "restart.sqlite");
    await start({ adminToken: TOKEN, dbPath });
    await postJson(server!.httpPort, "/api/register", { name: "Trent", password: "trent-password", nick: "Trent" });
    expect((await admin("POST", "ban", { account: "Trent", reason: "cheating" })).status).toBe(200);
    await server!.close();
    await start({ adminToken: TOKEN, dbPath });
    const login = await postJson(server!.httpPort, "/api/login", { name: "Trent", password: "trent-password" });
    expect(login.status).toBe(403);
    expect(String(login.body.error)).toBe("account banned: cheating");
    const log = (await admin("GET", "log")).body.entries as { action: string; detail: { request: unknown } }[];
    expect(log.find((entry) => entry.action === "ban")?.detail.request).toMatchObject({ reason: "cheating" });
  });

  it("mute refuses a player's chat lines (nobody hears them) until unmuted", async () => {
    await start({ adminToken: TOKEN });
    const loud = await guest("Loud");
    const ear = await guest("Ear");
    const say = (seq: number, text: string) =>
      loud.sendRaw(encodePacketToBytes({ type: "chat_post", clientType: 0, authToken: loud.token, seq, text }));
    expect((await admin("POST", "mute", { nick: "Loud", reason: "spam" })).status).toBe(200);
    await loud.waitFor("told of the mute", () => chatLines(loud).some((line) => line.text === "You are muted: spam"));
    say(1, "buy gold");
    await loud.waitFor("the refusal", () =>
      loud.received.some((r) => r.packet?.type === "chat_post_ack" && r.packet.seq === 1 && r.packet.status === 2),
    );
    expect((await admin("GET", "players")).body.players).toEqual(
      expect.arrayContaining([expect.objectContaining({ nick: "Loud", muted: true })]),
    );
    expect((await admin("POST", "unmute", { nick: "Loud" })).status).toBe(200);
    say(2, "sorry");
    await ear.waitFor("the line after unmute", () => chatLines(ear).some((line) => line.text === "sorry"));
    expect(chatLines(ear).some((line) => line.text === "buy gold")).toBe(false);
    expect(server!.game.chat.stats.muted).toBe(1);
  });

  it("message tells one player; teleport puts a player on a free tile or the nearest spawn point, and refuses others", async () => {
    await start({ adminToken: TOKEN });
    const lost = await guest("Lost");
    const other = await guest("Other");
    const entityId = [...server!.game.sessions.values()].find((session) => session.nick === "Lost")!.entity.id;
    expect((await admin("POST", "message", { entityId, text: "Please stop." })).body).toMatchObject({
      action: "message",
      nick: "Lost",
    });
    await lost.waitFor("the message", () =>
      chatLines(lost).some((line) => line.speakerName === "server" && line.text === "Please stop."),
    );
    expect(chatLines(other).some((line) => line.text === "Please stop.")).toBe(false);
    expect((await admin("POST", "message", { entityId })).status).toBe(400);

    const world = server!.game.world;
    const entity = server!.game.entities.get(entityId)!;
    // A free tile that is not a spawn point, and a wall: found by the movement rule's own data.
    const free: { x: number; y: number }[] = [];
    let wall: { x: number; y: number } | undefined;
    for (let y = 0; y < world.mapHeight; y++) {
      for (let x = 0; x < world.mapWidth; x++) {
        if (world.walkable(x, y)) free.push({ x, y });
        else wall ??= { x, y };
      }
    }
    const away = free.find((tile) => !world.spawns.some((spawn) => spawn.x === tile.x && spawn.y === tile.y))!;
    const moved = await admin("POST", "teleport", { entityId, x: away.x, y: away.y });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ to: away, safeSpot: false });
    expect({ x: entity.x, y: entity.y }).toEqual(away);
    await lost.waitFor("its new place", () => {
      const at = lost.position();
      return at !== undefined && at.x === away.x && at.y === away.y;
    });
    await lost.waitFor("told where", () =>
      chatLines(lost).some((line) => line.text === `An operator moved you to (${away.x}, ${away.y}).`),
    );
    // No tile: the nearest spawn point.
    const nearest = [...world.spawns].sort(
      (a, b) => (a.x - away.x) ** 2 + (a.y - away.y) ** 2 - ((b.x - away.x) ** 2 + (b.y - away.y) ** 2),
    )[0];
    expect((await admin("POST", "teleport", { nick: "Lost" })).body).toMatchObject({
      from: away,
      to: { x: nearest.x, y: nearest.y },
      safeSpot: true,
    });
    expect({ x: entity.x, y: entity.y }).toEqual({ x: nearest.x, y: nearest.y });
    // Refused, and the player stays: a wall, off the map, half a tile, a player who is not there.
    for (const [body, status, why] of [
      [{ entityId, ...wall }, 400, /not a free tile/],
      [{ entityId, x: world.mapWidth, y: 0 }, 400, /not a tile of the map/],
      [{ entityId, x: 1.5, y: 2 }, 400, /not a tile of the map/],
      [{ entityId, x: 3 }, 400, /both "x" and "y"/],
      [{ entityId: 999_999, x: away.x, y: away.y }, 404, /no player with entity id 999999/],
    ] as const) {
      const refused = await admin("POST", "teleport", body);
      expect(refused.status, JSON.stringify(body)).toBe(status);
      expect(String(refused.body.error)).toMatch(why);
    }
    expect({ x: entity.x, y: entity.y }).toEqual({ x: nearest.x, y: nearest.y });
    const log = (await admin("GET", "log?limit=20")).body.entries as { action: string }[];
    expect(log.filter((entry) => entry.action === "teleport")).toHaveLength(2);
    expect(log.filter((entry) => entry.action === "teleport refused")).toHaveLength(5);
    expect(log.filter((entry) => entry.action === "message")).toHaveLength(1);
  });

  it("a keyed player's inbound loss: the numbered ActionPackets that never came; a spec-only client's: not measured", async () => {
    await start({ adminToken: TOKEN });
    const lossy = await UdpTestClient.withSession(
      (await postJson(server!.httpPort, "/api/guest", { nick: "Lossy" })).body as unknown as Joined,
    );
    clients.push(lossy);
    lossy.sign();
    lossy.action(0, 0);
    await lossy.waitFor("own position", () => lossy.position(), 5000);
    await guest("Plain");
    let skipped = 0;
    let lastSequence = 0;
    lossy.skipSequence = (sequence) => {
      lastSequence = sequence;
      if (sequence % 4 !== 0) return false;
      skipped++;
      return true;
    };
    // 100 keep-alives, 20 each 400 ms: within the session's rate limit (60 a second), so none is refused.
    for (let batch = 0; batch < 5; batch++) {
      for (let i = 0; i < 20; i++) lossy.action(0, 0);
      await new Promise((resolve) => setTimeout(resolve, 400));
    }
    lossy.skipSequence = null;
    lossy.action(0, 0); // the newest, lastSequence + 1, arrives
    const expected = { sent: lastSequence + 1, lost: skipped };
    const loss = async () => {
      const players = (await admin("GET", "players")).body.players as { nick: string; inboundLoss: unknown }[];
      return Object.fromEntries(players.map((player) => [player.nick, player.inboundLoss]));
    };
    // Until the last datagram is in (a bounded wait on loopback).
    let figures = await loss();
    for (let tries = 0; tries < 50 && JSON.stringify(figures.Lossy) !== JSON.stringify(expected); tries++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      figures = await loss();
    }
    expect(skipped).toBe(25);
    expect(figures).toEqual({ Lossy: { sent: expected.sent, lost: 25 }, Plain: null });
    expect(server!.game.metrics.drops.get("rate_limited_session") ?? 0).toBe(0);
  });

  it("lists accounts (searched: ban, mute, last login, in play) and the recent chat (searched, with its speakers)", async () => {
    await start({ adminToken: TOKEN, dbPath: join(dir, "people.sqlite") });
    const register = (name: string, nick: string) =>
      postJson(server!.httpPort, "/api/register", { name, password: `${name}-password`, nick });
    const talker = await play((await register("Talker", "Talky")).body as unknown as Joined);
    await register("Quiet_one", "Hush");
    await register("Other", "Nobody");
    expect((await admin("POST", "ban", { account: "Other", reason: "alt account" })).status).toBe(200);
    expect((await admin("POST", "mute", { nick: "Talky", minutes: 10 })).status).toBe(200);

    const accounts = (await admin("GET", "accounts")).body.accounts as Record<string, unknown>[];
    const talky = [...server!.game.sessions.values()].find((session) => session.nick === "Talky")!;
    // Newest first: by the last login, or the registration of an account not logged into since (a tie: the newer).
    expect(accounts.map((account) => account.name)).toEqual(["Other", "Quiet_one", "Talker"]);
    expect(accounts[2]).toMatchObject({ name: "Talker", muted: true, ban: null, entityId: talky.entity.id });
    expect(accounts[2].createdAtMs).toEqual(expect.any(Number));
    expect(accounts.find((account) => account.name === "Other")).toMatchObject({
      ban: "account banned: alt account",
      muted: false,
      entityId: null,
    });
    // A search by name or nick, any case; "_" and "%" are letters, not patterns.
    const names = async (q: string) =>
      ((await admin("GET", `accounts?q=${encodeURIComponent(q)}`)).body.accounts as { name: string }[]).map(
        (account) => account.name,
      );
    expect(await names("HUSH")).toEqual(["Quiet_one"]);
    expect(await names("a_k")).toEqual([]); // as a pattern, "Talker" would match
    expect(await names("t_")).toEqual(["Quiet_one"]);
    expect(await names("%")).toEqual([]);
    expect((await admin("GET", `accounts?q=${"x".repeat(65)}`)).status).toBe(400);
    expect((await admin("GET", "accounts?limit=0")).status).toBe(400);

    // The chat: a muted player's line is refused and not kept; lines said to everyone are, newest first.
    const say = (seq: number, text: string) =>
      talker.sendRaw(encodePacketToBytes({ type: "chat_post", clientType: 0, authToken: talker.token, seq, text }));
    say(1, "refused while muted");
    await talker.waitFor("the refusal", () =>
      talker.received.some((r) => r.packet?.type === "chat_post_ack" && r.packet.seq === 1),
    );
    expect((await admin("POST", "unmute", { nick: "Talky" })).status).toBe(200);
    say(2, "buy gold at example dot com");
    await talker.waitFor("its line", () => server!.game.chat.said.recent(1).length === 1);
    say(3, "hello all");
    await talker.waitFor("its second line", () => server!.game.chat.said.recent(2).length === 2);
    const lines = (await admin("GET", "chat")).body.lines as Record<string, unknown>[];
    expect(lines).toEqual([
      expect.objectContaining({
        nick: "Talky",
        text: "hello all",
        entityId: talky.entity.id,
        inPlay: true,
        muted: false,
      }),
      expect.objectContaining({ nick: "Talky", text: "buy gold at example dot com", inPlay: true }),
    ]);
    expect(((await admin("GET", "chat?q=GOLD")).body.lines as unknown[]).length).toBe(1);
    expect(((await admin("GET", "chat?limit=1")).body.lines as { text: string }[])[0].text).toBe("hello all");
    expect((await admin("POST", "kick", { entityId: talky.entity.id })).status).toBe(200);
    expect(((await admin("GET", "chat")).body.lines as { inPlay: boolean }[])[0].inPlay).toBe(false);
  });

  it("the command-line client: JSON out and exit 0; a refusal exits 1; bad usage exits 2", async () => {
    await start({ adminToken: TOKEN });
    const cli = await guest("Cli");
    // Each run of the client starts a process (seconds on a busy machine): the player keeps playing meanwhile,
    // an idle action a second, so its session is not ended for silence (10 s) before the last command.
    const keepAlive = setInterval(() => cli.action(0, 0), 1000);
    onTestFinished(() => clearInterval(keepAlive));
    const tokenFile = join(dir, "token");
    writeFileSync(tokenFile, `${TOKEN}\n`);
    const url = `http://127.0.0.1:${server!.httpPort}`;
    const run = async (...args: string[]) => {
      try {
        const { stdout, stderr } = await promisify(execFile)(
          process.execPath,
          ["--import", "tsx", "ts/tools/admin.ts", "--url", url, ...args],
          { env: { ...process.env, CAVES_ADMIN_TOKEN: "" } },
        );
        return { code: 0, stdout, stderr };
      } catch (error) {
        const failed = error as { code: number; stdout: string; stderr: string };
        return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
      }
    };
    const listed = await run("--token-file", tokenFile, "players");
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout).players[0].nick).toBe("Cli");
    const kicked = await run("--token-file", tokenFile, "kick", "Nobody");
    expect(kicked.code).toBe(1);
    expect(kicked.stderr).toMatch(/refused \(404\): no player "Nobody"/);
    expect((await run("--token-file", tokenFile, "ban", "Cli")).code).toBe(2); // no reason
    expect((await run("players")).stderr).toMatch(/no admin token/);
    expect((await run("--token-file", tokenFile, "frobnicate")).code).toBe(2);
    expect((await run("--token-file", tokenFile, "message", "Cli", "hello", "there")).code).toBe(0);
    const teleported = await run("--token-file", tokenFile, "teleport", "Cli");
    expect(teleported.code).toBe(0);
    expect(JSON.parse(teleported.stdout)).toMatchObject({ action: "teleport", safeSpot: true });
    expect((await run("--token-file", tokenFile, "teleport", "Cli", "3")).code).toBe(2);
    expect((await run("--token-file", tokenFile, "message", "Cli")).code).toBe(2);
    expect((await run("--token-file", tokenFile, "ban", "Cli", "--minutes", "5", "being", "a", "test")).code).toBe(0);
    expect(server!.game.sessions.size).toBe(0);
  }, 60_000);
});
