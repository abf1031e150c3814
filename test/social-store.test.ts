// The social store on a real SQLite file (migration 0009-social.sql): friends and ignores by account,
// bounded per account; waiting lines bounded per recipient and deleted one by one; everything gone with
// the account it belongs to; and all of it there again after the database is reopened.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { AccountStore } from "../ts/server/accounts/account-store.js";
import { CharacterStore, NEW_CHARACTER } from "../ts/server/persistence/character-store.js";
import { openGameDatabase } from "../ts/server/persistence/database.js";
import { MAX_FRIENDS, MAX_MAIL_PER_RECIPIENT, SocialStore } from "../ts/server/persistence/social-store.js";

const dir = mkdtempSync(join(tmpdir(), "fc-social-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the social store", () => {
  it("keeps friends, ignores and waiting lines by account, bounded, across a reopen", () => {
    const path = join(dir, "world.db");
    const database = openGameDatabase(path);
    const accounts = new AccountStore(database.db, new CharacterStore(database.db));
    const ids = Array.from(
      { length: MAX_FRIENDS + 2 },
      (_, index) => accounts.create(`acct${index}`, `Nick ${index}`, "scrypt$x", NEW_CHARACTER, 1, null).id,
    );
    const [ada, bo, cy] = ids;
    const store = new SocialStore(database.db);
    expect(store.addFriend(ada, bo, 1)).toBe("added");
    expect(store.addFriend(ada, bo, 2)).toBe("already");
    expect(store.addFriend(cy, bo, 3)).toBe("added");
    expect(store.friendsOf(ada)).toEqual([{ accountId: bo, nick: "Nick 1" }]);
    expect(store.friendsOf(cy)).toEqual([{ accountId: bo, nick: "Nick 1" }]);
    // An account keeps at most MAX_FRIENDS.
    for (const other of ids.slice(2, MAX_FRIENDS + 1)) expect(store.addFriend(ada, other, 4)).toBe("added");
    expect(store.addFriend(ada, ids[MAX_FRIENDS + 1], 5)).toBe("full");
    expect(store.friendsOf(ada)).toHaveLength(MAX_FRIENDS);
    expect(store.removeFriend(ada, bo)).toBe(true);
    expect(store.removeFriend(ada, bo)).toBe(false);

    expect(store.addIgnore(bo, cy, 1)).toBe("added");
    expect(store.ignores(bo, cy)).toBe(true);
    expect(store.ignores(cy, bo)).toBe(false);

    // Waiting lines: at most MAX_MAIL_PER_RECIPIENT per recipient; more are refused, nothing is dropped.
    for (let index = 0; index < MAX_MAIL_PER_RECIPIENT; index++)
      expect(store.putMail(bo, ada, "Nick 0", `line ${index}`, 10 + index)).toBe("stored");
    expect(store.putMail(bo, ada, "Nick 0", "one too many", 99)).toBe("full");
    // Bo ignores Cy: Cy's line is refused as ignored (checked before the bound, in the same transaction).
    expect(store.putMail(bo, cy, "Nick 2", "let me in", 99)).toBe("ignored");
    const waiting = store.mailFor(bo);
    expect(waiting.map((line) => line.text)).toEqual(
      Array.from({ length: MAX_MAIL_PER_RECIPIENT }, (_, index) => `line ${index}`),
    );
    // Deleting names the recipient: another's ids are left alone.
    store.deleteMail(cy, [waiting[0].id]);
    expect(store.mailFor(bo)).toHaveLength(MAX_MAIL_PER_RECIPIENT);
    store.deleteMail(bo, [waiting[0].id, waiting[1].id]);
    expect(store.mailFor(bo)).toHaveLength(MAX_MAIL_PER_RECIPIENT - 2);
    database.close();

    const again = openGameDatabase(path);
    const reopened = new SocialStore(again.db);
    expect(reopened.ignores(bo, cy)).toBe(true);
    expect(reopened.friendsOf(cy)).toEqual([{ accountId: bo, nick: "Nick 1" }]);
    expect(reopened.mailFor(bo)[0].text).toBe("line 2");
    // What the social room reads when Bo starts playing: the same rows.
    const book = reopened.bookOf(bo);
    expect(book.ignores).toEqual([{ accountId: cy, nick: "Nick 2" }]);
    expect(book.friends).toEqual([]);
    expect(book.mail).toHaveLength(MAX_MAIL_PER_RECIPIENT - 2);
    // An account that goes takes its rows with it.
    again.db.prepare("DELETE FROM accounts WHERE id = ?").run(ada);
    expect(reopened.mailFor(bo)).toEqual([]);
    again.close();
  });
});
