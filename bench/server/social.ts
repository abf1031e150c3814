// The bench bots' social play (issue 39's bench row, docs/benchmarks.md § social): what one social bot of
// bench/server/bots.ts --social does, through the same protocol and the same chat commands a player types
// (docs/social.md). The social bots stand in camps of four (bench/server/world.ts SOCIAL_CAMP), each beside
// a chest of its own, and
//  - take what their chest holds (an ItemRequest take_all: coins for members 0 and 2, potions for 1 and 3);
//  - form a party: member 0 sends `/invite` to the three others, who press Join in the invitation's dialog;
//  - trade with their neighbour: members 0 and 2 ask members 1 and 3 (`/trade nick`) every TRADE_AGAIN_MS,
//    who press Trade; each side `/offer`s what it has more of (OFFER_UNITS) and presses Confirm once the window
//    shows both offers — the server then writes both bags in one transaction and says "Trade done";
//  - talk at chat's rate limit (1 line a second): every line slot not taken by a trade or an invitation is a
//    `/tell` to another social bot or a `/p` line to the party, in turn, and one in PUBLIC_EVERY_LINES a
//    public line (heard by the whole world, so a realistic share of them, not one a second per bot).
// Lines go through the client core's ChatDelivery (numbered, re-sent until acknowledged) and windows through
// its DialogState (acknowledged, the reply re-sent until the server's DialogClose), as the browser's do.
// At the end (`finish`) the askers call off any trade still open, and every social bot asks for its own
// EntityDetail and its chest's: their inventories, summed over the camps, are the census the suite checks
// against what the chests held at the start (nothing lost, nothing doubled).
import { ChatDelivery } from "../../ts/client/core/chat.js";
import type { ChannelLink } from "../../ts/client/core/channel-link.js";
import { DialogState, type ShownDialog } from "../../ts/client/core/dialogs.js";
import { INTERACT_RETRANSMIT_MS } from "../../ts/client/core/interaction.js";
import { CAMP_CHESTS } from "./world.js";
import {
  CHAT_STATUS_POSTED,
  type ChatPacket,
  type ChatPostAckPacket,
  CLIENT_TYPE_OFFICIAL,
  type DialogClosePacket,
  type DialogPacket,
  ENTITY_QUERY_BYTES,
  ITEM_OPS,
  ITEM_REQUEST_BYTES,
  type ItemResultPacket,
  type Tlv,
  encodeEntityQuery,
  encodeItemRequest,
} from "../../ts/protocol/index.js";

/** One chat line a second: chat's rate limit (1 a second, bursts of 5), which every command shares. */
export const LINE_EVERY_MS = 1000;
/**
 * One line in this many is public; the others are /tell and /p in turn. A public line is heard by every
 * player of the world (docs/protocol.md § 14): a thousand bots each saying one a second would send two
 * million lines a second to 2000 players — a flood no world sees, which would measure the fan-out alone.
 */
export const PUBLIC_EVERY_LINES = 60;
/** An asker asks its neighbour to trade again this long after the last trade ended (uniform in the range). */
export const TRADE_AGAIN_MS = { min: 6000, max: 10_000 } as const;
/** An asker calls off a trade that has not been done this long after it asked. */
export const TRADE_GIVE_UP_MS = 15_000;
/** How long a window is read before a button is pressed. */
export const PRESS_AFTER_MS = 200;
/** An ItemRequest is sent again this often until its ItemResult comes. */
const ITEM_RETRY_MS = 500;
/** Catalogue ids of what the camps' chests hold (maps/caves.items.json, bench/server/world.ts CAMP_CHESTS). */
export const GOLD_COIN = { id: 7, name: "gold coin" } as const;
export const HEALING_POTION = { id: 6, name: "healing potion" } as const;
/** What one offer holds: 5 coins or 1 potion; a side offers of the one it holds more of, counted so (ties: potions). */
export const OFFER_UNITS = [
  { item: HEALING_POTION, count: 1 },
  { item: GOLD_COIN, count: 5 },
] as const;

/** What `camps` camps' chests held at the start (bench/server/world.ts CAMP_CHESTS), item id → count. */
export function campCensus(camps: number): Map<number, number> {
  const ids = new Map<string, number>([GOLD_COIN, HEALING_POTION].map((item) => [item.name, item.id]));
  const total = new Map<number, number>();
  for (const contents of CAMP_CHESTS) {
    const [name, count] = contents.split(":");
    const id = ids.get(name);
    if (id === undefined) throw new Error(`a camp chest holds "${name}", which the social bots do not know`);
    total.set(id, (total.get(id) ?? 0) + Number(count) * camps);
  }
  return total;
}

/** The camp member a social bot is: 0 leads the party, 0 and 2 ask 1 and 3 to trade. */
export function campRole(socialIndex: number): { camp: number; member: number; asks: boolean; partner: number } {
  const member = socialIndex % 4;
  const camp = Math.floor(socialIndex / 4);
  // Members 0 and 2 ask the next one; 1 and 3 are asked by the one before.
  return { camp, member, asks: member % 2 === 0, partner: camp * 4 + (member % 2 === 0 ? member + 1 : member - 1) };
}

/** The `/offer` line for a bag (item id → count): OFFER_UNITS' item held in the most offers; null if none is. */
export function offerLine(bag: ReadonlyMap<number, number>): string | null {
  let best: (typeof OFFER_UNITS)[number] | null = null;
  let bestOffers = 0;
  for (const unit of OFFER_UNITS) {
    const offers = Math.floor((bag.get(unit.item.id) ?? 0) / unit.count);
    if (offers > bestOffers) {
      best = unit;
      bestOffers = offers;
    }
  }
  return best === null ? null : `/offer ${best.count} ${best.item.name}`;
}

/** What a social bot does with a window: press the button with this return code, offer first, or wait. */
export type WindowAnswer = { press: number } | "offer" | "wait";

/**
 * The answer to a dialog as the server's social layer opens them (ts/server/social/): an invitation's Join,
 * a request's Trade; on a trade window, offer while it shows "You give: nothing", Confirm once both sides
 * offer something, and wait on one that shows only Cancel (confirmed, waiting for the other). Any other
 * window is left alone.
 */
export function windowAnswer(elements: ShownDialog["elements"]): WindowAnswer {
  const buttons = elements.filter((element) => element.kind === "button");
  const text = elements
    .filter((element) => element.kind === "text")
    .map((element) => element.text)
    .join(" ");
  const button = (label: string) => buttons.find((element) => element.label === label);
  const join = button("Join") ?? button("Trade");
  if (join) return { press: join.returnCode };
  const confirm = button("Confirm");
  if (!confirm) return "wait";
  const gives = /You give: (.*?)\. .+ gives: (.*?)\. /.exec(text);
  if (gives === null) return "wait";
  if (gives[1] === "nothing") return "offer";
  return gives[2] === "nothing" ? "wait" : { press: confirm.returnCode };
}

/** Counts of one process's social bots (those of the measurement window, unless said otherwise). */
export interface SocialCounts {
  /** Lines posted and acknowledged as posted, by what they were. */
  said: number;
  tells: number;
  partyLines: number;
  tradeLines: number;
  invites: number;
  /** Lines the server answered "rate limited", or refused otherwise. */
  rateLimited: number;
  refused: number;
  /** Lines received: private lines, party lines, other players' public lines, system lines. */
  privateHeard: number;
  partyHeard: number;
  publicHeard: number;
  systemHeard: number;
  /** Windows answered: Join pressed, Trade pressed, Confirm pressed. */
  joins: number;
  tradesAccepted: number;
  confirms: number;
  /** Trades asked, and done as the asker heard ("Trade done"); asks called off unfinished. */
  tradesAsked: number;
  tradesDone: number;
  tradesGivenUp: number;
}

export const zeroSocialCounts = (): SocialCounts => ({
  said: 0,
  tells: 0,
  partyLines: 0,
  tradeLines: 0,
  invites: 0,
  rateLimited: 0,
  refused: 0,
  privateHeard: 0,
  partyHeard: 0,
  publicHeard: 0,
  systemHeard: 0,
  joins: 0,
  tradesAccepted: 0,
  confirms: 0,
  tradesAsked: 0,
  tradesDone: 0,
  tradesGivenUp: 0,
});

type LineKind = "said" | "tells" | "partyLines" | "tradeLines" | "invites";

/** What a social bot needs of the process: its link, the nicks of the social bots, a random draw, the counts. */
export interface SocialPorts {
  readonly link: ChannelLink;
  /** The nick of the social bot in seat `index` (camp × 4 + member), once one sits there. */
  nickOf(index: number): string | undefined;
  /** The seat whose spawn point is (x, y), or -1: a social bot's seat is where it was placed. */
  seatAt(x: number, y: number): number;
  /** This bot sits in seat `index` (its nick is known there from now on). */
  seated(index: number): void;
  readonly socialBots: number;
  random(): number;
  /** The window's counts, or null outside it. */
  counts(): SocialCounts | null;
}

/** One social bot's play: fed the packets it is about, stepped every round of the process's timer. */
export class SocialBot {
  /** Its seat (camp × 4 + member) and what that makes it, once placed. */
  index = -1;
  role: ReturnType<typeof campRole> | null = null;
  readonly chat: ChatDelivery;
  readonly dialogs: DialogState;
  /** The own bag as the newest own EntityDetail says: item id → count. */
  readonly bag = new Map<number, number>();
  private bagVersion = -1;
  /** The own chest (0 until seen beside it) and what it holds as its newest detail says. */
  chestId = 0;
  readonly chest = new Map<number, number>();
  private chestVersion = -1;
  private chestTaken = false;
  private itemRequestSentMs = -Infinity;
  private readonly itemOut = new Uint8Array(ITEM_REQUEST_BYTES);
  private readonly queryOut = new Uint8Array(ENTITY_QUERY_BYTES);
  /** Lines to post before the next chatter (commands of a trade or an invitation), and what each is. */
  private readonly queue: { text: string; kind: LineKind }[] = [];
  /** Kinds of the lines posted and not yet acknowledged, in order. */
  private readonly unacknowledged: LineKind[] = [];
  private nextLineMs: number;
  private chatter = 0;
  private invited = false;
  /** Asker: when it asks next, and when it asked (0: no trade asked). */
  private nextTradeMs: number;
  private askedMs = 0;
  /** Whether this side offered in the window shown now (a new trade's first window clears it). */
  private offered = false;
  /** Windows to press and when. */
  private readonly presses = new Map<
    number,
    { code: number; atMs: number; kind: "joins" | "tradesAccepted" | "confirms" }
  >();
  /** finish(): no new line or trade; census(): the end's details asked until both come. */
  private finishing = false;
  private censusSentMs = -Infinity;
  private censusAskedMs = Infinity;
  private selfAnswered = false;
  private chestAnswered = false;

  constructor(
    readonly entityId: number,
    private readonly ports: SocialPorts,
    nowMs: number,
  ) {
    this.chat = new ChatDelivery(ports.link);
    this.dialogs = new DialogState(ports.link);
    this.nextLineMs = nowMs + ports.random() * LINE_EVERY_MS;
    this.nextTradeMs = nowMs + TRADE_AGAIN_MS.min + ports.random() * (TRADE_AGAIN_MS.max - TRADE_AGAIN_MS.min);
    this.chat.listen((event) => {
      const counts = ports.counts();
      if (event.kind === "line") this.heard(event.speakerEntityId, event.speakerName, event.text, counts);
      else if (event.kind === "not_posted" && counts) {
        if (event.reason === "rate_limited") counts.rateLimited++;
        else counts.refused++;
      }
    });
    this.dialogs.listen((event) => {
      if (event.kind === "opened") this.opened(event.dialog, performance.now());
      else this.presses.delete(event.dialogId);
    });
  }

  /** Chests (type 2) seen in entity updates, by id: where each stands (the own one is found once placed). */
  private readonly chestsSeen = new Map<number, { x: number; y: number }>();

  /** A chest in an entity update. */
  sawChest(id: number, x: number, y: number): void {
    if (this.chestId === 0 && this.chestsSeen.size < 16) this.chestsSeen.set(id, { x, y });
  }

  /** The own position (from an entity update): the seat it was placed in, and the chest seen beside it. */
  placedAt(x: number, y: number): void {
    if (this.role === null) {
      this.index = this.ports.seatAt(x, y);
      if (this.index < 0) return;
      this.role = campRole(this.index);
      this.ports.seated(this.index);
    }
    if (this.chestId !== 0) return;
    for (const [id, chest] of this.chestsSeen)
      if (Math.max(Math.abs(chest.x - x), Math.abs(chest.y - y)) <= 1) {
        this.chestId = id;
        this.chestsSeen.clear();
        return;
      }
  }

  receiveChat(packet: ChatPacket): void {
    this.chat.receiveLine(packet);
  }

  receivePostAck(packet: ChatPostAckPacket, nowMs: number): void {
    // The kinds of the lines this ack covers, oldest first; the acked line's status is the one it carries.
    const before = this.chat.unacknowledged;
    this.chat.receivePostAck(packet, nowMs);
    const covered = before - this.chat.unacknowledged;
    const counts = this.ports.counts();
    for (let index = 0; index < covered; index++) {
      const kind = this.unacknowledged.shift()!;
      const last = index === covered - 1;
      if (counts && (!last || packet.status === CHAT_STATUS_POSTED)) counts[kind]++;
    }
  }

  receiveDialog(packet: DialogPacket, nowMs: number): void {
    this.dialogs.receiveDialog(packet, nowMs);
  }

  receiveDialogClose(packet: DialogClosePacket): void {
    this.dialogs.receiveClose(packet);
  }

  receiveItemResult(packet: ItemResultPacket): void {
    if (packet.requestId === 1) this.chestTaken = true;
  }

  /** An EntityDetail: the own bag, or the own chest's contents (each with a version that only rises). */
  receiveDetail(entityId: number, meta: readonly Tlv[]): void {
    const inventory = meta.find((tlv) => tlv.kind === "inventory");
    if (entityId === this.entityId) this.selfAnswered ||= this.censusAskedMs !== Infinity;
    if (entityId === this.chestId && this.chestId !== 0) this.chestAnswered ||= this.censusAskedMs !== Infinity;
    if (!inventory || inventory.kind !== "inventory") return;
    const [held, version] =
      entityId === this.entityId
        ? [this.bag, this.bagVersion]
        : entityId === this.chestId
          ? [this.chest, this.chestVersion]
          : [null, 0];
    if (held === null || inventory.version < version) return;
    if (entityId === this.entityId) this.bagVersion = inventory.version;
    else this.chestVersion = inventory.version;
    held.clear();
    for (const stack of inventory.stacks) held.set(stack.itemId, (held.get(stack.itemId) ?? 0) + stack.count);
  }

  /** Every round: re-sends, due presses, the chest taken, one line when its slot has come, a trade asked. */
  step(nowMs: number): void {
    this.chat.update(nowMs);
    this.dialogs.update(nowMs);
    if (this.censusAskedMs !== Infinity) return this.askCensus(nowMs);
    const role = this.role;
    if (role === null) return;
    for (const [dialogId, press] of this.presses) {
      if (nowMs < press.atMs) continue;
      this.presses.delete(dialogId);
      if (this.dialogs.reply(dialogId, press.code, [], nowMs)) {
        const counts = this.ports.counts();
        if (counts) counts[press.kind]++;
      }
    }
    if (this.finishing) return;
    if (!this.chestTaken && this.chestId !== 0 && nowMs - this.itemRequestSentMs >= ITEM_RETRY_MS)
      this.takeChest(nowMs);
    if (role.member === 0 && !this.invited) {
      // Once the whole camp is seated: the leader invites the three others.
      const nicks = [1, 2, 3].map((member) => this.ports.nickOf(role.camp * 4 + member));
      if (nicks.every((nick) => nick !== undefined)) {
        this.invited = true;
        for (const nick of nicks) this.queue.push({ text: `/invite ${nick}`, kind: "invites" });
      }
    }
    if (role.asks && this.chestTaken) this.trade(nowMs, role.partner);
    if (nowMs >= this.nextLineMs) {
      this.nextLineMs += LINE_EVERY_MS;
      // Behind by more than a slot (a stalled timer): the slot is now, not a burst to catch up.
      if (this.nextLineMs < nowMs) this.nextLineMs = nowMs + LINE_EVERY_MS;
      this.post(this.queue.shift() ?? this.chatterLine(role.camp), nowMs);
    }
  }

  /** The end of the window: no new trade or line; an asker calls off a trade still open. */
  finish(nowMs: number): void {
    this.finishing = true;
    this.queue.length = 0;
    this.presses.clear();
    if (this.role?.asks === true && this.askedMs !== 0) this.post({ text: "/cancel", kind: "tradeLines" }, nowMs);
  }

  /** Asks for the own EntityDetail and the chest's until both come: their inventories are the census. */
  census(nowMs: number): void {
    this.censusAskedMs = nowMs;
    this.askCensus(nowMs);
  }

  /** Whether the census's details have both come (a bot that never saw its chest answers for its bag alone). */
  get censusDone(): boolean {
    return this.selfAnswered && (this.chestAnswered || this.chestId === 0);
  }

  private askCensus(nowMs: number): void {
    if (this.censusDone || nowMs - this.censusSentMs < INTERACT_RETRANSMIT_MS) return;
    this.censusSentMs = nowMs;
    if (!this.selfAnswered) this.query(this.entityId);
    if (!this.chestAnswered && this.chestId !== 0) this.query(this.chestId);
  }

  private query(entityId: number): void {
    const link = this.ports.link;
    encodeEntityQuery(
      { type: "entity_query", clientType: CLIENT_TYPE_OFFICIAL, authToken: link.token(), entityId },
      this.queryOut,
    );
    link.send(this.queryOut);
  }

  private takeChest(nowMs: number): void {
    this.itemRequestSentMs = nowMs;
    const link = this.ports.link;
    encodeItemRequest(
      {
        type: "item_request",
        clientType: CLIENT_TYPE_OFFICIAL,
        authToken: link.token(),
        // The one request a social bot makes: a re-send keeps its id, so the server takes it once.
        requestId: 1,
        op: ITEM_OPS.indexOf("take_all"),
        container: this.chestId,
        slot: 0,
        toSlot: 0,
        count: 0,
      },
      this.itemOut,
    );
    link.send(this.itemOut);
  }

  private trade(nowMs: number, partner: number): void {
    if (this.askedMs !== 0) {
      if (nowMs - this.askedMs < TRADE_GIVE_UP_MS) return;
      // Not done in time (a refusal, a lost moment): call it off and ask again later.
      this.queue.push({ text: "/cancel", kind: "tradeLines" });
      const counts = this.ports.counts();
      if (counts) counts.tradesGivenUp++;
      this.tradeEnded(nowMs);
      return;
    }
    const nick = this.ports.nickOf(partner);
    if (nowMs < this.nextTradeMs || nick === undefined) return;
    this.askedMs = nowMs;
    this.offered = false;
    this.queue.push({ text: `/trade ${nick}`, kind: "tradeLines" });
    const counts = this.ports.counts();
    if (counts) counts.tradesAsked++;
  }

  private tradeEnded(nowMs: number): void {
    this.askedMs = 0;
    const { min, max } = TRADE_AGAIN_MS;
    this.nextTradeMs = nowMs + min + this.ports.random() * (max - min);
  }

  /** The next line of chatter: a public line, a private one to another social bot, a party line, in turn. */
  private chatterLine(camp: number): { text: string; kind: LineKind } {
    const turn = this.chatter++ % PUBLIC_EVERY_LINES;
    if (turn === 0) return { text: `hello from camp ${camp}`, kind: "said" };
    if (turn % 2 === 1) {
      let to = Math.floor(this.ports.random() * this.ports.socialBots);
      if (to === this.index) to = (to + 1) % this.ports.socialBots;
      const nick = this.ports.nickOf(to);
      if (nick !== undefined) return { text: `/tell ${nick} see you at camp ${camp}`, kind: "tells" };
    }
    return { text: `/p holding camp ${camp}`, kind: "partyLines" };
  }

  private post(line: { text: string; kind: LineKind }, nowMs: number): void {
    if (this.chat.post(line.text, nowMs) === "sent") this.unacknowledged.push(line.kind);
  }

  private heard(speakerEntityId: number, speakerName: string, text: string, counts: SocialCounts | null): void {
    if (speakerEntityId === 0 && text.startsWith("Trade done:")) {
      if (this.role?.asks === true && this.askedMs !== 0) {
        if (counts) counts.tradesDone++;
        this.tradeEnded(performance.now());
      }
    }
    if (!counts) return;
    if (speakerName.endsWith(" (private)")) counts.privateHeard++;
    else if (speakerName.endsWith(" (party)")) counts.partyHeard++;
    else if (speakerEntityId === 0) counts.systemHeard++;
    else counts.publicHeard++;
  }

  private opened(dialog: ShownDialog, nowMs: number): void {
    if (this.finishing) return;
    const answer = windowAnswer(dialog.elements);
    if (answer === "wait") return;
    if (answer === "offer") {
      if (this.offered) return;
      const line = offerLine(this.bag);
      if (line === null) return;
      this.offered = true;
      this.queue.unshift({ text: line, kind: "tradeLines" });
      return;
    }
    const labels = dialog.elements.filter((element) => element.kind === "button").map((element) => element.label);
    const kind = labels.includes("Join") ? "joins" : labels.includes("Trade") ? "tradesAccepted" : "confirms";
    // A request to trade begins a trade: this side has not offered in it yet.
    if (kind === "tradesAccepted") this.offered = false;
    this.presses.set(dialog.id, { code: answer.press, atMs: nowMs + PRESS_AFTER_MS, kind });
  }
}
