// The statements a process sends on one PostgreSQL connection, one at a time, in the order they were asked
// for — and transactions that have the connection to themselves while they run. Everything on a region's
// connection (saves, lease releases, item and social changes) shares it, and a transaction's statements
// are awaited one by one: so no other statement can fall inside a transaction, and the pg client never
// holds a queue of its own (which pg deprecates: "client.query() while executing").
//
// A transaction whose COMMIT went out and was never answered — the connection died on the way — may have
// committed or not. Its outcome is looked up rather than guessed (`transaction`): each transaction notes
// its transaction id first, and once a connection is up again PostgreSQL says whether that id committed
// (pg_xact_status). A transaction still in progress there lives on in a backend that outlived the link; it
// is ended (pg_terminate_backend: a commit under way finishes first) and asked again. So a caller hears
// "written" exactly when the store holds the change.
import type pg from "pg";
import { StoreUnavailableError } from "../server/persistence/store-unavailable.js";

/** What the stores on a connection send statements through. */
export interface Queryable {
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>>;
}

/** A connection that also runs transactions (StatementQueue, and PgConnection through one). */
export interface Transactional extends Queryable {
  /**
   * Runs `work` between BEGIN and COMMIT with the connection to itself (`tx` sends its statements) and
   * resolves with its result once committed; rejects, nothing written, when a statement or `work` failed
   * (rolled back), or when the COMMIT's answer was lost and PostgreSQL says it did not commit.
   */
  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
}

/** How long a lost COMMIT's transaction may stay in progress (its backend being ended) before giving up. */
const IN_PROGRESS_LIMIT_MS = 30_000;
const IN_PROGRESS_POLL_MS = 50;

/** Which transaction a lost COMMIT was for: its id (xid8, as text) and the backend that ran it. */
interface LostCommit {
  readonly xid: string;
  readonly pid: number;
}

export class StatementQueue implements Transactional {
  /** Transactions whose COMMIT's answer was lost, and what their lookup found. */
  readonly stats = { commitsLost: 0, foundCommitted: 0, foundAborted: 0 };
  /** The last statement or transaction asked for: the next one starts once it ended. */
  private tail: Promise<unknown> = Promise.resolve();

  constructor(
    /** The connection now (null: none, while a lost one is being made again). */
    private readonly current: () => pg.Client | null,
    /** Resolves once a connection is up: where a lost COMMIT's outcome is asked (rejects: never again). */
    private readonly connected: () => Promise<void> = () => Promise.resolve(),
  ) {}

  /** A queue over one client that is never replaced (a test's, a tool's). */
  static over(client: pg.Client): StatementQueue {
    return new StatementQueue(() => client);
  }

  query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>> {
    return this.exclusive(() => this.send<R>(this.current(), text, values));
  }

  async transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    type Done = { result: T; lost: null } | { result: T; lost: LostCommit; error: unknown };
    const done = await this.exclusive(async (): Promise<Done> => {
      const client = this.current();
      const tx: Queryable = { query: (text, values) => this.send(client, text, values) };
      await tx.query("BEGIN");
      let result: T;
      let id: LostCommit;
      try {
        const noted = await tx.query<{ xid: string; pid: number }>(
          "SELECT pg_current_xact_id()::text AS xid, pg_backend_pid() AS pid",
        );
        id = noted.rows[0];
        result = await work(tx);
      } catch (error) {
        // Rolled back (a dead connection's transaction went with it): nothing was written.
        await tx.query("ROLLBACK").catch(() => {});
        throw error;
      }
      try {
        await tx.query("COMMIT");
        return { result, lost: null };
      } catch (error) {
        // Whatever the COMMIT's answer was (an error, or none before the link died), the store knows.
        return { result, lost: id, error: this.current() === client ? error : new StoreUnavailableError() };
      }
    });
    if (done.lost === null) return done.result;
    this.stats.commitsLost++;
    if (await this.committed(done.lost)) {
      this.stats.foundCommitted++;
      return done.result;
    }
    this.stats.foundAborted++;
    throw done.error;
  }

  /** Whether the transaction of a lost COMMIT committed, asked once a connection is up (again). */
  private async committed(lost: LostCommit): Promise<boolean> {
    const deadline = performance.now() + IN_PROGRESS_LIMIT_MS;
    for (;;) {
      await this.connected();
      try {
        const result = await this.query<{ status: string | null }>("SELECT pg_xact_status($1::xid8) AS status", [
          lost.xid,
        ]);
        const status = result.rows[0].status;
        if (status === "committed") return true;
        if (status === "aborted") return false;
        if (status !== "in progress" || performance.now() > deadline)
          throw new Error(`the outcome of transaction ${lost.xid} cannot be known (${String(status)})`);
        // Its backend outlived the link (its transaction live, so the pid is still its own): ended, it
        // either finishes the commit under way or rolls back.
        await this.query("SELECT pg_terminate_backend($1)", [lost.pid]);
        await new Promise((resolve) => setTimeout(resolve, IN_PROGRESS_POLL_MS));
      } catch (error) {
        // The connection went again before it answered: asked again on the next.
        if (!(error instanceof StoreUnavailableError)) throw error;
      }
    }
  }

  /** Runs `work` once everything asked before it has ended; nothing asked after starts before it ends. */
  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.tail.then(work, work);
    this.tail = run.catch(() => {});
    return run;
  }

  /** One statement on `client`; a failure because that connection is gone is said as the store unavailable. */
  private send<R extends pg.QueryResultRow>(
    client: pg.Client | null,
    text: string,
    values?: unknown[],
  ): Promise<pg.QueryResult<R>> {
    if (client === null || client !== this.current()) return Promise.reject(new StoreUnavailableError());
    return client.query<R>(text, values).catch((error: unknown) => {
      if (this.current() !== client) throw new StoreUnavailableError();
      throw error;
    });
  }
}
