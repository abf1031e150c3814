// A PostgreSQL of a describe block's own (the stores' tests on a real server): started and migrated before its
// tests, every client it handed out ended and the server stopped after them. Call it inside the block, which
// is skipped where postgresSkipReason() says PostgreSQL cannot run here.
import pg from "pg";
import { afterAll, beforeAll } from "vitest";
import { migratePostgres } from "../../ts/cluster/pg-migrate.js";
import { type PostgresProcess, startPostgres } from "../../ts/cluster/postgres-process.js";
import { loadMigrations } from "../../ts/server/persistence/migrate.js";

export interface PostgresRig {
  /** A new connection to the migrated database, ended after the block's tests. */
  connect(): Promise<pg.Client>;
  /** The server's address (postgres://…), once started. */
  url(): string;
}

export function usePostgres(): PostgresRig {
  let server: PostgresProcess;
  const clients: pg.Client[] = [];
  const connect = async (): Promise<pg.Client> => {
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    clients.push(client);
    return client;
  };
  beforeAll(async () => {
    server = await startPostgres();
    await migratePostgres(await connect(), loadMigrations());
  }, 90_000);
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.end().catch(() => {})));
    server?.stop();
  }, 30_000);
  return { connect, url: () => server.url };
}
