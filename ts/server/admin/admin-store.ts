// The admin tables (migration 0002-admin.sql): address bans with an expiry,
// and the log of every admin action. Account bans live on the account row
// (AccountStore.setBan), where login already reads them.
import type Database from "better-sqlite3";

export interface AddressBan {
  /** The per-address key (address-key.ts): an IPv4 address or an IPv6 /64. */
  address: string;
  reason: string;
  createdAtMs: number;
  /** Null: for good. */
  untilMs: number | null;
}

export interface AdminLogEntry {
  id: number;
  atMs: number;
  action: string;
  detail: Record<string, unknown>;
}

interface AddressBanRow {
  address: string;
  reason: string;
  created_at_ms: number;
  until_ms: number | null;
}

export class AdminStore {
  /** The active and expired address bans, by key: read once, so a join's check touches no disk. */
  private readonly addressBans = new Map<string, AddressBan>();
  private readonly upsertBan: Database.Statement;
  private readonly deleteBan: Database.Statement;
  private readonly insertLog: Database.Statement;
  private readonly selectLog: Database.Statement<
    [number],
    { id: number; at_ms: number; action: string; detail: string }
  >;

  constructor(db: Database.Database) {
    for (const row of db
      .prepare<[], AddressBanRow>("SELECT address, reason, created_at_ms, until_ms FROM address_bans")
      .all()) {
      this.addressBans.set(row.address, {
        address: row.address,
        reason: row.reason,
        createdAtMs: row.created_at_ms,
        untilMs: row.until_ms,
      });
    }
    this.upsertBan = db.prepare(
      "INSERT INTO address_bans (address, reason, created_at_ms, until_ms) VALUES (?, ?, ?, ?) " +
        "ON CONFLICT (address) DO UPDATE SET reason = excluded.reason, created_at_ms = excluded.created_at_ms, until_ms = excluded.until_ms",
    );
    this.deleteBan = db.prepare("DELETE FROM address_bans WHERE address = ?");
    this.insertLog = db.prepare("INSERT INTO admin_log (at_ms, action, detail) VALUES (?, ?, ?)");
    this.selectLog = db.prepare("SELECT id, at_ms, action, detail FROM admin_log ORDER BY id DESC LIMIT ?");
  }

  banAddress(ban: AddressBan): void {
    this.upsertBan.run(ban.address, ban.reason, ban.createdAtMs, ban.untilMs);
    this.addressBans.set(ban.address, { ...ban });
  }

  /** Lifts the ban of `address` (a key); false when there was none. */
  unbanAddress(address: string): boolean {
    this.deleteBan.run(address);
    return this.addressBans.delete(address);
  }

  /** The ban on `address` (a key) in force at `nowMs`, if any. */
  addressBan(address: string, nowMs: number): AddressBan | null {
    const ban = this.addressBans.get(address);
    return ban !== undefined && (ban.untilMs === null || ban.untilMs > nowMs) ? ban : null;
  }

  /** The address bans in force at `nowMs`. */
  activeAddressBans(nowMs: number): AddressBan[] {
    return [...this.addressBans.values()].filter((ban) => ban.untilMs === null || ban.untilMs > nowMs);
  }

  log(atMs: number, action: string, detail: Record<string, unknown>): void {
    this.insertLog.run(atMs, action, JSON.stringify(detail));
  }

  /** The newest `limit` admin actions, newest first. */
  recent(limit: number): AdminLogEntry[] {
    return this.selectLog.all(limit).map((row) => ({
      id: row.id,
      atMs: row.at_ms,
      action: row.action,
      detail: JSON.parse(row.detail) as Record<string, unknown>,
    }));
  }
}
