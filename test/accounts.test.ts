// Accounts over the real HTTP API with a real SQLite file: registration,
// login and every refusal, session replacement, and where a character
// reappears (saved spot for accounts, fresh spawn for guests).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import Database from "better-sqlite3";
import { ACTION_E, ACTION_S } from "../ts/protocol/action.js";
import { checkAccountName, checkPassword } from "../ts/server/accounts/account-rules.js";
import { hashPassword, verifyPassword } from "../ts/server/accounts/password.js";
import { openGameDatabase } from "../ts/server/persistence/database.js";
import { readWorldMap } from "../ts/server/server.js";
import { type Harness, postJson, startHarness } from "./support/game-harness.js";
import { writeTestMap, type TestMap } from "./support/test-map.js";
import { type Joined, UdpTestClient } from "./support/udp-client.js";

let map: TestMap;
let dir: string;
const clients: UdpTestClient[] = [];

beforeAll(() => {
  map = writeTestMap();
  dir = mkdtempSync(join(tmpdir(), "caves-accounts-"));
});

afterAll(() => {
  for (const client of clients) {
    try {
      client.close();
    } catch {
      // closed by its test already
    }
  }
  map?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

async function bound(joined: Joined): Promise<UdpTestClient> {
  const client = await UdpTestClient.withSession(joined);
  clients.push(client);
  client.action(0, 0);
  await client.waitFor("own position", () => client.position());
  return client;
}

/** Walks `steps` steps with `action`, one per movement window, and waits until the server shows the result. */
async function walk(client: UdpTestClient, action: number, steps: number): Promise<{ x: number; y: number }> {
  const start = client.position()!;
  for (let step = 0; step < steps; step++) {
    const tick = client.lastState()!.tick;
    client.action(tick + 4, action);
    const before = client.position()!;
    await client.waitFor("a step", () => {
      const now = client.position()!;
      return now.x !== before.x || now.y !== before.y;
    });
  }
  const end = client.position()!;
  expect(Math.abs(end.x - start.x) + Math.abs(end.y - start.y)).toBe(steps);
  return end;
}

describe("passwords", () => {
  it("are salted scrypt hashes that carry their parameters, and verify", async () => {
    const first = await hashPassword("correct horse");
    const second = await hashPassword("correct horse");
    expect(first).toMatch(/^scrypt\$16384\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    expect(first).not.toBe(second);
    expect(await verifyPassword("correct horse", first)).toBe(true);
    expect(await verifyPassword("correct horse", second)).toBe(true);
    expect(await verifyPassword("correct hors", first)).toBe(false);
    expect(await verifyPassword("correct horse", "plain")).toBe(false);
    expect(await verifyPassword("correct horse", first.replace("16384", "16383"))).toBe(false);
    expect(await verifyPassword("correct horse", first.replace("16384", String(1 << 24)))).toBe(false);
  });

  it("are hashed off the event loop's thread", async () => {
    let turns = 0;
    let running = true;
    const spin = (): void => {
      turns++;
      if (running) setImmediate(spin);
    };
    setImmediate(spin);
    await hashPassword("while the tick loop runs");
    running = false;
    // A synchronous hash would have held the loop for its whole duration: no turn in between.
    expect(turns).toBeGreaterThan(1);
  });

  it("rules: names 3-20 of A-Z a-z 0-9 _ . -, passwords at least 8 characters", () => {
    expect(checkAccountName("Ada_Lovelace.1-x").ok).toBe(true);
    for (const bad of ["ab", "a".repeat(21), "has space", "Zoë", "x/y", ""])
      expect(checkAccountName(bad).ok).toBe(false);
    expect(checkPassword("12345678").ok).toBe(true);
    expect(checkPassword("1234567").ok).toBe(false);
    expect(checkPassword("x".repeat(257)).ok).toBe(false);
    expect(checkPassword("päßwörd!").ok).toBe(true);
  });
});

describe("register, login, guest", () => {
  let server: Harness;
  const dbPath = () => join(dir, "flows.sqlite");

  beforeAll(async () => {
    server = await startHarness(readWorldMap(map.path), { database: openGameDatabase(dbPath()) });
  });
  afterAll(async () => {
    await server?.close();
  });

  it("register answers like /api/guest and stores a hash, never the password", async () => {
    const reply = await postJson(server.httpPort, "/api/register", {
      name: "Ada",
      password: "analytical",
      nick: "Ada L",
      reads: ["chunk_wide"],
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      token: expect.stringMatching(/^[0-9a-f]{16}$/),
      key: expect.stringMatching(/^[0-9a-f]{64}$/), // the session key (docs/protocol.md § 6.1)
      entityId: expect.any(Number),
      nick: "Ada L",
      protocolVersion: 1,
      udpPort: server.udpPort,
      reads: ["chunk_wide"], // what it will be sent whole (docs/protocol.md § 19.1)
    });
    const db = new Database(dbPath(), { readonly: true });
    const row = db
      .prepare("SELECT name, name_key, nick, password_hash FROM accounts WHERE name = 'Ada'")
      .get() as Record<string, string>;
    db.close();
    expect(row).toMatchObject({ name: "Ada", name_key: "ada", nick: "Ada L" });
    expect(row.password_hash.startsWith("scrypt$")).toBe(true);
    expect(row.password_hash).not.toContain("analytical");
  });

  it("refuses bad input with 400", async () => {
    const bad: unknown[] = [
      { name: "ab", password: "12345678", nick: "x" },
      { name: "no spaces", password: "12345678", nick: "x" },
      { name: "Fine", password: "short", nick: "x" },
      { name: "Fine", password: "12345678", nick: "" },
      { name: "Fine", password: "12345678", nick: "bad\u0000nick" },
      { name: "Fine", password: "12345678" },
      { name: 5, password: "12345678", nick: "x" },
      "[]",
      "not json",
    ];
    for (const body of bad) {
      const reply = await postJson(server.httpPort, "/api/register", body);
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect(reply.body.error).toEqual(expect.any(String));
    }
    for (const body of [
      { name: "Ada" },
      { name: "", password: "x" },
      { name: "Ada", password: "" },
      { name: "Ada", password: "x".repeat(300) },
    ]) {
      const reply = await postJson(server.httpPort, "/api/login", body);
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect(reply.body.error).toEqual(expect.any(String));
    }
    expect(server.game.accountStore.findByName("Fine")).toBeUndefined();
  });

  it("refuses a taken name with 409, whatever its case", async () => {
    for (const name of ["Ada", "ADA", "ada"]) {
      const reply = await postJson(server.httpPort, "/api/register", { name, password: "another1", nick: "Imposter" });
      expect(reply.status).toBe(409);
      expect(reply.body.error).toContain("taken");
    }
  });

  it("logs in with the right password (any case of the name), refuses others with 401", async () => {
    const good = await postJson(server.httpPort, "/api/login", { name: "aDa", password: "analytical" });
    expect(good.status).toBe(200);
    expect(good.body.protocolVersion).toBe(1);
    for (const body of [
      { name: "Ada", password: "Analytical" },
      { name: "Ada", password: "analytica" },
      { name: "Nobody", password: "analytical" },
    ]) {
      const reply = await postJson(server.httpPort, "/api/login", body);
      expect(reply.status).toBe(401);
      expect(reply.body.error).toBe("wrong name or password");
    }
  });

  it("refuses a banned account with 403, but only to its password", async () => {
    expect(
      (await postJson(server.httpPort, "/api/register", { name: "Mallory", password: "mischief", nick: "Mal" })).status,
    ).toBe(200);
    expect(server.game.accountStore.setBan("mallory", "spamming the notice board")).toBe(true);
    const banned = await postJson(server.httpPort, "/api/login", { name: "Mallory", password: "mischief" });
    expect(banned.status).toBe(403);
    expect(banned.body.error).toContain("spamming the notice board");
    expect((await postJson(server.httpPort, "/api/login", { name: "Mallory", password: "guess" })).status).toBe(401);
    server.game.accountStore.setBan("Mallory", null);
    expect((await postJson(server.httpPort, "/api/login", { name: "Mallory", password: "mischief" })).status).toBe(200);
  });

  it("a second login replaces the session already in play: the old token goes dead", async () => {
    await postJson(server.httpPort, "/api/register", { name: "Twice", password: "twice-over", nick: "Twice" });
    const first = (await postJson(server.httpPort, "/api/login", { name: "Twice", password: "twice-over" }))
      .body as unknown as Joined;
    const old = await bound(first);
    const players = server.game.sessions.size;
    const second = (await postJson(server.httpPort, "/api/login", { name: "twice", password: "twice-over" }))
      .body as unknown as Joined;
    expect(second.token).not.toBe(first.token);
    expect(server.game.sessions.size).toBe(players); // replaced, not added
    expect(server.game.sessions.byTokenValue(BigInt(`0x${first.token}`))).toBeUndefined();
    const fresh = await bound(second);
    expect(fresh.position()).toBeDefined();
    const drops = server.game.metrics.drops.get("unknown_token") ?? 0;
    old.action(0, 0);
    await old.waitFor("the old token refused", () => (server.game.metrics.drops.get("unknown_token") ?? 0) > drops);
  });
});

describe("capacity", () => {
  it("refuses registration, login and guests with 503 when full, but lets an account replace its own session", async () => {
    const server = await startHarness(readWorldMap(map.path), {
      maxPlayers: 2,
      database: openGameDatabase(join(dir, "full.sqlite")),
    });
    try {
      expect(
        (await postJson(server.httpPort, "/api/register", { name: "One", password: "password1", nick: "One" })).status,
      ).toBe(200);
      expect((await postJson(server.httpPort, "/api/guest", { nick: "Two" })).status).toBe(200);
      const register = await postJson(server.httpPort, "/api/register", {
        name: "Three",
        password: "password3",
        nick: "Three",
      });
      expect(register.status).toBe(503);
      expect(register.body.error).toContain("full");
      expect(server.game.accountStore.findByName("Three")).toBeUndefined();
      expect((await postJson(server.httpPort, "/api/guest", { nick: "Four" })).status).toBe(503);
      // "One" is in play: logging in again replaces it and needs no free slot.
      expect((await postJson(server.httpPort, "/api/login", { name: "One", password: "password1" })).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});

describe("where a character reappears", () => {
  it("a logged-in player where they left (after the session timed out), a guest at a fresh spawn", async () => {
    const server = await startHarness(readWorldMap(map.path), {
      sessionTimeoutMs: 1000,
      database: openGameDatabase(join(dir, "reappear.sqlite")),
    });
    try {
      const spawns = server.game.world.spawns;
      const registered = (
        await postJson(server.httpPort, "/api/register", { name: "Walker", password: "walking1", nick: "Walker" })
      ).body as unknown as Joined;
      const walker = await bound(registered);
      await walk(walker, ACTION_E, 3);
      const left = await walk(walker, ACTION_S, 2);
      const guest = await bound(
        (await postJson(server.httpPort, "/api/guest", { nick: "Guest" })).body as unknown as Joined,
      );
      await walk(guest, ACTION_E, 2);
      walker.close();
      guest.close();
      await walker.waitFor("both sessions timed out", () => server.game.sessions.size === 0, 5000);

      const again = await bound(
        (await postJson(server.httpPort, "/api/login", { name: "Walker", password: "walking1" }))
          .body as unknown as Joined,
      );
      expect(again.position()).toEqual(left);
      const guestAgain = await bound(
        (await postJson(server.httpPort, "/api/guest", { nick: "Guest" })).body as unknown as Joined,
      );
      expect(spawns).toContainEqual(guestAgain.position());
    } finally {
      await server.close();
    }
  });

  it("a character saved on another map, or on a cell that is no longer free, gets a fresh spawn", async () => {
    const path = join(dir, "moved.sqlite");
    const server = await startHarness(readWorldMap(map.path), { database: openGameDatabase(path) });
    try {
      await postJson(server.httpPort, "/api/register", { name: "Elsewhere", password: "elsewhere", nick: "E" });
      await postJson(server.httpPort, "/api/register", { name: "Walled", password: "walled-in", nick: "W" });
      const db = server.game.database.db;
      db.prepare(
        "UPDATE characters SET map = 'another map', x = 3, y = 3 WHERE account_id = (SELECT id FROM accounts WHERE name = 'Elsewhere')",
      ).run();
      db.prepare(
        `UPDATE characters SET map = ?, x = 0, y = 0 WHERE account_id = (SELECT id FROM accounts WHERE name = 'Walled')`,
      ).run(server.game.world.name);
      for (const [name, password] of [
        ["Elsewhere", "elsewhere"],
        ["Walled", "walled-in"],
      ]) {
        const joined = (await postJson(server.httpPort, "/api/login", { name, password })).body as unknown as Joined;
        const entity = server.game.entities.get(joined.entityId)!;
        expect(server.game.world.spawns).toContainEqual({ x: entity.x, y: entity.y });
      }
    } finally {
      await server.close();
    }
  });
});
