// A character's look (issue 18 item 2): chosen at join, carried to every client
// in the appearance TLV (0x07), kept by accounts (migration 0005) and by guests
// for the session. Over the real HTTP routes of an in-process server, with the
// accounts in a SQLite file that is closed and opened again.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkAppearance, defaultLook, PLAYER_LOOK_COUNT } from "../ts/appearance.js";
import { decodeTlvs, encodeTlvs, TLV_APPEARANCE } from "../ts/protocol/tlv.js";
import { openGameDatabase } from "../ts/server/persistence/database.js";
import { loadMigrations, migrate } from "../ts/server/persistence/migrate.js";
import { type Harness, postJson, startHarness } from "./support/game-harness.js";
import { writeTestMap } from "./support/test-map.js";
import { readWorldMap } from "../ts/server/server.js";

let dir: string;
let map: ReturnType<typeof writeTestMap>;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "caves-appearance-"));
  map = writeTestMap();
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  map.dispose();
});

/** The look the server put on the entity of the session `body` answered for. */
function lookOf(harness: Harness, body: Record<string, unknown>): number | undefined {
  const entity = harness.game.entities.get(Number(body.entityId));
  const tlv = entity?.meta.find((each) => each.kind === "appearance");
  return tlv?.kind === "appearance" ? tlv.value : undefined;
}

async function serverOn(databasePath: string): Promise<Harness> {
  return startHarness(readWorldMap(map.path), { database: openGameDatabase(databasePath) });
}

describe("the appearance TLV", () => {
  it("is tag 0x07 with a u16 look, and round-trips", () => {
    const out = new Uint8Array(8);
    const length = encodeTlvs([{ kind: "appearance", value: 3 }], out);
    expect([...out.subarray(0, length)]).toEqual([TLV_APPEARANCE, 2, 3, 0]);
    expect(decodeTlvs(out, 0, length)).toEqual([{ kind: "appearance", value: 3 }]);
  });

  it("a join's appearance must be a look: absent is the server's pick, anything else a 400 in words", () => {
    expect(checkAppearance(undefined)).toEqual({ ok: true, value: null });
    expect(checkAppearance(0)).toEqual({ ok: true, value: 0 });
    expect(checkAppearance(PLAYER_LOOK_COUNT - 1)).toEqual({ ok: true, value: PLAYER_LOOK_COUNT - 1 });
    for (const bad of [-1, PLAYER_LOOK_COUNT, 1.5, "2", true, {}])
      expect(checkAppearance(bad).ok, JSON.stringify(bad)).toBe(false);
  });
});

describe("appearance through the server", () => {
  it("a guest's chosen look is on its entity; a bad one is refused; no choice gives one by entity id", async () => {
    const harness = await serverOn(join(dir, "guests.sqlite"));
    try {
      const chosen = await postJson(harness.httpPort, "/api/guest", { nick: "Green G", appearance: 2 });
      expect(chosen.status).toBe(200);
      expect(lookOf(harness, chosen.body)).toBe(2);
      const bad = await postJson(harness.httpPort, "/api/guest", { nick: "Bad B", appearance: 9 });
      expect(bad.status).toBe(400);
      expect(String(bad.body.error)).toMatch(/"appearance" must be a whole number 0\.\.4/);
      const plain = await postJson(harness.httpPort, "/api/guest", { nick: "Plain P" });
      expect(lookOf(harness, plain.body)).toBe(defaultLook(Number(plain.body.entityId)));
    } finally {
      await harness.close();
    }
  });

  it("an account keeps its look across logins and a restart; a login may choose anew", async () => {
    const path = join(dir, "accounts.sqlite");
    let harness = await serverOn(path);
    const account = { name: "looker", password: "a long enough password" };
    try {
      const registered = await postJson(harness.httpPort, "/api/register", {
        ...account,
        nick: "Looker",
        appearance: 3,
      });
      expect(registered.status).toBe(200);
      expect(lookOf(harness, registered.body)).toBe(3);
      expect(harness.game.accountStore.findByName("looker")?.appearance).toBe(3);
    } finally {
      await harness.close();
    }
    harness = await serverOn(path);
    try {
      const again = await postJson(harness.httpPort, "/api/login", account);
      expect(again.status).toBe(200);
      expect(lookOf(harness, again.body)).toBe(3);
      const changed = await postJson(harness.httpPort, "/api/login", { ...account, appearance: 1 });
      expect(lookOf(harness, changed.body)).toBe(1);
      const kept = await postJson(harness.httpPort, "/api/login", account);
      expect(lookOf(harness, kept.body)).toBe(1);
    } finally {
      await harness.close();
    }
  });

  it("migration 0005: accounts made before it get NULL, and play the look their id picks, every time", async () => {
    const path = join(dir, "old.sqlite");
    const old = new Database(path);
    const migrations = loadMigrations();
    migrate(old, migrations.slice(0, 4));
    old
      .prepare(
        "INSERT INTO accounts (id, name, name_key, nick, password_hash, created_at_ms) VALUES (?, ?, ?, ?, ?, ?)",
      )
      .run(7, "elder", "elder", "Elder", "x", 0);
    old.close();
    const database = openGameDatabase(path);
    expect(database.schemaVersion).toBe(migrations.length);
    expect(database.db.prepare("SELECT appearance FROM accounts WHERE id = 7").pluck().get()).toBeNull();
    // The CHECK keeps nonsense out of the column.
    expect(() => database.db.prepare("UPDATE accounts SET appearance = 300 WHERE id = 7").run()).toThrow(/CHECK/);
    database.close();
    const harness = await serverOn(path);
    try {
      const record = harness.game.accountStore.findByName("elder")!;
      expect(record.appearance).toBeNull();
      const session = harness.game.joinAccount(record);
      const tlv = session.entity.meta.find((each) => each.kind === "appearance");
      expect(tlv).toEqual({ kind: "appearance", value: defaultLook(7) });
    } finally {
      await harness.close();
    }
  });
});
