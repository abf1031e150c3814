// The game's embedded database: one SQLite file (better-sqlite3, synchronous
// calls of a few microseconds each), in WAL mode so a commit appends to the
// log instead of rewriting pages, migrated to the current schema on open.
// docs/persistence.md describes the schema, the save policy and what survives
// a crash.
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";
import { snapshotBeforeMigration } from "./backup.js";
import { checkDatabaseFile, checkIntegrity, explainOpenError } from "./integrity.js";
import { loadMigrations, migrate, MIGRATIONS_DIR } from "./migrate.js";

/** Where `npm start` keeps its database unless --db says otherwise. */
export const DEFAULT_DATABASE_PATH = "data/caves.sqlite";
/** An in-memory database: nothing survives the process (tests, throw-away servers). */
export const MEMORY_DATABASE = ":memory:";

export interface GameDatabase {
  readonly db: Database.Database;
  readonly path: string;
  readonly schemaVersion: number;
  /** Closes the connection (idempotent); the WAL is checkpointed into the main file. */
  close(): void;
}

export interface OpenOptions {
  /** Where a copy of the database goes before a migration changes it (--db-backup). */
  backupDir?: string;
}

/**
 * Opens (creating it and its folder if needed) and migrates the database at
 * `path`, or an in-memory one for ":memory:". Throws DatabaseFileError for a
 * file that exists but is empty, is not SQLite or fails the integrity check
 * (never replacing it), MigrationError when a migration fails, and what SQLite
 * throws when the file cannot be opened at all.
 */
export function openGameDatabase(
  path: string,
  migrationsDir: string = MIGRATIONS_DIR,
  options: OpenOptions = {},
): GameDatabase {
  const onDisk = path !== MEMORY_DATABASE;
  if (onDisk) {
    checkDatabaseFile(path);
    mkdirSync(dirname(path), { recursive: true });
  }
  const db = new Database(path);
  try {
    // The first read of the header is where SQLite notices a file that is not a database.
    try {
      db.pragma("journal_mode = WAL");
    } catch (error) {
      throw explainOpenError(path, error);
    }
    if (onDisk) checkIntegrity(db, path);
    // In WAL mode NORMAL syncs at checkpoints, not on every commit: a commit
    // survives the process being killed (it is in the OS's file cache), and a
    // power loss can lose the last commits but never corrupts the file.
    db.pragma("synchronous = NORMAL");
    db.pragma("foreign_keys = ON");
    db.pragma("busy_timeout = 5000");
    const backupDir = options.backupDir;
    const schemaVersion = migrate(
      db,
      loadMigrations(migrationsDir),
      Date.now(),
      onDisk && backupDir !== undefined
        ? (first) => void snapshotBeforeMigration(db, path, backupDir, first.version)
        : undefined,
    );
    return gameDatabase(db, path, schemaVersion);
  } catch (error) {
    db.close();
    throw error;
  }
}

/** An open, migrated connection as a GameDatabase: close() is idempotent. */
function gameDatabase(db: Database.Database, path: string, schemaVersion: number): GameDatabase {
  let closed = false;
  return {
    db,
    path,
    schemaVersion,
    close() {
      if (closed) return;
      closed = true;
      db.close();
    },
  };
}

/**
 * The database `snapshot` holds (Database.serialize(): a flight recording's snapshot, recording/), opened
 * in memory and migrated like any other: what a replay's world starts from. Nothing is written back.
 */
export function openGameDatabaseFromSnapshot(
  snapshot: Uint8Array,
  migrationsDir: string = MIGRATIONS_DIR,
): GameDatabase {
  const bytes = Buffer.from(snapshot);
  // A file written in WAL mode says so in its header (bytes 18, 19 = 2); a database in memory cannot be in
  // WAL mode, and SQLite refuses to open one that says it is. The pages are the same either way.
  if (bytes.length >= 20) {
    bytes[18] = 1;
    bytes[19] = 1;
  }
  const db = new Database(bytes);
  try {
    db.pragma("foreign_keys = ON");
    return gameDatabase(db, MEMORY_DATABASE, migrate(db, loadMigrations(migrationsDir), 0));
  } catch (error) {
    db.close();
    throw error;
  }
}
