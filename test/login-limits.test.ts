// The login limits alone (ts/server/accounts/login-limits.ts, issue 41), on a
// clock the test moves: the three backoffs, which of them a known address
// passes, what a success clears and what it does not, and the known addresses
// kept in a real SQLite file across a reopen (a restart does not make the owner
// a stranger). The HTTP side of the same rule: test/http-abuse.test.ts.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { AccountStore } from "../ts/server/accounts/account-store.js";
import { KnownAddresses } from "../ts/server/accounts/known-addresses.js";
import { LOGIN_ADDRESSES_KEPT, LoginAddressStore } from "../ts/server/accounts/login-address-store.js";
import { LoginLimits } from "../ts/server/accounts/login-limits.js";
import { NEW_CHARACTER, CharacterStore } from "../ts/server/persistence/character-store.js";
import { openGameDatabase } from "../ts/server/persistence/database.js";

const dir = mkdtempSync(join(tmpdir(), "caves-login-limits-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const OPTIONS = { pairFailures: 3, addressFailures: 6, accountFailures: 4, firstWaitMs: 1000 };

function limits(known = new KnownAddresses()): LoginLimits {
  return new LoginLimits(OPTIONS, known);
}

describe("login limits", () => {
  it("one address at one account: free failures, then waits that double; its own success clears them", () => {
    const rule = limits();
    let now = 0;
    for (let i = 0; i < 3; i++) {
      expect(rule.holdOf("Ann", "10.0.0.1", now)).toBeNull();
      rule.failed("Ann", "10.0.0.1", now);
    }
    expect(rule.holdOf("ann", "10.0.0.1", now)).toEqual({ waitMs: 1000, cause: "from this address" });
    now += 1000;
    expect(rule.holdOf("Ann", "10.0.0.1", now)).toBeNull();
    rule.failed("Ann", "10.0.0.1", now);
    expect(rule.holdOf("Ann", "10.0.0.1", now)?.waitMs).toBe(2000);
    now += 2000;
    rule.succeeded("Ann", "10.0.0.1", now);
    expect(rule.holdOf("Ann", "10.0.0.1", now)).toBeNull();
    rule.failed("Ann", "10.0.0.1", now);
    expect(rule.holdOf("Ann", "10.0.0.1", now)).toBeNull();
  });

  it("an account guessed at from many addresses holds back strangers, never an address it was played from", () => {
    const rule = limits();
    rule.registered("Ann", "10.0.0.1", 0);
    rule.succeeded("Ann", "10.0.0.2", 0);
    for (let i = 0; i < 4; i++) rule.failed("Ann", `10.9.0.${i}`, 0);
    expect(rule.holdOf("Ann", "10.9.0.99", 0)).toEqual({ waitMs: 1000, cause: "for this account" });
    expect(rule.holdOf("Ann", "10.0.0.1", 0)).toBeNull();
    expect(rule.holdOf("ANN", "10.0.0.2", 0)).toBeNull();
    // The owner's success clears nothing for the strangers.
    rule.succeeded("Ann", "10.0.0.1", 0);
    expect(rule.holdOf("Ann", "10.9.0.99", 0)).not.toBeNull();
    // Other accounts are not held back.
    expect(rule.holdOf("Bob", "10.9.0.99", 0)).toBeNull();
  });

  it("one address sweeping many names waits at every account it does not play, and a success elsewhere does not free it", () => {
    const rule = limits();
    rule.registered("Mine", "10.0.0.5", 0);
    for (let i = 0; i < 6; i++) rule.failed(`name${i}`, "10.0.0.5", 0);
    expect(rule.holdOf("name99", "10.0.0.5", 0)).toEqual({ waitMs: 1000, cause: "from this address" });
    expect(rule.holdOf("Mine", "10.0.0.5", 0)).toBeNull();
    rule.succeeded("Mine", "10.0.0.5", 0);
    expect(rule.holdOf("name99", "10.0.0.5", 0)).not.toBeNull();
    // Another address is not held back by it.
    expect(rule.holdOf("name99", "10.0.0.6", 0)).toBeNull();
  });

  it("a known address still meets its own failures at the account (someone at the owner's address guessing)", () => {
    const rule = limits();
    rule.registered("Ann", "10.0.0.1", 0);
    for (let i = 0; i < 3; i++) rule.failed("Ann", "10.0.0.1", 0);
    expect(rule.holdOf("Ann", "10.0.0.1", 0)).toEqual({ waitMs: 1000, cause: "from this address" });
  });

  it("keeps known addresses in SQLite: after a reopen the owner's address is known, the last 8 kept", () => {
    const path = join(dir, "known.sqlite");
    let database = openGameDatabase(path);
    const accounts = new AccountStore(database.db, new CharacterStore(database.db));
    accounts.create("Ann", "Ann", "scrypt$x", NEW_CHARACTER, 0);
    let known = new KnownAddresses(new LoginAddressStore(database.db));
    known.add("ann", "10.0.0.1", 1);
    for (let i = 0; i < LOGIN_ADDRESSES_KEPT; i++) known.add("ann", `10.1.0.${i}`, 10 + i);
    // A name without an account writes nothing.
    known.add("nobody", "10.0.0.1", 100);
    database.close();

    database = openGameDatabase(path);
    known = new KnownAddresses(new LoginAddressStore(database.db));
    expect(known.has("ann", `10.1.0.${LOGIN_ADDRESSES_KEPT - 1}`)).toBe(true);
    expect(known.has("ann", "10.1.0.0")).toBe(true);
    // The oldest of nine was let go.
    expect(known.has("ann", "10.0.0.1")).toBe(false);
    expect(known.has("nobody", "10.0.0.1")).toBe(false);
    expect(database.db.prepare("SELECT count(*) AS n FROM login_addresses").get()).toEqual({
      n: LOGIN_ADDRESSES_KEPT,
    });
    // An answer "unknown" held in memory gives way when the address logs in.
    known.add("ann", "10.0.0.1", 200);
    expect(known.has("ann", "10.0.0.1")).toBe(true);
    const rule = new LoginLimits(OPTIONS, known);
    for (let i = 0; i < 4; i++) rule.failed("ann", `10.9.0.${i}`, 300);
    expect(rule.holdOf("Ann", "10.1.0.3", 300)).toBeNull();
    expect(rule.holdOf("Ann", "10.9.0.50", 300)?.cause).toBe("for this account");
    database.close();
  });

  it("a flood of strangers never pushes a known pair out of memory", () => {
    const known = new KnownAddresses(null, 4);
    known.add("ann", "10.0.0.1", 0);
    for (let i = 0; i < 50_000; i++) known.has(`name${i}`, `10.2.${i >> 8}.${i & 255}`);
    expect(known.has("ann", "10.0.0.1")).toBe(true);
  });
});
