// Schema migrations: numbered SQL files in ./migrations (0001-name.sql,
// 0002-….sql, …), applied in order, each inside its own transaction together
// with its row in schema_migrations, so a crash mid-migration leaves the
// database at the previous version. An applied migration is never edited: its
// SHA-256 is recorded, and a file that no longer matches stops the server
// rather than leaving databases that claim the same version with different
// schemas. A database newer than the code is refused too (no silent downgrade).
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type BetterSqlite3 from "better-sqlite3";

export const MIGRATIONS_DIR = fileURLToPath(new URL("./migrations/", import.meta.url));

export class MigrationError extends Error {}

export interface Migration {
  version: number;
  name: string;
  sql: string;
  /** Hex SHA-256 of the file's bytes. */
  checksum: string;
}

const FILE_PATTERN = /^(\d{4})-([a-z0-9][a-z0-9-]*)\.sql$/;

/** The migrations in `dir`, ordered; throws MigrationError unless they are numbered 1, 2, 3, … without gaps. */
export function loadMigrations(dir: string = MIGRATIONS_DIR): Migration[] {
  const migrations: Migration[] = [];
  for (const file of readdirSync(dir).sort()) {
    if (!file.endsWith(".sql")) continue;
    const match = FILE_PATTERN.exec(file);
    if (!match) throw new MigrationError(`${join(dir, file)}: migration files are named NNNN-lower-case-name.sql`);
    const bytes = readFileSync(join(dir, file));
    migrations.push({
      version: Number(match[1]),
      name: match[2],
      sql: bytes.toString("utf8"),
      checksum: createHash("sha256").update(bytes).digest("hex"),
    });
  }
  migrations.forEach((migration, index) => {
    if (migration.version !== index + 1) {
      throw new MigrationError(
        `${dir}: expected migration ${index + 1}, found ${migration.version} (numbers must run 1, 2, 3, … without gaps)`,
      );
    }
  });
  return migrations;
}

/**
 * Brings `db` up to the last of `migrations`; returns the schema version.
 * `beforeApplying` runs once before the first pending migration of a database
 * that already has applied ones (the pre-migration backup). Throws MigrationError (leaving the database as it was) when an applied
 * migration differs from its file or the database is newer than the code.
 */
export function migrate(
  db: BetterSqlite3.Database,
  migrations: readonly Migration[],
  nowMs = Date.now(),
  beforeApplying?: (first: Migration) => void,
): number {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    checksum TEXT NOT NULL,
    applied_at_ms INTEGER NOT NULL
  ) STRICT`);
  const applied = db.prepare("SELECT version, name, checksum FROM schema_migrations ORDER BY version").all() as {
    version: number;
    name: string;
    checksum: string;
  }[];
  for (const row of applied) {
    const known = migrations[row.version - 1];
    if (!known) {
      throw new MigrationError(
        `the database is at schema version ${applied[applied.length - 1].version}, newer than this server (${migrations.length}); refusing to run an older server on it`,
      );
    }
    if (known.checksum !== row.checksum) {
      throw new MigrationError(
        `migration ${String(row.version).padStart(4, "0")}-${known.name} changed after it was applied to this database; add a new migration instead of editing an applied one`,
      );
    }
  }
  const record = db.prepare(
    "INSERT INTO schema_migrations (version, name, checksum, applied_at_ms) VALUES (?, ?, ?, ?)",
  );
  const pending = migrations.slice(applied.length);
  if (pending.length > 0 && applied.length > 0) beforeApplying?.(pending[0]);
  for (const migration of pending) {
    const apply = db.transaction(() => {
      db.exec(migration.sql);
      record.run(migration.version, migration.name, migration.checksum, nowMs);
      // Mirrors the version where the sqlite3 shell shows it.
      db.pragma(`user_version = ${migration.version}`);
    });
    try {
      apply();
    } catch (error) {
      throw new MigrationError(
        `migration ${String(migration.version).padStart(4, "0")}-${migration.name} failed: ${(error as Error).message}`,
      );
    }
  }
  return migrations.length;
}
