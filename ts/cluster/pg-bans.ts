// Bans in the PostgreSQL store a cluster's processes share (docs/scaling.md § Bans in a cluster): an
// account's ban on its row of `accounts` (where every region's login reads it), an address's in
// `address_bans` (migration 0002, the table one process keeps in SQLite). What a ban means — whose, until
// when, the words a refusal says — is decided by the one process's rules (server/admin/admin-service.ts);
// this file only keeps it. The regions write here; every gateway reads the address bans in force again
// and again (AddressBanWatch), so a ban made through any gateway is refused at all of them, also after a
// gateway's restart.
import type { AddressBan } from "../server/admin/admin-store.js";
import { accountNameKey } from "../server/accounts/account-rules.js";
import type { Logger } from "../server/ops/log.js";
import type { Queryable } from "./pg-connection.js";

interface AddressBanRow {
  address: string;
  reason: string;
  created_at_ms: string;
  until_ms: string | null;
}

export class PgBans {
  constructor(private readonly client: Queryable) {}

  /**
   * Bans the account `name` (reason, until `untilMs` or for good) or lifts its ban (reason null); its id,
   * or null when there is no such account.
   */
  async setAccountBan(name: string, reason: string | null, untilMs: number | null): Promise<number | null> {
    const result = await this.client.query<{ id: string }>(
      "UPDATE accounts SET banned_reason = $1, banned_until_ms = $2 WHERE name_key = $3 RETURNING id",
      [reason, reason === null ? null : untilMs, accountNameKey(name)],
    );
    return result.rows.length === 0 ? null : Number(result.rows[0].id);
  }

  /** The ban fields of account `accountId`'s row (null: no such account). */
  async accountBanOf(accountId: number): Promise<{ bannedReason: string | null; bannedUntilMs: number | null } | null> {
    const result = await this.client.query<{ banned_reason: string | null; banned_until_ms: string | null }>(
      "SELECT banned_reason, banned_until_ms FROM accounts WHERE id = $1",
      [accountId],
    );
    const row = result.rows[0];
    if (row === undefined) return null;
    return {
      bannedReason: row.banned_reason,
      bannedUntilMs: row.banned_until_ms === null ? null : Number(row.banned_until_ms),
    };
  }

  /** Keeps `ban` (a later ban of the same address replaces it). */
  async banAddress(ban: AddressBan): Promise<void> {
    await this.client.query(
      "INSERT INTO address_bans (address, reason, created_at_ms, until_ms) VALUES ($1, $2, $3, $4) " +
        "ON CONFLICT (address) DO UPDATE SET reason = excluded.reason, created_at_ms = excluded.created_at_ms, " +
        "until_ms = excluded.until_ms",
      [ban.address, ban.reason, ban.createdAtMs, ban.untilMs],
    );
  }

  /** Lifts the ban of `address` (a key); false when there was none. */
  async unbanAddress(address: string): Promise<boolean> {
    const result = await this.client.query("DELETE FROM address_bans WHERE address = $1", [address]);
    return (result.rowCount ?? 0) > 0;
  }

  /** The address bans in force at `nowMs`, oldest first. */
  async addressBansInForce(nowMs: number): Promise<AddressBan[]> {
    const result = await this.client.query<AddressBanRow>(
      "SELECT address, reason, created_at_ms, until_ms FROM address_bans " +
        "WHERE until_ms IS NULL OR until_ms > $1 ORDER BY created_at_ms, address",
      [nowMs],
    );
    return result.rows.map(addressBanOf);
  }

  /** The ban on `address` (a key) in force at `nowMs`, if any. */
  async addressBan(address: string, nowMs: number): Promise<AddressBan | null> {
    const result = await this.client.query<AddressBanRow>(
      "SELECT address, reason, created_at_ms, until_ms FROM address_bans " +
        "WHERE address = $1 AND (until_ms IS NULL OR until_ms > $2)",
      [address, nowMs],
    );
    return result.rows.length === 0 ? null : addressBanOf(result.rows[0]);
  }
}

function addressBanOf(row: AddressBanRow): AddressBan {
  return {
    address: row.address,
    reason: row.reason,
    createdAtMs: Number(row.created_at_ms),
    untilMs: row.until_ms === null ? null : Number(row.until_ms),
  };
}

/** How often a gateway reads the address bans again: a ban made anywhere is refused here within this. */
export const ADDRESS_BANS_REREAD_MS = 1_000;

/**
 * A gateway's copy of the address bans in force, read again every ADDRESS_BANS_REREAD_MS (and at once
 * when asked: a ban made through this gateway), answering a join's check without waiting on the store.
 * While the store is unreachable the last copy read stays in force; one log line when a read first fails,
 * one when reads work again.
 */
export class AddressBanWatch {
  readonly stats = { reads: 0, failures: 0 };
  private bans = new Map<string, AddressBan>();
  private timer: NodeJS.Timeout | null = null;
  /** The last read asked for: reads run one after another. */
  private queue: Promise<void> = Promise.resolve();
  private busy = false;
  private failing = false;

  constructor(
    private readonly store: Pick<PgBans, "addressBansInForce">,
    private readonly log: Logger,
  ) {}

  /** Reads the bans once (a gateway starts once they are read, or the store is found down), then keeps reading. */
  async start(): Promise<void> {
    await this.reread();
    // A read that hangs (the store's host unreachable) is not piled upon: the timer skips while one is out.
    this.timer = setInterval(() => {
      if (!this.busy) void this.reread();
    }, ADDRESS_BANS_REREAD_MS);
    this.timer.unref();
  }

  /** The ban on `address` (a key) in force at `nowMs`, if any (AdminStore.addressBan's question). */
  addressBan(address: string, nowMs: number): AddressBan | null {
    const ban = this.bans.get(address);
    return ban !== undefined && (ban.untilMs === null || ban.untilMs > nowMs) ? ban : null;
  }

  /** How many address bans the copy holds. */
  get size(): number {
    return this.bans.size;
  }

  /** Reads the bans again, starting after any read under way (so what changed before the call is seen). */
  reread(): Promise<void> {
    const read = this.queue.then(() => this.readOnce());
    this.queue = read;
    return read;
  }

  stop(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }

  private async readOnce(): Promise<void> {
    this.busy = true;
    try {
      const bans = await this.store.addressBansInForce(Date.now());
      this.bans = new Map(bans.map((ban) => [ban.address, ban]));
      this.stats.reads++;
      if (this.failing) this.log.warn("address bans read again from the shared store");
      this.failing = false;
    } catch (error) {
      this.stats.failures++;
      if (!this.failing) {
        this.log.error("address bans cannot be read from the shared store: the last ones read stay in force", {
          error: String(error),
        });
      }
      this.failing = true;
    } finally {
      this.busy = false;
    }
  }
}
