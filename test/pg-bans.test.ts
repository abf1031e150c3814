// Bans in the cluster's shared PostgreSQL store (ts/cluster/pg-bans.ts, ts/cluster/cluster-bans.ts) on a
// real PostgreSQL and a real Game: an account's ban lands on its row (the id answered, an unknown name
// said so); address bans in force are listed without the ones that ended; a gateway's copy shows a ban
// after a re-read and keeps the last copy while the store cannot be read; a session arriving from another
// region is ended when a ban told of lately names it and is still in force — not once it was lifted.
import { describe, expect, it } from "vitest";
import { ClusterBans } from "../ts/cluster/cluster-bans.js";
import { PgAccounts } from "../ts/cluster/pg-accounts.js";
import { AddressBanWatch, PgBans } from "../ts/cluster/pg-bans.js";
import { postgresSkipReason } from "../ts/cluster/postgres-process.js";
import { Game } from "../ts/server/game-server.js";
import { Logger } from "../ts/server/ops/log.js";
import { NEW_CHARACTER } from "../ts/server/persistence/character-store.js";
import { loadCore } from "../ts/wasm/node.js";
import { CapturingPeer, floorMap, joinAndBind } from "./support/game-without-network.js";
import { usePostgres } from "./support/postgres-rig.js";

const quiet = new Logger("silent");
const skip = postgresSkipReason();
if (skip !== null) process.stderr.write(`test/pg-bans.test.ts skipped: ${skip}\n`);

describe.skipIf(skip !== null)("bans on PostgreSQL", () => {
  const { connect } = usePostgres();

  it("keeps an account's ban on its row and the address bans in force, and lifts them", async () => {
    const client = await connect();
    const bans = new PgBans(client);
    const account = await new PgAccounts(client, quiet).create("Mallory", "Mal", "x", NEW_CHARACTER, 1, null);
    expect(await bans.setAccountBan("mallory", "griefing", 5_000)).toBe(account.id);
    expect(await bans.accountBanOf(account.id)).toEqual({ bannedReason: "griefing", bannedUntilMs: 5_000 });
    expect(await bans.setAccountBan("nobody", "x", null)).toBeNull();
    expect(await bans.setAccountBan("Mallory", null, 9_000)).toBe(account.id);
    expect(await bans.accountBanOf(account.id)).toEqual({ bannedReason: null, bannedUntilMs: null });

    await bans.banAddress({ address: "10.1.1.1", reason: "flooding", createdAtMs: 1_000, untilMs: null });
    await bans.banAddress({ address: "10.1.1.2", reason: "spam", createdAtMs: 1_001, untilMs: 2_000 });
    // A later ban of the same address replaces it.
    await bans.banAddress({ address: "10.1.1.1", reason: "flooding again", createdAtMs: 1_002, untilMs: null });
    expect((await bans.addressBansInForce(1_500)).map((ban) => [ban.address, ban.reason])).toEqual([
      ["10.1.1.2", "spam"],
      ["10.1.1.1", "flooding again"],
    ]);
    expect((await bans.addressBansInForce(2_000)).map((ban) => ban.address)).toEqual(["10.1.1.1"]);
    expect(await bans.addressBan("10.1.1.2", 2_000)).toBeNull();
    expect(await bans.unbanAddress("10.1.1.1")).toBe(true);
    expect(await bans.unbanAddress("10.1.1.1")).toBe(false);
    expect(await bans.unbanAddress("10.1.1.2")).toBe(true);
  });

  it("a gateway's copy shows a ban once read again, and keeps the last copy while the store cannot be read", async () => {
    const writer = new PgBans(await connect());
    const readerClient = await connect();
    const watch = new AddressBanWatch(new PgBans(readerClient), quiet);
    await watch.start();
    try {
      expect(watch.addressBan("10.2.2.2", Date.now())).toBeNull();
      await writer.banAddress({ address: "10.2.2.2", reason: "bots", createdAtMs: Date.now(), untilMs: null });
      await watch.reread();
      expect(watch.addressBan("10.2.2.2", Date.now())).toMatchObject({ reason: "bots" });
      await readerClient.end();
      await watch.reread();
      expect(watch.stats.failures).toBeGreaterThan(0);
      expect(watch.addressBan("10.2.2.2", Date.now())).toMatchObject({ reason: "bots" });
    } finally {
      watch.stop();
      await writer.unbanAddress("10.2.2.2");
    }
  });

  it("ends a session arriving under a ban told of lately while the ban is in force, not after it was lifted", async () => {
    const client = await connect();
    const store = new PgBans(client);
    const game = new Game(await loadCore(), floorMap("bans", 64, { x: 32, y: 32 }), {}, quiet);
    try {
      const bans = new ClusterBans(game.admin, store);
      // A guest from 10.3.3.3 plays here; its address is banned elsewhere and the ban's reach told here.
      const here = joinAndBind(game, "Here", new CapturingPeer("peer:here", "10.3.3.3"));
      await store.banAddress({ address: "10.3.3.3", reason: "flooding", createdAtMs: Date.now(), untilMs: null });
      expect(bans.endHere({ accountId: null, address: "10.3.3.3" })).toEqual(["Here"]);
      expect(game.sessions.byEntityId(here.entity.id)).toBeUndefined();
      // Another arrives from that address (a handoff under way when the ban was told): ended.
      const late = joinAndBind(game, "Late", new CapturingPeer("peer:late", "10.3.3.3"));
      await bans.checkArrival(late, () => game.leave(late, "banned"));
      expect(game.sessions.byEntityId(late.entity.id)).toBeUndefined();
      // One from elsewhere is not.
      const other = joinAndBind(game, "Other", new CapturingPeer("peer:other", "10.3.3.4"));
      await bans.checkArrival(other, () => game.leave(other, "banned"));
      expect(game.sessions.byEntityId(other.entity.id)).toBe(other);
      // Lifted: one arriving from it plays on.
      await store.unbanAddress("10.3.3.3");
      const back = joinAndBind(game, "Back", new CapturingPeer("peer:back", "10.3.3.3"));
      await bans.checkArrival(back, () => game.leave(back, "banned"));
      expect(game.sessions.byEntityId(back.entity.id)).toBe(back);
    } finally {
      game.shutdown();
    }
  });
});
