// Persistence on real SQLite files: migrations (order, transactions,
// checksums, refusals), the batched dirty-only character saves, and the crash
// test — a real server process killed with SIGKILL mid-play and restarted on
// the same database.
import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import Database from "better-sqlite3";
import { ACTION_E, ACTION_S } from "../ts/protocol/action.js";
import { CharacterSaver } from "../ts/server/persistence/character-saver.js";
import { CharacterStore, NEW_CHARACTER } from "../ts/server/persistence/character-store.js";
import { openGameDatabase } from "../ts/server/persistence/database.js";
import { loadMigrations, MigrationError } from "../ts/server/persistence/migrate.js";
import { AccountStore } from "../ts/server/accounts/account-store.js";
import type { Entity } from "../ts/server/entities/entities.js";
import { ActionSlots } from "../ts/server/entities/schedule.js";
import { readWorldMap } from "../ts/server/server.js";
import { postJson, startHarness } from "./support/game-harness.js";
import { type ServerProcess, startServerProcess } from "./support/server-process.js";
import { writeTestMap, type TestMap } from "./support/test-map.js";
import { type Joined, UdpTestClient } from "./support/udp-client.js";

let dir: string;
let map: TestMap;
const clients: UdpTestClient[] = [];
const children: ChildProcess[] = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "caves-persistence-"));
  map = writeTestMap();
});

afterAll(() => {
  for (const client of clients) {
    try {
      client.close();
    } catch {
      // already closed
    }
  }
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
  map?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

function migrationsDir(files: Record<string, string>): string {
  const folder = mkdtempSync(join(dir, "migrations-"));
  for (const [name, sql] of Object.entries(files)) writeFileSync(join(folder, name), sql);
  return folder;
}

function expectMigrationError(action: () => unknown, message: RegExp): void {
  let thrown: unknown;
  try {
    action();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(MigrationError);
  expect((thrown as Error).message).toMatch(message);
}

describe("migrations", () => {
  it("the bundled schema: accounts and characters (1), bans and the admin log (2), notices (3), items (4), appearance (5), piles kept with their level (6), quests and world values (7), experience (8), friends, ignores and waiting lines (9), login addresses (10), doors (11), dungeon places (12), recorded, WAL on a file", () => {
    const path = join(dir, "schema.sqlite");
    const database = openGameDatabase(path);
    expect(database.schemaVersion).toBe(loadMigrations().length);
    const db = database.db;
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(db.pragma("foreign_keys", { simple: true })).toBe(1);
    expect(db.pragma("user_version", { simple: true })).toBe(database.schemaVersion);
    const tables = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name").pluck().all();
    expect(tables).toEqual([
      "accounts",
      "address_bans",
      "admin_log",
      "character_quests",
      "characters",
      "doors",
      "friends",
      "ignores",
      "item_containers",
      "item_piles",
      "item_stacks",
      "login_addresses",
      "mail",
      "notices",
      "schema_migrations",
      "world_values",
    ]);
    const rows = db.prepare("SELECT version, name, length(checksum) AS hexDigits FROM schema_migrations").all();
    expect(rows).toEqual([
      { version: 1, name: "accounts-and-characters", hexDigits: 64 },
      { version: 2, name: "admin", hexDigits: 64 },
      { version: 3, name: "notices", hexDigits: 64 },
      { version: 4, name: "items", hexDigits: 64 },
      { version: 5, name: "appearance", hexDigits: 64 },
      { version: 6, name: "level-piles", hexDigits: 64 },
      { version: 7, name: "content", hexDigits: 64 },
      { version: 8, name: "progression", hexDigits: 64 },
      { version: 9, name: "social", hexDigits: 64 },
      { version: 10, name: "login-addresses", hexDigits: 64 },
      { version: 11, name: "doors", hexDigits: 64 },
      { version: 12, name: "character-dungeon-places", hexDigits: 64 },
    ]);
    database.close();
    database.close(); // idempotent
    // Reopening applies nothing again.
    const again = openGameDatabase(path);
    expect(again.db.prepare("SELECT count(*) FROM schema_migrations").pluck().get()).toBe(loadMigrations().length);
    again.close();
  });

  it("applies new migrations in order, each once, and refuses edited, missing and newer ones", () => {
    const path = join(dir, "custom.sqlite");
    const first = { "0001-a.sql": "CREATE TABLE a (x INTEGER);" };
    const folder = migrationsDir(first);
    openGameDatabase(path, folder).close();
    writeFileSync(join(folder, "0002-b.sql"), "CREATE TABLE b (y INTEGER); INSERT INTO a VALUES (1);");
    writeFileSync(join(folder, "0003-c.sql"), "ALTER TABLE b ADD COLUMN z TEXT;");
    const database = openGameDatabase(path, folder);
    expect(database.schemaVersion).toBe(3);
    expect(database.db.prepare("SELECT version FROM schema_migrations ORDER BY version").pluck().all()).toEqual([
      1, 2, 3,
    ]);
    expect(database.db.prepare("SELECT count(*) FROM a").pluck().get()).toBe(1);
    database.close();

    // An applied migration edited afterwards stops the server.
    writeFileSync(join(folder, "0002-b.sql"), "CREATE TABLE b (y INTEGER, w INTEGER);");
    expectMigrationError(() => openGameDatabase(path, folder), /0002-b changed after it was applied/);
    // A database newer than the code is refused.
    expectMigrationError(() => openGameDatabase(path, migrationsDir(first)), /newer than this server/);
  });

  it("a failing migration leaves the database at the previous version", () => {
    const path = join(dir, "failing.sqlite");
    const folder = migrationsDir({ "0001-a.sql": "CREATE TABLE a (x INTEGER);" });
    openGameDatabase(path, folder).close();
    writeFileSync(join(folder, "0002-broken.sql"), "CREATE TABLE b (y INTEGER); INSERT INTO missing VALUES (1);");
    expectMigrationError(() => openGameDatabase(path, folder), /0002-broken failed: .*missing/);
    const db = new Database(path, { readonly: true });
    expect(db.prepare("SELECT name FROM sqlite_schema WHERE name = 'b'").get()).toBeUndefined();
    expect(db.prepare("SELECT max(version) FROM schema_migrations").pluck().get()).toBe(1);
    db.close();
  });

  it("migration files are numbered 1, 2, 3, … and named NNNN-name.sql", () => {
    expectMigrationError(
      () => loadMigrations(migrationsDir({ "0001-a.sql": "", "0003-c.sql": "" })),
      /expected migration 2/,
    );
    expectMigrationError(() => loadMigrations(migrationsDir({ "0002-b.sql": "" })), /expected migration 1/);
    expectMigrationError(() => loadMigrations(migrationsDir({ "1-a.sql": "" })), /NNNN-lower-case-name\.sql/);
    expectMigrationError(() => loadMigrations(migrationsDir({ "0001-Upper.sql": "" })), /NNNN-lower-case-name\.sql/);
    const empty = join(dir, "no-migrations");
    mkdirSync(empty);
    expect(loadMigrations(empty)).toEqual([]);
  });
});

function fakeEntity(x: number, y: number): Entity {
  return {
    id: 1,
    typeId: 0,
    x,
    y,
    hp: 100,
    hpMax: 100,
    elo: 1000,
    flags: 0,
    name: "e",
    xp: 0,
    meta: [],
    slots: new ActionSlots(),
  };
}

describe("character saves", () => {
  it("write only the characters that changed, all of them in one transaction", () => {
    const database = openGameDatabase(join(dir, "saver.sqlite"));
    const characters = new CharacterStore(database.db);
    const accounts = new AccountStore(database.db, characters);
    const saver = new CharacterSaver(characters, "test map");
    const played = ["a", "b", "c"].map((name, index) => {
      const account = accounts.create(`player-${name}`, name, "scrypt$x", NEW_CHARACTER, 0);
      const character = { accountId: account.id, entity: fakeEntity(10 + index, 10) };
      saver.track(character, characters.load(account.id)!);
      return character;
    });

    saver.saveChanged(played, 1000); // every position is new (never saved)
    expect(saver.stats).toMatchObject({ batches: 1, rows: 3 });
    saver.saveChanged(played, 2000); // nothing changed: no transaction at all
    expect(saver.stats).toMatchObject({ batches: 1, rows: 3 });

    played[1].entity.x = 42;
    played[2].entity.hp = 7;
    saver.saveChanged(played, 3000);
    expect(saver.stats).toMatchObject({ batches: 2, rows: 5 });
    const rows = database.db
      .prepare("SELECT account_id, x, y, hp, map, saved_at_ms FROM characters ORDER BY account_id")
      .all();
    expect(rows).toEqual([
      { account_id: played[0].accountId, x: 10, y: 10, hp: 100, map: "test map", saved_at_ms: 1000 },
      { account_id: played[1].accountId, x: 42, y: 10, hp: 100, map: "test map", saved_at_ms: 3000 },
      { account_id: played[2].accountId, x: 12, y: 10, hp: 7, map: "test map", saved_at_ms: 3000 },
    ]);
    // A batch is one transaction: when one row cannot be written, none is.
    const broken = { ...NEW_CHARACTER, map: "test map", x: 1, y: 1, hp: null as unknown as number };
    expect(() =>
      characters.saveMany(
        [
          { accountId: played[0].accountId, state: { ...NEW_CHARACTER, map: "test map", x: 99, y: 99 } },
          { accountId: played[1].accountId, state: broken },
        ],
        5000,
      ),
    ).toThrow(/NOT NULL/);
    expect(characters.load(played[0].accountId)).toMatchObject({ x: 10, y: 10 });
    database.close();
  });

  it("the game saves a moving character at least once a second, while its session lasts", async () => {
    const path = join(dir, "interval.sqlite");
    const server = await startHarness(readWorldMap(map.path), { database: openGameDatabase(path) });
    const reader = new Database(path, { readonly: true });
    try {
      const joined = (
        await postJson(server.httpPort, "/api/register", { name: "Saver", password: "save-me-1", nick: "S" })
      ).body as unknown as Joined;
      const client = await bound(joined);
      const savedX = () =>
        reader
          .prepare("SELECT c.x FROM characters c JOIN accounts a ON a.id = c.account_id WHERE a.name = 'Saver'")
          .pluck()
          .get();
      for (let step = 0; step < 3; step++) {
        const x = (await stepOnce(client, ACTION_E)).x;
        const reached = performance.now();
        await client.waitFor(`x = ${x} saved`, () => savedX() === x, 3000);
        // Not a speed assertion: the save policy promises the write within one interval.
        expect(performance.now() - reached).toBeLessThan(1500);
      }
      expect(server.game.sessions.size).toBe(1);
    } finally {
      reader.close();
      await server.close();
    }
  });
});

async function bound(joined: Joined): Promise<UdpTestClient> {
  const client = await UdpTestClient.withSession(joined);
  clients.push(client);
  client.action(0, 0);
  await client.waitFor("own position", () => client.position(), 5000);
  return client;
}

async function stepOnce(client: UdpTestClient, action: number): Promise<{ x: number; y: number }> {
  const before = client.position()!;
  client.action(client.lastState()!.tick + 4, action);
  return client.waitFor("a step", () => {
    const now = client.position()!;
    return now.x !== before.x || now.y !== before.y ? now : undefined;
  });
}

/** A server process on `dbPath` and the test map (support/server-process.ts). */
function startProcess(dbPath: string): Promise<ServerProcess> {
  return startServerProcess(dbPath, map.path, children);
}

/** Own x positions in the order the client received them, with arrival times. */
function history(client: UdpTestClient): { at: number; x: number; y: number }[] {
  const seen: { at: number; x: number; y: number }[] = [];
  for (const { at, packet } of client.received) {
    if (packet?.type !== "entity") continue;
    const me = packet.entities.find((entity) => entity.id === client.joined.entityId);
    if (me && (seen.length === 0 || seen[seen.length - 1].x !== me.x || seen[seen.length - 1].y !== me.y)) {
      seen.push({ at, x: me.x, y: me.y });
    }
  }
  return seen;
}

describe("crash safety", () => {
  it("SIGKILL mid-play: every account survives, no character loses more than a second of progress", async () => {
    const dbPath = join(dir, "crash", "caves.sqlite");
    const first = await startProcess(dbPath);
    const register = (name: string) =>
      postJson(first.httpPort, "/api/register", { name, password: `${name}-password`, nick: name }).then(
        (reply) => reply.body as unknown as Joined,
      );
    const walker = await bound(await register("Walker"));
    const stander = await bound(await register("Stander"));
    await register("Sleeper"); // never enters the world
    // The stander takes two steps and stops well before the crash.
    await stepOnce(stander, ACTION_S);
    const standerAt = await stepOnce(stander, ACTION_S);

    // The walker walks east without pause: an action for the next window every 50 ms.
    const walking = setInterval(() => walker.action(walker.lastState()!.tick + 4, ACTION_E), 50);
    await walker.waitFor("12 steps", () => history(walker).length > 12, 6000);
    clearInterval(walking);
    const walking2 = setInterval(() => walker.action(walker.lastState()!.tick + 4, ACTION_E), 50);
    await walker.waitFor("3 more steps", () => history(walker).length > 15, 3000);
    first.child.kill("SIGKILL");
    const killedAt = performance.now();
    clearInterval(walking2);
    const [, signal] = (await once(first.child, "exit")) as [number | null, string | null];
    expect(signal).toBe("SIGKILL");
    const walked = history(walker);
    expect(walked[walked.length - 1].at).toBeGreaterThan(killedAt - 400); // still walking when killed

    const second = await startProcess(dbPath);
    const login = (name: string) =>
      postJson(second.httpPort, "/api/login", { name, password: `${name}-password` }).then((reply) => {
        expect(reply.status, `${name}: ${JSON.stringify(reply.body)}`).toBe(200);
        return reply.body as unknown as Joined;
      });
    const walkerAgain = await bound(await login("Walker"));
    const standerAgain = await bound(await login("Stander"));
    await login("Sleeper");
    expect((await postJson(second.httpPort, "/api/login", { name: "Walker", password: "wrong-password" })).status).toBe(
      401,
    );

    expect(standerAgain.position()).toEqual(standerAt);
    const restored = walkerAgain.position()!;
    const index = walked.findIndex((p) => p.x === restored.x && p.y === restored.y);
    expect(index, `restored ${JSON.stringify(restored)} not on the walked path`).toBeGreaterThanOrEqual(0);
    // Progress lost: from when the character left the restored spot to the crash.
    const leftAt = index + 1 < walked.length ? walked[index + 1].at : killedAt;
    const lostMs = killedAt - leftAt;
    expect(lostMs).toBeLessThanOrEqual(1000);
    expect(walked.length - 1 - index).toBeLessThanOrEqual(6); // at most a second of steps (6 per second)

    second.child.kill("SIGTERM");
    const [code] = (await once(second.child, "exit")) as [number | null];
    expect(code, second.stderr()).toBe(0);
  }, 60_000);

  it("SIGTERM (clean shutdown) saves every character exactly where it stands", async () => {
    const dbPath = join(dir, "clean", "caves.sqlite");
    const first = await startProcess(dbPath);
    const joined = (
      await postJson(first.httpPort, "/api/register", { name: "Clean", password: "clean-exit", nick: "C" })
    ).body as unknown as Joined;
    const client = await bound(joined);
    await stepOnce(client, ACTION_E);
    const last = await stepOnce(client, ACTION_E);
    first.child.kill("SIGTERM");
    const [code] = (await once(first.child, "exit")) as [number | null];
    expect(code, first.stderr()).toBe(0);
    const db = new Database(dbPath, { readonly: true });
    const row = db.prepare("SELECT x, y FROM characters").get();
    db.close();
    expect(row).toEqual(last);
  }, 30_000);
});
