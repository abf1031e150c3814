// The notice boards' notices in the PostgreSQL store a cluster's processes share (the `notices` table of
// migration 0003, run by pg-migrate.ts): without it each region kept them in its own in-memory SQLite,
// so a notice was gone when its region restarted, and a board read in one region never showed what was
// pinned on it from another.
//
// The boards ask synchronously (interactables.ts: a board's dialog is built in the tick that opened
// it), so the store keeps a copy of every board's newest notices, read at start for the map's boards. A
// post goes into the copy at once and is written behind it (one statement: the row, and the board
// trimmed to its newest NOTICES_KEPT, as SQLite's store does); a board's opening also reads it again
// behind the copy, at most once every REFRESH_MS, so a notice pinned on the same board from another
// region shows from its next opening. A write that fails is logged and counted (`failures`): the notice
// still went out to everyone in chat; only its keeping is lost, as with SQLite on a full disk.
import type { Queryable } from "./pg-connection.js";
import type { Logger } from "../server/ops/log.js";
import { NOTICES_KEPT, type Notice, type NoticePort } from "../server/persistence/notice-store.js";

/** A board read again when opened at most this often. */
export const REFRESH_MS = 2_000;

export interface PgNoticeStats {
  /** Notices written, writes that failed, boards read again on opening. */
  writes: number;
  failures: number;
  refreshes: number;
}

const SELECT = "SELECT author, text, posted_at_ms FROM notices WHERE board = $1 ORDER BY id DESC LIMIT $2";

export class PgNoticeStore implements NoticePort {
  readonly stats: PgNoticeStats = { writes: 0, failures: 0, refreshes: 0 };
  private readonly boards = new Map<string, Notice[]>();
  private readonly readAtMs = new Map<string, number>();
  /** The writes and reads under way, so `flush` can wait for them. */
  private readonly pending = new Set<Promise<unknown>>();
  /** Per board: posts made here since its last read began (a read that started before them lacks them). */
  private readonly postedSince = new Map<string, Notice[]>();

  private constructor(
    private readonly client: Queryable,
    private readonly log: Logger,
  ) {}

  /** Connects the store on `client` (migrated) and reads the newest notices of `boards`. */
  static async open(client: Queryable, boards: readonly string[], log: Logger): Promise<PgNoticeStore> {
    const store = new PgNoticeStore(client, log);
    for (const board of new Set(boards)) store.boards.set(board, await store.read(board));
    return store;
  }

  post(board: string, notice: Notice): void {
    const held = this.boards.get(board) ?? [];
    this.boards.set(board, [notice, ...held].slice(0, NOTICES_KEPT));
    this.postedSince.get(board)?.push(notice);
    this.track(
      this.write(board, notice).then(
        () => this.stats.writes++,
        (error: unknown) => {
          this.stats.failures++;
          this.log.error("keeping a notice in the shared store failed", { board, error: String(error) });
        },
      ),
    );
  }

  recent(board: string, limit: number): Notice[] {
    this.refresh(board);
    return (this.boards.get(board) ?? []).slice(0, limit);
  }

  /** Waits for every write and read under way (before the connection closes). */
  async flush(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  private async write(board: string, notice: Notice): Promise<void> {
    // One statement, so atomic by itself on a connection other work shares: the row goes in and the board
    // keeps its newest NOTICES_KEPT (the new row is not in the statement's snapshot, so the older ones
    // kept are one fewer).
    await this.client.query(
      `WITH added AS (
         INSERT INTO notices (board, author, text, posted_at_ms) VALUES ($1, $2, $3, $4) RETURNING id
       )
       DELETE FROM notices WHERE board = $1
         AND id NOT IN (SELECT id FROM notices WHERE board = $1 ORDER BY id DESC LIMIT $5)`,
      [board, notice.author, notice.text, notice.postedAtMs, NOTICES_KEPT - 1],
    );
  }

  /** Reads `board` again behind its copy, unless it was read within REFRESH_MS. */
  private refresh(board: string): void {
    const nowMs = performance.now();
    const last = this.readAtMs.get(board);
    if (last !== undefined && nowMs - last < REFRESH_MS) return;
    this.readAtMs.set(board, nowMs);
    const since: Notice[] = [];
    this.postedSince.set(board, since);
    this.track(
      this.read(board).then(
        (notices) => {
          this.stats.refreshes++;
          if (this.postedSince.get(board) === since) this.postedSince.delete(board);
          // Posts made here while the read was under way may not be in it yet: they stay on top.
          const missing = since.filter((notice) => !notices.some((read) => sameNotice(read, notice)));
          this.boards.set(board, [...missing.reverse(), ...notices].slice(0, NOTICES_KEPT));
        },
        (error: unknown) => {
          if (this.postedSince.get(board) === since) this.postedSince.delete(board);
          this.log.warn("reading a notice board again failed", { board, error: String(error) });
        },
      ),
    );
  }

  private async read(board: string): Promise<Notice[]> {
    const rows = (
      await this.client.query<{ author: string; text: string; posted_at_ms: string }>(SELECT, [board, NOTICES_KEPT])
    ).rows;
    return rows.map((row) => ({ author: row.author, text: row.text, postedAtMs: Number(row.posted_at_ms) }));
  }

  private track(promise: Promise<unknown>): void {
    this.pending.add(promise);
    void promise.finally(() => this.pending.delete(promise));
  }
}

function sameNotice(a: Notice, b: Notice): boolean {
  return a.author === b.author && a.text === b.text && a.postedAtMs === b.postedAtMs;
}
