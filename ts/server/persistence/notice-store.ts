// The notice boards' notices in SQLite (migration 0003-notices.sql): pinned by
// players, shown newest first to whoever reads the board next, kept across
// restarts. A board keeps its newest NOTICES_KEPT; older ones are deleted as new
// ones come, so a board spammed for a year is still a small table.
import type Database from "better-sqlite3";

/** Notices a board keeps (its dialog shows as many of the newest as fit). */
export const NOTICES_KEPT = 50;

export interface Notice {
  author: string;
  text: string;
  postedAtMs: number;
}

/** What the notice boards use of a store: SQLite's (below), or a cluster's shared one (ts/cluster/pg-notices.ts). */
export interface NoticePort {
  /** Keeps a notice (a failure throws, or is logged by a store that writes later: the notice still goes out). */
  post(board: string, notice: Notice): void;
  /** The newest `limit` notices of `board`, newest first. */
  recent(board: string, limit: number): Notice[];
}

export class NoticeStore implements NoticePort {
  private readonly insert: Database.Statement;
  private readonly trim: Database.Statement;
  private readonly select: Database.Statement<[string, number], { author: string; text: string; posted_at_ms: number }>;

  constructor(db: Database.Database) {
    this.insert = db.prepare("INSERT INTO notices (board, author, text, posted_at_ms) VALUES (?, ?, ?, ?)");
    this.trim = db.prepare(
      "DELETE FROM notices WHERE board = ? AND id NOT IN (SELECT id FROM notices WHERE board = ? ORDER BY id DESC LIMIT ?)",
    );
    this.select = db.prepare("SELECT author, text, posted_at_ms FROM notices WHERE board = ? ORDER BY id DESC LIMIT ?");
  }

  post(board: string, notice: Notice): void {
    this.insert.run(board, notice.author, notice.text, notice.postedAtMs);
    this.trim.run(board, board, NOTICES_KEPT);
  }

  /** The newest `limit` notices of `board`, newest first. */
  recent(board: string, limit: number): Notice[] {
    return this.select
      .all(board, limit)
      .map((row) => ({ author: row.author, text: row.text, postedAtMs: row.posted_at_ms }));
  }
}
