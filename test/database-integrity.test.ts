// A database file that exists but is empty or damaged is refused at start, never
// replaced by a fresh one (issue: a zero-length accounts file was silently
// migrated into an empty database, and every account was gone); backups with
// SQLite's online backup API on a schedule and before every migration.
import { existsSync, mkdtempSync, openSync, readdirSync, rmSync, statSync, writeFileSync, writeSync } from "node:fs";
import { closeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DatabaseBackups } from "../ts/server/persistence/backup.js";
import { openGameDatabase } from "../ts/server/persistence/database.js";
import { DatabaseFileError } from "../ts/server/persistence/integrity.js";
import { spawnBundle } from "./support/tsx-process.js";

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "caves-integrity-"));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** A real game database with `count` accounts in it, closed (WAL checkpointed into the file). */
function databaseWithAccounts(path: string, count: number): void {
  const database = openGameDatabase(path);
  const insert = database.db.prepare(
    "INSERT INTO accounts (name, name_key, nick, password_hash, created_at_ms) VALUES (?, ?, ?, 'x', 0)",
  );
  for (let index = 0; index < count; index++) insert.run(`Player${index}`, `player${index}`, `P${index}`);
  database.close();
}

function accountCount(path: string): number {
  const db = new Database(path, { readonly: true });
  try {
    return db.prepare("SELECT count(*) FROM accounts").pluck().get() as number;
  } finally {
    db.close();
  }
}

function thrownBy(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe("a database file that cannot be trusted is refused", () => {
  it("a zero-length file is refused and left as it was, not migrated into an empty database", () => {
    const path = join(dir, "empty.sqlite");
    writeFileSync(path, "");
    const error = thrownBy(() => openGameDatabase(path));
    expect(error).toBeInstanceOf(DatabaseFileError);
    expect((error as DatabaseFileError).reason).toBe("empty");
    expect((error as Error).message).toMatch(/is empty \(0 bytes\)/);
    expect((error as Error).message).toMatch(/restore/i);
    expect(statSync(path).size).toBe(0);
    expect(existsSync(`${path}-wal`)).toBe(false);
  });

  it("a file that is not SQLite at all is refused with a clear reason", () => {
    const path = join(dir, "garbage.sqlite");
    writeFileSync(path, Buffer.alloc(8192, 0x5a));
    const error = thrownBy(() => openGameDatabase(path));
    expect(error).toBeInstanceOf(DatabaseFileError);
    expect((error as DatabaseFileError).reason).toBe("not_a_database");
    expect((error as Error).message).toMatch(/not an SQLite database/);
    expect(statSync(path).size).toBe(8192);
  });

  it("a page overwritten with garbage fails the integrity check at start, naming what is wrong", () => {
    const path = join(dir, "damaged.sqlite");
    databaseWithAccounts(path, 400);
    const pageSize = 4096;
    expect(statSync(path).size).toBeGreaterThan(pageSize * 4);
    // Damage the last page (an accounts b-tree page): the header still reads as SQLite.
    const pages = statSync(path).size / pageSize;
    const fd = openSync(path, "r+");
    writeSync(fd, Buffer.alloc(pageSize, 0xa5), 0, pageSize, (pages - 1) * pageSize);
    closeSync(fd);
    const error = thrownBy(() => openGameDatabase(path));
    expect(error).toBeInstanceOf(DatabaseFileError);
    expect((error as DatabaseFileError).reason).toBe("corrupt");
    expect((error as Error).message).toMatch(/integrity check/);
  });

  it("a healthy database opens as before", () => {
    const path = join(dir, "healthy.sqlite");
    databaseWithAccounts(path, 3);
    const database = openGameDatabase(path);
    expect(database.db.prepare("SELECT count(*) FROM accounts").pluck().get()).toBe(3);
    database.close();
  });

  it("the server refuses to start on an empty database file, with a message and exit code 1", async () => {
    const path = join(dir, "cli-empty.sqlite");
    writeFileSync(path, "");
    // The server as `npm start` runs it (its bundle).
    const server = spawnBundle("server", ["--db", path, "--http-port", "0", "--udp-port", "0"]);
    const code = await server.exited;
    expect(code).toBe(1);
    expect(server.stderr()).toMatch(/is empty \(0 bytes\)/);
    expect(server.stdout()).not.toMatch(/is running/);
    expect(statSync(path).size).toBe(0);
  }, 30_000);
});

describe("backups", () => {
  it("an online backup is a complete, checked copy; old ones are pruned to the kept count", async () => {
    const path = join(dir, "live.sqlite");
    databaseWithAccounts(path, 5);
    const database = openGameDatabase(path);
    const folder = join(dir, "backups-live");
    const backups = new DatabaseBackups(database, { dir: folder, keep: 2 });
    const first = await backups.backupNow("scheduled");
    expect(accountCount(first)).toBe(5);
    // Written while the server keeps writing: the copy is consistent, the live file unharmed.
    database.db
      .prepare(
        "INSERT INTO accounts (name, name_key, nick, password_hash, created_at_ms) VALUES ('Late', 'late', 'L', 'x', 0)",
      )
      .run();
    const second = await backups.backupNow("scheduled");
    expect(accountCount(second)).toBe(6);
    await backups.backupNow("scheduled");
    const kept = readdirSync(folder).filter((name) => name.endsWith(".sqlite"));
    expect(kept).toHaveLength(2);
    expect(kept).not.toContain(first.split("/").pop());
    // Each backup is one self-contained file: no partial copy, no -wal or -shm beside it.
    expect(readdirSync(folder).filter((name) => !name.endsWith(".sqlite"))).toEqual([]);
    expect(backups.stats.written).toBe(3);
    database.close();
  });

  it("a pending migration is preceded by a backup of the database as it was", () => {
    const path = join(dir, "migrating.sqlite");
    const migrations = mkdtempSync(join(dir, "migrations-"));
    writeFileSync(join(migrations, "0001-a.sql"), "CREATE TABLE a (x INTEGER); INSERT INTO a VALUES (1);");
    const folder = join(dir, "backups-migration");
    openGameDatabase(path, migrations, { backupDir: folder }).close();
    // A brand-new database has nothing to back up.
    expect(existsSync(folder) ? readdirSync(folder) : []).toEqual([]);
    writeFileSync(join(migrations, "0002-b.sql"), "CREATE TABLE b (y INTEGER);");
    const database = openGameDatabase(path, migrations, { backupDir: folder });
    expect(database.schemaVersion).toBe(2);
    database.close();
    const files = readdirSync(folder);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/before-migration-0002\.sqlite$/);
    const copy = new Database(join(folder, files[0]), { readonly: true });
    expect(copy.prepare("SELECT max(version) FROM schema_migrations").pluck().get()).toBe(1);
    expect(copy.prepare("SELECT count(*) FROM a").pluck().get()).toBe(1);
    copy.close();
  });
});
