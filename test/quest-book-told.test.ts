// A shared store (a cluster's PostgreSQL, ts/cluster/pg-accounts.ts) writes a quest's step a turn or more
// after the script made it. The player must not see a step before it is written (issue 38: "the errand
// taken is in PostgreSQL before the client hears of it"), however its detail goes out: the step's own
// notice, or a detail sent meanwhile for another reason. The store here keeps each write until the test
// lets it land, in the order they came, as the cluster's does; what the book shows is read the way the
// `quests` TLV and `quest_marks` are built (script-room.ts).
import { describe, expect, it } from "vitest";
import type { QuestRecord, QuestStorePort } from "../ts/server/persistence/quest-store.js";
import { MARK_HAND_IN, MARK_OFFER, QuestBook } from "../ts/server/scripting/quest-book.js";
import type { Session } from "../ts/server/sessions/session.js";

/** The cluster store's contract: `save` settles once written; `land` writes the oldest waiting one. */
class LaterStore implements QuestStorePort {
  readonly written: QuestRecord[] = [];
  private readonly waiting: { record: QuestRecord; settle: (ok: boolean) => void }[] = [];

  load(): QuestRecord[] {
    return [];
  }

  save(_accountId: number, record: QuestRecord): Promise<void> {
    return new Promise((resolve, reject) =>
      this.waiting.push({ record, settle: (ok) => (ok ? resolve() : reject(new Error("refused"))) }),
    );
  }

  async land(ok = true): Promise<void> {
    const next = this.waiting.shift();
    if (next === undefined) throw new Error("nothing waits to be written");
    if (ok) this.written.push(next.record);
    next.settle(ok);
    await Promise.resolve(); // the book's `then` runs
    await Promise.resolve();
  }
}

const GIVER_TYPE = 40;

function bookWith(store: QuestStorePort) {
  const heard: string[] = [];
  const book = new QuestBook(store, (_session, id) => heard.push(id));
  book.define([
    { id: "errand", title: "An errand", text: "Walk to the yard.", goal: 2, giver: "tom", requires: [], file: "e.lua" },
  ]);
  const account = { accountId: 7 } as Session;
  const shown = () => book.entries(account).map((entry) => [entry.state, entry.progress]);
  const marks = () => book.marks(account, (name) => (name === "tom" ? GIVER_TYPE : undefined)).map((m) => m.mark);
  return { book, account, heard, shown, marks };
}

describe("a quest step is shown once it is written", () => {
  it("an account's start and steps: working at once for the script, shown only when the store has them", async () => {
    const store = new LaterStore();
    const { book, account, heard, shown, marks } = bookWith(store);
    expect(marks()).toEqual([MARK_OFFER]);

    expect(book.start(account, "errand")).toBe(true);
    // The script builds on it at once ...
    expect(book.standing(account, "errand").state).toBe("active");
    expect(book.offered(account, "errand")).toBe(false);
    // ... but a detail sent now (for any reason) shows nothing taken, and the giver still offers it.
    expect(shown()).toEqual([]);
    expect(marks()).toEqual([MARK_OFFER]);
    expect(heard).toEqual([]);

    await store.land();
    expect(shown()).toEqual([[1, 0]]);
    expect(marks()).toEqual([]);
    expect(heard).toEqual(["errand"]);

    // Two steps made before either is written: each is shown as it lands, never ahead of the store.
    book.progress(account, "errand", 1);
    book.progress(account, "errand", 1);
    expect(book.standing(account, "errand")).toEqual({ state: "ready", progress: 2, goal: 2 });
    expect(shown()).toEqual([[1, 0]]);
    await store.land();
    expect(shown()).toEqual([[1, 1]]);
    expect(marks()).toEqual([]);
    await store.land();
    expect(shown()).toEqual([[2, 2]]);
    expect(marks()).toEqual([MARK_HAND_IN]);
    expect(store.written.map((record) => record.progress)).toEqual([0, 1, 2]);
  });

  it("a step the store refused is never shown", async () => {
    const store = new LaterStore();
    const { book, account, heard, shown } = bookWith(store);
    book.start(account, "errand");
    await store.land();
    book.progress(account, "errand", 1);
    await store.land(false);
    expect(shown()).toEqual([[1, 0]]);
    expect(heard).toEqual(["errand"]);
  });

  it("a guest's quests (no store) are shown at once", () => {
    const { book, heard } = bookWith(new LaterStore());
    const guest = { accountId: null } as Session;
    book.start(guest, "errand");
    expect(book.entries(guest).map((entry) => entry.state)).toEqual([1]);
    expect(heard).toEqual(["errand"]);
  });

  it("a hand-in is shown when its transaction applies it; a session handed over shows what it brought", () => {
    const store = new LaterStore();
    const { book, account, shown } = bookWith(store);
    book.adopt(account, [{ quest: "errand", state: "ready", progress: 2 }]);
    expect(shown()).toEqual([[2, 2]]);
    const handIn = book.handIn(account, "errand");
    expect(handIn?.row).toEqual({ accountId: 7, quest: "errand", state: "done", progress: 2 });
    expect(shown()).toEqual([[2, 2]]); // its transaction is not written yet
    handIn!.apply();
    expect(shown()).toEqual([[3, 2]]);
  });
});
