// Friends, ignores and waiting lines in the cluster's shared PostgreSQL (ts/cluster/pg-social.ts) on a real
// PostgreSQL: the same answers as SQLite's store (added, already, full; stored, full, ignored), the bounds
// held when two regions' connections race for a recipient's last place, and a failed statement leaving
// nothing written.
import { describe, expect, it } from "vitest";
import { PgAccounts } from "../ts/cluster/pg-accounts.js";
import { StatementQueue } from "../ts/cluster/pg-statements.js";
import { PgSocialStore } from "../ts/cluster/pg-social.js";
import { postgresSkipReason } from "../ts/cluster/postgres-process.js";
import { Logger } from "../ts/server/ops/log.js";
import { NEW_CHARACTER } from "../ts/server/persistence/character-store.js";
import { MAX_FRIENDS, MAX_MAIL_PER_RECIPIENT } from "../ts/server/persistence/social-store.js";
import { usePostgres } from "./support/postgres-rig.js";

const quiet = new Logger("silent");
const skip = postgresSkipReason();
if (skip !== null) process.stderr.write(`test/pg-social.test.ts skipped: ${skip}\n`);

describe.skipIf(skip !== null)("the social store on PostgreSQL", () => {
  const { connect } = usePostgres();

  it("keeps friends, ignores and waiting lines by account, bounded, and decides them in the store", async () => {
    const client = StatementQueue.over(await connect());
    const accounts = new PgAccounts(client, quiet);
    const ids: number[] = [];
    for (let index = 0; index < MAX_FRIENDS + 2; index++)
      ids.push((await accounts.create(`acct${index}`, `Nick ${index}`, "x", NEW_CHARACTER, 1, null)).id);
    const [ada, bo, cy] = ids;
    const store = new PgSocialStore(client);
    expect(await store.addFriend(ada, bo, 1)).toBe("added");
    expect(await store.addFriend(ada, bo, 2)).toBe("already");
    for (const other of ids.slice(2, MAX_FRIENDS + 1)) expect(await store.addFriend(ada, other, 3)).toBe("added");
    expect(await store.addFriend(ada, ids[MAX_FRIENDS + 1], 4)).toBe("full");
    expect(await store.removeFriend(ada, bo)).toBe(true);
    expect(await store.removeFriend(ada, bo)).toBe(false);
    expect((await store.bookOf(ada)).friends).toHaveLength(MAX_FRIENDS - 1);

    expect(await store.addIgnore(bo, cy, 1)).toBe("added");
    expect(await store.addIgnore(bo, cy, 1)).toBe("already");
    expect(await store.putMail(bo, cy, "Nick 2", "let me in", 5)).toBe("ignored");
    expect(await store.removeIgnore(bo, cy)).toBe(true);
    expect(await store.putMail(bo, cy, "Nick 2", "now?", 6)).toBe("stored");

    // A failed statement (a sender that is no account) writes nothing, and the connection serves on.
    await expect(store.putMail(bo, 999_999, "Ghost", "boo", 7)).rejects.toThrow();
    const book = await store.bookOf(bo);
    expect(book.mail.map((line) => [line.fromNick, line.text])).toEqual([["Nick 2", "now?"]]);
    expect(book.ignores).toEqual([]);
    await store.deleteMail(bo, [book.mail[0].id]);
    expect((await store.bookOf(bo)).mail).toEqual([]);
  });

  it("two regions storing lines for one recipient at once never pass its bound", async () => {
    const setup = await connect();
    const accounts = new PgAccounts(setup, quiet);
    const to = (await accounts.create("busy", "Busy", "x", NEW_CHARACTER, 1, null)).id;
    const senders: number[] = [];
    for (let index = 0; index < 4; index++)
      senders.push((await accounts.create(`sender${index}`, `Sender ${index}`, "x", NEW_CHARACTER, 1, null)).id);
    // Two connections (two regions), each sending 20 lines at once: 40 tries for 20 places.
    const regions = [
      new PgSocialStore(StatementQueue.over(await connect())),
      new PgSocialStore(StatementQueue.over(await connect())),
    ];
    const outcomes = await Promise.all(
      regions.flatMap((store, region) =>
        Array.from({ length: MAX_MAIL_PER_RECIPIENT }, (_, index) =>
          store.putMail(to, senders[region * 2 + (index % 2)], "S", `line ${region}.${index}`, index),
        ),
      ),
    );
    expect(outcomes.filter((outcome) => outcome === "stored")).toHaveLength(MAX_MAIL_PER_RECIPIENT);
    expect(outcomes.filter((outcome) => outcome === "full")).toHaveLength(MAX_MAIL_PER_RECIPIENT);
    const count = await setup.query<{ n: string }>("SELECT count(*) AS n FROM mail WHERE to_account = $1", [to]);
    expect(Number(count.rows[0].n)).toBe(MAX_MAIL_PER_RECIPIENT);
  });
});
