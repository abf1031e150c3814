// Trade between players (issue 39, docs/social.md § Trade): two players next to each other each put items
// (gold coins are items) into an offer, both see both offers in a dialog, any change clears both
// confirmations, and when both confirm the exchange is ONE item transaction (ItemRoom.trade): both bags in
// one write, durable before either hears the result, nothing changed on any refusal. A trade whose players
// walk apart, or one of whom leaves, is cancelled; nothing moved.
//
// The trade's own state is only what was offered: the items stay in the bags until the exchange, so a
// server killed at any moment loses nothing and doubles nothing — the one write happened, or it did not.
import type { Stack } from "../content/item-slots.js";
import type { ItemCatalogue, ItemDef } from "../content/item-catalogue.js";
import type { ExchangeOutcome } from "../items/item-room.js";
import type { Session } from "../sessions/session.js";
import type { ChatService } from "../talk/chat.js";
import type { DialogService } from "../talk/dialogs.js";
import { conversation } from "../scripting/dialog-layout.js";

/** How near (Chebyshev tiles) two players must stand to trade: next to each other, as for a chest. */
export const TRADE_REACH = 2;
/** Different items one side may offer at once. */
export const TRADE_STACKS_MAX = 8;
/** An unanswered request to trade lapses after this long. */
export const TRADE_ASK_SECONDS = 30;

/** Return codes: the request's Trade / Decline, the trade window's Confirm / Cancel. */
const ANSWER_TRADE = 1;
const CONFIRM = 1;
const CANCEL = 2;

interface Side {
  readonly session: Session;
  /** What it offers: item id → count, in the order first offered. */
  readonly offer: Map<number, number>;
  confirmed: boolean;
}

interface Trade {
  readonly a: Side;
  readonly b: Side;
  state: "asked" | "open" | "settling";
  readonly askedAtTick: number;
}

export interface TradePorts {
  readonly chat: Pick<ChatService, "tell">;
  readonly dialogs: Pick<DialogService, "open" | "closeKeyed">;
  readonly items: {
    /** How many of `itemId` the player's bag holds (bagOnly: a wielded sword is not for trade). */
    countOf(session: Session, itemId: number, bagOnly: boolean): number;
    trade(
      a: Session,
      b: Session,
      aGives: readonly Stack[],
      bGives: readonly Stack[],
      done: (outcome: ExchangeOutcome, who: Session | null) => void,
    ): void;
  };
  readonly catalogue: Pick<ItemCatalogue, "items" | "get">;
  /** Whether `session` ignores `other` (its requests are refused). */
  readonly ignores: (session: Session, other: Session) => boolean;
  readonly inPlay: (session: Session) => boolean;
  readonly clock: { readonly tick: number };
  readonly tickHz: number;
}

export interface TradeStats {
  asked: number;
  done: number;
  cancelled: number;
  /** Exchanges refused at the last moment (an item gone, a bag full): nothing moved. */
  refused: number;
}

export class TradeRoom {
  readonly stats: TradeStats = { asked: 0, done: 0, cancelled: 0, refused: 0 };
  /** Trades by each of their two players (a player is in at most one). */
  private readonly bySession = new Map<Session, Trade>();
  /** Trades in the order they began: the tick's sweep visits them so (deterministic). */
  private readonly trades = new Set<Trade>();

  constructor(private readonly ports: TradePorts) {}

  /** `/trade nick`: asks `target` to trade. */
  ask(session: Session, target: Session): void {
    if (target === session) return this.say(session, "That is you.");
    if (this.bySession.has(session)) return this.say(session, "You are trading already: /cancel it first.");
    if (this.bySession.has(target)) return this.say(session, `${target.nick} is trading with someone else.`);
    if (this.ports.ignores(target, session)) return this.say(session, `${target.nick} is not taking your trades.`);
    if (!near(session, target)) return this.say(session, `Stand next to ${target.nick} to trade.`);
    const trade: Trade = {
      a: { session, offer: new Map(), confirmed: false },
      b: { session: target, offer: new Map(), confirmed: false },
      state: "asked",
      askedAtTick: this.ports.clock.tick,
    };
    this.begin(trade);
    this.stats.asked++;
    this.ports.dialogs.open(
      target,
      conversation("Trade", `${session.nick} wants to trade with you.`, ["Trade", "Decline"]),
      (reply) => {
        if (this.bySession.get(target) !== trade || trade.state !== "asked") return;
        if (reply.returnCode !== ANSWER_TRADE) return this.cancel(trade, `${target.nick} declined to trade.`);
        trade.state = "open";
        this.show(trade);
      },
      { key: "trade-ask" },
    );
    this.say(session, `You asked ${target.nick} to trade.`);
  }

  /** `/offer [count] item`: sets what `session` offers of an item from its bag (0 takes it out). */
  offer(session: Session, rest: string): void {
    const trade = this.openTradeOf(session);
    if (trade === null) return;
    const match = /^(\d+|all)?\s*(.*)$/iu.exec(rest.trim())!;
    const name = match[2].trim();
    if (name === "") return this.say(session, "Offer what? /offer 3 gold coin");
    const item = this.itemNamed(session, name);
    if (item === null) return this.say(session, `You carry no ${name} to offer.`);
    const carried = this.ports.items.countOf(session, item.id, true);
    const count = match[1] === undefined ? 1 : match[1].toLowerCase() === "all" ? carried : Number(match[1]);
    const side = sideOf(trade, session);
    if (count > 0 && !side.offer.has(item.id) && side.offer.size >= TRADE_STACKS_MAX)
      return this.say(session, `At most ${TRADE_STACKS_MAX} different items in one trade.`);
    if (count > carried) return this.say(session, `You carry only ${carried} ${item.name}.`);
    if (count === 0) side.offer.delete(item.id);
    else side.offer.set(item.id, count);
    this.changed(trade);
  }

  /** `/unoffer item`: takes an item out of `session`'s offer. */
  unoffer(session: Session, rest: string): void {
    const trade = this.openTradeOf(session);
    if (trade === null) return;
    const side = sideOf(trade, session);
    const item = this.itemNamed(session, rest.trim(), [...side.offer.keys()]);
    if (item === null || !side.offer.has(item.id)) return this.say(session, `You offer no ${rest.trim()}.`);
    side.offer.delete(item.id);
    this.changed(trade);
  }

  /**
   * `/confirm` (or the window's Confirm): `session` agrees to the offers as they stand. Only its own window
   * changes (to "waiting"); the other player is told in a line, so a window it is about to press is not
   * swapped under its finger — windows change only when the offers do, and that must void a confirmation.
   */
  confirm(session: Session): void {
    const trade = this.openTradeOf(session);
    if (trade === null) return;
    const side = sideOf(trade, session);
    if (side.confirmed) return;
    side.confirmed = true;
    if (trade.a.confirmed && trade.b.confirmed) return this.settle(trade);
    const other = side === trade.a ? trade.b : trade.a;
    this.say(other.session, `${session.nick} confirmed the trade: confirm too to exchange.`);
    this.showTo(trade, side);
  }

  /** `/cancel` (or the window's Cancel). */
  cancelBy(session: Session): void {
    const trade = this.bySession.get(session);
    if (trade === undefined) return this.say(session, "You are not trading.");
    if (trade.state === "settling") return this.say(session, "The exchange is being written: a moment.");
    this.cancel(trade, `${session.nick} cancelled the trade.`);
  }

  /** A session ended: its trade is cancelled. */
  left(session: Session): void {
    const trade = this.bySession.get(session);
    if (trade !== undefined && trade.state !== "settling")
      this.cancel(trade, `${session.nick} left; the trade is off.`);
  }

  /** Once a second: trades whose players walked apart are cancelled, unanswered requests lapse. */
  tick(): void {
    for (const trade of [...this.trades]) {
      if (trade.state === "settling") continue;
      const { a, b } = trade;
      if (!this.ports.inPlay(a.session) || !this.ports.inPlay(b.session))
        this.cancel(trade, "The trade is off: a trader left.");
      else if (!near(a.session, b.session)) this.cancel(trade, "You walked apart; the trade is off.");
      else if (
        trade.state === "asked" &&
        this.ports.clock.tick - trade.askedAtTick >= TRADE_ASK_SECONDS * this.ports.tickHz
      )
        this.cancel(trade, `${b.session.nick} did not answer; the trade is off.`);
    }
  }

  /** Whether `session` is in a trade (asked or open). */
  trading(session: Session): boolean {
    return this.bySession.has(session);
  }

  private settle(trade: Trade): void {
    trade.state = "settling";
    const { a, b } = trade;
    this.ports.items.trade(a.session, b.session, stacks(a.offer), stacks(b.offer), (outcome, who) => {
      if (this.bySession.get(a.session) !== trade) return;
      if (outcome === "ok") {
        this.stats.done++;
        for (const [side, other] of [
          [a, b],
          [b, a],
        ] as const)
          this.say(
            side.session,
            `Trade done: you gave ${this.words(side.offer)} and got ${this.words(other.offer)} from ${other.session.nick}.`,
          );
        return this.end(trade);
      }
      if (outcome === "no_item" || outcome === "full") {
        // Something changed underneath (a potion drunk, a bag filled since): nothing moved, both look again.
        this.stats.refused++;
        trade.state = "open";
        a.confirmed = false;
        b.confirmed = false;
        const nick = who?.nick ?? "Someone";
        const why =
          outcome === "no_item"
            ? `${nick} no longer has everything offered: nothing was exchanged.`
            : `${nick}'s bag cannot hold it all: nothing was exchanged.`;
        this.say(a.session, why);
        this.say(b.session, why);
        return this.show(trade);
      }
      this.cancel(trade, "The trade could not be written: nothing was exchanged.");
    });
  }

  private changed(trade: Trade): void {
    trade.a.confirmed = false;
    trade.b.confirmed = false;
    this.show(trade);
  }

  /** Shows both players the trade as it stands (a newer window replaces the older). */
  private show(trade: Trade): void {
    this.showTo(trade, trade.a);
    this.showTo(trade, trade.b);
  }

  /** The trade window of `side`: both offers, Confirm and Cancel — or, once it confirmed, Cancel alone. */
  private showTo(trade: Trade, side: Side): void {
    const other = side === trade.a ? trade.b : trade.a;
    const text =
      `You give: ${this.words(side.offer)}. ${other.session.nick} gives: ${this.words(other.offer)}. ` +
      (side.confirmed
        ? `You confirmed: waiting for ${other.session.nick}.`
        : `${other.confirmed ? `${other.session.nick} confirmed. ` : ""}Offer with /offer 3 gold coin.`);
    // The window as shown: once confirmed, its one button (code 1) is Cancel.
    const waiting = side.confirmed;
    this.ports.dialogs.open(
      side.session,
      conversation(`Trade with ${other.session.nick}`, cut(text), waiting ? ["Cancel"] : ["Confirm", "Cancel"]),
      (reply) => {
        if (this.bySession.get(side.session) !== trade) return;
        const code = waiting && reply.returnCode === 1 ? CANCEL : reply.returnCode;
        if (code === CONFIRM) this.confirm(side.session);
        else if (code === CANCEL) this.cancelBy(side.session);
        // 0: replaced by a newer window, or closed: the trade stands (/cancel ends it).
      },
      { key: "trade" },
    );
  }

  private begin(trade: Trade): void {
    this.trades.add(trade);
    this.bySession.set(trade.a.session, trade);
    this.bySession.set(trade.b.session, trade);
  }

  private end(trade: Trade): void {
    this.trades.delete(trade);
    for (const side of [trade.a, trade.b]) {
      if (this.bySession.get(side.session) === trade) this.bySession.delete(side.session);
    }
  }

  private cancel(trade: Trade, why: string): void {
    this.stats.cancelled++;
    this.end(trade);
    for (const side of [trade.a, trade.b]) {
      if (!this.ports.inPlay(side.session)) continue;
      this.say(side.session, why);
      // Its window closes (nothing is confirmed by a window left behind).
      this.ports.dialogs.closeKeyed(side.session, "trade");
      this.ports.dialogs.closeKeyed(side.session, "trade-ask");
    }
  }

  private openTradeOf(session: Session): Trade | null {
    const trade = this.bySession.get(session);
    if (trade === undefined) {
      this.say(session, "You are not trading: /trade nick, standing next to them.");
      return null;
    }
    if (trade.state === "asked") {
      this.say(session, "The trade has not been accepted yet.");
      return null;
    }
    if (trade.state === "settling") {
      this.say(session, "The exchange is being written: a moment.");
      return null;
    }
    return trade;
  }

  /**
   * The item `name` names among what `session` carries (or `among`): its name, its plural, or a word of
   * it ("gold", "potion") when only one carried item has that word.
   */
  private itemNamed(session: Session, name: string, among?: readonly number[]): ItemDef | null {
    const wanted = name.toLowerCase().replace(/\s+/gu, " ");
    const carried = (among ?? this.ports.catalogue.items.map((item) => item.id))
      .map((id) => this.ports.catalogue.get(id))
      .filter(
        (item): item is ItemDef =>
          item !== undefined && (among !== undefined || this.ports.items.countOf(session, item.id, true) > 0),
      );
    const exact = carried.find((item) => item.name === wanted || `${item.name}s` === wanted);
    if (exact !== undefined) return exact;
    const byWord = carried.filter((item) =>
      item.name.split(" ").some((word) => word === wanted || `${word}s` === wanted),
    );
    return byWord.length === 1 ? byWord[0] : null;
  }

  /** "3 gold coin, 1 dagger", or "nothing". */
  private words(offer: ReadonlyMap<number, number>): string {
    if (offer.size === 0) return "nothing";
    return [...offer].map(([id, count]) => `${count} ${this.ports.catalogue.get(id)?.name ?? `item ${id}`}`).join(", ");
  }

  private say(session: Session, text: string): void {
    this.ports.chat.tell(session, text);
  }
}

function sideOf(trade: Trade, session: Session): Side {
  return trade.a.session === session ? trade.a : trade.b;
}

function near(a: Session, b: Session): boolean {
  return Math.abs(a.entity.x - b.entity.x) <= TRADE_REACH && Math.abs(a.entity.y - b.entity.y) <= TRADE_REACH;
}

function stacks(offer: ReadonlyMap<number, number>): Stack[] {
  return [...offer].map(([itemId, count]) => ({ itemId, count }));
}

/** A dialog text a window holds (240 characters). */
function cut(text: string): string {
  return text.length <= 240 ? text : `${text.slice(0, 239)}…`;
}
