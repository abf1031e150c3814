// Backups of the game database (--db-backup DIR). Two kinds, both complete,
// consistent copies that open as ordinary SQLite files:
// - scheduled, with SQLite's online backup API (better-sqlite3's backup()),
//   which copies the pages in steps between which the tick loop keeps running,
//   so the world never stalls for a backup; the copy is written to a
//   .partial name, checked with quick_check and only then renamed, so a
//   backup folder never holds a half-written file under a real name;
// - before a migration changes the schema, when nothing else runs yet:
//   `VACUUM INTO`, synchronous (database.ts calls it from migrate's hook).
// Scheduled backups beyond `keep` are deleted, oldest first; pre-migration
// copies are never deleted by the server. Restore: docs/persistence.md.
import { mkdirSync, readdirSync, renameSync, rmSync } from "node:fs";
import { basename, join } from "node:path";
import Database from "better-sqlite3";
import { checkIntegrity } from "./integrity.js";

export const DEFAULT_BACKUP_INTERVAL_MS = 60 * 60 * 1000;
export const DEFAULT_BACKUPS_KEPT = 24;

export interface BackupOptions {
  dir: string;
  /** Scheduled backups kept; older ones are deleted. */
  keep: number;
}

export interface BackupStats {
  written: number;
  failed: number;
  lastPath: string | null;
  lastMs: number | null;
  lastError: string | null;
}

const SCHEDULED = "scheduled";

/** The database file's name without its extension: what its backups' names start with. */
function backupStem(databasePath: string): string {
  return basename(databasePath).replace(/\.(sqlite3?|db)$/, "");
}

/** `caves-20261201T093712345Z-scheduled.sqlite`: sorts by time within a reason. */
function backupName(databasePath: string, reason: string, now: Date): string {
  const stem = backupStem(databasePath);
  const stamp = now.toISOString().replace(/[-:.]/g, "");
  return `${stem}-${stamp}-${reason}.sqlite`;
}

/**
 * A fresh path in `dir` for a backup made now, never one that exists: a name
 * already taken moves the stamp on by a millisecond, so names keep sorting by
 * time.
 */
function freshPath(dir: string, databasePath: string, reason: string): string {
  const taken = new Set(readdirSync(dir));
  let atMs = Date.now();
  let name = backupName(databasePath, reason, new Date(atMs));
  while (taken.has(name) || taken.has(`${name}.partial`)) name = backupName(databasePath, reason, new Date(++atMs));
  return join(dir, name);
}

/**
 * Makes a finished copy one self-contained file (rollback journal, so no -wal
 * or -shm beside it) and checks it the way the server checks a database at start.
 */
function verifyCopy(path: string): void {
  const copy = new Database(path, { fileMustExist: true });
  try {
    copy.pragma("journal_mode = DELETE");
    checkIntegrity(copy, path);
  } finally {
    copy.close();
  }
}

/** The synchronous pre-migration copy (VACUUM INTO); returns its path. */
export function snapshotBeforeMigration(
  db: Database.Database,
  databasePath: string,
  dir: string,
  version: number,
): string {
  mkdirSync(dir, { recursive: true });
  const path = freshPath(dir, databasePath, `before-migration-${String(version).padStart(4, "0")}`);
  const partial = `${path}.partial`;
  db.prepare("VACUUM INTO ?").run(partial);
  verifyCopy(partial);
  renameSync(partial, path);
  return path;
}

/** What a backup reads of the game database (a GameDatabase is one). */
export interface BackedUpDatabase {
  readonly db: Database.Database;
  readonly path: string;
}

export class DatabaseBackups {
  readonly stats: BackupStats = { written: 0, failed: 0, lastPath: null, lastMs: null, lastError: null };
  private timer: ReturnType<typeof setInterval> | null = null;
  private running: Promise<string | null> | null = null;

  constructor(
    private readonly database: BackedUpDatabase,
    private readonly options: BackupOptions,
  ) {
    if (!Number.isInteger(options.keep) || options.keep < 1) throw new RangeError("keep must be a positive integer");
  }

  /**
   * Backs up now (a restore point from before this run's first write lands)
   * and then every `intervalMs`, until stop().
   */
  start(intervalMs: number, onDone: (path: string | null, error: unknown) => void): void {
    if (this.timer) return;
    const run = () => {
      if (this.running) return; // the previous one is still copying
      this.running = this.backupNow(SCHEDULED).then(
        (path) => {
          onDone(path, null);
          return path;
        },
        (error: unknown) => {
          onDone(null, error);
          return null;
        },
      );
      void this.running.finally(() => (this.running = null));
    };
    this.timer = setInterval(run, intervalMs);
    this.timer.unref();
    run();
  }

  /** Stops the schedule and waits for a backup in progress, so the database can be closed after it. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (this.running) await this.running;
  }

  /** One online backup now; resolves to its path. Rejects (and counts) when it fails. */
  async backupNow(reason = SCHEDULED): Promise<string> {
    const started = performance.now();
    try {
      mkdirSync(this.options.dir, { recursive: true });
      const path = freshPath(this.options.dir, this.database.path, reason);
      const partial = `${path}.partial`;
      try {
        await this.database.db.backup(partial);
        verifyCopy(partial);
        renameSync(partial, path);
      } catch (error) {
        rmSync(partial, { force: true });
        throw error;
      }
      this.stats.written++;
      this.stats.lastPath = path;
      this.stats.lastMs = performance.now() - started;
      this.stats.lastError = null;
      if (reason === SCHEDULED) this.prune();
      return path;
    } catch (error) {
      this.stats.failed++;
      this.stats.lastError = String(error);
      throw error;
    }
  }

  /** Deletes scheduled backups beyond `keep`, oldest first (names sort by time). */
  private prune(): void {
    const suffix = `-${SCHEDULED}.sqlite`;
    const scheduled = readdirSync(this.options.dir)
      .filter((name) => name.startsWith(`${backupStem(this.database.path)}-`) && name.endsWith(suffix))
      .sort();
    for (const name of scheduled.slice(0, Math.max(0, scheduled.length - this.options.keep))) {
      rmSync(join(this.options.dir, name), { force: true });
    }
  }
}
