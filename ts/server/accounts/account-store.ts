// The accounts table (docs/persistence.md § Schema): lookup by case-folded
// name, creation together with the account's character, bans.
import type Database from "better-sqlite3";
import { type CharacterState, CharacterStore } from "../persistence/character-store.js";
import { accountNameKey } from "./account-rules.js";

/** An account as an operator's search lists it. */
export interface AccountSummary {
  id: number;
  name: string;
  nick: string;
  createdAtMs: number;
  lastLoginAtMs: number | null;
  bannedReason: string | null;
  bannedUntilMs: number | null;
}

interface AccountSummaryRow {
  id: number;
  name: string;
  nick: string;
  created_at_ms: number;
  last_login_at_ms: number | null;
  banned_reason: string | null;
  banned_until_ms: number | null;
}

export interface AccountRecord {
  id: number;
  name: string;
  nick: string;
  passwordHash: string;
  /** Null when the account may play. */
  bannedReason: string | null;
  /** When a ban ends (ms since the epoch); null with a reason: for good. */
  bannedUntilMs: number | null;
  /** The character's chosen look (ts/appearance.ts), or null when it never chose one. */
  appearance: number | null;
}

/** The name (case-insensitively) belongs to another account. */
export class NameTakenError extends Error {}

interface AccountRow {
  id: number;
  name: string;
  nick: string;
  password_hash: string;
  banned_reason: string | null;
  banned_until_ms: number | null;
  appearance: number | null;
}

export class AccountStore {
  private readonly selectByKey: Database.Statement<[string], AccountRow>;
  private readonly insertAccount: Database.Statement;
  private readonly updateLogin: Database.Statement;
  private readonly updateBan: Database.Statement;
  private readonly updateAppearance: Database.Statement;
  private readonly createWithCharacter: (
    name: string,
    nick: string,
    passwordHash: string,
    character: CharacterState,
    nowMs: number,
    appearance: number | null,
  ) => number;

  constructor(
    private readonly db: Database.Database,
    characters: CharacterStore,
  ) {
    this.selectByKey = db.prepare<[string], AccountRow>(
      "SELECT id, name, nick, password_hash, banned_reason, banned_until_ms, appearance FROM accounts WHERE name_key = ?",
    );
    this.insertAccount = db.prepare(
      "INSERT INTO accounts (name, name_key, nick, password_hash, created_at_ms, appearance) VALUES (?, ?, ?, ?, ?, ?)",
    );
    this.updateLogin = db.prepare("UPDATE accounts SET last_login_at_ms = ? WHERE id = ?");
    this.updateBan = db.prepare("UPDATE accounts SET banned_reason = ?, banned_until_ms = ? WHERE name_key = ?");
    this.updateAppearance = db.prepare("UPDATE accounts SET appearance = ? WHERE id = ?");
    this.createWithCharacter = db.transaction((name, nick, passwordHash, character, nowMs, appearance) => {
      const key = accountNameKey(name);
      const id = Number(this.insertAccount.run(name, key, nick, passwordHash, nowMs, appearance).lastInsertRowid);
      characters.create(id, character, nowMs);
      return id;
    });
  }

  findByName(name: string): AccountRecord | undefined {
    const row = this.selectByKey.get(accountNameKey(name));
    return (
      row && {
        id: row.id,
        name: row.name,
        nick: row.nick,
        passwordHash: row.password_hash,
        bannedReason: row.banned_reason,
        bannedUntilMs: row.banned_until_ms,
        appearance: row.appearance,
      }
    );
  }

  /** Keeps the look the account's character chose (at registration, or at a login that chose anew). */
  setAppearance(accountId: number, appearance: number): void {
    this.updateAppearance.run(appearance, accountId);
  }

  /** Creates the account and its character in one transaction; throws NameTakenError when the name is taken. */
  create(
    name: string,
    nick: string,
    passwordHash: string,
    character: CharacterState,
    nowMs: number,
    appearance: number | null = null,
  ): AccountRecord {
    try {
      const id = this.createWithCharacter(name, nick, passwordHash, character, nowMs, appearance);
      return { id, name, nick, passwordHash, bannedReason: null, bannedUntilMs: null, appearance };
    } catch (error) {
      if ((error as { code?: string }).code === "SQLITE_CONSTRAINT_UNIQUE") {
        throw new NameTakenError(`name "${name}" is taken`);
      }
      throw error;
    }
  }

  recordLogin(accountId: number, nowMs: number): void {
    this.updateLogin.run(nowMs, accountId);
  }

  /** Bans (reason, until untilMs or for good) or unbans (null) an account by name; false when there is no such account. */
  setBan(name: string, reason: string | null, untilMs: number | null = null): boolean {
    return this.updateBan.run(reason, reason === null ? null : untilMs, accountNameKey(name)).changes > 0;
  }

  /**
   * Accounts whose name or nick holds `query` (any case; every account without one), the most recently
   * logged in (or, never logged in since, registered) first, at most `limit`: the operators' console's
   * search (admin/admin-service.ts).
   */
  search(query: string, limit: number): AccountSummary[] {
    const pattern = `%${query.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    return this.db
      .prepare<[string, string, number], AccountSummaryRow>(
        "SELECT id, name, nick, created_at_ms, last_login_at_ms, banned_reason, banned_until_ms FROM accounts " +
          "WHERE name_key LIKE ? ESCAPE '\\' OR lower(nick) LIKE ? ESCAPE '\\' " +
          "ORDER BY coalesce(last_login_at_ms, created_at_ms) DESC, id DESC LIMIT ?",
      )
      .all(pattern, pattern, limit)
      .map((row) => ({
        id: row.id,
        name: row.name,
        nick: row.nick,
        createdAtMs: row.created_at_ms,
        lastLoginAtMs: row.last_login_at_ms,
        bannedReason: row.banned_reason,
        bannedUntilMs: row.banned_until_ms,
      }));
  }

  /** The name of account `accountId`, if it exists. */
  nameOf(accountId: number): string | undefined {
    const row = this.db.prepare<[number], { name: string }>("SELECT name FROM accounts WHERE id = ?").get(accountId);
    return row?.name;
  }

  get size(): number {
    return (this.db.prepare("SELECT count(*) AS n FROM accounts").get() as { n: number }).n;
  }
}
