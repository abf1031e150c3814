// The world the shop tests trade in (issue 38): a walled room with a merchant standing beside the spawn,
// and the merchant's content script written where a host writes it (`<map>.content/stall.lua`), so the
// server reads it as it reads a host's. The stall sells healing potions (a stock of STOCK, kept in the
// world's values) and daggers (never running out) for gold coins, and buys gems and potions back. With
// `purse`, the first talk to the merchant also hands a new character its purse through a quest (the
// reward lands with the quest's "done" in one transaction), so a test that cannot reach into the server
// (a child process) starts from known coins.
//
// Also here: what the player is told — each shop dialog's note ("You buy the dagger.") and "You carry N
// gold coins." — and what SQLite holds — a character's bag row, the stall's stock — so the tests can hold
// the two against each other and against the bookkeeping of a sale.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import Database from "better-sqlite3";
import type { DialogElement } from "../../ts/protocol/dialog.js";
import type { ItemDef } from "../../ts/server/content/item-catalogue.js";
import { Logger } from "../../ts/server/ops/log.js";
import { openGameDatabase } from "../../ts/server/persistence/database.js";
import { type RunningServer, type ServerOptions, startServer } from "../../ts/server/server.js";
import { itemDef } from "./item-client.js";
import { type NpcMap, testKind, writeNpcMap } from "./npc-map.js";

export const COIN = itemDef({ id: 1, name: "gold coin", kind: "treasure", stack: 100, sprite: "coin" });
export const POTION = itemDef({ id: 2, name: "healing potion", kind: "consumable", stack: 5, heal: 10, sprite: "potion" }); // prettier-ignore
export const GEM = itemDef({ id: 3, name: "gem", kind: "treasure", stack: 10 });
export const DAGGER = itemDef({ id: 4, name: "dagger", kind: "weapon", damage: 4 });
/** Worth nothing to the stall: one to a slot, it fills a bag (the "full" refusals). */
export const PEBBLE = itemDef({ id: 5, name: "pebble", kind: "treasure" });
export const SHOP_ITEMS: readonly ItemDef[] = [COIN, POTION, GEM, DAGGER, PEBBLE];

export const MERCHANT = testKind({
  name: "merchant",
  typeId: 40,
  behaviour: "guard",
  wander: 0,
  speed: 20,
  hp: 40,
  perception: 4,
  leash: 6,
});
export const SPAWN = { x: 6, y: 6 };
/** One step east of the spawn: within the client's reach of one tile. */
export const MERCHANT_AT = { x: 7, y: 6 };

/** The stall's prices in gold coins, and the potions it starts with. */
export const PRICES = { buyPotion: 3, buyDagger: 7, sellGem: 4, sellPotion: 2 } as const;
export const STOCK = 1000;
/** The world value the stall's potion stock is kept under (Shops: "shop:<id>:<item>"). */
export const STOCK_KEY = "shop:stall:healing potion";
/** What the purse quest gives a new character. */
export const PURSE = { coins: 300, gems: 30 } as const;

function stallScript(purse: boolean): string {
  const shop = `
shop.define{
  id = "stall",
  title = "The stall",
  greeting = "Buy or sell.",
  sells = { { item = "healing potion", price = ${PRICES.buyPotion}, stock = ${STOCK} },
            { item = "dagger", price = ${PRICES.buyDagger} } },
  buys  = { { item = "gem", price = ${PRICES.sellGem} }, { item = "healing potion", price = ${PRICES.sellPotion} } },
}
`;
  if (!purse) return `${shop}on.talk("merchant", function(npc, player) shop.open(player, "stall", npc.name) end)\n`;
  return `${shop}
quest.define{ id = "purse", title = "A purse", text = "Take the merchant's purse.", giver = "merchant",
              reward = { ["gold coin"] = ${PURSE.coins}, gem = ${PURSE.gems} } }

on.talk("merchant", function(npc, player)
  if quest.offered(player, "purse") then
    quest.start(player, "purse")
    quest.progress(player, "purse", 1)
  end
  if quest.state(player, "purse").state == "ready" then
    -- The reward and "done" land together; the stall opens once the outcome is known.
    quest.complete(player, "purse", function(outcome) shop.open(player, "stall", npc.name) end)
  else
    shop.open(player, "stall", npc.name)
  end
end)
`;
}

/** Writes the room, its merchant and the stall's script; dispose() removes all of it. */
export function writeShopWorld(options: { purse: boolean }): NpcMap {
  const map = writeNpcMap({
    width: 16,
    height: 12,
    spawn: SPAWN,
    kinds: [MERCHANT],
    spawns: [{ kind: MERCHANT.name, ...MERCHANT_AT }],
    items: [...SHOP_ITEMS],
  });
  // <map>.content beside the map (npcs.tmj → npcs.content/), as docs/content.md has a host make it.
  const contentDir = join(dirname(map.path), "npcs.content");
  mkdirSync(contentDir);
  writeFileSync(join(contentDir, "stall.lua"), stallScript(options.purse));
  return map;
}

/** The real server in-process on `world` (ports 0, no browser client), its database the SQLite file `dbPath`. */
export function startShopServer(
  world: NpcMap,
  dbPath: string,
  overrides: Partial<ServerOptions> = {},
): Promise<RunningServer> {
  return startServer({
    host: "127.0.0.1",
    httpPort: 0,
    udpPort: 0,
    mapPath: world.path,
    logger: new Logger("silent"),
    clientDir: join(dirname(dbPath), "no-client"),
    database: openGameDatabase(dbPath),
    ...overrides,
  });
}

/** What one shop dialog says: the note on the last choice (if any) and the coins the player carried. */
export interface ShopNote {
  /** "buy" / "sell" an item by name, a refusal, or nothing (the stall opened by a talk). */
  readonly outcome: { kind: "buy" | "sell"; item: string } | { kind: "refused"; text: string } | null;
  readonly carried: number;
}

/** A shop dialog's note, or null when the dialog is not the stall's. */
export function shopNote(elements: readonly DialogElement[]): ShopNote | null {
  const texts = elements.flatMap((element) => (element.kind === "text" ? [element.text] : []));
  if (texts[0] !== "The stall" || texts.length < 2) return null;
  const lines = texts[1].split("\n");
  const carried = /^You carry (\d+) gold coins?\.$/.exec(lines[lines.length - 1]);
  if (carried === null) throw new Error(`a stall dialog without the coins carried: ${JSON.stringify(texts[1])}`);
  const first = lines[0];
  const traded = /^You (buy|sell) the (.+)\.$/.exec(first);
  const outcome =
    traded !== null
      ? { kind: traded[1] as "buy" | "sell", item: traded[2] }
      : first === "Buy or sell."
        ? null
        : { kind: "refused" as const, text: first };
  return { outcome, carried: Number(carried[1]) };
}

/** Counts by item id from stacks (a bag's, with its equipment slots). */
export function countsOf(stacks: readonly { itemId: number; count: number }[]): Map<number, number> {
  const counts = new Map<number, number>();
  for (const stack of stacks) counts.set(stack.itemId, (counts.get(stack.itemId) ?? 0) + stack.count);
  return counts;
}

/** The four kinds of trade the stall makes, counted. */
export interface Trades {
  boughtPotions: number;
  boughtDaggers: number;
  soldGems: number;
  soldPotions: number;
}

/** What one trade of each kind moves the bag's coins by. */
export const TRADE_COINS: Readonly<Record<keyof Trades, number>> = {
  boughtPotions: -PRICES.buyPotion,
  boughtDaggers: -PRICES.buyDagger,
  soldGems: PRICES.sellGem,
  soldPotions: PRICES.sellPotion,
};

/** What one trade of each kind moves in the bag besides the coins. */
export const TRADE_GOODS: Readonly<Record<keyof Trades, { itemId: number; count: number }>> = {
  boughtPotions: { itemId: POTION.id, count: 1 },
  boughtDaggers: { itemId: DAGGER.id, count: 1 },
  soldGems: { itemId: GEM.id, count: -1 },
  soldPotions: { itemId: POTION.id, count: -1 },
};

/** The trade a stall outcome is; null for a refusal or none. */
export function tradeOf(outcome: ShopNote["outcome"]): keyof Trades | null {
  if (outcome === null || outcome.kind === "refused") return null;
  if (outcome.kind === "buy") return outcome.item === POTION.name ? "boughtPotions" : "boughtDaggers";
  return outcome.item === GEM.name ? "soldGems" : "soldPotions";
}

/** The trade a press of a stall button asks for, by its label ("Sell gem - 4 (11)"); null for "Leave". */
export function tradeOfLabel(label: string): keyof Trades | null {
  const asked = /^(Buy|Sell) (.+) - \d+/.exec(label);
  return asked === null ? null : tradeOf({ kind: asked[1] === "Buy" ? "buy" : "sell", item: asked[2] });
}

export const noTrades = (): Trades => ({ boughtPotions: 0, boughtDaggers: 0, soldGems: 0, soldPotions: 0 });

/**
 * The trades a change of a bag and of the stall's stock can only have come from: potions bought are the
 * stock gone, daggers bought the daggers gained, gems sold the gems gone, potions sold the bought ones
 * not in the bag. Then the coins must have moved by exactly their prices — every coin that left the bag
 * paid for something that arrived, every coin that arrived paid for something that left — and nothing
 * may be negative. Returns the trades, or why the two states cannot be joined by any trades.
 */
export function tradesBetween(
  before: { counts: Map<number, number>; stock: number },
  after: { counts: Map<number, number>; stock: number },
): Trades | string {
  const delta = (item: ItemDef) => (after.counts.get(item.id) ?? 0) - (before.counts.get(item.id) ?? 0);
  const lost = (item: ItemDef) => (before.counts.get(item.id) ?? 0) - (after.counts.get(item.id) ?? 0);
  const trades: Trades = {
    boughtPotions: before.stock - after.stock,
    boughtDaggers: delta(DAGGER),
    soldGems: lost(GEM),
    soldPotions: before.stock - after.stock + lost(POTION),
  };
  if (Object.values(trades).some((count) => count < 0)) return `negative trades ${JSON.stringify(trades)}`;
  if (delta(PEBBLE) !== 0) return `pebbles moved by ${delta(PEBBLE)}`;
  let coins = 0;
  for (const key of Object.keys(trades) as (keyof Trades)[]) coins += trades[key] * TRADE_COINS[key];
  if (delta(COIN) !== coins) {
    return `the coins moved by ${delta(COIN)}, the trades ${JSON.stringify(trades)} pay ${coins}`;
  }
  return trades;
}

/** A character's bag as SQLite holds it, the stall's stock and the purse quest's state, read directly. */
export function storedShopState(
  dbPath: string,
  accountName: string,
): { stacks: { slot: number; itemId: number; count: number }[]; stock: number; purse: string | null } {
  const db = new Database(dbPath, { readonly: true });
  try {
    const account = db.prepare("SELECT id FROM accounts WHERE name = ?").get(accountName) as { id: number } | undefined;
    if (account === undefined) throw new Error(`no account ${accountName}`);
    const stacks = db
      .prepare("SELECT slot, item_id AS itemId, count FROM item_stacks WHERE container = ? ORDER BY slot")
      .all(`character:${account.id}`) as { slot: number; itemId: number; count: number }[];
    const stock = db.prepare("SELECT value FROM world_values WHERE key = ?").get(STOCK_KEY) as
      { value: string } | undefined;
    const quest = db
      .prepare("SELECT state FROM character_quests WHERE account_id = ? AND quest = 'purse'")
      .get(account.id) as { state: string } | undefined;
    return {
      stacks,
      stock: stock === undefined ? STOCK : Number(JSON.parse(stock.value)),
      purse: quest?.state ?? null,
    };
  } finally {
    db.close();
  }
}
