// What an operator can do to a running world (docs/server.md § Admin): see
// who plays, kick, ban (an account or an address, for a while or for good,
// persisted), mute, message one player, teleport one to a free tile, announce. Every action is written to the admin log
// (SQLite, admin_log) and to the server log, refused ones included, so a
// host can always answer "who did that, and when".
import { levelOf } from "../combat/experience.js";
import { activeBan } from "../accounts/account-service.js";
import type { AccountStore } from "../accounts/account-store.js";
import { addressKey } from "../edge/address-key.js";
import type { ChatService } from "../talk/chat.js";
import type { Logger } from "../ops/log.js";
import type { Session, SessionRegistry } from "../sessions/session.js";
import type { World } from "../world/world.js";
import type { Warps } from "../world/warps.js";
import type { AddressBan, AdminLogEntry, AdminStore } from "./admin-store.js";

/** A refused admin request: the HTTP status and why. */
export class AdminError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** A mute: until when (null: until lifted), and why. */
export interface MuteState {
  untilMs: number | null;
  reason: string;
}

/** Who a request is about: an online player by nick or entity id. */
export interface PlayerRef {
  nick?: string;
  entityId?: number;
}

export interface AdminPorts {
  readonly sessions: Pick<SessionRegistry, "values" | "byEntityId">;
  /** The session lifecycle (../sessions/session-lifecycle.ts): a kick or a ban ends the session. */
  readonly lifecycle: { leave(session: Session, reason: string): void };
  readonly chat: Pick<ChatService, "system" | "tell" | "said">;
  readonly accounts: Pick<AccountStore, "findByName" | "setBan" | "nameOf" | "search">;
  readonly store: AdminStore;
  /** Where a teleport may land: a free tile by the movement rule (World.walkable); the spawn points are the safe spots. */
  readonly world: Pick<World, "walkable" | "spawns" | "mapWidth" | "mapHeight">;
  /** The one way a player is moved at once (world/warps.ts): its scheduled steps are dropped, warps not followed. */
  readonly warps: Pick<Warps, "teleport">;
  readonly log: Logger;
  /** The wall clock bans and the operators' log are dated by. */
  readonly now: () => number;
  /** The wall clock mutes are timed by: the world's tape (recording/tape.ts), as a mute silences a player's chat. */
  readonly muteClock: () => number;
  /** Where each operator's action is recorded as an input of the world (the flight recorder; absent: not recording). */
  readonly recordInput?: (op: AdminInput["op"], args: readonly unknown[]) => void;
}

/** An operator's action as the flight recorder keeps it and a replay calls it again (recording/replay.ts). */
export type AdminInput =
  | { op: "kick"; args: Parameters<AdminService["kick"]> }
  | { op: "ban"; args: Parameters<AdminService["ban"]> }
  | { op: "unban"; args: Parameters<AdminService["unban"]> }
  | { op: "mute"; args: Parameters<AdminService["mute"]> }
  | { op: "unmute"; args: Parameters<AdminService["unmute"]> }
  | { op: "announce"; args: Parameters<AdminService["announce"]> }
  | { op: "message"; args: Parameters<AdminService["message"]> }
  | { op: "teleport"; args: Parameters<AdminService["teleport"]> };

/** A tile of the world. */
export interface TilePoint {
  x: number;
  y: number;
}

/** Whom a ban names: an online player, an account by name, an address. */
export type BanTarget = PlayerRef & { account?: string; address?: string };
/** Whom an unban names. */
export type UnbanTarget = { account?: string; address?: string };

/** A ban decided (AdminService.decideBan): whose, until when, why — before it is kept anywhere. */
export interface BanOrder {
  /** The request as the operator gave it (the operators' log keeps it). */
  readonly request: { target: BanTarget; minutes: number | null; reason: string };
  /** The account banned, by name; null: none. */
  readonly account: string | null;
  /** The address banned, as its key (edge/address-key.ts: an IPv4 address, an IPv6 /64); null: none. */
  readonly address: string | null;
  readonly reason: string;
  readonly createdAtMs: number;
  /** Null: for good. */
  readonly untilMs: number | null;
}

/** Whose sessions a ban ends: an account's (by id), an address's (by key). */
export interface BanReach {
  readonly accountId: number | null;
  readonly address: string | null;
}

/** The longest timed ban or mute: a year. Longer is "for good" (no minutes). */
export const ADMIN_MINUTES_MAX = 525_600;
/** Speaker name of announcements in chat. */
export const ANNOUNCE_SPEAKER = "server";

export class AdminService {
  /** Muted sessions' accounts (by account id) and guests (by token): until when. */
  private readonly mutes = new Map<string, { untilMs: number | null; reason: string }>();

  constructor(private readonly ports: AdminPorts) {}

  /** Everyone in play. */
  players(): Record<string, unknown>[] {
    const now = this.ports.now();
    return [...this.ports.sessions.values()].map((session) => this.describe(session, now));
  }

  /** One player in play, as players() lists it, or null when no player has that entity id (a creature, or gone). */
  player(entityId: number): Record<string, unknown> | null {
    const session = this.ports.sessions.byEntityId(entityId);
    return session === undefined ? null : this.describe(session, this.ports.now());
  }

  kick(target: PlayerRef, reason: string): Record<string, unknown> {
    this.ports.recordInput?.("kick", [target, reason]);
    const session = this.find(target);
    this.ports.lifecycle.leave(session, "kicked");
    return this.record("kick", { target, reason }, { entityId: session.entity.id, nick: session.nick });
  }

  /**
   * Bans an account (by name), an address (an IPv4 address or an IPv6 address, whose /64 is banned), or
   * an online player (its account; a guest's address). `minutes` absent: for good. Sessions it covers end.
   */
  ban(target: BanTarget, minutes: number | undefined, reason: string): Record<string, unknown> {
    this.ports.recordInput?.("ban", [target, minutes, reason]);
    const order = this.decideBan(target, minutes, reason);
    let accountId: number | null = null;
    if (order.account !== null) {
      if (!this.ports.accounts.setBan(order.account, reason, order.untilMs)) {
        throw new AdminError(404, `no account "${order.account}"`);
      }
      accountId = this.ports.accounts.findByName(order.account)!.id;
    }
    if (order.address !== null) {
      this.ports.store.banAddress({
        address: order.address,
        reason,
        createdAtMs: order.createdAtMs,
        untilMs: order.untilMs,
      });
    }
    return this.banDone(order, this.endBanned({ accountId, address: order.address }));
  }

  /**
   * What a ban request means — whose, until when — by the one rule this process and a cluster's regions
   * share (a cluster keeps the ban elsewhere: ts/cluster/cluster-bans.ts). An online player named by nick
   * or entity id stands for its account, or a guest's address. Throws AdminError when the request is bad.
   */
  decideBan(target: BanTarget, minutes: number | undefined, reason: string): BanOrder {
    const now = this.ports.now();
    const untilMs = minutes === undefined ? null : now + checkMinutes(minutes) * 60_000;
    let account = target.account;
    let address = target.address;
    if (account === undefined && address === undefined) {
      const session = this.find(target);
      if (session.accountId !== null) account = this.accountNameOf(session);
      else if (session.peer !== null) address = session.peer.address;
      else throw new AdminError(409, `${session.nick} is a guest that has not connected yet: ban an address instead`);
    }
    return {
      request: { target, minutes: minutes ?? null, reason },
      account: account ?? null,
      address: address === undefined ? null : addressKey(checkAddress(address)),
      reason,
      createdAtMs: now,
      untilMs,
    };
  }

  /** Ends the sessions here that `reach` covers (an account's, an address's); the nicks of those ended. */
  endBanned(reach: BanReach): string[] {
    const covered = this.matching(
      (s) =>
        (reach.accountId !== null && s.accountId === reach.accountId) ||
        (reach.address !== null && s.peer !== null && addressKey(s.peer.address) === reach.address),
    );
    return covered.map((session) => this.end(session));
  }

  /** The ban `order`, kept, and the sessions it ended: logged, and answered. */
  banDone(order: BanOrder, kicked: readonly string[]): Record<string, unknown> {
    return this.record("ban", order.request, {
      account: order.account,
      address: order.address,
      untilMs: order.untilMs,
      kicked,
    });
  }

  unban(target: UnbanTarget): Record<string, unknown> {
    this.ports.recordInput?.("unban", [target]);
    const order = this.decideUnban(target);
    let lifted = false;
    if (order.account !== null) {
      if (!this.ports.accounts.setBan(order.account, null)) throw new AdminError(404, `no account "${order.account}"`);
      lifted = true;
    }
    if (order.address !== null) lifted = this.ports.store.unbanAddress(order.address) || lifted;
    return this.unbanDone(target, lifted);
  }

  /** What an unban request lifts: an account's ban (by name), an address's (by key). Throws AdminError when bad. */
  decideUnban(target: UnbanTarget): { account: string | null; address: string | null } {
    if (target.account === undefined && target.address === undefined) {
      throw new AdminError(400, 'give "account" or "address"');
    }
    return {
      account: target.account ?? null,
      address: target.address === undefined ? null : addressKey(checkAddress(target.address)),
    };
  }

  /** An unban done (`lifted`: a ban was in force): logged, and answered. */
  unbanDone(target: UnbanTarget, lifted: boolean): Record<string, unknown> {
    return this.record("unban", { target }, { lifted });
  }

  /** Why `address` may not join now, or null. */
  addressRefusal(address: string): string | null {
    return addressRefusal(this.ports.store, address, this.ports.now());
  }

  /** The bans in force: addresses, and the named accounts' state when asked about. */
  bans(): { addresses: AddressBan[] } {
    return { addresses: this.ports.store.activeAddressBans(this.ports.now()) };
  }

  /** Whether the account `name` is banned now, and why. */
  accountBan(name: string): string | null {
    const account = this.ports.accounts.findByName(name);
    if (account === undefined) throw new AdminError(404, `no account "${name}"`);
    return activeBan(account, this.ports.now());
  }

  mute(target: PlayerRef, minutes: number | undefined, reason: string): Record<string, unknown> {
    this.ports.recordInput?.("mute", [target, minutes, reason]);
    const session = this.find(target);
    const untilMs = minutes === undefined ? null : this.ports.muteClock() + checkMinutes(minutes) * 60_000;
    this.mutes.set(muteKey(session), { untilMs, reason });
    this.ports.chat.tell(
      session,
      untilMs === null ? `You are muted: ${reason}` : `You are muted for ${minutes} min: ${reason}`,
    );
    return this.record(
      "mute",
      { target, minutes: minutes ?? null, reason },
      { entityId: session.entity.id, nick: session.nick, untilMs },
    );
  }

  unmute(target: PlayerRef): Record<string, unknown> {
    this.ports.recordInput?.("unmute", [target]);
    const session = this.find(target);
    const lifted = this.mutes.delete(muteKey(session));
    if (lifted) this.ports.chat.tell(session, "You may speak again.");
    return this.record("unmute", { target }, { entityId: session.entity.id, nick: session.nick, lifted });
  }

  /**
   * The mute in force on `session`, to travel with it to another process (a cluster's handoff); null: none.
   * `nowMs`: the wall clock to judge it by when the question is no part of the world — a region's checkpoint
   * of its sessions, written beside the ticks — so it is not read off the world's tape (docs/recording.md).
   */
  muteStateOf(session: Session, nowMs = this.ports.muteClock()): MuteState | null {
    const mute = this.muteOf(session, nowMs);
    return mute === null ? null : { untilMs: mute.untilMs, reason: mute.reason };
  }

  /** A mute `session` brought from another process (muteStateOf there): in force here as it was there. */
  restoreMute(session: Session, mute: MuteState): void {
    if (mute.untilMs !== null && mute.untilMs <= this.ports.muteClock()) return;
    this.mutes.set(muteKey(session), { untilMs: mute.untilMs, reason: mute.reason });
  }

  /** Whether `session` may not post chat now (the chat service refuses its lines). */
  isMuted(session: Session): boolean {
    return this.muteOf(session, this.ports.muteClock()) !== null;
  }

  /** A line from the server to one player only (its chat, speaker name `server`). */
  message(target: PlayerRef, text: string): Record<string, unknown> {
    this.ports.recordInput?.("message", [target, text]);
    const session = this.find(target);
    try {
      this.ports.chat.tell(session, text, ANNOUNCE_SPEAKER);
    } catch (error) {
      throw new AdminError(400, `not sendable as chat: ${(error as Error).message}`);
    }
    return this.record("message", { target, text }, { entityId: session.entity.id, nick: session.nick });
  }

  /**
   * Moves a player at once to `to`, which must be a free tile by the movement rule (World.walkable: the
   * tiles a step may enter), or, with no `to`, to the safe spot nearest it: the closest of the map's spawn
   * points, where new players arrive (ties: the first listed). The player is told where it was put.
   */
  teleport(target: PlayerRef, to?: TilePoint): Record<string, unknown> {
    this.ports.recordInput?.("teleport", to === undefined ? [target] : [target, to]);
    const session = this.find(target);
    const entity = session.entity;
    const from = { x: entity.x, y: entity.y };
    const spot = to === undefined ? this.safeSpotNear(from) : this.checkFree(to);
    this.ports.warps.teleport(entity, spot.x, spot.y);
    this.ports.chat.tell(session, `An operator moved you to (${spot.x}, ${spot.y}).`, ANNOUNCE_SPEAKER);
    return this.record(
      "teleport",
      { target, to: to ?? null },
      { entityId: entity.id, nick: session.nick, from, to: spot, safeSpot: to === undefined },
    );
  }

  announce(text: string): Record<string, unknown> {
    this.ports.recordInput?.("announce", [text]);
    try {
      this.ports.chat.system(text, ANNOUNCE_SPEAKER);
    } catch (error) {
      throw new AdminError(400, `not sendable as chat: ${(error as Error).message}`);
    }
    return this.record("announce", { text }, { players: [...this.ports.sessions.values()].length });
  }

  /**
   * Accounts whose name or nick holds `query` (every account without one), the most recently logged in first:
   * each with its ban in force (null: none), whether it is muted now, and its player's entity id when in play.
   */
  accounts(query: string, limit: number): Record<string, unknown>[] {
    const now = this.ports.now();
    const muteNow = this.ports.muteClock();
    const inPlay = new Map<number, Session>();
    for (const session of this.ports.sessions.values())
      if (session.accountId !== null) inPlay.set(session.accountId, session);
    return this.ports.accounts.search(query, limit).map((account) => {
      const mute = this.mutes.get(`account:${account.id}`);
      return {
        ...account,
        ban: activeBan(account, now),
        muted: mute !== undefined && (mute.untilMs === null || mute.untilMs > muteNow),
        entityId: inPlay.get(account.id)?.entity.id ?? null,
      };
    });
  }

  /**
   * The newest lines players said to everyone, newest first, those whose nick or text holds `query`: each
   * with whether its speaker is still in play (a mute or kick beside it would find them) and muted now.
   */
  chatLog(limit: number, query = ""): Record<string, unknown>[] {
    const now = this.ports.muteClock();
    return this.ports.chat.said.recent(limit, query).map((line) => {
      const session = this.ports.sessions.byEntityId(line.entityId);
      const inPlay = session !== undefined && session.nick === line.nick;
      return { ...line, inPlay, muted: inPlay && this.muteOf(session, now) !== null };
    });
  }

  /** The newest admin actions, newest first. */
  recent(limit: number): AdminLogEntry[] {
    return this.ports.store.recent(limit);
  }

  /** An action done elsewhere (a recording cut, http/recording-routes.ts): in the admin log like the others. */
  noted(action: string, request: Record<string, unknown>, result: Record<string, unknown>): void {
    this.record(action, request, result);
  }

  /** A request refused before it did anything: logged like the others. */
  refused(action: string, detail: Record<string, unknown>, why: string): void {
    this.ports.store.log(this.ports.now(), `${action} refused`, { ...detail, why });
    this.ports.log.warn("admin action refused", { action, why });
  }

  private describe(session: Session, now: number): Record<string, unknown> {
    return {
      entityId: session.entity.id,
      nick: session.nick,
      accountId: session.accountId,
      address: session.peer?.address ?? null,
      transport: session.peer?.transport ?? null,
      x: session.entity.x,
      y: session.entity.y,
      hp: session.entity.hp,
      hpMax: session.entity.hpMax,
      elo: session.entity.elo,
      level: levelOf(session.entity),
      xp: session.entity.xp,
      muted: this.muteOf(session, now) !== null,
      // How long ago its last datagram came (ms), on the clock Game.receive stamps lastSeenMs with: a
      // player whose link went quiet shows it here first. Null: no datagram yet.
      lastHeardMsAgo: session.everBound ? Math.max(0, Math.round(performance.now() - session.lastSeenMs)) : null,
      // Its ActionPackets lost on the way in, over the newest it numbered (a keyed client numbers each one:
      // Session.arrivals); null for a client that does not (the spec's own, untagged).
      inboundLoss: session.keyed ? session.arrivals.inboundLoss() : null,
      // Its pongs lost on the way out over the last 20 s, from the counts its client reports in its Pings
      // (sessions/downstream-loss.ts); null for a client that reports none (the spec's own), or before two.
      outboundLoss: session.downstream.figures(),
      // Its round trip, timed from its entity acknowledgements (sessions/round-trip.ts); null for a client
      // that asks for no deltas (the spec's own), or before its first timed acknowledgement.
      rtt: roundTripOf(session),
    };
  }

  private checkFree(to: TilePoint): TilePoint {
    const { x, y } = to;
    const world = this.ports.world;
    if (!Number.isInteger(x) || !Number.isInteger(y) || x < 0 || y < 0 || x >= world.mapWidth || y >= world.mapHeight) {
      throw new AdminError(400, `(${x}, ${y}) is not a tile of the map (${world.mapWidth} × ${world.mapHeight})`);
    }
    if (!world.walkable(x, y)) throw new AdminError(400, `(${x}, ${y}) is not a free tile: no one may stand there`);
    return { x, y };
  }

  private safeSpotNear(from: TilePoint): TilePoint {
    let best = this.ports.world.spawns[0];
    let bestDistance = Infinity;
    for (const spawn of this.ports.world.spawns) {
      const distance = (spawn.x - from.x) ** 2 + (spawn.y - from.y) ** 2;
      if (distance < bestDistance) {
        best = spawn;
        bestDistance = distance;
      }
    }
    return { x: best.x, y: best.y };
  }

  private muteOf(session: Session, now: number): MuteState | null {
    const key = muteKey(session);
    const mute = this.mutes.get(key);
    if (mute === undefined) return null;
    if (mute.untilMs !== null && mute.untilMs <= now) {
      this.mutes.delete(key);
      return null;
    }
    return mute;
  }

  private find(target: PlayerRef): Session {
    const { nick, entityId } = target;
    if (entityId !== undefined) {
      const session = this.ports.sessions.byEntityId(entityId);
      if (session === undefined) throw new AdminError(404, `no player with entity id ${entityId} is in play`);
      return session;
    }
    if (nick === undefined) throw new AdminError(400, 'give "nick" or "entityId" of a player in play');
    const found = [...this.ports.sessions.values()].filter((session) => sameNick(session.nick, nick));
    if (found.length === 0) throw new AdminError(404, `no player "${nick}" is in play`);
    if (found.length > 1) {
      throw new AdminError(
        409,
        `${found.length} players are called "${nick}": use entityId (${found.map((s) => s.entity.id).join(", ")})`,
      );
    }
    return found[0];
  }

  private matching(predicate: (session: Session) => boolean): Session[] {
    return [...this.ports.sessions.values()].filter(predicate);
  }

  private end(session: Session): string {
    this.ports.lifecycle.leave(session, "banned");
    return session.nick;
  }

  private accountNameOf(session: Session): string {
    const name = session.accountId === null ? undefined : this.ports.accounts.nameOf(session.accountId);
    if (name === undefined) throw new AdminError(404, `${session.nick}'s account no longer exists`);
    return name;
  }

  private record(
    action: string,
    request: Record<string, unknown>,
    result: Record<string, unknown>,
  ): Record<string, unknown> {
    this.ports.store.log(this.ports.now(), action, { request, result });
    this.ports.log.info("admin action", { action, ...request, ...result });
    return { action, ...result };
  }
}

/** Whether an operator's `asked` names a player called `nick`: case does not matter. */
export function sameNick(nick: string, asked: string): boolean {
  return nick.toLowerCase() === asked.toLowerCase();
}

function muteKey(session: Session): string {
  return session.accountId !== null ? `account:${session.accountId}` : `guest:${session.tokenHex}`;
}

function checkMinutes(minutes: number): number {
  if (typeof minutes !== "number" || !Number.isFinite(minutes) || minutes <= 0 || minutes > ADMIN_MINUTES_MAX) {
    throw new AdminError(
      400,
      `"minutes" must be a number above 0 and at most ${ADMIN_MINUTES_MAX} (omit it: for good)`,
    );
  }
  return minutes;
}

function checkAddress(address: string): string {
  if (
    typeof address !== "string" ||
    !/^[0-9a-fA-F:.]{2,45}$/.test(address) ||
    !(address.includes(".") || address.includes(":"))
  ) {
    throw new AdminError(400, `"address" must be an IPv4 or IPv6 address, got ${JSON.stringify(address)}`);
  }
  return address;
}

/**
 * Why a join from `address` is refused now (an address ban in `bans` in force at `nowMs`: its reason and
 * end), or null — the one wording a process and a cluster's gateways (ts/cluster/gateway.ts) answer with.
 */
export function addressRefusal(bans: Pick<AdminStore, "addressBan">, address: string, nowMs: number): string | null {
  const ban = bans.addressBan(addressKey(address), nowMs);
  return ban === null ? null : banText("this address is banned", ban);
}

function banText(what: string, ban: AddressBan): string {
  return ban.untilMs === null
    ? `${what}: ${ban.reason}`
    : `${what} until ${new Date(ban.untilMs).toISOString()}: ${ban.reason}`;
}

/** A session's round trip as the admin API says it (ms, to a tenth): the low of the recent samples and the newest. */
function roundTripOf(session: Session): { ms: number; lastMs: number; samples: number } | null {
  const roundTrip = session.baselines?.roundTrip;
  const low = roundTrip?.lowMs() ?? null;
  if (roundTrip === undefined || low === null) return null;
  const tenth = (ms: number) => Math.round(ms * 10) / 10;
  return { ms: tenth(low), lastMs: tenth(roundTrip.lastMs), samples: roundTrip.samples };
}
