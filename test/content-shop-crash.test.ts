// A host's shop survives any crash (issue 38): the real server runs as a child process (persistent-server.ts)
// on a SQLite file, with the stall's script in the map's content folder. A registered player talks to the
// merchant — the first talk hands it a purse through a quest — and then buys and sells in the stall as
// fast as the answers come, until the server is killed with SIGKILL at a random moment; then again on
// the same file, KILLS times. After every kill the database, read directly, must hold:
//  - the purse, with its quest done (the stall opens only once both are written, in one transaction);
//  - a bag and a stock that whole trades at their prices join to the start (tradesBetween): no coin or
//    good made or lost, the stall's stock with them;
//  - every trade the player was told of ("You buy the dagger."), and beyond those at most the one press
//    whose answer the kill cut off — which then counts whole, or not at all.
// And the scripts ran without an error (the purse's callback opens the stall in the same turn).
import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { DIALOG_STATE_SHOWN, encodeDialogAck } from "../ts/protocol/dialog-ack.js";
import type { DialogPacket } from "../ts/protocol/dialog.js";
import { postJson } from "./support/game-harness.js";
import type { NpcMap } from "./support/npc-map.js";
import { dialogs, reply } from "./support/script-dialogs.js";
import { startServerProcess } from "./support/server-process.js";
import {
  COIN,
  countsOf,
  GEM,
  MERCHANT,
  noTrades,
  POTION,
  PURSE,
  shopNote,
  startShopServer,
  STOCK,
  storedShopState,
  TRADE_COINS,
  type Trades,
  tradeOf,
  tradeOfLabel,
  tradesBetween,
  writeShopWorld,
} from "./support/shop-world.js";
import { type Joined, UdpTestClient } from "./support/udp-client.js";

const KILLS = 6;
const NAME = "Haggler";
const PASSWORD = "haggler-password";

const dir = mkdtempSync(join(tmpdir(), "caves-shop-crash-"));
const worlds: NpcMap[] = [];
const children: ChildProcess[] = [];
const clients: UdpTestClient[] = [];
const closers: (() => Promise<void>)[] = [];

afterAll(async () => {
  for (const client of clients) client.close();
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  for (const close of closers) await close();
  for (const world of worlds) world.dispose();
  rmSync(dir, { recursive: true, force: true });
});

/** What a new character holds once the purse quest is done. */
const purseCounts = () => new Map([[COIN.id, PURSE.coins] as const, [GEM.id, PURSE.gems] as const]);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The newest stall dialog the client was sent. */
function newestStall(client: UdpTestClient): DialogPacket | undefined {
  let newest: DialogPacket | undefined;
  for (const dialog of dialogs(client)) {
    if (shopNote(dialog.elements) !== null && (newest === undefined || dialog.dialogId > newest.dialogId)) {
      newest = dialog;
    }
  }
  return newest;
}

function acknowledge(client: UdpTestClient, dialog: DialogPacket): void {
  const out = new Uint8Array(19);
  encodeDialogAck(
    {
      type: "dialog_ack",
      clientType: 0,
      authToken: client.token,
      dialogId: dialog.dialogId,
      state: DIALOG_STATE_SHOWN,
    },
    out,
  );
  client.sendRaw(out);
}

describe("a host's shop and crashes", () => {
  it(`SIGKILL at random moments, ${KILLS} times, mid-trade: every trade whole or not at all, each told one durable`, async () => {
    const world = writeShopWorld({ purse: true });
    worlds.push(world);
    const dbPath = join(dir, "crash.sqlite");
    let random = 0x5eed1e55;
    const next = () => {
      random = (Math.imul(random, 1664525) + 1013904223) >>> 0;
      return random / 2 ** 32;
    };
    let durable = noTrades();
    let told = 0;
    for (let round = 0; round < KILLS; round++) {
      const server = await startServerProcess(dbPath, world.path, children);
      const route = round === 0 ? "/api/register" : "/api/login";
      const answer = await postJson(server.httpPort, route, { name: NAME, password: PASSWORD, nick: NAME });
      expect(answer.status).toBe(200);
      const client = await UdpTestClient.withSession(answer.body as unknown as Joined);
      clients.push(client);
      await client.placed(5000);
      const merchant = await client.waitFor("the merchant", () => client.inView(MERCHANT.typeId)[0], 5000);
      // Talk until the stall opens (a talk is a query; the first one also hands over the purse).
      let talkedAtMs = -Infinity;
      await client.waitFor(
        "the stall",
        () => {
          if (performance.now() - talkedAtMs > 300) {
            talkedAtMs = performance.now();
            client.query(merchant.id);
          }
          return newestStall(client);
        },
        5000,
      );
      const status = (await (await fetch(`http://127.0.0.1:${server.httpPort}/api/status`)).json()) as {
        scripts: { errors: number; files: { lastError: string | null }[] };
      };
      expect(status.scripts.files.map((file) => file.lastError)).toEqual([null]);
      expect(status.scripts.errors).toBe(0);

      // Trades as fast as the answers come, until the kill.
      const killAt = Date.now() + 150 + next() * 600;
      const killed = (async () => {
        await sleep(killAt - Date.now());
        server.child.kill("SIGKILL");
        await once(server.child, "exit");
      })();
      const heard = noTrades();
      const daggers = () => durable.boughtDaggers + heard.boughtDaggers;
      let unanswered: keyof Trades | null = null;
      let carried = shopNote(newestStall(client)!.elements)!.carried;
      while (Date.now() < killAt) {
        const dialog = newestStall(client)!;
        acknowledge(client, dialog);
        const buttons = dialog.elements.flatMap((element) =>
          element.kind === "button" && /^(Buy|Sell) /.test(element.label) ? [element] : [],
        );
        // Any trade on offer but a fifth dagger (the stall does not buy them back: they would fill the bag);
        // short of coins, a sale. So every round has trades for the kill to cut off.
        const sales = buttons.filter((button) => button.label.startsWith("Sell "));
        const wanted = buttons.filter((button) => tradeOfLabel(button.label) !== "boughtDaggers" || daggers() < 4);
        const offered = carried < 12 && sales.length > 0 ? sales : wanted;
        const button = offered[Math.floor(next() * offered.length)];
        const asked = tradeOfLabel(button.label)!;
        unanswered = asked;
        // Re-sent every 100 ms until the stall opens again with the answer.
        let answered: DialogPacket | undefined;
        for (let sends = 0; sends < 20 && answered === undefined && Date.now() < killAt + 200; sends++) {
          reply(client, dialog, button.returnCode);
          const deadline = Date.now() + 100;
          while (answered === undefined && Date.now() < deadline) {
            const newest = newestStall(client)!;
            if (newest.dialogId > dialog.dialogId) answered = newest;
            else await sleep(2);
          }
        }
        if (answered === undefined) break; // the kill came first: this press was not heard
        unanswered = null;
        const note = shopNote(answered.elements)!;
        expect(note.outcome).not.toBeNull();
        const trade = tradeOf(note.outcome);
        // A refusal is only ever what the press asked for, refused.
        if (trade !== null) {
          expect(trade).toBe(asked);
          heard[trade]++;
          told++;
        }
        carried = note.carried;
      }
      await killed;
      client.close();

      const stored = storedShopState(dbPath, NAME);
      expect(stored.purse).toBe("done");
      const trades = tradesBetween(
        { counts: purseCounts(), stock: STOCK },
        { counts: countsOf(stored.stacks), stock: stored.stock },
      );
      if (typeof trades === "string") throw new Error(`after kill ${round + 1}: ${trades}`);
      // What this round made durable: what the player heard, and at most the press the kill cut off.
      const beyond = (Object.keys(trades) as (keyof Trades)[]).filter(
        (key) => trades[key] - durable[key] !== heard[key],
      );
      if (beyond.length > 0) {
        expect(beyond).toEqual([unanswered]);
        expect(trades[unanswered!] - durable[unanswered!]).toBe(heard[unanswered!] + 1);
      }
      // The coins stored are the last the player was told it carries, moved by that one press if it counted.
      const cutOffCoins = beyond.length === 0 ? 0 : TRADE_COINS[unanswered!];
      expect(countsOf(stored.stacks).get(COIN.id) ?? 0).toBe(carried + cutOffCoins);
      durable = trades;
    }
    // The loop did trade (else it proved nothing), and the stock moved with it.
    expect(told).toBeGreaterThan(KILLS * 3);
    expect(durable.boughtPotions).toBeGreaterThan(0);
  }, 120_000);

  it("a stock that cannot be written undoes the sale with it: the bag and the stock stay one", async () => {
    const world = writeShopWorld({ purse: true });
    worlds.push(world);
    const dbPath = join(dir, "stock.sqlite");
    const server = await startShopServer(world, dbPath);
    closers.push(() => server.close());
    const answer = await postJson(server.httpPort, "/api/register", { name: NAME, password: PASSWORD, nick: NAME });
    expect(answer.status).toBe(200);
    const client = await UdpTestClient.withSession(answer.body as unknown as Joined);
    clients.push(client);
    await client.placed(5000);
    const merchant = await client.waitFor("the merchant", () => client.inView(MERCHANT.typeId)[0], 5000);
    client.query(merchant.id);
    const stall = await client.waitFor("the stall", () => newestStall(client), 5000);
    // The disk refuses the stock's row from now on (a trigger in the real file: every other write goes on).
    const db = new Database(dbPath);
    db.exec(`
      CREATE TRIGGER stock_refused_insert BEFORE INSERT ON world_values BEGIN SELECT RAISE(ABORT, 'disk full'); END;
      CREATE TRIGGER stock_refused_update BEFORE UPDATE ON world_values BEGIN SELECT RAISE(ABORT, 'disk full'); END;
    `);
    db.close();
    const buy = stall.elements.find((element) => element.kind === "button" && element.label.startsWith("Buy healing potion")); // prettier-ignore
    if (buy?.kind !== "button") throw new Error("the stall sells no potion");
    reply(client, stall, buy.returnCode);
    const answered = await client.waitFor("the answer", () => {
      const newest = newestStall(client)!;
      return newest.dialogId > stall.dialogId ? newest : undefined;
    });
    const note = shopNote(answered.elements)!;
    // Whatever the stall answered, what is stored must be joined by whole trades: a potion in the bag is
    // one the stock no longer holds (else a restart would sell it again).
    const stored = storedShopState(dbPath, NAME);
    const trades = tradesBetween(
      { counts: purseCounts(), stock: STOCK },
      { counts: countsOf(stored.stacks), stock: stored.stock },
    );
    expect(trades).toEqual({ ...noTrades(), boughtPotions: tradeOf(note.outcome) === "boughtPotions" ? 1 : 0 });
    // The stall told the player the truth: nothing changed.
    expect(note.outcome).toEqual({ kind: "refused", text: "That did not work; nothing changed. Try again." });
    expect(server.game.items.countOf(server.game.sessions.byEntityId(client.joined.entityId)!, POTION.id)).toBe(0);
    expect(server.game.scripts!.shops.stockOf("stall", POTION.name)).toBe(STOCK);
  });
});
