// Shops (docs/content.md § Shops): what a script defines — wares to buy and to sell, their prices in the
// currency item (gold coins unless it says), and how many of each the shop holds — and the conversation a
// player buys and sells in. A purchase or a sale is one exchange with the player's bag through the item
// room's transfer path (durable before the player is told, nothing changed when it fails), made once per
// reply (a dialog reply is handled once, however often the client re-sends it). Stock lives in the
// world's values (kept across restarts and script reloads), and comes back one by one while below its
// starting count, a ware's `restock` seconds apart.
import type { ItemCatalogue, ItemDef } from "../content/item-catalogue.js";
import type { ExchangeOutcome } from "../items/item-room.js";
import type { ContentRows } from "../persistence/content-rows.js";
import type { WorldValuesPort } from "../persistence/quest-store.js";
import type { Session } from "../sessions/session.js";
import type { DialogSpec } from "../talk/dialogs.js";
import { conversation, MAX_CHOICES } from "./dialog-layout.js";

/** The most wares a shop lists (buy and sell lines together fit one conversation). */
export const MAX_SHOP_LINES = MAX_CHOICES - 1;

export interface Ware {
  readonly item: ItemDef;
  readonly price: number;
  /** The count it starts with and restocks to; null: it never runs out. */
  readonly stock: number | null;
  /** Seconds between two restocked units; null: it never restocks. */
  readonly restockSeconds: number | null;
}

export interface ShopDefinition {
  readonly id: string;
  readonly title: string;
  readonly greeting: string;
  readonly currency: ItemDef;
  /** What players can buy here. */
  readonly sells: readonly Ware[];
  /** What the shop buys from players. */
  readonly buys: readonly { readonly item: ItemDef; readonly price: number }[];
  readonly file: string;
}

/** The raw shop a script hands `shop.define`, checked by `shopOf`. */
export interface ShopSpec {
  id?: unknown;
  title?: unknown;
  greeting?: unknown;
  currency?: unknown;
  sells?: unknown;
  buys?: unknown;
}

/** A script's shop checked against the catalogue; throws an Error saying what is wrong. */
export function shopOf(spec: ShopSpec, catalogue: ItemCatalogue, file: string): ShopDefinition {
  const id = requireName(spec.id, "shop.define: id");
  const title = typeof spec.title === "string" ? spec.title.slice(0, 40) : id;
  const greeting = typeof spec.greeting === "string" ? spec.greeting.slice(0, 200) : "";
  const currency = itemNamed(typeof spec.currency === "string" ? spec.currency : "gold coin", catalogue, "currency");
  const list = (value: unknown, what: string): Record<string, unknown>[] => {
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value)) throw new Error(`shop.define: ${what} must be a list of wares`);
    return value.map((entry, index) => {
      if (typeof entry !== "object" || entry === null || Array.isArray(entry)) {
        throw new Error(`shop.define: ${what}[${index + 1}] must be a table like { item = "bread", price = 3 }`);
      }
      return entry as Record<string, unknown>;
    });
  };
  const price = (value: unknown, where: string): number => {
    if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > 100_000) {
      throw new Error(`shop.define: ${where}.price must be a whole number 1 … 100000`);
    }
    return value;
  };
  const sells: Ware[] = list(spec.sells, "sells").map((ware, index) => {
    const where = `sells[${index + 1}]`;
    const stock = ware.stock;
    const restock = ware.restock;
    if (stock !== undefined && (typeof stock !== "number" || !Number.isInteger(stock) || stock < 0 || stock > 9999)) {
      throw new Error(`shop.define: ${where}.stock must be a whole number 0 … 9999`);
    }
    if (restock !== undefined && (typeof restock !== "number" || !(restock >= 1 && restock <= 86_400))) {
      throw new Error(`shop.define: ${where}.restock must be seconds, 1 … 86400`);
    }
    return {
      item: itemNamed(ware.item, catalogue, `${where}.item`),
      price: price(ware.price, where),
      stock: typeof stock === "number" ? stock : null,
      restockSeconds: typeof restock === "number" ? restock : null,
    };
  });
  const buys = list(spec.buys, "buys").map((ware, index) => ({
    item: itemNamed(ware.item, catalogue, `buys[${index + 1}].item`),
    price: price(ware.price, `buys[${index + 1}]`),
  }));
  if (sells.length + buys.length === 0) throw new Error(`shop.define: shop "${id}" neither sells nor buys anything`);
  if (sells.length + buys.length > MAX_SHOP_LINES) {
    throw new Error(`shop.define: shop "${id}" has ${sells.length + buys.length} wares, more than ${MAX_SHOP_LINES}`);
  }
  return { id, title, greeting, currency, sells, buys, file };
}

/** A script's name for a thing (a quest, a shop): letters, digits and "_", 1 … 32. */
export function requireName(value: unknown, what: string): string {
  if (typeof value !== "string" || !/^[A-Za-z0-9_]{1,32}$/.test(value)) {
    throw new Error(`${what} must be a name of letters, digits and "_" (1 … 32), got ${JSON.stringify(value)}`);
  }
  return value;
}

/** The catalogue's item named `name`; throws naming the field and the catalogue's items when there is none. */
export function itemNamed(name: unknown, catalogue: ItemCatalogue, what: string): ItemDef {
  if (typeof name !== "string") throw new Error(`${what} must be an item's name`);
  const item = catalogue.named(name);
  if (item === undefined) throw new Error(`${what}: no item named "${name}" in the catalogue`);
  return item;
}

/** What the shops use of the item room and the dialogs. */
export interface ShopPorts {
  readonly items: {
    countOf(session: Session, itemId: number, bagOnly?: boolean): number;
    exchange(
      session: Session,
      take: readonly { itemId: number; count: number }[],
      give: readonly { itemId: number; count: number }[],
      done: (outcome: ExchangeOutcome) => void,
      /** Content rows written in the exchange's transaction (ItemWrite.content). */
      content?: ContentRows,
    ): void;
  };
  readonly openDialog: (session: Session, spec: DialogSpec, onChoice: (choice: number) => void, key: string) => void;
  readonly tell: (session: Session, text: string, speaker: string) => void;
  readonly values: WorldValuesPort | null;
}

export interface ShopStats {
  opened: number;
  bought: number;
  sold: number;
  refused: number;
}

export class Shops {
  private readonly definitions = new Map<string, ShopDefinition>();
  /** Stock by "shop:item", as kept in the world's values. */
  private readonly stock = new Map<string, number>();
  /** Seconds counted toward each ware's next restocked unit. */
  private readonly restockClock = new Map<string, number>();
  readonly stats: ShopStats = { opened: 0, bought: 0, sold: 0, refused: 0 };

  constructor(private readonly ports: ShopPorts) {}

  /** Replaces every definition (the scripts were (re)loaded); stock kept from before, or from the world's values. */
  define(definitions: readonly ShopDefinition[]): void {
    this.definitions.clear();
    for (const shop of definitions) {
      this.definitions.set(shop.id, shop);
      for (const ware of shop.sells) {
        if (ware.stock === null) continue;
        const key = stockKey(shop, ware);
        if (this.stock.has(key)) continue;
        const kept = this.ports.values?.get(key);
        this.stock.set(key, typeof kept === "number" && Number.isInteger(kept) && kept >= 0 ? kept : ware.stock);
      }
    }
  }

  has(id: string): boolean {
    return this.definitions.has(id);
  }

  /** The units of `itemName` shop `id` holds now; null: it never runs out. */
  stockOf(id: string, itemName: string): number | null {
    const shop = this.definitions.get(id);
    const ware = shop?.sells.find((each) => each.item.name === itemName);
    if (shop === undefined || ware === undefined) throw new Error(`shop "${id}" does not sell "${itemName}"`);
    return ware.stock === null ? null : (this.stock.get(stockKey(shop, ware)) ?? 0);
  }

  /** Opens shop `id` for `session`, `speaker` saying its greeting; every choice answered opens it again. */
  open(session: Session, id: string, speaker: string, note = ""): void {
    const shop = this.definitions.get(id);
    if (shop === undefined) throw new Error(`no shop "${id}" is defined`);
    this.stats.opened++;
    const money = this.ports.items.countOf(session, shop.currency.id);
    const lines: { label: string; act: () => void }[] = [];
    for (const ware of shop.sells) {
      const left = ware.stock === null ? null : (this.stock.get(stockKey(shop, ware)) ?? 0);
      const label = `Buy ${ware.item.name} - ${ware.price}${left === null ? "" : ` (${left} left)`}`;
      lines.push({ label, act: () => this.buy(session, shop, ware, speaker) });
    }
    for (const ware of shop.buys) {
      // What a sale can take: the bag's, not what the player wields (offered, it would be refused).
      const held = this.ports.items.countOf(session, ware.item.id, true);
      if (held === 0) continue;
      lines.push({
        label: `Sell ${ware.item.name} - ${ware.price} (${held})`,
        act: () => this.sell(session, shop, ware, speaker),
      });
    }
    lines.push({ label: "Leave", act: () => {} });
    const text = [note, shop.greeting, `You carry ${money} ${plural(shop.currency.name, money)}.`]
      .filter((part) => part !== "")
      .join("\n");
    this.ports.openDialog(
      session,
      conversation(
        shop.title,
        text,
        lines.map((line) => line.label),
      ),
      (choice) => lines[choice - 1]?.act(),
      `shop:${id}`,
    );
  }

  /** One unit of `ware` for its price, as one exchange; the shop opens again saying how it went. */
  private buy(session: Session, shop: ShopDefinition, ware: Ware, speaker: string): void {
    const key = stockKey(shop, ware);
    if (ware.stock !== null && (this.stock.get(key) ?? 0) < 1) {
      this.stats.refused++;
      return this.open(session, shop.id, speaker, `The ${ware.item.name} is sold out.`);
    }
    // The stock's one less is written in the exchange's own transaction: the unit leaves the stock and
    // enters the bag together, or neither. Written after it (as it once was), a kill between the two
    // writes — or a stock row the disk refused — left the unit in the bag and still in the stock after a
    // restart, to be sold again: a good made from nothing. Rows, not a call: a cluster's shared store
    // writes them in its own transaction as this process's SQLite does in its.
    const lessStock: ContentRows | undefined =
      ware.stock === null || this.ports.values === null
        ? undefined
        : { values: [{ key, value: (this.stock.get(key) ?? 1) - 1 }] };
    this.ports.items.exchange(
      session,
      [{ itemId: shop.currency.id, count: ware.price }],
      [{ itemId: ware.item.id, count: 1 }],
      (outcome) => {
        if (outcome !== "ok") {
          this.stats.refused++;
          return this.open(session, shop.id, speaker, refusal(outcome, shop.currency.name));
        }
        this.stats.bought++;
        if (ware.stock !== null) this.stock.set(key, (this.stock.get(key) ?? 1) - 1);
        this.open(session, shop.id, speaker, `You buy the ${ware.item.name}.`);
      },
      lessStock,
    );
  }

  /** One unit of the player's `ware` for the shop's price, as one exchange. */
  private sell(session: Session, shop: ShopDefinition, ware: { item: ItemDef; price: number }, speaker: string): void {
    this.ports.items.exchange(
      session,
      [{ itemId: ware.item.id, count: 1 }],
      [{ itemId: shop.currency.id, count: ware.price }],
      (outcome) => {
        if (outcome !== "ok") {
          this.stats.refused++;
          return this.open(session, shop.id, speaker, refusal(outcome, shop.currency.name));
        }
        this.stats.sold++;
        this.open(session, shop.id, speaker, `You sell the ${ware.item.name}.`);
      },
    );
  }

  /** A second of the world: wares below their starting stock come back, one unit per `restock` seconds. */
  second(): void {
    for (const shop of this.definitions.values()) {
      for (const ware of shop.sells) {
        if (ware.stock === null || ware.restockSeconds === null) continue;
        const key = stockKey(shop, ware);
        const now = this.stock.get(key) ?? 0;
        if (now >= ware.stock) {
          this.restockClock.delete(key);
          continue;
        }
        const waited = (this.restockClock.get(key) ?? 0) + 1;
        if (waited < ware.restockSeconds) {
          this.restockClock.set(key, waited);
          continue;
        }
        this.restockClock.delete(key);
        this.setStock(key, now + 1);
      }
    }
  }

  private setStock(key: string, count: number): void {
    this.stock.set(key, count);
    try {
      this.ports.values?.set(key, count);
    } catch {
      // A restocked unit is kept in memory: a full disk costs the shop that unit after a restart, no more.
    }
  }
}

function stockKey(shop: ShopDefinition, ware: Ware): string {
  return `shop:${shop.id}:${ware.item.name}`;
}

function plural(name: string, count: number): string {
  return count === 1 ? name : `${name}s`;
}

function refusal(outcome: ExchangeOutcome, currency: string): string {
  switch (outcome) {
    case "no_item":
      return `You have not got enough for that (${currency}s, or the thing to sell).`;
    case "full":
      return "Your bag is full.";
    default:
      return "That did not work; nothing changed. Try again.";
  }
}
