// The known addresses of accounts in SQLite (migration 0008, known-addresses.ts):
// each account's last LOGIN_ADDRESSES_KEPT sources, so a restart does not make
// an owner a stranger to the login limits while someone guesses at its name.
import type Database from "better-sqlite3";
import type { KnownAddressStore } from "./known-addresses.js";

/** Addresses kept per account; a new one beyond it replaces the longest unused. */
export const LOGIN_ADDRESSES_KEPT = 8;

interface Pair {
  account: string;
  address: string;
}

export class LoginAddressStore implements KnownAddressStore {
  private readonly selectOne: Database.Statement<[Pair]>;
  private readonly remember: (pair: Pair & { nowMs: number; kept: number }) => void;

  constructor(db: Database.Database) {
    this.selectOne = db.prepare<[Pair]>(
      `SELECT 1 FROM login_addresses JOIN accounts ON accounts.id = login_addresses.account_id
       WHERE accounts.name_key = @account AND login_addresses.address = @address`,
    );
    // The account is found by its name key in the statement itself: nothing is written for a name without one.
    const upsert = db.prepare<[Pair & { nowMs: number }]>(
      `INSERT INTO login_addresses (account_id, address, last_login_at_ms)
       SELECT id, @address, @nowMs FROM accounts WHERE name_key = @account
       ON CONFLICT (account_id, address) DO UPDATE SET last_login_at_ms = excluded.last_login_at_ms`,
    );
    const trim = db.prepare<[{ account: string; kept: number }]>(
      `DELETE FROM login_addresses
       WHERE account_id = (SELECT id FROM accounts WHERE name_key = @account)
         AND address NOT IN (
           SELECT address FROM login_addresses
           WHERE account_id = (SELECT id FROM accounts WHERE name_key = @account)
           ORDER BY last_login_at_ms DESC, address LIMIT @kept)`,
    );
    this.remember = db.transaction((pair: Pair & { nowMs: number; kept: number }) => {
      upsert.run({ account: pair.account, address: pair.address, nowMs: pair.nowMs });
      trim.run({ account: pair.account, kept: pair.kept });
    });
  }

  has(accountKey: string, address: string): boolean {
    return this.selectOne.get({ account: accountKey, address }) !== undefined;
  }

  add(accountKey: string, address: string, nowMs: number): void {
    this.remember({ account: accountKey, address, nowMs, kept: LOGIN_ADDRESSES_KEPT });
  }
}
