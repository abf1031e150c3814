// Friends, ignores and waiting private lines in the PostgreSQL store a cluster's processes share (the
// tables of migration 0009-social.sql, run by pg-migrate.ts), behind the social room's SocialStorePort
// (one process: SQLite, ts/server/persistence/social-store.ts). Every answer comes once the statement is
// done, so the room tells a player a change was made only once it is written (docs/social.md § In a cluster).
//
// The bounds (friends and ignores per account, lines waiting per recipient) and the recipient's ignore of
// a sender are decided in the store, in one transaction that first takes a transaction-level advisory lock
// on the account whose rows it counts: two regions storing a line for the same recipient at once take turns,
// so they cannot both take its last place. The transaction has the region's one connection to itself while
// it runs (pg-statements.ts, as an item change does), so nothing else the region sends falls inside.
import {
  type AccountRef,
  type AddOutcome,
  MAX_FRIENDS,
  MAX_IGNORES,
  MAX_MAIL_PER_RECIPIENT,
  type MailOutcome,
  type SocialBook,
  type SocialStorePort,
  type WaitingLine,
} from "../server/persistence/social-store.js";
import type { Transactional } from "./pg-connection.js";

/** The advisory lock space (first key) of an account's social rows ("fc-s"); the account id is the second key. */
export const SOCIAL_LOCK_SPACE = 0x66632d73;

const PAIRS = {
  friends: { other: "friend_id", max: MAX_FRIENDS },
  ignores: { other: "ignored_id", max: MAX_IGNORES },
} as const;

export class PgSocialStore implements SocialStorePort {
  constructor(private readonly client: Transactional) {}

  async bookOf(accountId: number): Promise<SocialBook> {
    const list = (table: "friends" | "ignores") =>
      this.client.query<{ id: string; nick: string }>(
        `SELECT a.id, a.nick FROM ${table} p JOIN accounts a ON a.id = p.${PAIRS[table].other}
         WHERE p.account_id = $1 ORDER BY lower(a.nick), a.id`,
        [accountId],
      );
    const [friends, ignores, mail] = await Promise.all([
      list("friends"),
      list("ignores"),
      this.client.query<{ id: string; from_account: string; from_nick: string; text: string; sent_at_ms: string }>(
        "SELECT id, from_account, from_nick, text, sent_at_ms FROM mail WHERE to_account = $1 ORDER BY id",
        [accountId],
      ),
    ]);
    const refs = (rows: { id: string; nick: string }[]): AccountRef[] =>
      rows.map((row) => ({ accountId: Number(row.id), nick: row.nick }));
    return {
      friends: refs(friends.rows),
      ignores: refs(ignores.rows),
      mail: mail.rows.map((row): WaitingLine => ({
        id: Number(row.id),
        fromAccount: Number(row.from_account),
        fromNick: row.from_nick,
        text: row.text,
        sentAtMs: Number(row.sent_at_ms),
      })),
    };
  }

  addFriend(accountId: number, friendId: number, nowMs: number): Promise<AddOutcome> {
    return this.addPair("friends", accountId, friendId, nowMs);
  }

  removeFriend(accountId: number, friendId: number): Promise<boolean> {
    return this.removePair("friends", accountId, friendId);
  }

  addIgnore(accountId: number, ignoredId: number, nowMs: number): Promise<AddOutcome> {
    return this.addPair("ignores", accountId, ignoredId, nowMs);
  }

  removeIgnore(accountId: number, ignoredId: number): Promise<boolean> {
    return this.removePair("ignores", accountId, ignoredId);
  }

  async putMail(to: number, from: number, fromNick: string, text: string, nowMs: number): Promise<MailOutcome> {
    const [inserted, ignored] = await this.locked(to, [
      [
        `INSERT INTO mail (to_account, from_account, from_nick, text, sent_at_ms)
         SELECT $1, $2, $3, $4, $5
         WHERE NOT EXISTS (SELECT 1 FROM ignores WHERE account_id = $1 AND ignored_id = $2)
           AND (SELECT count(*) FROM mail WHERE to_account = $1) < $6
         RETURNING id`,
        [to, from, fromNick, text, nowMs, MAX_MAIL_PER_RECIPIENT],
      ],
      ["SELECT 1 FROM ignores WHERE account_id = $1 AND ignored_id = $2", [to, from]],
    ]);
    if (inserted.length > 0) return "stored";
    return ignored.length > 0 ? "ignored" : "full";
  }

  async deleteMail(to: number, ids: readonly number[]): Promise<void> {
    if (ids.length === 0) return;
    await this.client.query("DELETE FROM mail WHERE to_account = $1 AND id = ANY($2::bigint[])", [to, [...ids]]);
  }

  private async addPair(table: "friends" | "ignores", a: number, b: number, nowMs: number): Promise<AddOutcome> {
    const { other, max } = PAIRS[table];
    const [inserted, present] = await this.locked(a, [
      [
        `INSERT INTO ${table} (account_id, ${other}, added_at_ms)
         SELECT $1, $2, $3 WHERE (SELECT count(*) FROM ${table} WHERE account_id = $1) < $4
         ON CONFLICT DO NOTHING RETURNING 1`,
        [a, b, nowMs, max],
      ],
      [`SELECT 1 FROM ${table} WHERE account_id = $1 AND ${other} = $2`, [a, b]],
    ]);
    if (inserted.length > 0) return "added";
    return present.length > 0 ? "already" : "full";
  }

  private async removePair(table: "friends" | "ignores", a: number, b: number): Promise<boolean> {
    const result = await this.client.query(
      `DELETE FROM ${table} WHERE account_id = $1 AND ${PAIRS[table].other} = $2`,
      [a, b],
    );
    return (result.rowCount ?? 0) > 0;
  }

  /**
   * Runs `statements` in one transaction holding the advisory lock of `accountId`'s social rows, one after
   * another; resolves with each statement's rows, or rejects (the transaction rolled back) when one failed.
   */
  private locked(accountId: number, statements: [string, unknown[]][]): Promise<unknown[][]> {
    return this.client.transaction(async (tx) => {
      await tx.query("SELECT pg_advisory_xact_lock($1, $2)", [SOCIAL_LOCK_SPACE, accountId]);
      const rows: unknown[][] = [];
      for (const [text, values] of statements) rows.push((await tx.query(text, values)).rows);
      return rows;
    });
  }
}
