// What the server checks before it trusts a database file. A file that exists
// but is empty (truncated by a mistaken command, a full disk, a bad copy) used
// to be opened as a new database and migrated: every account was gone and the
// names could be registered again. A damaged page started the server and then
// failed every login. Both are refused at start with a message that says what
// is wrong and what to do (docs/persistence.md § Backups and restore).
import { statSync } from "node:fs";
import type BetterSqlite3 from "better-sqlite3";

export type DatabaseFileProblem = "empty" | "not_a_database" | "corrupt";

export class DatabaseFileError extends Error {
  constructor(
    readonly reason: DatabaseFileProblem,
    message: string,
  ) {
    super(message);
  }
}

const RESTORE_HINT =
  "restore it from a backup (docs/persistence.md § Backups and restore), or move it away to start a new, empty world on purpose";

/** Refuses a file that exists but holds no bytes. A missing file is fine: it becomes a new database. */
export function checkDatabaseFile(path: string): void {
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    return; // does not exist (or cannot be read: opening will say so)
  }
  if (size === 0) {
    throw new DatabaseFileError(
      "empty",
      `${path} exists but is empty (0 bytes); refusing to create a fresh database over it, which would lose every account: ${RESTORE_HINT}`,
    );
  }
}

/** SQLite's own codes for a file that is not a database or is damaged (better-sqlite3 SqliteError.code). */
const NOT_A_DATABASE_CODES = new Set(["SQLITE_NOTADB"]);
const CORRUPT_CODES = new Set([
  "SQLITE_CORRUPT",
  "SQLITE_CORRUPT_INDEX",
  "SQLITE_CORRUPT_SEQUENCE",
  "SQLITE_CORRUPT_VTAB",
]);

/** The DatabaseFileError an SQLite error on opening stands for, or the error itself. */
export function explainOpenError(path: string, error: unknown): unknown {
  const code = (error as { code?: unknown }).code;
  if (typeof code !== "string") return error;
  if (NOT_A_DATABASE_CODES.has(code)) {
    return new DatabaseFileError(
      "not_a_database",
      `${path} is not an SQLite database (${(error as Error).message}): ${RESTORE_HINT}`,
    );
  }
  if (CORRUPT_CODES.has(code)) {
    return new DatabaseFileError(
      "corrupt",
      `${path} is damaged: SQLite's integrity check failed (${(error as Error).message}): ${RESTORE_HINT}`,
    );
  }
  return error;
}

/** How many of quick_check's findings the message quotes. */
const PROBLEMS_QUOTED = 3;

/**
 * Runs `PRAGMA quick_check` (every page's structure, without comparing
 * indexes to tables: linear in the file's size, milliseconds for a game's
 * database) and throws DatabaseFileError("corrupt") unless it answers "ok".
 */
export function checkIntegrity(db: BetterSqlite3.Database, path: string): void {
  let findings: string[];
  try {
    findings = (db.pragma("quick_check") as Record<string, unknown>[]).map((row) => String(Object.values(row)[0]));
  } catch (error) {
    throw explainOpenError(path, error);
  }
  if (findings.length === 1 && findings[0] === "ok") return;
  const quoted = findings.slice(0, PROBLEMS_QUOTED).join("; ");
  const more = findings.length > PROBLEMS_QUOTED ? ` (and ${findings.length - PROBLEMS_QUOTED} more)` : "";
  throw new DatabaseFileError("corrupt", `${path} failed SQLite's integrity check: ${quoted}${more}: ${RESTORE_HINT}`);
}
