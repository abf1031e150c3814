// How a chaos run's bots trade (docs/scaling.md § The chaos run): with the chat commands and the trade window
// a player uses (docs/social.md § Trade), through the shared client core. A bot next to another asks it
// (`/trade nick`); the one asked presses Trade; each then offers part of one stack of its bag (`/offer n item`)
// and presses Confirm on the newest window that shows an offer of its own — every change of offer clears both
// confirmations, so the two settle on a window only once both offers stand. The system's lines end a trade for
// the bot (done, declined, called off, refused); a trade that has not ended within TRADE_GIVE_UP_MS is
// cancelled (`/cancel`), so a partner lost with a killed region holds nobody for long. Whether a trade
// happened is the world's to say: the run counts every item in PostgreSQL at its end.
import type { BotMind } from "../../bots/behaviours.js";
import type { GameClient } from "../../client/core/index.js";
import type { ShownDialog } from "../../client/core/dialogs.js";
import { isEquipmentSlot } from "../../client/core/items.js";

/** A trade not over this long after it began is cancelled by the bot. */
export const TRADE_GIVE_UP_MS = 20_000;
/** A bot that traded (or tried) waits this long before it asks anyone again. */
const ASK_AGAIN_MS = 8_000;
/** Chat lines are taken one a second (the chat limit): an offer not shown in a window by then is made again. */
const OFFER_AGAIN_MS = 2_500;

/** What a trade hook does for the Carrier (carrier.ts). */
export interface TradeHook {
  /** Handles the bot's trade, if it is in one (answers, offers, confirms); true while it must stay put. */
  busy(mind: BotMind, nowMs: number): boolean;
  /** The bot stands near player `otherEntityId`: it may ask it to trade; true when it did. */
  tryTrade(mind: BotMind, otherEntityId: number, nowMs: number): boolean;
}

export interface TradeCounts {
  /** `/trade nick` said. */
  asked: number;
  /** Requests the bot accepted (pressed Trade). */
  accepted: number;
  /** "Trade done" heard (by each of the two: a trade done counts twice). */
  done: number;
  /** Trades that ended otherwise (declined, walked apart, a region silent, refused, cancelled). */
  off: number;
  /** Trades the bot cancelled itself after TRADE_GIVE_UP_MS. */
  gaveUp: number;
}

interface BotTrade {
  /** Since when the bot is in a trade (asked or asking); null: not trading. */
  sinceMs: number | null;
  /** When it last offered (0: not in this trade). */
  offeredAtMs: number;
  /** It had nothing in its bag to offer: it confirms taking what the other offers. */
  givesNothing: boolean;
  /** The window it last pressed Confirm on. */
  confirmedWindow: number;
  nextAskMs: number;
}

/** Lines of the system that end a trade for the one who hears it (trades.ts, social-room.ts). */
const ENDED =
  /^(Trade done:|.* declined to trade\.|.*the trade is off|The trade is off|.* cancelled the trade\.|The trade could not be written|Stand next to|Nobody called|.* is trading with someone else\.|.* is not taking your trades\.|Register to trade|.* plays as a guest|You are not trading|You are trading already)/u;

const texts = (dialog: ShownDialog) => dialog.elements.flatMap((e) => (e.kind === "text" ? [e.text] : []));
const button = (dialog: ShownDialog, label: string) =>
  dialog.elements.find((e) => e.kind === "button" && e.label === label) as { returnCode: number } | undefined;

export class BotTrades implements TradeHook {
  readonly counts: TradeCounts = { asked: 0, accepted: 0, done: 0, off: 0, gaveUp: 0 };
  /** How often each kind of line ended a trade (nicks taken out), for the report. */
  readonly endings = new Map<string, number>();
  private readonly state = new Map<GameClient, BotTrade>();

  constructor(
    /** The nick of the player standing as `entityId` (the run knows its own bots), or null. */
    private readonly nickOf: (entityId: number) => string | null,
  ) {}

  busy(mind: BotMind, nowMs: number): boolean {
    const client = mind.client;
    const trade = this.stateOf(client);
    const windows = [...client.dialogs.shown.values()];
    const asked = windows.find((dialog) => button(dialog, "Decline") !== undefined);
    if (asked !== undefined) {
      // Asked: it trades (a player who wanted to decline would; the run wants exchanges).
      client.replyDialog(asked.id, button(asked, "Trade")!.returnCode);
      this.counts.accepted++;
      this.begin(trade, nowMs);
      return true;
    }
    if (trade.sinceMs === null) return false;
    if (nowMs - trade.sinceMs > TRADE_GIVE_UP_MS) {
      client.postChat("/cancel");
      this.counts.gaveUp++;
      this.end(trade, nowMs);
      return false;
    }
    const window = windows.filter((dialog) => texts(dialog).some((t) => t.startsWith("You give:"))).at(-1);
    if (window === undefined) return true; // asked, not answered yet
    const offered = trade.givesNothing || this.showsOwnOffer(window);
    if (trade.offeredAtMs === 0 || (!offered && nowMs - trade.offeredAtMs > OFFER_AGAIN_MS)) {
      const bag = client.items.inventory?.stacks.filter((stack) => !isEquipmentSlot(stack.slot)) ?? [];
      const stack = bag.length === 0 ? undefined : bag[mind.int(0, bag.length - 1)];
      const name = stack === undefined ? undefined : client.itemCatalogue.get(stack.itemId)?.name;
      trade.offeredAtMs = nowMs;
      trade.givesNothing = stack === undefined || name === undefined;
      if (!trade.givesNothing) {
        client.postChat(`/offer ${mind.int(1, stack!.count)} ${name!}`);
        return true;
      }
    }
    const confirm = button(window, "Confirm");
    if (confirm !== undefined && trade.confirmedWindow !== window.id && offered) {
      client.replyDialog(window.id, confirm.returnCode);
      trade.confirmedWindow = window.id;
    }
    return true;
  }

  /** Whether the bot is in a trade (asked, or asking). */
  trading(client: GameClient): boolean {
    return (this.state.get(client)?.sinceMs ?? null) !== null;
  }

  tryTrade(mind: BotMind, otherEntityId: number, nowMs: number): boolean {
    const trade = this.stateOf(mind.client);
    if (trade.sinceMs !== null || nowMs < trade.nextAskMs) return false;
    const nick = this.nickOf(otherEntityId);
    if (nick === null || mind.client.postChat(`/trade ${nick}`) !== "sent") return false;
    this.counts.asked++;
    this.begin(trade, nowMs);
    return true;
  }

  /** A window shows an offer of the bot's own: its offer arrived. */
  private showsOwnOffer(window: ShownDialog): boolean {
    return texts(window).some((t) => t.startsWith("You give:") && !t.startsWith("You give: nothing"));
  }

  private stateOf(client: GameClient): BotTrade {
    let trade = this.state.get(client);
    if (trade === undefined) {
      const created: BotTrade = {
        sinceMs: null,
        offeredAtMs: 0,
        givesNothing: false,
        confirmedWindow: 0,
        nextAskMs: 0,
      };
      trade = created;
      this.state.set(client, created);
      client.chat.listen((event) => {
        if (event.kind !== "line" || event.speakerEntityId !== 0 || !ENDED.test(event.text)) return;
        const kind = event.text.replace(/Chaos\d+/gu, "X").replace(/ gave .*/u, "");
        this.endings.set(kind, (this.endings.get(kind) ?? 0) + 1);
        if (event.text.startsWith("Trade done:")) this.counts.done++;
        else if (created.sinceMs !== null) this.counts.off++;
        this.end(created, performance.now());
      });
    }
    return trade;
  }

  private begin(trade: BotTrade, nowMs: number): void {
    trade.sinceMs = nowMs;
    trade.offeredAtMs = 0;
    trade.givesNothing = false;
  }

  private end(trade: BotTrade, nowMs: number): void {
    trade.sinceMs = null;
    trade.offeredAtMs = 0;
    trade.nextAskMs = nowMs + ASK_AGAIN_MS;
  }
}
