// Who is in play: a session starts (a guest at a fresh spawn, an account's
// character where it was saved), ends (left, replaced, rejoined, timed out),
// and an account's character is saved while it plays and when it leaves.
// Joins and leaves are announced in chat to the players nearby.
import { CHAT_SPEAKER_PRESENCE } from "../protocol/chat.js";
import { defaultLook } from "../appearance.js";
import type { AccountHost, Seat } from "./accounts/account-service.js";
import type { AccountRecord } from "./accounts/account-store.js";
import type { ChatService } from "./talk/chat.js";
import { JoinNotices } from "./join-notices.js";
import { ENTITY_TYPE_PLAYER, type EntityFields, type EntityStore } from "./entities/entities.js";
import type { Warps } from "./world/warps.js";
import type { Enclosure } from "./world/enclosure.js";
import type { DungeonLevels } from "./dungeon/levels.js";
import type { GameOptions } from "./game-options.js";
import { JoinError } from "./sessions/join-error.js";
import type { Logger } from "./ops/log.js";
import type { CharacterSaver } from "./persistence/character-saver.js";
import { applyLevel } from "./combat/experience.js";
import type { ItemRoom } from "./items/item-room.js";
import { type CharacterState, type DungeonPlace, NEW_CHARACTER } from "./persistence/character-store.js";
import type { QuestRecord } from "./persistence/quest-store.js";
import type { StoredContainer } from "./persistence/item-store.js";
import type { Session, SessionRegistry } from "./sessions/session.js";
import type { Peer } from "./edge/peer.js";
import { NOTICE_RADIUS } from "./entities/view.js";
import { lookalikeMessage, nickKey } from "./sessions/nick.js";
import type { World } from "./world/world.js";
import type { WorldClock } from "./world/world-clock.js";
import type { Clock } from "./ops/clock.js";
import type { WorldTape } from "./ops/world-tape.js";

/** Hit points, maximum, rating and experience of a character that has never been saved (and of guests). */
const FRESH = NEW_CHARACTER;

/**
 * Why a session ends while its player goes on in another one: replaced by a login here, or by one on
 * another process of a cluster (ts/cluster/account-kicks.ts), or a guest's rejoin. No "left" notice.
 */
export const REPLACED_ELSEWHERE = "replaced elsewhere";
const CONTINUES = new Set(["replaced", REPLACED_ELSEWHERE, "rejoined"]);

/** What starting and ending sessions touches. */
export interface SessionLifecyclePorts {
  readonly options: Pick<GameOptions, "maxPlayers" | "sessionTimeoutMs" | "unboundSessionTimeoutMs" | "tickHz">;
  /** Spawns, and whether a saved spot is still a free cell of this map. */
  readonly world: Pick<World, "name" | "spawns" | "mapWidth" | "mapHeight" | "walkable">;
  /** Each session's player entity. */
  readonly entities: Pick<EntityStore, "spawn" | "remove" | "changed">;
  readonly sessions: SessionRegistry;
  /** Join and leave notices. */
  readonly chat: Pick<ChatService, "systemNear" | "tell">;
  readonly characters: Pick<CharacterSaver, "stateOf" | "track" | "adopt" | "saveAndForget" | "saveChanged">;
  /** What each session carries: loaded when it starts, put away (a guest's dropped) when it ends; its keys. */
  readonly items: Pick<ItemRoom, "enter" | "leave" | "forget" | "holds">;
  /**
   * A player that starts on a warp (its saved place: the stairs down from a level) has arrived on it;
   * one let out of a place it was shut in is moved.
   */
  readonly warps: Pick<Warps, "arrive" | "teleport">;
  /**
   * Whether an account's character put into the world is shut in behind a door it cannot open, and where
   * it goes instead (world/enclosure.ts); null where its bag is read later (a cluster's shared store).
   */
  readonly enclosure: Pick<Enclosure, "releaseFrom" | "isDoor"> | null;
  /** A character saved in a dungeon level goes back into it (dungeon/levels.ts). */
  readonly levels: Pick<DungeonLevels, "bringBack">;
  /** The time of day and the weather, told to a player as it starts playing. */
  readonly worldClock: Pick<WorldClock, "sendTo">;
  /**
   * Who hears the "joined" notices besides the players: the spectators near the join (spectators/), as they
   * overhear the "left" ones (talk/chat.ts). Absent: the players only.
   */
  readonly overhearing?: Pick<SessionRegistry, "values">;
  readonly clock: Pick<Clock, "tick">;
  /**
   * The clock a session's silence is measured by, and the identity a new session takes: on the world's
   * tape, so a replay starts the same sessions and times them out at the same ticks (recording/tape.ts).
   */
  readonly tape: Pick<WorldTape, "now" | "identity" | "identified">;
  readonly log: Logger;
  /**
   * Who hears of a player's coming and going beyond the presence line (social/: friends, waiting lines,
   * the party). `continues`: the player plays on in another session or process.
   */
  readonly social?: {
    arrived(session: Session): void;
    left(session: Session, continues: boolean): void;
  };
}

/**
 * A session another process of a cluster handed over (ts/cluster/handoff.ts): its identity, its player
 * entity as it stood, and what its link had proven; an account's, when accounts live in a store the
 * processes share (ts/cluster/pg-accounts.ts).
 */
export interface SessionArrival {
  readonly token: bigint;
  readonly key: Uint8Array;
  readonly nick: string;
  readonly entity: EntityFields & { readonly id: number };
  readonly keyed: boolean;
  readonly announced: boolean;
  readonly joinSource: string | null;
  /** What the client said it reads when it joined (Session.reads); absent from an older process: none. */
  readonly reads?: number;
  /** Whether the link it arrives on was proven where it came from (address-proof.ts). */
  readonly proven: boolean;
  /** The account whose character it plays; null for a guest. */
  readonly accountId: number | null;
  /** What a guest carried there (ItemRoom.carrying); an account's bag comes from the shared store. */
  readonly carrying?: StoredContainer | null;
  /** Its quests as that process knew them (QuestBook.recordsFor); absent from an older process: read here. */
  readonly quests?: readonly QuestRecord[];
}

/** What an account's session is started from: its id, nick and chosen look (null: never chosen). */
export type AccountEntry = Pick<AccountRecord, "id" | "nick"> & { readonly appearance?: number | null };

export class SessionLifecycle implements AccountHost {
  /** The session of each account in play. */
  private readonly accountSessions = new Map<number, Session>();
  private spawnCursor = 0;
  /** "joined" notices, coalesced over a second (join-notices.ts). */
  private readonly joinNotices: JoinNotices;
  /** The sessions in play by nickKey (nick.ts): a new nick that looks like one of these is refused. */
  private readonly nickKeys = new Map<string, Session>();
  /** Places held for logins and registrations in flight (reserve), and their nicks by nickKey. */
  private reservedSeats = 0;
  private readonly reservedNicks = new Map<string, { nick: string; holds: number }>();

  constructor(private readonly ports: SessionLifecyclePorts) {
    const overhearing = ports.overhearing;
    const listeners =
      overhearing === undefined
        ? ports.sessions
        : {
            *values() {
              yield* ports.sessions.values();
              yield* overhearing.values();
            },
          };
    this.joinNotices = new JoinNotices({ sessions: listeners, chat: ports.chat }, NOTICE_RADIUS, ports.options.tickHz);
  }

  /** Announces the joins whose coalescing window has passed; the Game calls it every tick. */
  flushJoinNotices(tick: number): void {
    this.joinNotices.flush(tick);
  }

  /** The session of an account in play here, if any. */
  sessionOf(accountId: number): Session | undefined {
    return this.accountSessions.get(accountId);
  }

  /** Accounts with a session in play (guests not counted). */
  get accountsInPlay(): number {
    return this.accountSessions.size;
  }

  /** Creates a guest session with a fresh spawn; throws JoinError when refused. */
  join(nick: string, appearance: number | null = null): Session {
    if (!this.hasRoomFor(null)) throw this.full();
    const lookalike = this.nickInUse(nick);
    if (lookalike !== null) throw new JoinError(409, lookalikeMessage(nick, lookalike));
    return this.enter(nick, this.nextSpawn(), FRESH, null, appearance);
  }

  /**
   * The nick of a player in play that `nick` would pass for (the same nickKey: case, separators,
   * compatibility forms and UTS #39 confusables aside), or null. Guests and new accounts may not take
   * one: "Аdmin" in Cyrillic next to "Admin", or "ada" next to "Ada", would be an impersonation.
   */
  nickInUse(nick: string): string | null {
    const key = nickKey(nick);
    return this.nickKeys.get(key)?.nick ?? this.reservedNicks.get(key)?.nick ?? null;
  }

  /** The session in play under `nick` or a nick it would pass for (the same nickKey), if any. */
  sessionByNick(nick: string): Session | undefined {
    return this.nickKeys.get(nickKey(nick));
  }

  /** Whether a session can start now; an account already in play can always replace its own. */
  hasRoomFor(accountId: number | null): boolean {
    if (accountId !== null && this.accountSessions.has(accountId)) return true;
    return this.ports.sessions.size + this.reservedSeats < this.ports.options.maxPlayers;
  }

  /**
   * Holds a place for a session about to start (AccountService: while the store is asked), and
   * `nick` from newcomers' lookalikes; null when the server is full. An account in play here needs
   * no new place: its session is replaced.
   */
  reserve(accountId: number | null, nick: string): Seat | null {
    if (!this.hasRoomFor(accountId)) return null;
    const counted = accountId === null || !this.accountSessions.has(accountId);
    if (counted) this.reservedSeats++;
    const key = nickKey(nick);
    const held = this.reservedNicks.get(key) ?? { nick, holds: 0 };
    held.holds++;
    this.reservedNicks.set(key, held);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        if (counted) this.reservedSeats--;
        if (--held.holds === 0 && this.reservedNicks.get(key) === held) this.reservedNicks.delete(key);
      },
    };
  }

  /**
   * Starts a session for an account's character `saved` (as the store last holds it), where it was
   * saved (a fresh spawn when it never was, or the spot is not free on this map), in the place
   * `seat` held for it. A session the account already has here ends first ("replaced"): the new one
   * goes on from where that one stands, and its token stops working.
   */
  joinAccount(account: AccountEntry, saved: CharacterState, seat: Seat): Session {
    seat.release();
    const characters = this.ports.characters;
    const previous = this.accountSessions.get(account.id);
    if (previous) {
      saved = characters.stateOf(previous.entity);
      this.leave(previous, "replaced");
    } else if (!this.hasRoomFor(account.id)) {
      throw this.full();
    }
    // Saved dead (it left or the server stopped before it rose): it rises now, at a spawn with full HP,
    // as it would have in play (combat/combat-room.ts).
    const state = saved.hp > 0 ? saved : { ...saved, hp: saved.hpMax, x: null, y: null, dungeon: null };
    // Saved in a dungeon level, its x, y are the map's stairs down to it: it starts there, and goes down.
    const spot = this.savedSpot(state) ?? this.nextSpawn();
    const session = this.enter(account.nick, spot, state, account.id, account.appearance ?? defaultLook(account.id));
    this.accountSessions.set(account.id, session);
    characters.track({ accountId: account.id, entity: session.entity }, state);
    if (state.dungeon) this.returnBelow(session, state.dungeon);
    else this.letOut(session);
    return session;
  }

  /**
   * A character saved in a dungeon level goes back into it, at its cell (issue 41: never silently at the
   * spawn), from where it stands: the map's stairs down to the level. When that level can never come back, or
   * no level slot is free, it stays there and is told why. Below another region's stairs (a cluster), it
   * waits on them for that region, which takes it down once it is handed there (Game.arrivedAt).
   */
  returnBelow(session: Session, place: DungeonPlace): void {
    const from = { x: session.entity.x, y: session.entity.y };
    const outcome = this.ports.levels.bringBack(session, place);
    if (outcome === "back" || outcome === "elsewhere") return;
    this.ports.log.info("a character saved in a dungeon level starts above it", {
      entityId: session.entity.id,
      nick: session.nick,
      level: `${place.seed}:${place.depth}`,
      outcome,
      at: from,
    });
    this.ports.chat.tell(
      session,
      outcome === "gone"
        ? "The level you were saved in is no longer below these stairs: you wake above it."
        : "Every level below is full of players now: you wake on the stairs above yours. Take them down later.",
    );
  }

  /**
   * A character put into the world behind a door it cannot open (locked, its key not carried), or in a
   * closed door, is put beyond it on its way out and told so (world/enclosure.ts, issue 41): it is
   * never brought back into a place it cannot leave.
   */
  private letOut(session: Session): void {
    const enclosure = this.ports.enclosure;
    if (enclosure === null) return;
    const entity = session.entity;
    const items = this.ports.items;
    const release = enclosure.releaseFrom(entity.x, entity.y, (key) => items.holds(session, key));
    if (release === null) return;
    this.ports.log.info("a character shut in was let out", {
      entityId: entity.id,
      nick: session.nick,
      from: { x: entity.x, y: entity.y },
      to: { x: release.x, y: release.y },
      door: release.door,
    });
    this.ports.warps.teleport(entity, release.x, release.y);
    this.ports.chat.tell(
      session,
      release.door === null
        ? "You wake beside the door you stood in."
        : "It is locked, and you carry no key to it: you wake on its other side.",
      release.door ?? "",
    );
  }

  /** Ends a session (a no-op for one already ended); its account's character is saved. */
  leave(session: Session, reason: string): void {
    const { sessions, entities, characters, log, chat } = this.ports;
    if (sessions.byTokenValue(session.token) !== session) return;
    sessions.remove(session);
    this.ports.items.leave(session);
    entities.remove(session.entity);
    const key = nickKey(session.nick);
    if (this.nickKeys.get(key) === session) this.nickKeys.delete(key);
    if (session.accountId !== null && this.accountSessions.get(session.accountId) === session) {
      this.accountSessions.delete(session.accountId);
      // A replaced session's character goes on in its successor here: the right to write it stays.
      characters.saveAndForget(
        { accountId: session.accountId, entity: session.entity },
        Date.now(),
        reason !== "replaced",
      );
    }
    log.info("session left", { entityId: session.entity.id, nick: session.nick, reason });
    this.ports.social?.left(session, CONTINUES.has(reason));
    // A replaced or rejoined session's player is still in the world, under a new session that announces itself;
    // one that never played was never announced.
    const neverAnnounced = this.joinNotices.cancel(session);
    if (session.announced && !neverAnnounced && !CONTINUES.has(reason)) {
      chat.systemNear(session.entity.x, session.entity.y, NOTICE_RADIUS, `${session.nick} left`, CHAT_SPEAKER_PRESENCE);
    }
  }

  /**
   * A session handed over by another process starts here as it was, bound to `peer` (the same client
   * behind the same gateway), with no "joined" notice: it never left the world. An account's character
   * is saved from here on, once the process it came from gave it up.
   */
  adopt(arrival: SessionArrival, peer: Peer, nowMs: number): Session {
    const { entities, sessions, log } = this.ports;
    const entity = entities.spawn({ ...arrival.entity, meta: [...arrival.entity.meta] }, "actions", arrival.entity.id);
    let session: Session;
    try {
      session = sessions.create(entity, arrival.nick, nowMs, arrival.accountId, {
        token: arrival.token,
        key: arrival.key,
      });
    } catch (error) {
      entities.remove(entity);
      throw error;
    }
    session.keyed = arrival.keyed;
    session.announced = arrival.announced;
    session.joinSource = arrival.joinSource;
    session.reads = arrival.reads ?? 0;
    session.everBound = true; // it played where it came from: binding it here is not a first bind
    sessions.bind(session, peer, arrival.proven);
    this.nickKeys.set(nickKey(arrival.nick), session);
    if (arrival.accountId !== null) {
      // A session of this account still here (a login here raced the handoff) gives way to the one that played on.
      const stale = this.accountSessions.get(arrival.accountId);
      if (stale) this.leave(stale, "replaced");
      this.accountSessions.set(arrival.accountId, session);
      this.ports.characters.adopt({ accountId: arrival.accountId, entity });
    }
    // After the character's lease is being taken: a shared store reads the bag once the lease is here.
    this.ports.items.enter(session, arrival.accountId === null ? (arrival.carrying ?? null) : null);
    log.debug("session arrived", { entityId: entity.id, nick: arrival.nick, x: entity.x, y: entity.y });
    return session;
  }

  /**
   * A session handed over to another process stops here: no "left" notice, nothing dropped. An
   * account's character is saved as it stands and the right to write it given back, for the process
   * it goes to.
   */
  release(session: Session): void {
    const { sessions, entities } = this.ports;
    if (sessions.byTokenValue(session.token) !== session) return;
    if (session.accountId !== null && this.accountSessions.get(session.accountId) === session) {
      this.accountSessions.delete(session.accountId);
      this.ports.characters.saveAndForget({ accountId: session.accountId, entity: session.entity }, Date.now());
    }
    sessions.remove(session);
    this.ports.items.forget(session);
    entities.remove(session.entity);
    const key = nickKey(session.nick);
    if (this.nickKeys.get(key) === session) this.nickKeys.delete(key);
    this.joinNotices.cancel(session);
    this.ports.social?.left(session, true);
  }

  /** Ends the sessions unseen for the session timeout, as of `nowMs`. */
  evictStale(nowMs: number): void {
    const { sessionTimeoutMs, unboundSessionTimeoutMs } = this.ports.options;
    const stale = this.ports.sessions.stale(
      nowMs - sessionTimeoutMs,
      nowMs - Math.min(sessionTimeoutMs, unboundSessionTimeoutMs),
    );
    for (const session of stale) this.leave(session, "timeout");
  }

  /** Writes every character in play whose state changed since its last save, in one transaction. */
  saveCharacters(): void {
    const played = [];
    for (const [accountId, session] of this.accountSessions) played.push({ accountId, entity: session.entity });
    try {
      this.ports.characters.saveChanged(played, Date.now());
    } catch (error) {
      // A full disk must not stop the world; the next interval tries again.
      this.ports.log.error("saving characters failed", { error: String(error) });
    }
  }

  private full(): JoinError {
    return new JoinError(503, `server full (${this.ports.options.maxPlayers} players)`);
  }

  private enter(
    nick: string,
    spot: { x: number; y: number },
    vitals: Pick<CharacterState, "hp" | "hpMax" | "elo" | "xp">,
    accountId: number | null,
    appearance: number | null,
  ): Session {
    const { entities, sessions, log } = this.ports;
    const entity = entities.spawn({
      typeId: ENTITY_TYPE_PLAYER,
      x: spot.x,
      y: spot.y,
      hp: vitals.hp,
      hpMax: vitals.hpMax,
      elo: vitals.elo,
      flags: 0,
      name: nick,
      xp: vitals.xp,
      meta: [],
    });
    // The look every client draws (the appearance TLV, inline like the worn items): a guest that did
    // not choose gets one by its entity id, for the session.
    entity.meta = [{ kind: "appearance", value: appearance ?? defaultLook(entity.id) }];
    // Its level over its head, and the hp max its experience makes (combat/experience.ts).
    applyLevel(entity);
    this.ports.entities.changed(entity);
    const tape = this.ports.tape;
    const session = sessions.create(entity, nick, tape.now(), accountId, tape.identity());
    tape.identified(session);
    this.ports.warps.arrive(entity);
    this.ports.items.enter(session);
    // An account's own nick is its name in the world: it enters even beside a lookalike guest (who came later).
    this.nickKeys.set(nickKey(nick), session);
    log.info("session joined", { entityId: entity.id, nick, accountId, x: spot.x, y: spot.y });
    return session;
  }

  /**
   * A session's first datagram arrived (SessionRegistry's first bind): the player starts playing. It is
   * announced (below) and told the time of day and the weather at once.
   */
  startsPlaying(session: Session): void {
    this.announce(session);
    this.ports.worldClock.sendTo(session, this.ports.clock.tick);
    this.ports.social?.arrived(session);
  }

  /**
   * The "joined" notice, posted when the session's first datagram arrives
   * (SessionRegistry's first bind), not at the HTTP join: a join that never
   * plays announces nothing, so a join flood cannot flood the chat of everyone
   * nearby (255 joins once sent a bystander 510 lines in 14 s). The joins of
   * one second are announced together, one line per listener (join-notices.ts).
   */
  private announce(session: Session): void {
    if (session.announced || this.ports.sessions.byTokenValue(session.token) !== session) return;
    session.announced = true;
    this.joinNotices.add(session, this.ports.clock.tick);
  }

  private nextSpawn(): { x: number; y: number } {
    const spawns = this.ports.world.spawns;
    return spawns[this.spawnCursor++ % spawns.length];
  }

  /**
   * The saved position when it belongs to this map and is a free cell of it — or a door's cell, closed
   * since (a door never closes on anyone, but a restart may find it shut): letOut puts it beside the door.
   */
  private savedSpot(state: CharacterState): { x: number; y: number } | null {
    const world = this.ports.world;
    if (state.map !== world.name || state.x === null || state.y === null) return null;
    const { x, y } = state;
    if (x < 0 || y < 0 || x >= world.mapWidth || y >= world.mapHeight) return null;
    return world.walkable(x, y) || this.ports.enclosure?.isDoor(x, y) === true ? { x, y } : null;
  }
}
