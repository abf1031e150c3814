// A host's content in a cluster (issue 38: "a cluster runs a script in the region holding its NPC; quest
// state and shop transactions go through the shared stores; crossing a border never loses a quest step"):
// a real cluster (redis-server, PostgreSQL, two region processes, a gateway) on a map whose content folder
// holds one script — Tom, on region 1's ground, gives an errand (walk to the west yard, on region 0's
// ground) and keeps a stall with a stock of potions. Protocol clients on real UDP.
//  - An account: the errand taken in region 1 is in PostgreSQL before the client hears of it; its step,
//    made by region 0's copy of the script when the player enters the yard there, is written by region 0
//    (the character's lease moved with it); handed in back in region 1, the reward, the experience and
//    "done" land in one transaction; a potion bought leaves the stall's stock in the sale's transaction.
//  - A guest: its quests live only in its session, so they cross the border in the handoff.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HANDOFF_MARGIN_TILES } from "../ts/cluster/layout.js";
import { postgresSkipReason } from "../ts/cluster/postgres-process.js";
import { ACTION_DX, ACTION_DY } from "../ts/protocol/action.js";
import type { DialogPacket } from "../ts/protocol/dialog.js";
import type { Tlv } from "../ts/protocol/tlv.js";
import {
  BORDER_X,
  clusterSkipReason,
  connectStore,
  startTestCluster,
  type TestCluster,
  until,
} from "./support/cluster-process.js";
import { postJson } from "./support/game-harness.js";
import { bagOf, itemDef } from "./support/item-client.js";
import { testKind, writeNpcMap } from "./support/npc-map.js";
import { dialogs, labels, ownTlv, reply } from "./support/script-dialogs.js";
import { type Joined, UdpTestClient } from "./support/udp-client.js";
import { walkSteps } from "./support/walk.js";

const skip = clusterSkipReason() ?? postgresSkipReason();
if (skip !== null) process.stderr.write(`test/cluster-content.test.ts skipped: ${skip}\n`);

const WEST = ACTION_DX.findIndex((dx, code) => code > 0 && dx === -1 && ACTION_DY[code] === 0);
const EAST = ACTION_DX.findIndex((dx, code) => code > 0 && dx === 1 && ACTION_DY[code] === 0);
const COIN = itemDef({ id: 1, name: "gold coin", kind: "treasure", stack: 100, sprite: "coin" });
const POTION = itemDef({ id: 2, name: "healing potion", kind: "consumable", stack: 5, heal: 10, sprite: "potion" });
const TOM = testKind({ name: "tom", typeId: 40, behaviour: "guard", wander: 0, speed: 20, hp: 40, perception: 4, leash: 6 }); // prettier-ignore
const SPAWN = { x: 44, y: 35 };
const TOM_AT = { x: 45, y: 35 };
/** The yard: on region 0's ground, clear of the border's margin. */
const YARD = { name: "west yard", x: 10, y: 30, width: 8, height: 10 };
const REWARD = { coins: 25, xp: 40 };
const POTION_PRICE = 5;
const STOCK = 10;
const STOCK_KEY = "shop:stall:healing potion";

const SCRIPT = `
quest.define{ id = "errand", title = "An errand", text = "Walk to the west yard.", giver = "tom",
              reward = { ["gold coin"] = ${REWARD.coins} }, xp = ${REWARD.xp} }
shop.define{ id = "stall", title = "Tom's stall", greeting = "Potions.",
             sells = { { item = "healing potion", price = ${POTION_PRICE}, stock = ${STOCK} } } }
on.enter("west yard", function(player, zone) quest.progress(player, "errand", 1) end)
on.talk("tom", function(npc, player)
  if quest.offered(player, "errand") then
    quest.start(player, "errand")
  elseif quest.state(player, "errand").state == "ready" then
    quest.complete(player, "errand", function(outcome) shop.open(player, "stall", npc.name) end)
  else
    shop.open(player, "stall", npc.name)
  end
end)
`;

/** The errand's standing in the client's own detail: 1 active, 2 ready, 3 done (0: none). */
function errandState(client: UdpTestClient): number {
  const quests = ownTlv(client, "quests") as Extract<Tlv, { kind: "quests" }> | undefined;
  return quests?.quests[0]?.state ?? 0;
}

describe.skipIf(skip !== null)("content in a cluster: quests and shops in the shared store", () => {
  let cluster: TestCluster;
  let db: pg.Client;
  const clients: UdpTestClient[] = [];
  const http = () => cluster.ready.gateways[0].httpPort;

  async function playing(joined: Joined): Promise<UdpTestClient> {
    const client = (await UdpTestClient.withSession(joined)).sign();
    clients.push(client);
    return client.placed();
  }

  const questRow = async (accountId: number) =>
    (
      await db.query<{ state: string; progress: string }>(
        "SELECT state, progress FROM character_quests WHERE account_id = $1 AND quest = 'errand'",
        [accountId],
      )
    ).rows.map((row) => ({ state: row.state, progress: Number(row.progress) }))[0] ?? null;

  /** Talks to Tom (a query of him from beside him) until `done` holds. */
  async function talkToTom(client: UdpTestClient, what: string, done: () => boolean): Promise<void> {
    const tom = await client.waitFor("Tom in view", () => client.inView(TOM.typeId)[0]?.id, 5000);
    let askedAt = -Infinity;
    await client.waitFor(
      what,
      () => {
        if (performance.now() - askedAt > 500) {
          askedAt = performance.now();
          client.query(tom);
        }
        return done();
      },
      10_000,
    );
  }

  /** Walks `steps` steps in `action` and waits until region `region` plays the client's entity. */
  async function walkTo(client: UdpTestClient, action: number, steps: number, region: number): Promise<void> {
    await walkSteps(
      client,
      Array.from({ length: steps }, () => action),
    );
    const id = client.joined.entityId;
    expect(await until(`region ${region} playing it`, async () => (await cluster.ownerOf(id)) === region)).toBe(true);
  }

  beforeAll(async () => {
    const map = writeNpcMap({
      width: 80,
      height: 70,
      spawn: SPAWN,
      kinds: [TOM],
      spawns: [{ kind: TOM.name, ...TOM_AT }],
      items: [COIN, POTION],
      zones: [YARD],
    });
    const contentDir = join(dirname(map.path), "npcs.content");
    mkdirSync(contentDir);
    writeFileSync(join(contentDir, "errand.lua"), SCRIPT);
    cluster = await startTestCluster(1, [], map);
    db = await connectStore(cluster);
  }, 120_000);

  afterAll(async () => {
    for (const client of clients) client.close();
    await db?.end().catch(() => {});
    await cluster?.stop();
  }, 20_000);

  it("an account's errand: taken in region 1, its step made and written in region 0, handed in with its reward in one transaction back in region 1; a sale leaves the stock", async () => {
    const registered = await postJson(http(), "/api/register", { name: "Runner", password: "long enough", nick: "Runner" }); // prettier-ignore
    expect(registered.status).toBe(200);
    const player = await playing(registered.body as unknown as Joined);
    const accountId = Number(
      (await db.query<{ id: string }>("SELECT id FROM accounts WHERE name_key = 'runner'")).rows[0].id,
    );
    expect(await until("region 1 playing it", async () => (await cluster.ownerOf(player.joined.entityId)) === 1)).toBe(true); // prettier-ignore

    // Taken: in PostgreSQL before the client's detail says so.
    await talkToTom(player, "the errand taken", () => errandState(player) === 1);
    expect(await questRow(accountId)).toEqual({ state: "active", progress: 0 });

    // West into the yard, on region 0's ground: region 0's script makes the step, region 0 writes it.
    await walkTo(player, WEST, SPAWN.x - (YARD.x + 4), 0);
    await player.waitFor("the errand ready", () => errandState(player) === 2, 10_000);
    expect(await questRow(accountId)).toEqual({ state: "ready", progress: 1 });

    // Back to Tom in region 1: handed in — the coins, the experience and "done" in one transaction.
    await walkTo(player, EAST, SPAWN.x - (YARD.x + 4), 1);
    expect(player.position()!.x).toBeGreaterThan(BORDER_X + HANDOFF_MARGIN_TILES);
    await talkToTom(player, "the errand handed in", () => errandState(player) === 3);
    expect(await questRow(accountId)).toEqual({ state: "done", progress: 1 });
    const stacks = async () =>
      (
        await db.query<{ item_id: string; count: string }>(
          "SELECT item_id, count FROM item_stacks WHERE container = $1 ORDER BY slot",
          [`character:${accountId}`],
        )
      ).rows.map((row) => [Number(row.item_id), Number(row.count)]);
    expect(await stacks()).toEqual([[COIN.id, REWARD.coins]]);
    const xp = Number((await db.query<{ xp: string }>("SELECT xp FROM characters WHERE account_id = $1", [accountId])).rows[0].xp); // prettier-ignore
    expect(xp).toBeGreaterThanOrEqual(REWARD.xp);

    // The stall (opened after the hand-in): a potion bought leaves the stock in the sale's transaction.
    const stall = await player.waitFor(
      "the stall",
      () => dialogs(player).find((dialog) => labels(dialog).some((label) => label.startsWith("Buy healing potion"))),
      10_000,
    );
    const buy = labels(stall).findIndex((label) => label.startsWith("Buy healing potion")) + 1;
    const seen = dialogs(player).length;
    reply(player, stall, buy);
    await player.waitFor("the sale's answer", () => dialogs(player).length > seen, 10_000);
    const answer: DialogPacket = dialogs(player).at(-1)!;
    expect(JSON.stringify(answer.elements)).toContain("You buy the healing potion.");
    expect(await stacks()).toEqual([
      [COIN.id, REWARD.coins - POTION_PRICE],
      [POTION.id, 1],
    ]);
    const stock = await db.query<{ value: string }>("SELECT value FROM world_values WHERE key = $1", [STOCK_KEY]);
    expect(stock.rows.map((row) => JSON.parse(row.value) as unknown)).toEqual([STOCK - 1]);
    expect(await bagOf(player)).toEqual([
      { slot: 0, itemId: COIN.id, count: REWARD.coins - POTION_PRICE },
      { slot: 1, itemId: POTION.id, count: 1 },
    ]);
  }, 90_000);

  it("a guest's errand crosses the border in its session: taken in region 1, made ready in region 0", async () => {
    const joined = await postJson(http(), "/api/guest", { nick: "Wanderer" });
    expect(joined.status).toBe(200);
    const guest = await playing(joined.body as unknown as Joined);
    expect(await until("region 1 playing it", async () => (await cluster.ownerOf(guest.joined.entityId)) === 1)).toBe(true); // prettier-ignore
    await talkToTom(guest, "the errand taken", () => errandState(guest) === 1);
    await walkTo(guest, WEST, SPAWN.x - (YARD.x + 4), 0);
    // Region 0 knew the errand was under way (the handoff carried it): entering the yard made it ready.
    await guest.waitFor("the errand ready", () => errandState(guest) === 2, 10_000);
  }, 60_000);
});
