// Trades between players of two regions (docs/scaling.md § Trade across a border): the messages between a
// trade's home — the region of the player who asked, whose TradeRoom holds the trade and its rules
// (ts/server/social/trades.ts) — and the region of the other player, on one Redis pub/sub channel
// (`fc:trade`). Each message names the region it is for (`to`), the trade and the other player's entity.
// This file only carries and checks what travels, and times the two waits of the exchange:
//  - prepare: the home asks the other region to hold its player's bag still and report it, with the store
//    backend holding that character's lease (PgItemStore.backend); no answer within PREPARE_MS, and the
//    home writes nothing;
//  - settled: the home says whether it wrote the exchange; the other region, hearing nothing within
//    HOLD_MS, fences its bag instead (ItemRoom.holdForTrade) — so a home that died mid-trade can never
//    write it later.
// The one write over both bags is the home's (ItemRoom.tradeAcross, pg-items.ts's guard of a bag whose
// lease another region holds); a lost or doubled message can delay a trade or call it off, never move an
// item twice.
import type { Redis } from "ioredis";
import type { HeldBag } from "../server/items/item-room.js";
import type { Logger } from "../server/ops/log.js";
import type { StoredContainer } from "../server/persistence/item-store.js";
import { nickKey } from "../server/sessions/nick.js";
import {
  AWAY_VERBS,
  type AwayMessage,
  type AwayVerb,
  type HomeMessage,
  type RemoteTrader,
  type TradeElsewhere,
  type TradeRoom,
} from "../server/social/trades.js";
import type { GhostTable } from "./ghosts.js";
import { RegionChannel } from "./region-channel.js";

/** What one message may weigh: a trade window's text (240 characters) or a bag's stacks, with room to spare. */
const MAX_MESSAGE_BYTES = 8192;
/** How long the home waits for the other region to hold its player's bag. */
export const PREPARE_MS = 3_000;
/** How long the other region holds its player's bag waiting for the home to say how the exchange went. */
export const HOLD_MS = 10_000;
/** The most stacks a bag reports (its slots and two of equipment), and the most item counts a verb carries. */
const MAX_STACKS = 64;
const KINDS_HOME: readonly string[] = [
  "ask",
  "tell",
  "window",
  "over",
  "prepare",
  "keep",
] satisfies HomeMessage["kind"][];
const KINDS_AWAY: readonly string[] = ["refuse", "verb", "reply", "gone", "keep"] satisfies AwayMessage["kind"][];

export interface TradeLinkPorts {
  readonly trades: Pick<TradeRoom, "fromHome" | "fromAway" | "elsewhere">;
  readonly ghosts: Pick<GhostTable, "players" | "get" | "ownerOf">;
  /** The container key of the bag of the player here standing as `entityId` (null: a guest, or gone). */
  readonly bagKeyOf: (entityId: number) => string | null;
  /** The store backend holding this region's leases (PgItemStore.backend). */
  readonly backend: () => Promise<number>;
}

export class TradeLink implements TradeElsewhere {
  /** Messages sent and taken; exchanges held here for another region, and those that ended without its word. */
  readonly stats = { sent: 0, received: 0, held: 0, holdsUnanswered: 0, prepareTimeouts: 0 };
  private readonly channel: RegionChannel;
  /** The home's prepares waiting for the other region's bag, by trade. */
  private readonly preparing = new Map<number, { resolve: (bag: HeldBag) => void; reject: (error: Error) => void }>();
  /** Bags held here for a trade of another region, waiting for its word, by home and trade. */
  private readonly holds = new Map<string, (written: boolean) => void>();

  constructor(
    readonly region: number,
    publisher: Redis,
    private readonly ports: TradeLinkPorts,
    log: Logger,
    prefix = "fc:",
  ) {
    this.channel = new RegionChannel(region, publisher, `${prefix}trade`, MAX_MESSAGE_BYTES, log, (fields) =>
      this.onMessage(fields),
    );
  }

  get dropped(): number {
    return this.channel.dropped;
  }

  /** Bags held here now for another region's trade. */
  get bagsHeld(): number {
    return this.holds.size;
  }

  async start(): Promise<void> {
    await this.channel.start();
    this.ports.trades.elsewhere = this;
  }

  async close(): Promise<void> {
    this.ports.trades.elsewhere = null;
    for (const waiting of this.preparing.values()) waiting.reject(new Error("the region is closing"));
    for (const settle of this.holds.values()) settle(false);
    await this.channel.close();
  }

  ghostNamed(nicks: readonly string[]): { region: number; entityId: number; nick: string } | null {
    const wanted = new Set(nicks.map(nickKey));
    for (const ghost of this.ports.ghosts.players()) {
      if (!wanted.has(nickKey(ghost.name))) continue;
      const region = this.ports.ghosts.ownerOf(ghost.id);
      if (region !== null) return { region, entityId: ghost.id, nick: ghost.name };
    }
    return null;
  }

  placeOf(trader: RemoteTrader): { x: number; y: number } | null {
    // Still its region's, as when the trade began: one that crossed on is not the same trader.
    if (this.ports.ghosts.ownerOf(trader.entityId) !== trader.region) return null;
    return this.ports.ghosts.get(trader.entityId) ?? null;
  }

  toAway(trader: RemoteTrader, tradeId: number, message: HomeMessage): void {
    this.send(trader.region, tradeId, trader.entityId, { home: message });
  }

  prepare(trader: RemoteTrader, tradeId: number): Promise<HeldBag> {
    this.preparing.get(tradeId)?.reject(new Error("asked again"));
    return new Promise<HeldBag>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.stats.prepareTimeouts++;
        done();
        reject(new Error(`region ${trader.region} did not hold its player's bag`));
      }, PREPARE_MS);
      const done = () => {
        clearTimeout(timer);
        this.preparing.delete(tradeId);
      };
      this.preparing.set(tradeId, {
        resolve: (bag) => {
          done();
          resolve(bag);
        },
        reject: (error) => {
          done();
          reject(error);
        },
      });
      this.toAway(trader, tradeId, { kind: "prepare" });
    });
  }

  settled(trader: RemoteTrader, tradeId: number, written: boolean): void {
    this.send(trader.region, tradeId, trader.entityId, { settled: written });
  }

  toHome(home: number, tradeId: number, entityId: number, message: AwayMessage): void {
    this.send(home, tradeId, entityId, { away: message });
  }

  async holding(home: number, tradeId: number, entityId: number, bag: StoredContainer | null): Promise<boolean> {
    const key = bag === null ? null : this.ports.bagKeyOf(entityId);
    let heldBy: number | null = null;
    if (key !== null) {
      try {
        heldBy = await this.ports.backend();
      } catch {
        heldBy = null; // the store is not reachable: nothing can be written now anyway
      }
    }
    if (bag === null || key === null || heldBy === null) {
      this.send(home, tradeId, entityId, { unprepared: true });
      return false;
    }
    this.stats.held++;
    const holdKey = `${home}:${tradeId}`;
    const answered = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        this.stats.holdsUnanswered++;
        settle(false);
      }, HOLD_MS);
      const settle = (written: boolean) => {
        clearTimeout(timer);
        if (this.holds.get(holdKey) === settle) this.holds.delete(holdKey);
        resolve(written);
      };
      this.holds.set(holdKey, settle);
    });
    this.send(home, tradeId, entityId, { prepared: { key, version: bag.version, stacks: bag.stacks, heldBy } });
    return answered;
  }

  private send(to: number, trade: number, entity: number, fields: Record<string, unknown>): void {
    this.stats.sent++;
    this.channel.publish({ to, trade, entity, ...fields });
  }

  /** Another region's message: this region's when `to` names it; false for one that is not well formed. */
  private onMessage(fields: Record<string, unknown>): boolean {
    if (!Number.isInteger(fields.to)) return false;
    if (fields.to !== this.region) return true;
    const from = fields.from as number;
    const trade = fields.trade;
    const entity = fields.entity;
    if (!Number.isSafeInteger(trade) || !Number.isSafeInteger(entity)) return false;
    const tradeId = trade as number;
    const entityId = entity as number;
    if ("home" in fields) {
      const message = homeMessage(fields.home);
      if (message === null) return false;
      this.ports.trades.fromHome(from, tradeId, entityId, message);
    } else if ("away" in fields) {
      const message = awayMessage(fields.away);
      if (message === null) return false;
      this.ports.trades.fromAway(from, tradeId, entityId, message);
    } else if ("prepared" in fields) {
      const held = heldBag(fields.prepared);
      if (held === null) return false;
      this.preparing.get(tradeId)?.resolve(held);
    } else if (fields.unprepared === true) {
      this.preparing.get(tradeId)?.reject(new Error(`region ${from} could not hold its player's bag`));
    } else if (typeof fields.settled === "boolean") {
      this.holds.get(`${from}:${tradeId}`)?.(fields.settled);
    } else {
      return false;
    }
    this.stats.received++;
    return true;
  }
}

const text = (value: unknown, max = 400): value is string => typeof value === "string" && value.length <= max;
const count = (value: unknown): value is number =>
  Number.isSafeInteger(value) && (value as number) >= 0 && (value as number) <= 0xffffffff;

function homeMessage(value: unknown): HomeMessage | null {
  if (typeof value !== "object" || value === null) return null;
  const m = value as Record<string, unknown>;
  if (typeof m.kind !== "string" || !KINDS_HOME.includes(m.kind)) return null;
  switch (m.kind) {
    case "ask":
      return text(m.asker, 64) && text(m.askerKey, 64) ? { kind: "ask", asker: m.asker, askerKey: m.askerKey } : null;
    case "tell":
      return text(m.text) ? { kind: "tell", text: m.text } : null;
    case "window": {
      const { key, seq, title, text: words, buttons } = m;
      const fine =
        text(key, 16) &&
        count(seq) &&
        text(title, 64) &&
        text(words, 240) &&
        Array.isArray(buttons) &&
        buttons.length >= 1 &&
        buttons.length <= 4 &&
        buttons.every((label) => text(label, 16));
      return fine ? { kind: "window", key, seq, title, text: words, buttons: buttons as string[] } : null;
    }
    default:
      return { kind: m.kind as "over" | "prepare" | "keep" };
  }
}

function awayMessage(value: unknown): AwayMessage | null {
  if (typeof value !== "object" || value === null) return null;
  const m = value as Record<string, unknown>;
  if (typeof m.kind !== "string" || !KINDS_AWAY.includes(m.kind)) return null;
  switch (m.kind) {
    case "refuse":
      return text(m.text) ? { kind: "refuse", text: m.text } : null;
    case "verb": {
      const counts = itemCounts(m.counts);
      const verb = m.verb as AwayVerb;
      return AWAY_VERBS.includes(verb) && text(m.text) && counts !== null
        ? { kind: "verb", verb, text: m.text, counts }
        : null;
    }
    case "reply": {
      const counts = itemCounts(m.counts);
      return text(m.key, 16) && count(m.seq) && count(m.code) && counts !== null
        ? { kind: "reply", key: m.key, seq: m.seq, code: m.code, counts }
        : null;
    }
    default:
      return { kind: m.kind as "gone" | "keep" };
  }
}

function itemCounts(value: unknown): [number, number][] | null {
  if (!Array.isArray(value) || value.length > MAX_STACKS) return null;
  const fine = value.every(
    (pair: unknown) => Array.isArray(pair) && pair.length === 2 && count(pair[0]) && count(pair[1]),
  );
  return fine ? (value as [number, number][]) : null;
}

function heldBag(value: unknown): HeldBag | null {
  if (typeof value !== "object" || value === null) return null;
  const m = value as Record<string, unknown>;
  const stacks = m.stacks;
  if (!text(m.key, 64) || !/^character:\d+$/.test(m.key) || !count(m.version) || !count(m.heldBy)) return null;
  if (!Array.isArray(stacks) || stacks.length > MAX_STACKS) return null;
  const fine = stacks.every((stack: unknown) => {
    if (typeof stack !== "object" || stack === null) return false;
    const s = stack as Record<string, unknown>;
    return count(s.slot) && count(s.itemId) && count(s.count);
  });
  if (!fine) return null;
  return {
    key: m.key,
    heldBy: m.heldBy,
    bag: {
      version: m.version,
      stacks: (stacks as { slot: number; itemId: number; count: number }[]).map(({ slot, itemId, count }) => ({
        slot,
        itemId,
        count,
      })),
    },
  };
}
