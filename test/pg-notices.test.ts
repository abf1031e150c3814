// The notice boards' notices in the cluster's shared PostgreSQL store (ts/cluster/pg-notices.ts) on a
// real PostgreSQL (postgres-process.ts starts a private cluster as an unprivileged user): a notice is
// kept when the process that took it is gone (what a region's in-memory SQLite lost on every restart),
// a board keeps its newest 50, a notice pinned from another process shows from the board's next opening
// after REFRESH_MS, a post made while a board is read again is not dropped from the copy, and a write
// that fails is counted and logged, never thrown into the tick.
import { describe, expect, it } from "vitest";
import { PgNoticeStore, REFRESH_MS } from "../ts/cluster/pg-notices.js";
import { postgresSkipReason } from "../ts/cluster/postgres-process.js";
import { Logger } from "../ts/server/ops/log.js";
import { NOTICES_KEPT } from "../ts/server/persistence/notice-store.js";
import { usePostgres } from "./support/postgres-rig.js";

const quiet = new Logger("silent");
const skip = postgresSkipReason();
if (skip !== null) process.stderr.write(`test/pg-notices.test.ts skipped: ${skip}\n`);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(skip !== null)("notices on PostgreSQL", () => {
  const { connect } = usePostgres();
  let board = 0;
  const nextBoard = () => `caves/board ${++board}@${board},3`;

  it("keeps a notice when the process that took it is gone, and shows it newest first to the next one", async () => {
    const key = nextBoard();
    const first = await PgNoticeStore.open(await connect(), [key], quiet);
    expect(first.recent(key, 10)).toEqual([]);
    for (const [index, text] of ["well met", "beware the vault", "the key is in the chest"].entries()) {
      first.post(key, { author: "Ada", text, postedAtMs: 1_000 + index });
    }
    // At once in the copy the board's dialog reads.
    expect(first.recent(key, 2).map((notice) => notice.text)).toEqual(["the key is in the chest", "beware the vault"]);
    await first.flush();
    expect(first.stats).toMatchObject({ writes: 3, failures: 0 });
    const restarted = await PgNoticeStore.open(await connect(), [key], quiet);
    expect(restarted.recent(key, 10)).toEqual([
      { author: "Ada", text: "the key is in the chest", postedAtMs: 1_002 },
      { author: "Ada", text: "beware the vault", postedAtMs: 1_001 },
      { author: "Ada", text: "well met", postedAtMs: 1_000 },
    ]);
  });

  it(`keeps a board's newest ${NOTICES_KEPT}, in the copy and in the table`, async () => {
    const key = nextBoard();
    const client = await connect();
    const store = await PgNoticeStore.open(client, [key], quiet);
    for (let index = 0; index < NOTICES_KEPT + 7; index++) {
      store.post(key, { author: "Bo", text: `notice ${index}`, postedAtMs: index });
    }
    await store.flush();
    const rows = (await client.query<{ text: string }>("SELECT text FROM notices WHERE board = $1 ORDER BY id", [key]))
      .rows;
    expect(rows.length).toBe(NOTICES_KEPT);
    expect(rows[0].text).toBe("notice 7");
    expect(store.recent(key, 100).length).toBe(NOTICES_KEPT);
    expect(store.recent(key, 1)[0].text).toBe(`notice ${NOTICES_KEPT + 6}`);
  });

  it("shows a notice pinned from another process from the board's next opening after REFRESH_MS", async () => {
    const key = nextBoard();
    const here = await PgNoticeStore.open(await connect(), [key], quiet);
    const there = await PgNoticeStore.open(await connect(), [key], quiet);
    here.recent(key, 10); // an opening here: read again now, not again within REFRESH_MS
    await here.flush();
    there.post(key, { author: "Cy", text: "pinned in the east", postedAtMs: 5 });
    await there.flush();
    expect(here.recent(key, 10)).toEqual([]);
    await sleep(REFRESH_MS + 100);
    here.recent(key, 10); // this opening reads the board again, behind the copy
    await here.flush();
    expect(here.recent(key, 10).map((notice) => notice.text)).toEqual(["pinned in the east"]);
    expect(here.stats.refreshes).toBeGreaterThanOrEqual(2);
  }, 15_000);

  it("does not drop a post made while the board is being read again", async () => {
    const key = nextBoard();
    const store = await PgNoticeStore.open(await connect(), [key], quiet);
    store.recent(key, 10); // starts a read
    store.post(key, { author: "Di", text: "posted during the read", postedAtMs: 9 });
    await store.flush();
    expect(store.recent(key, 10).map((notice) => notice.text)).toEqual(["posted during the read"]);
  });

  it("counts and logs a write that fails instead of throwing it into the tick", async () => {
    const key = nextBoard();
    const client = await connect();
    const errors: string[] = [];
    const log = new Logger("error", (line) => errors.push(line));
    const store = await PgNoticeStore.open(client, [key], log);
    await client.end();
    expect(() => store.post(key, { author: "Ed", text: "into the void", postedAtMs: 1 })).not.toThrow();
    await store.flush();
    expect(store.stats).toMatchObject({ writes: 0, failures: 1 });
    expect(errors.join("\n")).toContain("keeping a notice in the shared store failed");
    // The notice still shows here (it went out in chat too); only its keeping is lost.
    expect(store.recent(key, 1)[0].text).toBe("into the void");
  });
});
