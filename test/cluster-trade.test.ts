// A trade across a region border (issue 39, docs/scaling.md § Trade across a border): a real cluster
// (redis-server, PostgreSQL, two region processes, a gateway) and protocol clients on real UDP. Ada plays in
// region 0 one tile west of the border, Bob in region 1 just east of it; each sees the other as a ghost of
// the neighbour. Ada asks, both offer, a change of offer clears both confirmations, both confirm, and the
// exchange is one PostgreSQL transaction over both bags. Then regions are killed with SIGKILL at points of a
// trade — open (before any prepare), and with both bags held and the home's transaction under way (held up
// by a row lock this test takes on one bag, then the other) — and every item of the world is counted in
// PostgreSQL after each: none lost, none doubled, and each player's region shows the bag PostgreSQL holds.
import pg from "pg";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACTION_DX, ACTION_DY } from "../ts/protocol/action.js";
import type { ChatPacket, DialogPacket } from "../ts/protocol/index.js";
import type { ItemStack } from "../ts/protocol/tlv.js";
import { postgresSkipReason } from "../ts/cluster/postgres-process.js";
import { GHOST_RADIUS_TILES } from "../ts/cluster/layout.js";
import { ENTITY_TYPE_CHEST } from "../ts/item-types.js";
import {
  BORDER_X,
  clusterSkipReason,
  connectStore,
  PG_BUSY_CLIENT_WARNING,
  startTestCluster,
  type TestCluster,
  until,
} from "./support/cluster-process.js";
import { hearLine, lines, post } from "./support/chat-lines.js";
import { postJson } from "./support/game-harness.js";
import { inventoryOf, itemDef, itemRequest } from "./support/item-client.js";
import { writeNpcMap } from "./support/npc-map.js";
import { dialogs, labels, reply } from "./support/script-dialogs.js";
import { type Joined, UdpTestClient } from "./support/udp-client.js";
import { walkSteps } from "./support/walk.js";

const skip = clusterSkipReason() ?? postgresSkipReason();
if (skip !== null) process.stderr.write(`test/cluster-trade.test.ts skipped: ${skip}\n`);

const WEST = ACTION_DX.findIndex((dx, code) => code > 0 && dx === -1 && ACTION_DY[code] === 0);
const EAST = ACTION_DX.findIndex((dx, code) => code > 0 && dx === 1 && ACTION_DY[code] === 0);
const POTION = itemDef({ id: 4, name: "potion", kind: "consumable", stack: 5, heal: 30 });
const COIN = itemDef({ id: 5, name: "coin", kind: "treasure", stack: 100 });
const SPAWN = { x: 40, y: 35 };
/** Every item of the world: in the chest at the start. */
const WORLD = new Map([
  [COIN.id, 60],
  [POTION.id, 4],
]);

describe.skipIf(skip !== null)("a trade across a region border", () => {
  let cluster: TestCluster;
  let db: pg.Client;
  const clients: UdpTestClient[] = [];
  const seqs = new Map<UdpTestClient, number>();
  const http = () => cluster.ready.gateways[0].httpPort;
  let ada: UdpTestClient;
  let bob: UdpTestClient;
  const keys = { ada: "", bob: "" };

  async function account(name: string): Promise<UdpTestClient> {
    const answer = await postJson(http(), "/api/register", { name, password: "long enough", nick: name });
    expect(answer.status).toBe(200);
    const client = (await UdpTestClient.withSession(answer.body as unknown as Joined)).sign();
    clients.push(client);
    return client.placed();
  }

  /**
   * Posts `text` as `client`'s next line and waits until the server took it (one a second: the chat limit).
   * A region restored from its checkpoint may expect an earlier line number than the client sent last (lines
   * taken after its last checkpoint are forgotten with it): its acknowledgement says which, and the line is
   * posted again under that number.
   */
  async function say(client: UdpTestClient, text: string): Promise<void> {
    for (let tries = 0; ; tries++) {
      const seq = (seqs.get(client) ?? 0) + 1;
      seqs.set(client, seq);
      const since = client.received.length;
      post(client, seq, text);
      // Re-sent until acknowledged, as the client does (docs/protocol.md § 14): a line posted while its region is
      // being restored, or its gateway route found again, is lost like any datagram.
      const again = setInterval(() => post(client, seq, text), 1000);
      const acked = await client
        .waitFor(
          `the answer to line ${seq}`,
          () =>
            client.received
              .slice(since)
              .map(({ packet }) => (packet?.type === "chat_post_ack" ? packet.seq : -1))
              .find((acked) => acked === seq || (acked >= 0 && acked < seq - 1)),
          15_000,
        )
        .finally(() => clearInterval(again));
      if (acked === seq) break;
      if (tries === 3) throw new Error(`line "${text}" not taken`);
      seqs.set(client, acked);
    }
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }

  /** The newest chat line each client's checks have taken: a check looks only at lines after it. */
  const heard = new Map<UdpTestClient, number>();
  /** A system line to `client` alone, after the last one a check took. */
  async function system(client: UdpTestClient, text: string | RegExp): Promise<ChatPacket> {
    const after = heard.get(client) ?? 0;
    const line = await hearLine(
      client,
      String(text),
      (line) =>
        line.seq > after &&
        line.speakerEntityId === 0 &&
        (typeof text === "string" ? line.text === text : text.test(line.text)),
    );
    heard.set(client, line.seq);
    return line;
  }

  const texts = (dialog: DialogPacket) => dialog.elements.flatMap((e) => (e.kind === "text" ? [e.text] : []));
  /** How many dialogs `client` was sent so far: `tradeWindow` looks only at those after. */
  const mark = (client: UdpTestClient) => dialogs(client).length;
  /** The newest trade window `client` was sent after `since` dialogs (its offers' text). */
  const tradeWindow = (client: UdpTestClient, since: number, has = "") =>
    client.waitFor(
      `a trade window${has === "" ? "" : ` with "${has}"`}`,
      () => {
        const found = dialogs(client)
          .slice(since)
          .filter((d) => texts(d).some((t) => t.startsWith("You give:") && t.includes(has)));
        return found[found.length - 1];
      },
      10_000,
    );

  /** Every item in PostgreSQL (bags, chests, piles): item id → count. */
  async function census(): Promise<Map<number, number>> {
    const rows = await db.query<{ item_id: string; total: string }>(
      `SELECT item_id, sum(count) AS total FROM
         (SELECT item_id, count FROM item_stacks UNION ALL SELECT item_id, count FROM item_piles) AS everything
       GROUP BY item_id ORDER BY item_id`,
    );
    return new Map(rows.rows.map((row) => [Number(row.item_id), Number(row.total)]));
  }

  /** A bag as PostgreSQL holds it: item id → count. */
  async function stored(key: string): Promise<Map<number, number>> {
    const rows = await db.query<{ item_id: string; total: string }>(
      "SELECT item_id, sum(count) AS total FROM item_stacks WHERE container = $1 GROUP BY item_id ORDER BY item_id",
      [key],
    );
    return new Map(rows.rows.map((row) => [Number(row.item_id), Number(row.total)]));
  }

  const counted = (stacks: readonly ItemStack[]) => {
    const total = new Map<number, number>();
    for (const stack of stacks) total.set(stack.itemId, (total.get(stack.itemId) ?? 0) + stack.count);
    return total;
  };

  /** The client is shown (by its region) the bag PostgreSQL holds. */
  async function showsStored(client: UdpTestClient, key: string): Promise<void> {
    await until(
      `${key} shown as stored`,
      async () => {
        const want = JSON.stringify([...(await stored(key))]);
        client.query(client.joined.entityId);
        const shown = inventoryOf(client, client.joined.entityId);
        return shown !== undefined && JSON.stringify([...counted(shown.stacks)].sort((a, b) => a[0] - b[0])) === want;
      },
      30_000,
    );
  }

  const accountKey = async (name: string) =>
    `character:${(await db.query<{ id: string }>("SELECT id FROM accounts WHERE name_key = $1", [name])).rows[0].id}`;

  let redis: Redis;
  /** Where region `region` runs now (a restarted region listens on another port). */
  const endpoint = async (region: number) =>
    JSON.parse((await redis.get(`fc:region:${region}`)) ?? "null") as { pid: number; httpPort: number } | null;
  /** The trade figures of region `region` as it runs now. */
  async function tradeStatus(
    region: number,
  ): Promise<{ active: number; holding: number; dropped: number; held: number }> {
    const now = await endpoint(region);
    if (now === null) throw new Error(`region ${region} is not running`);
    const answer = (await (await fetch(`http://127.0.0.1:${now.httpPort}/api/cluster`)).json()) as {
      trades: { active: number; holding: number; dropped: number; held: number };
    };
    return answer.trades;
  }

  async function killRegion(region: number): Promise<void> {
    const before = (await endpoint(region))!;
    process.kill(before.pid, "SIGKILL");
    await until(
      `region ${region} back`,
      async () => {
        const now = await endpoint(region);
        if (now === null || now.pid === before.pid) return false;
        return fetch(`http://127.0.0.1:${now.httpPort}/api/cluster`).then(
          (response) => response.ok,
          () => false,
        );
      },
      40_000,
    );
  }

  /**
   * Ada asks Bob, he accepts, and both see the trade window. Just after a region's restart Ada's region may
   * not see Bob for a while (his region links to hers again and publishes its ghosts): her request waits
   * TRADE_FIND_SECONDS for his ghost, then she is told to stand next to him, and asks again.
   */
  async function open(): Promise<void> {
    for (let tries = 0; ; tries++) {
      const [sinceAda, sinceBob] = [mark(ada), mark(bob)];
      const heardBefore = lines(ada).length;
      await say(ada, "/trade Bob");
      const asked = await bob
        .waitFor(
          "Ada's request",
          () =>
            dialogs(bob)
              .slice(sinceBob)
              .find((d) => labels(d).includes("Decline")),
          5_000,
        )
        .catch(() => null);
      if (asked === null) {
        const told = lines(ada)
          .slice(heardBefore)
          .map((line) => line.text);
        if (tries === 5) throw new Error(`Bob was never asked; Ada was told ${JSON.stringify(told)}`);
        continue;
      }
      reply(bob, asked, 1);
      await tradeWindow(ada, sinceAda);
      await tradeWindow(bob, sinceBob);
      return;
    }
  }

  /** Until neither region has a trade open, asked, or a bag held for one. */
  const noTrades = () =>
    until(
      "no trade open in either region",
      async () => {
        const statuses = await Promise.all([tradeStatus(0), tradeStatus(1)]).catch(() => null);
        return statuses?.every((trades) => trades.active === 0 && trades.holding === 0);
      },
      30_000,
    );

  beforeAll(async () => {
    const map = writeNpcMap({
      width: 80,
      height: 70,
      spawn: SPAWN,
      kinds: [],
      spawns: [],
      items: [POTION, COIN],
      chests: [{ name: "box", x: SPAWN.x + 1, y: SPAWN.y, items: "coin:60, potion:4" }],
    });
    cluster = await startTestCluster(1, [], map);
    db = await connectStore(cluster);
    redis = new Redis(cluster.ready.redis);
    ada = await account("Ada");
    bob = await account("Bob");
    for (const client of [ada, bob])
      await until("in region 1", async () => (await cluster.ownerOf(client.joined.entityId)) === 1);
    // Ada takes the coins, Bob the potions.
    const chest = await ada.waitFor("the chest", () => ada.inView(ENTITY_TYPE_CHEST)[0]?.id, 5000);
    expect(await itemRequest(ada, 1, "take", { container: chest, slot: 0 })).toBe("ok");
    await bob.waitFor("the chest", () => bob.inView(ENTITY_TYPE_CHEST)[0]?.id, 5000);
    expect(await itemRequest(bob, 1, "take", { container: chest, slot: 1 })).toBe("ok");
    keys.ada = await accountKey("ada");
    keys.bob = await accountKey("bob");
    // Ada crosses into region 0, then comes back to the tile west of the border (still region 0's: a
    // player moves back only beyond the handoff margin); Bob stands on the first tile of region 1.
    await walkSteps(
      ada,
      Array.from({ length: SPAWN.x - 29 }, () => WEST),
    );
    await until("Ada in region 0", async () => (await cluster.ownerOf(ada.joined.entityId)) === 0);
    expect(await walkSteps(ada, [EAST, EAST])).toEqual({ x: BORDER_X - 1, y: SPAWN.y });
    expect(
      await walkSteps(
        bob,
        Array.from({ length: SPAWN.x - BORDER_X }, () => WEST),
      ),
    ).toEqual({
      x: BORDER_X,
      y: SPAWN.y,
    });
    expect(await cluster.ownerOf(ada.joined.entityId)).toBe(0);
    expect(await cluster.ownerOf(bob.joined.entityId)).toBe(1);
  }, 180_000);

  afterAll(async () => {
    if (process.env.TRADE_DEBUG)
      require("node:fs").writeFileSync("/tmp/trade39x-cluster.err", cluster.process.stderr());
    for (const client of clients) client.close();
    await db?.end().catch(() => {});
    redis?.disconnect();
    await cluster?.stop();
  }, 20_000);

  it("completes as one transaction over both bags; a change of offer clears both confirmations", async () => {
    expect(await census()).toEqual(WORLD);
    await open();
    await say(ada, "/offer 10 coin");
    // Bob's offer is checked at the home against his bag as his region reports it.
    await say(bob, "/offer 9 potion");
    await system(bob, "You carry only 4 potion.");
    await say(bob, "/offer 1 potion");
    const beforeConfirm = mark(ada);
    await say(ada, "/confirm");
    await system(bob, "Ada confirmed the trade: confirm too to exchange.");
    await tradeWindow(ada, beforeConfirm, "You confirmed: waiting for Bob.");
    // Bob changes his offer: both confirmations are cleared, both see new windows with Confirm again.
    const [sinceAda, sinceBob] = [mark(ada), mark(bob)];
    await say(bob, "/offer 2 potion");
    const adaWindow = await tradeWindow(ada, sinceAda, "You give: 10 coin. Bob gives: 2 potion.");
    expect(labels(adaWindow)).toEqual(["Confirm", "Cancel"]);
    const bobWindow = await tradeWindow(bob, sinceBob, "You give: 2 potion. Ada gives: 10 coin.");
    expect(labels(bobWindow)).toEqual(["Confirm", "Cancel"]);
    // Ada's old confirmation does not count: Bob confirming alone exchanges nothing.
    reply(bob, bobWindow, 1);
    await system(ada, "Bob confirmed the trade: confirm too to exchange.");
    expect(await stored(keys.bob)).toEqual(new Map([[POTION.id, 4]]));
    reply(ada, adaWindow, 1);
    await system(ada, "Trade done: you gave 10 coin and got 2 potion from Bob.");
    await system(bob, "Trade done: you gave 2 potion and got 10 coin from Ada.");
    // Durable before either heard it, in both bags.
    expect(await stored(keys.ada)).toEqual(
      new Map([
        [POTION.id, 2],
        [COIN.id, 50],
      ]),
    );
    expect(await stored(keys.bob)).toEqual(
      new Map([
        [POTION.id, 2],
        [COIN.id, 10],
      ]),
    );
    expect(await census()).toEqual(WORLD);
    await showsStored(ada, keys.ada);
    await showsStored(bob, keys.bob);

    // Walking apart calls a trade off, and so does a player leaving it: nothing moved.
    await open();
    await say(bob, "/offer 1 potion");
    await walkSteps(bob, [EAST, EAST, EAST]);
    await system(ada, "You walked apart; the trade is off.");
    await system(bob, "You walked apart; the trade is off.");
    await walkSteps(bob, [WEST, WEST, WEST]);
    expect(await census()).toEqual(WORLD);
    // Bob out of sight of region 0 (beyond the ghost radius): he plays, in region 1 — the directory of players
    // says so — and Ada is told to stand next to him, never that nobody called Bob is playing (issue 41: the
    // answer she got whenever his ghost had not reached her region yet).
    const far = GHOST_RADIUS_TILES + 2;
    await walkSteps(
      bob,
      Array.from({ length: far }, () => EAST),
    );
    await say(ada, "/trade Bob");
    await system(ada, /^(Stand next to Bob to trade\.|Nobody called Bob is playing now\.)$/).then((line) =>
      expect(line.text).toBe("Stand next to Bob to trade."),
    );
    await walkSteps(
      bob,
      Array.from({ length: far }, () => WEST),
    );
    // A guest by the border is not asked across it: its bag lives only in its region.
    const gus = (await UdpTestClient.connect(http(), "Gus")).sign();
    clients.push(gus);
    await gus.placed();
    await walkSteps(
      gus,
      Array.from({ length: SPAWN.x - BORDER_X - 1 }, () => WEST),
    );
    await say(ada, "/trade Gus");
    await system(ada, "Gus plays as a guest: only registered players trade across a region border.");
    gus.leave();
    const [trades0, trades1] = await Promise.all([tradeStatus(0), tradeStatus(1)]);
    expect(trades0.dropped + trades1.dropped).toBe(0);
    expect(trades1.held).toBe(1);
    await noTrades();
  }, 120_000);

  /**
   * One trade of Ada's 5 coin for Bob's 1 potion, confirmed by both with a row lock of this test's on
   * `locked`'s bag (its container row, or its stacks: Bob's are written after his bag passed its guard)
   * holding up the home's transaction; region `killed` is killed then, and the lock let go.
   */
  async function killMidCommit(locked: string, killed: number, rows: "container" | "stacks"): Promise<void> {
    await open();
    await say(ada, "/offer 5 coin");
    await say(bob, "/offer 1 potion");
    const lock = await connectStore(cluster);
    try {
      await lock.query("BEGIN");
      await lock.query(
        rows === "container"
          ? "SELECT 1 FROM item_containers WHERE key = $1 FOR UPDATE"
          : "SELECT 1 FROM item_stacks WHERE container = $1 FOR UPDATE",
        [locked],
      );
      await say(bob, "/confirm");
      await say(ada, "/confirm");
      // The home's transaction waits on the lock: both bags held, the exchange under way.
      await until(
        "the home's transaction waiting on the bag",
        async () =>
          (
            await db.query("SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE $1", [
              rows === "container" ? "%item_containers%" : "%item_stacks%",
            ])
          ).rows.length > 0,
      );
      await killRegion(killed);
    } finally {
      await lock.query("ROLLBACK").catch(() => {});
      await lock.end().catch(() => {});
    }
  }

  it("a region killed with SIGKILL before the prepare, or while the exchange is written, loses and doubles nothing; a player leaving calls the trade off", async () => {
    // A keep-alive every 200 ms, as a client sends: a region restored from its checkpoint hears its
    // players again through them.
    const keepAlive = setInterval(() => {
      ada.action(0, 0);
      bob.action(0, 0);
    }, 200);
    try {
      await killsConserve();
    } finally {
      clearInterval(keepAlive);
    }
  }, 400_000);

  async function killsConserve(): Promise<void> {
    // Before any prepare: the trade is open, Bob has confirmed; each region in turn is killed.
    for (const killed of [0, 1]) {
      await open();
      await say(ada, "/offer 5 coin");
      await say(bob, "/confirm");
      await killRegion(killed);
      // The other side hears the trade is off (its region gone silent, or its player gone with it).
      await system(killed === 0 ? bob : ada, /trade is off/);
      expect(await census()).toEqual(WORLD);
      await showsStored(ada, keys.ada);
      await showsStored(bob, keys.bob);
      await noTrades();
    }
    // While the home writes both bags: held up on Ada's bag, then on Bob's, with each region killed.
    // Last, held up writing Bob's stacks — after his bag passed its guard — with Bob's region killed: the
    // exchange is written (his region was alive when it was checked), and his restored region reads his bag
    // only once it is, never the copy from before the trade.
    for (const [locked, killed, rows] of [
      [keys.ada, 0, "container"],
      [keys.bob, 1, "container"],
      [keys.bob, 0, "container"],
      [keys.ada, 1, "container"],
      [keys.bob, 0, "stacks"],
      [keys.bob, 1, "stacks"],
    ] as const) {
      const before = [await stored(keys.ada), await stored(keys.bob)];
      await killMidCommit(locked, killed, rows);
      await noTrades();
      expect(await census()).toEqual(WORLD);
      // Each region plays its player on with the bag PostgreSQL holds — traded or not, never a stale copy.
      await showsStored(ada, keys.ada);
      await showsStored(bob, keys.bob);
      // The exchange happened whole, or not at all.
      const after = [await stored(keys.ada), await stored(keys.bob)];
      const moved = (after[0].get(COIN.id) ?? 0) !== (before[0].get(COIN.id) ?? 0);
      const sign = moved ? 1 : 0;
      expect(after[0].get(COIN.id) ?? 0).toBe((before[0].get(COIN.id) ?? 0) - 5 * sign);
      expect(after[1].get(COIN.id) ?? 0).toBe((before[1].get(COIN.id) ?? 0) + 5 * sign);
      expect(after[0].get(POTION.id) ?? 0).toBe((before[0].get(POTION.id) ?? 0) + sign);
      expect(after[1].get(POTION.id) ?? 0).toBe((before[1].get(POTION.id) ?? 0) - sign);
      process.stderr.write(
        `region ${killed} killed mid-commit (held up on ${locked}'s ${rows}): ${moved ? "traded" : "not traded"}\n`,
      );
      if (rows === "stacks" && killed === 1) expect(moved).toBe(true);
    }
    // And a player who disconnects calls the trade off for the other, whose region is the home.
    await open();
    await say(bob, "/offer 1 potion");
    bob.leave();
    await system(ada, "Bob left; the trade is off.");
    await noTrades();
    expect(await census()).toEqual(WORLD);
  }
  it("sends no statement on a store connection busy with another (pg's deprecation warning)", () => {
    expect(cluster.process.stderr()).not.toContain(PG_BUSY_CLIENT_WARNING);
  });
});
