// Trades survive any crash (issue 39): the real server runs as a child process on a SQLite file; two
// registered players stand together and trade one coin for one gem, again and again, as fast as the
// answers come (ask, accept, offer, confirm in the trade window), until the server is killed with SIGKILL
// at a random moment — KILLS times, on the same file. After every kill the database, read directly, must
// hold:
//  - every coin and gem exactly once (the world's total never changes);
//  - the same number of trades in both bags — Ada's coins gone equal Bo's gems gone, so no kill ever split
//    a trade between the two writes (there is one);
//  - every trade either player was told of ("Trade done"), and beyond those at most the one whose answer
//    the kill cut off.
import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { type AccountRequest, type ChatEvent, connectAccount, GameClient } from "../ts/client/core/index.js";
import { UdpNodeTransport } from "../ts/client/transport/udp-node.js";
import type { ItemDef } from "../ts/server/content/item-catalogue.js";
import { loadCore } from "../ts/wasm/node.js";
import { drive } from "./client-core-support.js";
import { storedItemTotals } from "./support/item-census.js";
import { writeNpcMap } from "./support/npc-map.js";
import { startServerProcess } from "./support/server-process.js";

const KILLS = Number(process.env.KILLS ?? 50);
const COIN: ItemDef = {
  id: 1,
  name: "coin",
  kind: "treasure",
  stack: 99,
  sprite: "coin",
  damage: 0,
  armor: 0,
  heal: 0,
};
const GEM: ItemDef = { id: 2, name: "gem", kind: "treasure", stack: 99, sprite: "gem", damage: 0, armor: 0, heal: 0 };
const START = 90;

const dir = mkdtempSync(join(tmpdir(), "caves-trade-crash-"));
const map = writeNpcMap({
  width: 14,
  height: 8,
  spawn: { x: 4, y: 4 },
  kinds: [],
  spawns: [],
  items: [COIN, GEM],
  chests: [{ name: "hoard", x: 5, y: 4, items: `coin:${START}, gem:${START}` }],
});
const children: ChildProcess[] = [];
const clients: GameClient[] = [];

afterAll(() => {
  for (const client of clients) client.close();
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  map.dispose();
  rmSync(dir, { recursive: true, force: true });
});

/** Coins and gems by where they are: each account's bag, and the world's total. */
function stored(dbPath: string): {
  ada: Record<number, number>;
  bo: Record<number, number>;
  total: Record<number, number>;
} {
  const db = new Database(dbPath, { readonly: true });
  try {
    const bagOf = (name: string): Record<number, number> => {
      const rows = db
        .prepare(
          "SELECT s.item_id AS id, SUM(s.count) AS n FROM item_stacks s JOIN accounts a ON s.container = 'character:' || a.id " +
            "WHERE a.name = ? GROUP BY s.item_id",
        )
        .all(name) as { id: number; n: number }[];
      return Object.fromEntries(rows.map((row) => [row.id, row.n]));
    };
    return {
      ada: bagOf("ada_trader"),
      bo: bagOf("bo_trader"),
      total: storedItemTotals(db),
    };
  } finally {
    db.close();
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Trader {
  client: GameClient;
  events: ChatEvent[];
}

async function joinTrader(baseUrl: string, request: AccountRequest): Promise<Trader> {
  const connection = await connectAccount(baseUrl, request, async (session) =>
    UdpNodeTransport.connect("127.0.0.1", session.udpPort),
  );
  const client = GameClient.create({ core: await loadCore(), ...connection });
  clients.push(client);
  const events: ChatEvent[] = [];
  client.chat.listen((event) => events.push(event));
  await drive([client], "playing", () => client.state === "playing");
  return { client, events };
}

/** How many of `itemId` the trader's bag holds, as its client last heard. */
const carried = (trader: Trader, itemId: number) =>
  (trader.client.items.inventory?.stacks ?? []).reduce(
    (sum, stack) => sum + (stack.itemId === itemId ? stack.count : 0),
    0,
  );

/** The newest shown dialog whose text holds `text`, if any (an older one may still show until its close arrives). */
function dialogWith(trader: Trader, text: string) {
  return [...trader.client.dialogs.shown.values()]
    .filter((dialog) => JSON.stringify(dialog.elements).includes(text))
    .sort((a, b) => b.id - a.id)[0];
}

describe("trades and crashes", () => {
  it(`SIGKILL at random moments, ${KILLS} times, mid-stream of trades: every item once, no trade split, none told of lost`, async () => {
    const dbPath = join(dir, "trades.sqlite");
    let random = 0x3779b97f;
    const next = () => {
      random = (Math.imul(random, 1664525) + 1013904223) >>> 0;
      return random / 2 ** 32;
    };
    let told = 0;
    let completed = 0;
    for (let round = 0; round < KILLS; round++) {
      const server = await startServerProcess(dbPath, map.path, children);
      const baseUrl = `http://127.0.0.1:${server.httpPort}`;
      const kind = round === 0 ? "register" : "login";
      // Both at once: each login waits mostly on its password's hash, on libuv's threads.
      const [ada, bo] = await Promise.all([
        joinTrader(baseUrl, { kind, name: "ada_trader", password: "ada-password", nick: "Ada" }),
        joinTrader(baseUrl, { kind, name: "bo_trader", password: "bo-password", nick: "Bo" }),
      ]);
      const both = [ada.client, bo.client];
      if (round === 0) {
        // Ada takes the coins, Bo the gems, from the chest beside the spawn.
        const chest = () => [...ada.client.entities.values()].find((entity) => entity.x === 5 && entity.y === 4);
        await drive(both, "the chest in view", () => chest() !== undefined);
        const chestId = chest()!.id;
        ada.client.take(chestId, 0, START);
        await drive(both, "Ada's coins", () => carried(ada, COIN.id) === START);
        bo.client.take(chestId, 1, START);
        await drive(both, "Bo's gems", () => carried(bo, GEM.id) === START);
      }
      // Trades as fast as answers come, until the kill.
      const killAt = performance.now() + 150 + next() * 600;
      let dead = false;
      const killed = (async () => {
        await sleep(killAt - performance.now());
        server.child.kill("SIGKILL");
        await once(server.child, "exit");
        dead = true;
      })();
      /** Drives both until `done`; throws at once when the server is gone (nothing more will come). */
      const until = async (what: string, done: () => boolean) => {
        await drive(both, what, () => dead || done(), 5000);
        if (dead) throw new Error("killed");
      };
      try {
        while (performance.now() < killAt) {
          const doneBefore = ada.events.length;
          ada.client.postChat("/trade Bo");
          await until("the request", () => dialogWith(bo, "Ada wants to trade") !== undefined);
          bo.client.replyDialog(dialogWith(bo, "Ada wants to trade")!.id, 1);
          await until("the window", () => dialogWith(ada, "Trade with Bo") !== undefined);
          ada.client.postChat("/offer 1 coin");
          bo.client.postChat("/offer 1 gem");
          for (const [trader, text] of [
            [ada, "You give: 1 coin. Bo gives: 1 gem"],
            [bo, "You give: 1 gem. Ada gives: 1 coin"],
          ] as const) {
            await until("both offers shown", () => dialogWith(trader, text) !== undefined);
            trader.client.replyDialog(dialogWith(trader, text)!.id, 1);
          }
          await until("the trade done", () =>
            ada.events.slice(doneBefore).some((e) => e.kind === "line" && e.text.startsWith("Trade done")),
          );
          told++;
        }
      } catch (error) {
        if (!dead) throw error;
        // The kill cut the stream somewhere: what happened is read from the database below.
      }
      await killed;
      for (const trader of [ada, bo]) trader.client.close();
      const after = stored(dbPath);
      // Every coin and gem is somewhere, once.
      expect(after.total).toEqual({ [COIN.id]: START, [GEM.id]: START });
      // One write per trade: Ada's coins gone equal Bo's gems gone, and each got the other's.
      const trades = START - (after.ada[COIN.id] ?? 0);
      expect(START - (after.bo[GEM.id] ?? 0)).toBe(trades);
      expect([after.ada[GEM.id] ?? 0, after.bo[COIN.id] ?? 0]).toEqual([trades, trades]);
      // Every trade a player was told of is written; at most the one cut off beyond them.
      expect(trades).toBeGreaterThanOrEqual(told);
      expect(trades).toBeLessThanOrEqual(told + 1);
      told = trades;
      completed = trades;
    }
    // The loop did trade (else it proved nothing): chat's posting limit (1 line a second) paces the traders.
    expect(completed).toBeGreaterThanOrEqual(KILLS / 2);
  }, 300_000);
});
