// A region's one connection to the shared PostgreSQL store (docs/scaling.md § Healing), which outlives
// the store going away. While the store is unreachable every statement is refused at once with
// StoreUnavailableError — so a durable change (an item moved, an account created, a login) is never
// answered as done before it is written — and the region plays on; a new connection is tried with
// backoff until one is made. The character leases were held on the connection that died (PostgreSQL
// freed them with it): before the new connection serves anything else, `reopened` takes them again
// there (pg-accounts.ts), so no save goes out on a connection that does not hold its lease. A link can
// die while its backend lives on (cut by the network or a proxy, the backend waiting on a lock or running a
// statement, so it does not notice): it would keep every lease, and the taking again would end each of
// those sessions as if another process had taken it. So the old backend is ended first (pg_terminate_backend,
// named by its pid and start time, so a pid reused after a server restart is never hit) and waited for. One
// log line when the store is lost, one when it is back.
//
// Every statement goes through one StatementQueue (pg-statements.ts): one at a time, a transaction with the
// connection to itself, and a transaction whose COMMIT's answer was lost looked up on the next connection.
import pg from "pg";
import type { Logger } from "../server/ops/log.js";
import { type Queryable, StatementQueue, type Transactional } from "./pg-statements.js";

export type { Queryable, Transactional } from "./pg-statements.js";

const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 5_000;
/** How long a new connection waits for the backend of the one lost to be gone before it takes the leases. */
const OLD_BACKEND_WAIT_MS = 5_000;
const OLD_BACKEND_POLL_MS = 50;

/** A backend, as PostgreSQL names it: its pid, and when it started (a pid alone may be reused). */
interface Backend {
  readonly pid: number;
  readonly startedAt: string;
}

export class PgConnection implements Transactional {
  /** Times the connection was lost, and made again. */
  readonly stats = { lost: 0, back: 0 };
  private client: pg.Client | null = null;
  private readonly statements = new StatementQueue(
    () => this.client,
    () => this.whenUp(),
  );
  /** Waiting for a connection to be made (again). */
  private waiters: { resolve: () => void; reject: (error: Error) => void }[] = [];
  private closing = false;
  private retryTimer: NodeJS.Timeout | null = null;
  /** Run on each new connection before it serves anything else (the leases taken again). */
  reopened: ((client: Queryable) => Promise<void>) | null = null;
  /** Each connection's backend; and the backend of the connection lost last, ended before the next serves. */
  private readonly backends = new WeakMap<pg.Client, Backend>();
  private lostBackend: Backend | null = null;

  constructor(
    private readonly url: string,
    private readonly log: Logger,
  ) {}

  /** The first connection: a region that cannot reach its store at start does not start. */
  async connect(): Promise<pg.Client> {
    const client = await this.open();
    this.client = client;
    return client;
  }

  /**
   * Connects now if it can, and otherwise keeps trying with backoff, never throwing: for a process that
   * serves without its store meanwhile (a gateway). Resolves after the first try, with whether it worked.
   */
  async connectWhenUp(): Promise<boolean> {
    try {
      const client = await this.open();
      if (this.closing) await client.end().catch(() => {});
      else this.client = client;
      return true;
    } catch {
      this.log.error("the shared store (PostgreSQL) is unreachable: trying again with backoff");
      if (!this.closing) this.retry(FIRST_RETRY_MS);
      return false;
    }
  }

  get up(): boolean {
    return this.client !== null;
  }

  /** Transactions whose COMMIT's answer was lost, and what PostgreSQL said of them. */
  get commits(): StatementQueue["stats"] {
    return this.statements.stats;
  }

  query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>> {
    return this.statements.query<R>(text, values);
  }

  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.statements.transaction(work);
  }

  async end(): Promise<void> {
    this.closing = true;
    for (const waiter of this.waiters.splice(0)) waiter.reject(new Error("the store connection is closed"));
    if (this.retryTimer !== null) clearTimeout(this.retryTimer);
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => {});
  }

  /** Resolves once a connection is up (at once if it is); rejects once the connection is closed for good. */
  private whenUp(): Promise<void> {
    if (this.client !== null) return Promise.resolve();
    if (this.closing) return Promise.reject(new Error("the store connection is closed"));
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  private async open(): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: this.url });
    client.on("error", () => this.lost(client));
    client.on("end", () => this.lost(client));
    await client.connect();
    try {
      const result = await client.query<{ pid: number; started_at: string }>(
        "SELECT pid, backend_start::text AS started_at FROM pg_stat_activity WHERE pid = pg_backend_pid()",
      );
      const row = result.rows[0];
      if (row !== undefined) this.backends.set(client, { pid: row.pid, startedAt: row.started_at });
    } catch (error) {
      await client.end().catch(() => {});
      throw error;
    }
    return client;
  }

  /**
   * Ends the backend of the connection lost last if it outlived its link, and waits (OLD_BACKEND_WAIT_MS at
   * most) until it is gone: it holds the leases, and a statement of it under way is rolled back or, a commit
   * under way, finishes first.
   */
  private async endLostBackend(client: pg.Client): Promise<void> {
    const old = this.lostBackend;
    if (old === null) return;
    const deadline = performance.now() + OLD_BACKEND_WAIT_MS;
    const same = "FROM pg_stat_activity WHERE pid = $1 AND backend_start::text = $2";
    await client.query(`SELECT pg_terminate_backend(pid) ${same}`, [old.pid, old.startedAt]);
    while ((await client.query(`SELECT 1 ${same}`, [old.pid, old.startedAt])).rows.length > 0) {
      if (performance.now() > deadline) {
        this.log.error("the backend of the connection lost outlives it: its leases are not free yet", {
          pid: old.pid,
        });
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, OLD_BACKEND_POLL_MS));
    }
    if (this.lostBackend === old) this.lostBackend = null;
  }

  private lost(client: pg.Client): void {
    if (this.client !== client || this.closing) return;
    this.client = null;
    this.lostBackend = this.backends.get(client) ?? null;
    this.stats.lost++;
    this.log.error(
      "the shared store (PostgreSQL) is unreachable: playing on, durable changes refused until it is back",
    );
    client.end().catch(() => {});
    this.retry(FIRST_RETRY_MS);
  }

  private retry(delayMs: number): void {
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      void this.reopen().then(
        (client) => {
          if (this.closing) return void client.end().catch(() => {});
          this.client = client;
          for (const waiter of this.waiters.splice(0)) waiter.resolve();
          this.stats.back++;
          this.log.warn("the shared store (PostgreSQL) is back");
        },
        () => {
          if (!this.closing) this.retry(Math.min(MAX_RETRY_MS, delayMs * 2));
        },
      );
    }, delayMs);
    this.retryTimer.unref();
  }

  /** A new connection, the leases taken again on it; rejects (and closes it) if any of that fails. */
  private async reopen(): Promise<pg.Client> {
    const client = await this.open();
    try {
      await this.endLostBackend(client);
      await this.reopened?.(client);
      return client;
    } catch (error) {
      await client.end().catch(() => {});
      throw error;
    }
  }
}
