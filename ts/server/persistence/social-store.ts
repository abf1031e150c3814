// Friends, ignores and waiting private lines in SQLite (migration 0009-social.sql, docs/social.md). All
// by account: a guest has no row here (its ignores live with its session, social/social-room.ts). Every
// list is bounded per account, so no player can grow the database without limit.
import type Database from "better-sqlite3";

/** Friends one account keeps, accounts it ignores, and lines waiting for it. */
export const MAX_FRIENDS = 100;
export const MAX_IGNORES = 100;
export const MAX_MAIL_PER_RECIPIENT = 20;

/** Another account as a list shows it: by its id and its nick now. */
export interface AccountRef {
  readonly accountId: number;
  readonly nick: string;
}

/** A private line that waits for its recipient. */
export interface WaitingLine {
  readonly id: number;
  readonly fromAccount: number;
  readonly fromNick: string;
  readonly text: string;
  readonly sentAtMs: number;
}

export type AddOutcome = "added" | "already" | "full";

/** What putMail did: stored, refused because MAX_MAIL_PER_RECIPIENT wait already, or because the recipient ignores the sender. */
export type MailOutcome = "stored" | "full" | "ignored";

/** An answer now (SQLite, in the same turn) or later (a cluster's PostgreSQL, once written or read). */
export type Answer<T> = T | Promise<T>;

/** What the social room keeps of an account while its player plays: read once, when it starts playing. */
export interface SocialBook {
  readonly friends: AccountRef[];
  readonly ignores: AccountRef[];
  readonly mail: WaitingLine[];
}

/**
 * What the social room uses of a store: one process's SQLite answers in the same turn, a cluster's shared
 * PostgreSQL (ts/cluster/pg-social.ts) once written. Either way a change is written before it is answered,
 * and the rules that need two accounts' rows at once (a bound, an ignore of the sender) are the store's, in
 * one transaction, so two regions cannot both take the last place.
 */
export interface SocialStorePort {
  /** An account's friends, ignores and waiting lines. */
  bookOf(accountId: number): Answer<SocialBook>;
  addFriend(accountId: number, friendId: number, nowMs: number): Answer<AddOutcome>;
  removeFriend(accountId: number, friendId: number): Answer<boolean>;
  addIgnore(accountId: number, ignoredId: number, nowMs: number): Answer<AddOutcome>;
  removeIgnore(accountId: number, ignoredId: number): Answer<boolean>;
  /** Stores a line for `to`, unless `to` ignores `from` or MAX_MAIL_PER_RECIPIENT wait already (nothing stored). */
  putMail(to: number, from: number, fromNick: string, text: string, nowMs: number): Answer<MailOutcome>;
  /** Deletes delivered lines of `to` (ids of other recipients are left alone). */
  deleteMail(to: number, ids: readonly number[]): Answer<void>;
}

export class SocialStore implements SocialStorePort {
  private readonly statements;
  private readonly putMailTx: (to: number, from: number, fromNick: string, text: string, nowMs: number) => MailOutcome;
  private readonly addPair: (table: "friends" | "ignores", a: number, b: number, nowMs: number) => AddOutcome;

  constructor(db: Database.Database) {
    const s = {
      friends: db.prepare<[number], AccountRef>(
        "SELECT a.id AS accountId, a.nick AS nick FROM friends f JOIN accounts a ON a.id = f.friend_id " +
          "WHERE f.account_id = ? ORDER BY a.nick COLLATE NOCASE, a.id",
      ),
      ignoresList: db.prepare<[number], AccountRef>(
        "SELECT a.id AS accountId, a.nick AS nick FROM ignores i JOIN accounts a ON a.id = i.ignored_id " +
          "WHERE i.account_id = ? ORDER BY a.nick COLLATE NOCASE, a.id",
      ),
      ignoresOne: db.prepare<[number, number], { one: number }>(
        "SELECT 1 AS one FROM ignores WHERE account_id = ? AND ignored_id = ?",
      ),
      count: {
        friends: db.prepare<[number], { n: number }>("SELECT count(*) AS n FROM friends WHERE account_id = ?"),
        ignores: db.prepare<[number], { n: number }>("SELECT count(*) AS n FROM ignores WHERE account_id = ?"),
      },
      exists: {
        friends: db.prepare<[number, number], { one: number }>(
          "SELECT 1 AS one FROM friends WHERE account_id = ? AND friend_id = ?",
        ),
        ignores: db.prepare<[number, number], { one: number }>(
          "SELECT 1 AS one FROM ignores WHERE account_id = ? AND ignored_id = ?",
        ),
      },
      insert: {
        friends: db.prepare("INSERT INTO friends (account_id, friend_id, added_at_ms) VALUES (?, ?, ?)"),
        ignores: db.prepare("INSERT INTO ignores (account_id, ignored_id, added_at_ms) VALUES (?, ?, ?)"),
      },
      remove: {
        friends: db.prepare("DELETE FROM friends WHERE account_id = ? AND friend_id = ?"),
        ignores: db.prepare("DELETE FROM ignores WHERE account_id = ? AND ignored_id = ?"),
      },
      mailCount: db.prepare<[number], { n: number }>("SELECT count(*) AS n FROM mail WHERE to_account = ?"),
      mailInsert: db.prepare(
        "INSERT INTO mail (to_account, from_account, from_nick, text, sent_at_ms) VALUES (?, ?, ?, ?, ?)",
      ),
      mailFor: db.prepare<[number], WaitingLine>(
        "SELECT id, from_account AS fromAccount, from_nick AS fromNick, text, sent_at_ms AS sentAtMs " +
          "FROM mail WHERE to_account = ? ORDER BY id",
      ),
      mailDelete: db.prepare("DELETE FROM mail WHERE to_account = ? AND id = ?"),
    };
    this.statements = s;
    // Check and insert in one transaction: two lines at once cannot both take the last place.
    this.putMailTx = db.transaction(
      (to: number, from: number, fromNick: string, text: string, nowMs: number): MailOutcome => {
        if (s.ignoresOne.get(to, from) !== undefined) return "ignored";
        if (s.mailCount.get(to)!.n >= MAX_MAIL_PER_RECIPIENT) return "full";
        s.mailInsert.run(to, from, fromNick, text, nowMs);
        return "stored";
      },
    );
    this.addPair = db.transaction((table: "friends" | "ignores", a: number, b: number, nowMs: number): AddOutcome => {
      if (s.exists[table].get(a, b) !== undefined) return "already";
      if (s.count[table].get(a)!.n >= (table === "friends" ? MAX_FRIENDS : MAX_IGNORES)) return "full";
      s.insert[table].run(a, b, nowMs);
      return "added";
    });
  }

  bookOf(accountId: number): SocialBook {
    return { friends: this.friendsOf(accountId), ignores: this.ignoresOf(accountId), mail: this.mailFor(accountId) };
  }

  friendsOf(accountId: number): AccountRef[] {
    return this.statements.friends.all(accountId);
  }

  addFriend(accountId: number, friendId: number, nowMs: number): AddOutcome {
    return this.addPair("friends", accountId, friendId, nowMs);
  }

  removeFriend(accountId: number, friendId: number): boolean {
    return this.statements.remove.friends.run(accountId, friendId).changes > 0;
  }

  ignoresOf(accountId: number): AccountRef[] {
    return this.statements.ignoresList.all(accountId);
  }

  addIgnore(accountId: number, ignoredId: number, nowMs: number): AddOutcome {
    return this.addPair("ignores", accountId, ignoredId, nowMs);
  }

  removeIgnore(accountId: number, ignoredId: number): boolean {
    return this.statements.remove.ignores.run(accountId, ignoredId).changes > 0;
  }

  ignores(accountId: number, otherId: number): boolean {
    return this.statements.ignoresOne.get(accountId, otherId) !== undefined;
  }

  putMail(to: number, from: number, fromNick: string, text: string, nowMs: number): MailOutcome {
    return this.putMailTx(to, from, fromNick, text, nowMs);
  }

  mailFor(to: number): WaitingLine[] {
    return this.statements.mailFor.all(to);
  }

  deleteMail(to: number, ids: readonly number[]): void {
    for (const id of ids) this.statements.mailDelete.run(to, id);
  }
}
