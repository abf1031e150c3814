// Trade between players (issue 39, docs/social.md § Trade): two players next to each other each put items
// (gold coins are items) into an offer, both see both offers in a dialog, any change clears both
// confirmations, and when both confirm the exchange is ONE item transaction (ItemRoom.trade): both bags in
// one write, durable before either hears the result, nothing changed on any refusal. A trade whose players
// walk apart, or one of whom leaves, is cancelled; nothing moved.
//
// The trade's own state is only what was offered: the items stay in the bags until the exchange, so a
// server killed at any moment loses nothing and doubles nothing — the one write happened, or it did not.
//
// In a cluster a player may trade with one standing by the border in the next region (seen here as a
// ghost): the trade lives in the asker's region (its home) and runs by these same rules, the other side a
// RemoteTrader whose lines, windows and verbs travel between the regions (`elsewhere`, ts/cluster/
// trade-link.ts). Its region only forwards what its player types and answers (`away`), and holds the
// player's bag still while the home writes both bags in one transaction (ItemRoom.tradeAcross/holdForTrade).
import type { Stack } from "../content/item-slots.js";
import type { ItemCatalogue, ItemDef } from "../content/item-catalogue.js";
import type { ExchangeOutcome, HeldBag } from "../items/item-room.js";
import type { StoredContainer } from "../persistence/item-store.js";
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
/**
 * How long `/trade nick` waits to see a player of another region by the border (its ghost here) once the
 * directory of players says it plays there: a ghost is published each broadcast, but may come late (a loaded
 * neighbour, or one just restarted that has not linked to this region again yet).
 */
export const TRADE_FIND_SECONDS = 3;
/** A trade across a region border is off when the other region said nothing (it says something each second) for this long. */
export const TRADE_SILENCE_SECONDS = 5;

/** Return codes: the request's Trade / Decline, the trade window's Confirm / Cancel. */
const ANSWER_TRADE = 1;
const CONFIRM = 1;
const CANCEL = 2;

/**
 * A player of another region of a cluster, trading with a player here (the trade's home): where it stands is
 * its ghost here; what it may offer is its bag as its region last reported with a verb.
 */
export class RemoteTrader {
  /** Its bag as its region last reported: item id → count (bag only: what `exchange` can take). */
  counts = new Map<number, number>();
  /** Its windows open (by dialog key): the number of the one shown last, and what its answer does. */
  readonly windows = new Map<string, { seq: number; onReply: (code: number) => void }>();
  /** Its region ended its part (the player left, crossed elsewhere, or refused). */
  gone = false;
  /** The trade it is in (set as the trade begins). */
  tradeId = 0;

  constructor(
    readonly region: number,
    readonly entityId: number,
    readonly nick: string,
    /** The tick its region was last heard from about this trade. */
    public heardAtTick: number,
  ) {}
}

/** One side of a trade: a player here, or one of another region. */
export type Trader = Session | RemoteTrader;

const isRemote = (trader: Trader): trader is RemoteTrader => trader instanceof RemoteTrader;

/** The verbs a player of another region sends its trade's home. */
export type AwayVerb = "offer" | "unoffer" | "confirm" | "cancel";
export const AWAY_VERBS: readonly AwayVerb[] = ["offer", "unoffer", "confirm", "cancel"];

/** What the home of a trade says to the region of its other player. */
export type HomeMessage =
  | { kind: "ask"; asker: string; askerKey: string }
  | { kind: "tell"; text: string }
  | { kind: "window"; key: string; seq: number; title: string; text: string; buttons: string[] }
  | { kind: "over" }
  | { kind: "prepare" }
  | { kind: "keep" };

/** What the region of a trade's other player says to its home. */
export type AwayMessage =
  | { kind: "refuse"; text: string }
  | { kind: "verb"; verb: AwayVerb; text: string; counts: [number, number][] }
  | { kind: "reply"; key: string; seq: number; code: number; counts: [number, number][] }
  | { kind: "gone" }
  | { kind: "keep" };

/** A cluster's regions, as the trade room reaches them (ts/cluster/trade-link.ts). */
export interface TradeElsewhere {
  /** A player of another region standing near enough to be seen here (a ghost) under one of `nicks`, or null. */
  ghostNamed(nicks: readonly string[]): { region: number; entityId: number; nick: string } | null;
  /** Where a player of another region stands (its ghost here), or null once it is not seen here. */
  placeOf(trader: RemoteTrader): { x: number; y: number } | null;
  /** Home → the other player's region, about trade `tradeId`. */
  toAway(trader: RemoteTrader, tradeId: number, message: HomeMessage): void;
  /**
   * Home → the other player's region: hold the player's bag still and report it (its region's
   * ItemRoom.holdForTrade); rejects when it does not within a few seconds (nothing was written).
   */
  prepare(trader: RemoteTrader, tradeId: number): Promise<HeldBag>;
  /** Home → the other player's region: the exchange is over — `written` for sure, or not (then it fences its bag). */
  settled(trader: RemoteTrader, tradeId: number, written: boolean): void;
  /** The other player's region → the home `home`, about trade `tradeId`. */
  toHome(home: number, tradeId: number, entityId: number, message: AwayMessage): void;
  /**
   * The other player's region: its bag is held and reported to the home (prepared); resolves with whether the
   * home wrote the trade for sure once it says so, false when it is silent too long.
   */
  holding(home: number, tradeId: number, entityId: number, bag: StoredContainer | null): Promise<boolean>;
}

interface Side {
  readonly trader: Trader;
  /** What it offers: item id → count, in the order first offered. */
  readonly offer: Map<number, number>;
  confirmed: boolean;
}

interface Trade {
  readonly id: number;
  readonly a: Side;
  readonly b: Side;
  state: "asked" | "open" | "settling";
  readonly askedAtTick: number;
}

/** A player here whose trade lives in another region (its home): what it types and answers goes there. */
interface Away {
  readonly home: number;
  readonly tradeId: number;
  heardAtTick: number;
  /** Its bag is held for the exchange: lines from the home wait until the bag here is as the exchange left it. */
  held: string[] | null;
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
    tradeAcross(
      a: Session,
      aGives: readonly Stack[],
      bGives: readonly Stack[],
      other: () => Promise<HeldBag>,
      done: (outcome: ExchangeOutcome, who: "here" | "there" | null) => void,
    ): void;
    holdForTrade(session: Session, held: (bag: StoredContainer | null) => Promise<boolean>, after: () => void): void;
  };
  readonly catalogue: Pick<ItemCatalogue, "items" | "get">;
  /** Whether `session` ignores `other` (its requests are refused). */
  readonly ignores: (session: Session, other: Session) => boolean;
  /** Whether `session` ignores the player whose key (SocialRoom.keyOf) is `key`: a player of another region. */
  readonly ignoresKey: (session: Session, key: string) => boolean;
  /** A player's key (SocialRoom.keyOf), which the other region's ignores name. */
  readonly keyOf: (session: Session) => string;
  /** The session in play here standing as entity `entityId`. */
  readonly byEntityId: (entityId: number) => Session | undefined;
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
  /** A cluster's other regions (ts/cluster/trade-link.ts); null in one process. */
  elsewhere: TradeElsewhere | null = null;
  /** Trades by each of their two players (a player is in at most one). */
  private readonly byTrader = new Map<Trader, Trade>();
  /** Trades in the order they began: the tick's sweep visits them so (deterministic). */
  private readonly trades = new Set<Trade>();
  /** Trades with a player of another region, by id. */
  private readonly byId = new Map<number, Trade>();
  /** Players here whose trade's home is another region. */
  private readonly away = new Map<Session, Away>();
  /** Players whose `/trade nick` names a player of another region not seen here yet: until which tick they wait. */
  private readonly seeking = new Map<Session, { nicks: readonly string[]; nick: string; untilTick: number }>();
  private serial = 0;

  constructor(private readonly ports: TradePorts) {}

  /** `/trade nick`: asks `target` — a player here, or one of another region standing by the border — to trade. */
  ask(session: Session, target: Trader): void {
    if (target === session) return this.say(session, "That is you.");
    if (this.busy(session)) return this.say(session, "You are trading already: /cancel it first.");
    if (this.byTrader.has(target) || (!isRemote(target) && this.away.has(target)))
      return this.say(session, `${target.nick} is trading with someone else.`);
    if (!isRemote(target) && this.ports.ignores(target, session))
      return this.say(session, `${target.nick} is not taking your trades.`);
    if (!this.near(session, target)) return this.say(session, `Stand next to ${target.nick} to trade.`);
    // A trade across a border writes both bags in the shared store: a guest's bag lives only in its region.
    if (isRemote(target) && session.accountId === null)
      return this.say(session, "Register to trade across a region border.");
    const tick = this.ports.clock.tick;
    const trade: Trade = {
      id: tick * 1024 + (this.serial++ % 1024),
      a: { trader: session, offer: new Map(), confirmed: false },
      b: { trader: target, offer: new Map(), confirmed: false },
      state: "asked",
      askedAtTick: tick,
    };
    this.begin(trade);
    this.stats.asked++;
    // Its region checks what only it knows (is the player busy there, does it ignore the asker) first.
    if (isRemote(target))
      this.elsewhere?.toAway(target, trade.id, {
        kind: "ask",
        asker: session.nick,
        askerKey: this.ports.keyOf(session),
      });
    this.open(
      trade,
      trade.b,
      "trade-ask",
      "Trade",
      `${session.nick} wants to trade with you.`,
      ["Trade", "Decline"],
      (code) => {
        if (this.byTrader.get(target) !== trade || trade.state !== "asked") return;
        if (code !== ANSWER_TRADE) return this.cancel(trade, `${target.nick} declined to trade.`);
        trade.state = "open";
        this.show(trade);
      },
    );
    this.say(session, `You asked ${target.nick} to trade.`);
  }

  /**
   * `/trade nick` naming nobody here: a player of another region seen by the border under one of `nicks` is
   * asked; false when there is none.
   */
  askAcross(session: Session, nicks: readonly string[]): boolean {
    const found = this.elsewhere?.ghostNamed(nicks) ?? null;
    if (found === null) return false;
    const target = new RemoteTrader(found.region, found.entityId, found.nick, this.ports.clock.tick);
    this.ask(session, target);
    return true;
  }

  /**
   * `/trade nick` naming `nick`, a player of another region (the directory of players says) not seen here: it
   * is asked as soon as it is seen by the border (the once-a-second sweep looks), or `session` is told to stand
   * next to it after TRADE_FIND_SECONDS — never that nobody of that name plays.
   */
  askWhenSeen(session: Session, nicks: readonly string[], nick: string): void {
    if (this.askAcross(session, nicks)) return;
    this.seeking.set(session, {
      nicks,
      nick,
      untilTick: this.ports.clock.tick + TRADE_FIND_SECONDS * this.ports.tickHz,
    });
  }

  /** `/offer [count] item`: sets what `session` offers of an item from its bag (0 takes it out). */
  offer(trader: Trader, rest: string): void {
    if (this.forwarded(trader, "offer", rest)) return;
    const trade = this.openTradeOf(trader);
    if (trade === null) return;
    const match = /^(\d+|all)?\s*(.*)$/iu.exec(rest.trim())!;
    const name = match[2].trim();
    if (name === "") return this.say(trader, "Offer what? /offer 3 gold coin");
    const item = this.itemNamed(trader, name);
    if (item === null) return this.say(trader, `You carry no ${name} to offer.`);
    const carried = this.countOf(trader, item.id);
    const count = match[1] === undefined ? 1 : match[1].toLowerCase() === "all" ? carried : Number(match[1]);
    const side = sideOf(trade, trader);
    if (count > 0 && !side.offer.has(item.id) && side.offer.size >= TRADE_STACKS_MAX)
      return this.say(trader, `At most ${TRADE_STACKS_MAX} different items in one trade.`);
    if (count > carried) return this.say(trader, `You carry only ${carried} ${item.name}.`);
    if (count === 0) side.offer.delete(item.id);
    else side.offer.set(item.id, count);
    this.changed(trade);
  }

  /** `/unoffer item`: takes an item out of `session`'s offer. */
  unoffer(trader: Trader, rest: string): void {
    if (this.forwarded(trader, "unoffer", rest)) return;
    const trade = this.openTradeOf(trader);
    if (trade === null) return;
    const side = sideOf(trade, trader);
    const item = this.itemNamed(trader, rest.trim(), [...side.offer.keys()]);
    if (item === null || !side.offer.has(item.id)) return this.say(trader, `You offer no ${rest.trim()}.`);
    side.offer.delete(item.id);
    this.changed(trade);
  }

  /**
   * `/confirm` (or the window's Confirm): `session` agrees to the offers as they stand. Only its own window
   * changes (to "waiting"); the other player is told in a line, so a window it is about to press is not
   * swapped under its finger — windows change only when the offers do, and that must void a confirmation.
   */
  confirm(trader: Trader): void {
    if (this.forwarded(trader, "confirm", "")) return;
    const trade = this.openTradeOf(trader);
    if (trade === null) return;
    const side = sideOf(trade, trader);
    if (side.confirmed) return;
    side.confirmed = true;
    if (trade.a.confirmed && trade.b.confirmed) return this.settle(trade);
    const other = side === trade.a ? trade.b : trade.a;
    this.say(other.trader, `${trader.nick} confirmed the trade: confirm too to exchange.`);
    this.showTo(trade, side);
  }

  /** `/cancel` (or the window's Cancel). */
  cancelBy(trader: Trader): void {
    if (this.forwarded(trader, "cancel", "")) return;
    const trade = this.byTrader.get(trader);
    if (trade === undefined) return this.say(trader, "You are not trading.");
    if (trade.state === "settling") return this.say(trader, "The exchange is being written: a moment.");
    this.cancel(trade, `${trader.nick} cancelled the trade.`);
  }

  /** A session ended (or moved to another region): its trade is cancelled — unless its exchange is being written. */
  left(session: Session): void {
    this.seeking.delete(session);
    const away = this.away.get(session);
    if (away !== undefined) {
      // Its bag held for an exchange: the home writes it or not, and the bag here is fenced (holdForTrade).
      this.away.delete(session);
      this.elsewhere?.toHome(away.home, away.tradeId, session.entity.id, { kind: "gone" });
      return;
    }
    const trade = this.byTrader.get(session);
    if (trade !== undefined && trade.state !== "settling")
      this.cancel(trade, `${session.nick} left; the trade is off.`);
  }

  /**
   * Once a second: a `/trade nick` waiting to see a player of another region asks it once seen (or gives up);
   * trades whose players walked apart are cancelled, unanswered requests lapse; a trade with
   * another region's player is off once that region is silent too long — and each region tells the other
   * the trade still stands.
   */
  tick(): void {
    const tick = this.ports.clock.tick;
    const silence = TRADE_SILENCE_SECONDS * this.ports.tickHz;
    for (const trade of [...this.trades]) {
      if (trade.state === "settling") continue;
      const { a, b } = trade;
      if (!this.inPlay(a.trader) || !this.inPlay(b.trader)) this.cancel(trade, "The trade is off: a trader left.");
      else if (!this.near(a.trader, b.trader)) this.cancel(trade, "You walked apart; the trade is off.");
      else if (trade.state === "asked" && tick - trade.askedAtTick >= TRADE_ASK_SECONDS * this.ports.tickHz)
        this.cancel(trade, `${b.trader.nick} did not answer; the trade is off.`);
      else if (isRemote(b.trader)) this.elsewhere?.toAway(b.trader, trade.id, { kind: "keep" });
    }
    for (const [session, seeking] of [...this.seeking]) {
      if (!this.inPlay(session) || this.askAcross(session, seeking.nicks)) this.seeking.delete(session);
      else if (tick >= seeking.untilTick) {
        this.seeking.delete(session);
        this.say(session, `Stand next to ${seeking.nick} to trade.`);
      }
    }
    for (const [session, away] of [...this.away]) {
      if (away.held !== null) continue;
      if (tick - away.heardAtTick < silence) {
        this.elsewhere?.toHome(away.home, away.tradeId, session.entity.id, { kind: "keep" });
        continue;
      }
      this.away.delete(session);
      this.closeWindows(session);
      this.say(session, "The trade is off: the other player's region is not answering.");
    }
  }

  /** Trades asked, open or being written here, and players here in a trade whose home is another region. */
  get active(): number {
    return this.trades.size + this.away.size;
  }

  /** Whether `session` is in a trade (asked or open) — here, or one whose home is another region. */
  trading(session: Session): boolean {
    return this.busy(session);
  }

  /** The home `from` of trade `tradeId` says something to its player `entityId` here. */
  fromHome(from: number, tradeId: number, entityId: number, message: HomeMessage): void {
    const session = this.ports.byEntityId(entityId);
    if (session === undefined) {
      if (message.kind === "ask" || message.kind === "prepare" || message.kind === "keep")
        this.elsewhere?.toHome(from, tradeId, entityId, { kind: "gone" });
      if (message.kind === "prepare") void this.elsewhere?.holding(from, tradeId, entityId, null);
      return;
    }
    if (message.kind === "ask") {
      const refusal = this.busy(session)
        ? `${session.nick} is trading with someone else.`
        : this.ports.ignoresKey(session, message.askerKey)
          ? `${session.nick} is not taking your trades.`
          : session.accountId === null
            ? `${session.nick} plays as a guest: only registered players trade across a region border.`
            : null;
      if (refusal !== null) return this.elsewhere?.toHome(from, tradeId, entityId, { kind: "refuse", text: refusal });
      this.away.set(session, { home: from, tradeId, heardAtTick: this.ports.clock.tick, held: null });
      return;
    }
    const away = this.away.get(session);
    if (away === undefined || away.home !== from || away.tradeId !== tradeId) {
      if (message.kind === "prepare") void this.elsewhere?.holding(from, tradeId, entityId, null);
      return;
    }
    away.heardAtTick = this.ports.clock.tick;
    switch (message.kind) {
      case "tell":
        if (away.held !== null) away.held.push(message.text);
        else this.say(session, message.text);
        return;
      case "window":
        this.ports.dialogs.open(
          session,
          conversation(message.title, cut(message.text), message.buttons),
          (reply) => {
            // 0: replaced by a newer window, or closed — nothing to tell.
            if (reply.returnCode === 0 || this.away.get(session) !== away) return;
            this.elsewhere?.toHome(from, tradeId, entityId, {
              kind: "reply",
              key: message.key,
              seq: message.seq,
              code: reply.returnCode,
              counts: this.countsOf(session),
            });
          },
          { key: message.key },
        );
        return;
      case "over":
        this.away.delete(session);
        return this.closeWindows(session);
      case "prepare": {
        if (away.held !== null) return;
        const held: string[] = [];
        away.held = held;
        this.ports.items.holdForTrade(
          session,
          (bag) => this.elsewhere?.holding(from, tradeId, entityId, bag) ?? Promise.resolve(false),
          () => {
            // The bag here is as the exchange left it: now its player hears how it went.
            away.held = null;
            for (const text of held) this.say(session, text);
          },
        );
        return;
      }
      case "keep":
        return;
    }
  }

  /** The region `from` of the other player of trade `tradeId` (home here) says something. */
  fromAway(from: number, tradeId: number, entityId: number, message: AwayMessage): void {
    const trade = this.byId.get(tradeId);
    if (trade === undefined) return;
    const trader = trade.b.trader;
    if (!isRemote(trader) || trader.region !== from || trader.entityId !== entityId) return;
    trader.heardAtTick = this.ports.clock.tick;
    switch (message.kind) {
      case "refuse":
        trader.gone = true;
        return this.cancel(trade, message.text);
      case "gone":
        trader.gone = true;
        if (trade.state !== "settling") this.cancel(trade, `${trader.nick} left; the trade is off.`);
        return;
      case "verb":
        trader.counts = new Map(message.counts);
        if (message.verb === "offer") return this.offer(trader, message.text);
        if (message.verb === "unoffer") return this.unoffer(trader, message.text);
        if (message.verb === "confirm") return this.confirm(trader);
        return this.cancelBy(trader);
      case "reply": {
        trader.counts = new Map(message.counts);
        const window = trader.windows.get(message.key);
        // An answer to a window that a newer one replaced counts for nothing, as in one process.
        if (window === undefined || window.seq !== message.seq) return;
        trader.windows.delete(message.key);
        return window.onReply(message.code);
      }
      case "keep":
        return;
    }
  }

  private settle(trade: Trade): void {
    trade.state = "settling";
    const { a, b } = trade;
    const done = (outcome: ExchangeOutcome, who: Trader | null) => {
      if (this.byTrader.get(a.trader) !== trade) return;
      // The other region's report (or its silence, which ends the trade anyway) is its word of the last moments.
      if (isRemote(b.trader)) b.trader.heardAtTick = this.ports.clock.tick;
      if (outcome === "ok") {
        this.stats.done++;
        for (const [side, other] of [
          [a, b],
          [b, a],
        ] as const)
          this.say(
            side.trader,
            `Trade done: you gave ${this.words(side.offer)} and got ${this.words(other.offer)} from ${other.trader.nick}.`,
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
        this.say(a.trader, why);
        this.say(b.trader, why);
        if (!this.inPlay(a.trader) || !this.inPlay(b.trader))
          return this.cancel(trade, "The trade is off: a trader left.");
        return this.show(trade);
      }
      this.cancel(trade, "The trade could not be written: nothing was exchanged.");
    };
    const local = a.trader as Session; // the asker: a trade lives in its region
    const other = b.trader;
    if (!isRemote(other))
      return this.ports.items.trade(local, other, stacks(a.offer), stacks(b.offer), (outcome, who) =>
        done(outcome, who),
      );
    const elsewhere = this.elsewhere;
    if (elsewhere === null) return done("failed", null);
    this.ports.items.tradeAcross(
      local,
      stacks(a.offer),
      stacks(b.offer),
      () => elsewhere.prepare(other, trade.id),
      (outcome, who) => {
        // Its region learns first (and reads its bag again, or fences it), then its player hears how it went.
        elsewhere.settled(other, trade.id, outcome === "ok");
        done(outcome, who === "here" ? local : who === "there" ? other : null);
      },
    );
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
      `You give: ${this.words(side.offer)}. ${other.trader.nick} gives: ${this.words(other.offer)}. ` +
      (side.confirmed
        ? `You confirmed: waiting for ${other.trader.nick}.`
        : `${other.confirmed ? `${other.trader.nick} confirmed. ` : ""}Offer with /offer 3 gold coin.`);
    // The window as shown: once confirmed, its one button (code 1) is Cancel.
    const waiting = side.confirmed;
    const trader = side.trader;
    this.open(
      trade,
      side,
      "trade",
      `Trade with ${other.trader.nick}`,
      cut(text),
      waiting ? ["Cancel"] : ["Confirm", "Cancel"],
      (returnCode) => {
        if (this.byTrader.get(trader) !== trade) return;
        const code = waiting && returnCode === 1 ? CANCEL : returnCode;
        if (code === CONFIRM) this.confirm(trader);
        else if (code === CANCEL) this.cancelBy(trader);
        // 0: replaced by a newer window, or closed: the trade stands (/cancel ends it).
      },
    );
  }

  /** Opens a window of the trade on `side`'s player, here or in its region (a newer one of `key` replaces it). */
  private open(
    trade: Trade,
    side: Side,
    key: string,
    title: string,
    text: string,
    buttons: string[],
    onReply: (code: number) => void,
  ): void {
    const trader = side.trader;
    if (!isRemote(trader)) {
      this.ports.dialogs.open(trader, conversation(title, text, buttons), (reply) => onReply(reply.returnCode), {
        key,
      });
      return;
    }
    const seq = (trader.windows.get(key)?.seq ?? 0) + 1;
    trader.windows.set(key, { seq, onReply });
    this.elsewhere?.toAway(trader, trade.id, { kind: "window", key, seq, title, text, buttons });
  }

  private begin(trade: Trade): void {
    this.trades.add(trade);
    this.byTrader.set(trade.a.trader, trade);
    this.byTrader.set(trade.b.trader, trade);
    if (isRemote(trade.b.trader)) {
      trade.b.trader.tradeId = trade.id;
      this.byId.set(trade.id, trade);
    }
  }

  /**
   * The trade is over: forgotten here, and by the other player's region (after every line it was to hear, and
   * its windows closed there), and its windows here closed — a done trade left the window of the one who had
   * confirmed first ("waiting", Cancel) open for good once that player crossed a border.
   */
  private end(trade: Trade): void {
    this.trades.delete(trade);
    this.byId.delete(trade.id);
    for (const side of [trade.a, trade.b]) {
      if (this.byTrader.get(side.trader) === trade) this.byTrader.delete(side.trader);
      if (!isRemote(side.trader) && this.ports.inPlay(side.trader)) this.closeWindows(side.trader);
    }
    const other = trade.b.trader;
    if (isRemote(other) && !other.gone) this.elsewhere?.toAway(other, trade.id, { kind: "over" });
  }

  private cancel(trade: Trade, why: string): void {
    this.stats.cancelled++;
    for (const side of [trade.a, trade.b]) {
      const trader = side.trader;
      if (isRemote(trader)) {
        if (!trader.gone) this.say(trader, why);
        continue;
      }
      if (this.ports.inPlay(trader)) this.say(trader, why);
    }
    this.end(trade);
  }

  /** Its trade windows close (nothing is confirmed by a window left behind). */
  private closeWindows(session: Session): void {
    this.ports.dialogs.closeKeyed(session, "trade");
    this.ports.dialogs.closeKeyed(session, "trade-ask");
  }

  private openTradeOf(trader: Trader): Trade | null {
    const trade = this.byTrader.get(trader);
    if (trade === undefined) {
      this.say(trader, "You are not trading: /trade nick, standing next to them.");
      return null;
    }
    if (trade.state === "asked") {
      this.say(trader, "The trade has not been accepted yet.");
      return null;
    }
    if (trade.state === "settling") {
      this.say(trader, "The exchange is being written: a moment.");
      return null;
    }
    return trade;
  }

  /** A verb of a player here whose trade's home is another region goes there, with its bag's counts. */
  private forwarded(trader: Trader, verb: AwayVerb, text: string): boolean {
    if (isRemote(trader)) return false;
    const away = this.away.get(trader);
    if (away === undefined) return false;
    if (away.held !== null) {
      this.say(trader, "The exchange is being written: a moment.");
      return true;
    }
    this.elsewhere?.toHome(away.home, away.tradeId, trader.entity.id, {
      kind: "verb",
      verb,
      text,
      counts: this.countsOf(trader),
    });
    return true;
  }

  /** What `session`'s bag holds (bag only), item id → count, as its trade's home in another region reads it. */
  private countsOf(session: Session): [number, number][] {
    const counts: [number, number][] = [];
    for (const item of this.ports.catalogue.items) {
      const count = this.ports.items.countOf(session, item.id, true);
      if (count > 0) counts.push([item.id, count]);
    }
    return counts;
  }

  private countOf(trader: Trader, itemId: number): number {
    return isRemote(trader) ? (trader.counts.get(itemId) ?? 0) : this.ports.items.countOf(trader, itemId, true);
  }

  private busy(session: Session): boolean {
    return this.byTrader.has(session) || this.away.has(session);
  }

  private inPlay(trader: Trader): boolean {
    if (!isRemote(trader)) return this.ports.inPlay(trader);
    return !trader.gone && this.ports.clock.tick - trader.heardAtTick < TRADE_SILENCE_SECONDS * this.ports.tickHz;
  }

  private near(a: Trader, b: Trader): boolean {
    const placeA = this.placeOf(a);
    const placeB = this.placeOf(b);
    return placeA !== null && placeB !== null && near(placeA, placeB);
  }

  private placeOf(trader: Trader): { x: number; y: number } | null {
    return isRemote(trader) ? (this.elsewhere?.placeOf(trader) ?? null) : trader.entity;
  }

  /**
   * The item `name` names among what `trader` carries (or `among`): its name, its plural, or a word of
   * it ("gold", "potion") when only one carried item has that word.
   */
  private itemNamed(trader: Trader, name: string, among?: readonly number[]): ItemDef | null {
    const wanted = name.toLowerCase().replace(/\s+/gu, " ");
    const carried = (among ?? this.ports.catalogue.items.map((item) => item.id))
      .map((id) => this.ports.catalogue.get(id))
      .filter(
        (item): item is ItemDef => item !== undefined && (among !== undefined || this.countOf(trader, item.id) > 0),
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

  private say(trader: Trader, text: string): void {
    if (isRemote(trader)) this.elsewhere?.toAway(trader, trader.tradeId, { kind: "tell", text });
    else this.ports.chat.tell(trader, text);
  }
}

function sideOf(trade: Trade, trader: Trader): Side {
  return trade.a.trader === trader ? trade.a : trade.b;
}

/** The trade rule's reach: within TRADE_REACH tiles (Chebyshev), here or across a region border alike. */
function near(a: { x: number; y: number }, b: { x: number; y: number }): boolean {
  return Math.abs(a.x - b.x) <= TRADE_REACH && Math.abs(a.y - b.y) <= TRADE_REACH;
}

function stacks(offer: ReadonlyMap<number, number>): Stack[] {
  return [...offer].map(([itemId, count]) => ({ itemId, count }));
}

/** A dialog text a window holds (240 characters). */
function cut(text: string): string {
  return text.length <= 240 ? text : `${text.slice(0, 239)}…`;
}
