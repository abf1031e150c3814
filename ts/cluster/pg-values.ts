// The scripts' world values (a shop's stock: docs/content.md § Shops) in the PostgreSQL store a cluster's
// processes share, in the table SQLite uses (migration 0007, world_values). A script reads them when a
// shop is first defined, synchronously, so a region reads its world's values once at start and answers
// from memory; the shop keeps its own count from then on (scripting/shops.ts). A unit sold leaves the
// stored stock in the sale's own transaction (ItemWrite.content, pg-items.ts); a value set outside an
// item change (a restocked unit) is written behind, as this process's SQLite would keep it. A shop is
// run by the region holding its merchant; two regions selling the same ware would each count their own.
import type { Logger } from "../server/ops/log.js";
import type { WorldValuesPort } from "../server/persistence/quest-store.js";
import type { Queryable } from "./pg-connection.js";
import { UPSERT_VALUE } from "./pg-items.js";

export class PgWorldValues implements WorldValuesPort {
  private constructor(
    private readonly client: Queryable,
    private readonly world: string,
    private readonly values: Map<string, unknown>,
    private readonly log: Logger,
  ) {}

  /** Reads every value of `world`. */
  static async open(client: Queryable, world: string, log: Logger): Promise<PgWorldValues> {
    const result = await client.query<{ key: string; value: string }>(
      "SELECT key, value FROM world_values WHERE world = $1 ORDER BY key",
      [world],
    );
    const values = new Map<string, unknown>();
    for (const row of result.rows) {
      try {
        values.set(row.key, JSON.parse(row.value) as unknown);
      } catch {
        log.warn("a world value that is not JSON is skipped", { world, key: row.key });
      }
    }
    return new PgWorldValues(client, world, values, log);
  }

  get(key: string): unknown {
    return this.values.get(key);
  }

  /** Keeps `value` here at once and writes it behind (a failure is logged: the value holds until a restart). */
  set(key: string, value: unknown): void {
    this.values.set(key, value);
    this.client.query(UPSERT_VALUE, [this.world, key, JSON.stringify(value)]).catch((error: unknown) => {
      this.log.warn("a world value was not written", { world: this.world, key, error: String(error) });
    });
  }
}
