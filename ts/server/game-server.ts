// The authoritative game server: owns the world, runs the 24 Hz simulation,
// and speaks the datagram protocol over every transport through one handler.
// Clients only ever send intent; every move goes through the wasm rule.
//
// It also holds what game code builds on: accounts and saved characters
// (accounts/, persistence/), chat, dialogs, custom messages and run-time tile
// changes — each in its own module, reached through the fields below.
import { performance } from "node:perf_hooks";
import {
  ACTION_WINDOW_HORIZON,
  BROADCAST_EVERY_TICKS,
  CHUNK_SIZE,
  TICK_HZ,
  TILE_UNKNOWN,
  TICKS_PER_MOVE,
  VIEW_TILES,
} from "../constants.js";
import { PROTOCOL_VERSION } from "../protocol/header.js";
import type { Core } from "../wasm/core.js";
import { AccountService } from "./accounts/account-service.js";
import { type AccountRecord, AccountStore } from "./accounts/account-store.js";
import { Broadcaster } from "./broadcast.js";
import { ChatService } from "./chat.js";
import { type CustomHandler, CustomMessages } from "./custom-messages.js";
import { DialogService } from "./dialogs.js";
import { ENTITY_TYPE_PLAYER, EntityStore } from "./entities.js";
import { DatagramHandler } from "./datagram-handler.js";
import { Interactables } from "./interactables.js";
import { EventLoopDelay } from "./event-loop-delay.js";
import { Logger } from "./log.js";
import { Metrics, TIMING_WINDOW_TICKS } from "./metrics.js";
import { executeWindowMoves } from "./movement.js";
import { OutboundSlab } from "./outbound-slab.js";
import { CharacterSaver, SAVE_INTERVAL_MS } from "./persistence/character-saver.js";
import { type CharacterState, CharacterStore, NEW_CHARACTER } from "./persistence/character-store.js";
import { type GameDatabase, MEMORY_DATABASE, openGameDatabase } from "./persistence/database.js";
import { KeyedRateLimiter } from "./rate-limit.js";
import { type Peer, type Session, SessionRegistry } from "./session.js";
import { TickLoop } from "./tick-loop.js";
import { TileUpdates } from "./tile-updates.js";
import { World, type WorldMap } from "./world.js";

export interface GameOptions {
  maxPlayers: number;
  /** Sessions unseen this long are evicted. */
  sessionTimeoutMs: number;
  /** Send every entity update even when unchanged (the seed's behaviour; decision 10). */
  sendUnchangedEntities: boolean;
  /** Inbound datagram limits: per session and per source address (datagrams/s). */
  sessionRatePerSecond: number;
  addressRatePerSecond: number;
  tickHz: number;
  /**
   * Where accounts and characters live (openGameDatabase). Without one the game
   * opens an in-memory database: accounts work, nothing survives the process.
   * The game closes it in shutdown().
   */
  database?: GameDatabase;
}

export const DEFAULT_GAME_OPTIONS: GameOptions = {
  maxPlayers: 256,
  sessionTimeoutMs: 10_000,
  sendUnchangedEntities: false,
  sessionRatePerSecond: 60,
  addressRatePerSecond: 5_000,
  tickHz: TICK_HZ,
};

/** Half the view square: entities within this Chebyshev distance are sent (31×31 around the player). */
export const VIEW_RADIUS = VIEW_TILES / 2;

/** Joins and leaves are announced to players within this many tiles: about the 3×3 chunks a client holds. */
export const NOTICE_RADIUS = 48;

export class JoinError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Hit points, maximum and rating of a character that has never been saved (and of guests). */
const FRESH = NEW_CHARACTER;

export class Game {
  readonly world: World;
  readonly entities = new EntityStore();
  readonly sessions: SessionRegistry;
  readonly metrics = new Metrics();
  readonly eventLoopDelay = new EventLoopDelay();
  /** Where per-client datagrams (State, Entity, Pong) are written; see outbound-slab.ts. */
  readonly outbound = new OutboundSlab();
  readonly addressLimiter: KeyedRateLimiter;
  readonly handler: DatagramHandler;
  readonly options: GameOptions;
  readonly database: GameDatabase;
  /** Registration and login (POST /api/register, /api/login). */
  readonly accounts: AccountService;
  readonly accountStore: AccountStore;
  /** Saves characters: changed ones every SAVE_INTERVAL_MS, each when its session ends, all on shutdown. */
  readonly characters: CharacterSaver;
  readonly chat: ChatService;
  readonly dialogs: DialogService;
  readonly custom: CustomMessages;
  readonly interactables: Interactables;
  /** Last processed tick; the first tick processed is 1. */
  tick = 0;
  private readonly loop: TickLoop;
  private readonly tileUpdates = new TileUpdates();
  /** The session of each account in play. */
  private readonly accountSessions = new Map<number, Session>();
  private readonly saveEveryTicks: number;
  private spawnCursor = 0;
  private shutDown = false;
  private readonly broadcaster = new Broadcaster(this);

  constructor(
    core: Core,
    map: WorldMap,
    options: Partial<GameOptions> = {},
    readonly log: Logger = new Logger("info"),
  ) {
    this.options = { ...DEFAULT_GAME_OPTIONS, ...options };
    this.world = new World(core, map);
    this.sessions = new SessionRegistry({
      ratePerSecond: this.options.sessionRatePerSecond,
      burst: this.options.sessionRatePerSecond * 2,
    });
    this.addressLimiter = new KeyedRateLimiter(
      this.options.addressRatePerSecond,
      this.options.addressRatePerSecond * 2,
      4096,
    );
    this.handler = new DatagramHandler(this);
    this.loop = new TickLoop(this.options.tickHz, () => this.step());
    this.database = this.options.database ?? openGameDatabase(MEMORY_DATABASE);
    const characterStore = new CharacterStore(this.database.db);
    this.accountStore = new AccountStore(this.database.db, characterStore);
    this.characters = new CharacterSaver(characterStore, this.world.name);
    this.accounts = new AccountService(this.accountStore, this);
    this.saveEveryTicks = Math.max(1, Math.round((this.options.tickHz * SAVE_INTERVAL_MS) / 1000));
    this.chat = new ChatService(this);
    this.dialogs = new DialogService(this);
    this.custom = new CustomMessages(this);
    this.interactables = new Interactables(this, this.world.interactables);
  }

  start(): void {
    this.eventLoopDelay.start();
    this.loop.start();
  }

  stop(): void {
    this.eventLoopDelay.stop();
    this.loop.stop();
  }

  /**
   * Clean shutdown: stops the tick loop, saves every character in play (one
   * transaction) and closes the database. Call after the transports closed.
   */
  shutdown(): void {
    if (this.shutDown) return;
    this.shutDown = true;
    this.stop();
    this.saveCharacters();
    this.database.close();
  }

  /** The first movement window that has not executed yet. */
  get nextWindow(): number {
    return Math.floor(this.tick / TICKS_PER_MOVE) + 1;
  }

  /** Handles one inbound datagram from any transport. Never throws. */
  receive(datagram: Uint8Array, peer: Peer): void {
    this.handler.handle(datagram, peer, performance.now());
  }

  /** Creates a guest session with a fresh spawn; throws JoinError when refused. */
  join(nick: string): Session {
    if (!this.hasRoomFor(null)) throw new JoinError(503, `server full (${this.options.maxPlayers} players)`);
    return this.enter(nick, this.nextSpawn(), FRESH, null);
  }

  /** Whether a session can start now; an account already in play can always replace its own. */
  hasRoomFor(accountId: number | null): boolean {
    if (accountId !== null && this.accountSessions.has(accountId)) return true;
    return this.sessions.size < this.options.maxPlayers;
  }

  /**
   * Starts a session for an account's character, where it was last saved (a
   * fresh spawn when it never was, or the spot is not free on this map). A
   * session the account already has ends first ("replaced"): its character is
   * saved, and its token stops working.
   */
  joinAccount(account: Pick<AccountRecord, "id" | "nick">): Session {
    const previous = this.accountSessions.get(account.id);
    if (previous) this.leave(previous, "replaced");
    else if (!this.hasRoomFor(account.id)) {
      throw new JoinError(503, `server full (${this.options.maxPlayers} players)`);
    }
    const state = this.characters.load(account.id) ?? FRESH;
    const session = this.enter(account.nick, this.savedSpot(state) ?? this.nextSpawn(), state, account.id);
    this.accountSessions.set(account.id, session);
    this.characters.track({ accountId: account.id, entity: session.entity }, state);
    return session;
  }

  private enter(
    nick: string,
    spot: { x: number; y: number },
    vitals: Pick<CharacterState, "hp" | "hpMax" | "elo">,
    accountId: number | null,
  ): Session {
    const entity = this.entities.spawn({
      typeId: ENTITY_TYPE_PLAYER,
      x: spot.x,
      y: spot.y,
      hp: vitals.hp,
      hpMax: vitals.hpMax,
      elo: vitals.elo,
      flags: 0,
      name: nick,
      meta: [],
    });
    const session = this.sessions.create(entity, nick, performance.now(), accountId);
    this.log.info("session joined", { entityId: entity.id, nick, accountId, x: spot.x, y: spot.y });
    this.chat.systemNear(spot.x, spot.y, NOTICE_RADIUS, `${nick} joined`);
    return session;
  }

  private nextSpawn(): { x: number; y: number } {
    return this.world.spawns[this.spawnCursor++ % this.world.spawns.length];
  }

  /** The saved position when it belongs to this map and is a free cell of it. */
  private savedSpot(state: CharacterState): { x: number; y: number } | null {
    if (state.map !== this.world.name || state.x === null || state.y === null) return null;
    const { x, y } = state;
    if (x < 0 || y < 0 || x >= this.world.mapWidth || y >= this.world.mapHeight) return null;
    return this.world.walkable(x, y) ? { x, y } : null;
  }

  leave(session: Session, reason: string): void {
    if (this.sessions.byTokenValue(session.token) !== session) return;
    this.sessions.remove(session);
    this.entities.remove(session.entity);
    if (session.accountId !== null && this.accountSessions.get(session.accountId) === session) {
      this.accountSessions.delete(session.accountId);
      this.characters.saveAndForget({ accountId: session.accountId, entity: session.entity }, Date.now());
    }
    this.log.info("session left", { entityId: session.entity.id, nick: session.nick, reason });
    // A replaced or rejoined session's player is still here, under a new session that announced itself.
    if (reason !== "replaced" && reason !== "rejoined") {
      this.chat.systemNear(session.entity.x, session.entity.y, NOTICE_RADIUS, `${session.nick} left`);
    }
  }

  /**
   * Changes one tile at run time. Clients holding its chunk get a TileUpdate at
   * the end of the tick; the chunk version goes up, so every other cache
   * converges through the manifest. False outside the map; setting a tile to
   * the id it has changes nothing. Throws RangeError for an id no chunk can
   * hold (TILE_UNKNOWN is never sent).
   */
  setTile(x: number, y: number, tileId: number): boolean {
    if (!Number.isInteger(tileId) || tileId < 0 || tileId >= TILE_UNKNOWN) {
      throw new RangeError(`tile id must be 0..0xFFFE, got ${tileId}`);
    }
    if (x < 0 || y < 0 || x >= this.world.mapWidth || y >= this.world.mapHeight) return false;
    if (this.world.tileAt(x, y) === tileId) return true;
    const cx = Math.floor(x / CHUNK_SIZE);
    const cy = Math.floor(y / CHUNK_SIZE);
    const fromVersion = this.world.chunkVersion(cx, cy);
    if (!this.world.setTile(x, y, tileId)) return false;
    this.tileUpdates.record(x, y, tileId, fromVersion, this.world.chunkVersion(cx, cy));
    return true;
  }

  /** Routes custom messages of `subtype` from clients to `handler` (docs/protocol.md § Custom messages). */
  onCustom(subtype: number, handler: CustomHandler): void {
    this.custom.on(subtype, handler);
  }

  /** Sends a custom message to one client; throws EncodeError beyond 1190 payload bytes. */
  sendCustom(session: Session, subtype: number, payload: Uint8Array): void {
    this.custom.send(session, subtype, payload);
  }

  /** Sends one datagram to the session's client (dropped while it is unbound), counted in the metrics. */
  send(session: Session, datagram: Uint8Array): void {
    if (!session.peer) return;
    this.metrics.datagramsOut++;
    this.metrics.bytesOut += datagram.length;
    session.peer.send(datagram);
  }

  /** One simulation tick: movement on window ticks, then this tick's broadcast phase. */
  step(): void {
    const startMs = performance.now();
    this.tick++;
    if (this.tick % TICKS_PER_MOVE === 0) this.executeWindow(this.tick / TICKS_PER_MOVE);
    // Tile updates go out before the State packets whose manifests show the new versions.
    this.tileUpdates.flush(this);
    const broadcastStartMs = performance.now();
    const phase = this.tick % BROADCAST_EVERY_TICKS;
    this.broadcaster.beginRound();
    for (const session of this.sessions.values()) {
      if (!session.peer) continue;
      this.chat.pump(session, broadcastStartMs);
      this.dialogs.pump(session, broadcastStartMs);
      if (session.sendPhase === phase) this.broadcaster.sendTo(session);
    }
    const endMs = performance.now();
    this.metrics.broadcastMs.add(endMs - broadcastStartMs);
    if (this.tick % this.saveEveryTicks === 0) this.saveCharacters();
    this.metrics.tickMs.add(performance.now() - startMs);
    if (this.tick % this.options.tickHz === 0) this.evictStale(endMs);
  }

  /** Writes every character in play whose state changed since its last save, in one transaction. */
  saveCharacters(): void {
    const played = [];
    for (const [accountId, session] of this.accountSessions) played.push({ accountId, entity: session.entity });
    try {
      this.characters.saveChanged(played, Date.now());
    } catch (error) {
      // A full disk must not stop the world; the next interval tries again.
      this.log.error("saving characters failed", { error: String(error) });
    }
  }

  /** Executes at most one action per entity for `window`, each through the wasm rule. */
  private executeWindow(window: number): void {
    // One wasm call per batch of movers (movement.ts); the world's move kernel applies THE rule.
    executeWindowMoves(window, this.entities, this.world.moves, this.metrics);
  }

  private evictStale(nowMs: number): void {
    for (const session of this.sessions.stale(nowMs - this.options.sessionTimeoutMs)) this.leave(session, "timeout");
  }

  /** The status /api/status serves; tick and broadcast percentiles cover the last `ticks` ticks (default: all held, up to 1024). */
  status(ticks = TIMING_WINDOW_TICKS): Record<string, unknown> {
    const m = this.metrics;
    const last = Math.min(ticks, m.tickMs.size);
    return {
      protocolVersion: PROTOCOL_VERSION,
      map: this.world.name,
      players: this.sessions.size,
      maxPlayers: this.options.maxPlayers,
      entities: this.entities.size,
      tick: this.tick,
      tickHz: this.options.tickHz,
      actionWindowHorizon: ACTION_WINDOW_HORIZON,
      tickMs: {
        p50: m.tickMs.percentile(50, last),
        p99: m.tickMs.percentile(99, last),
        max: m.tickMs.percentile(100, last),
        ticks: last,
      },
      eventLoopDelayMs: this.eventLoopDelay.summary,
      broadcastMs: { p50: m.broadcastMs.percentile(50, last), p99: m.broadcastMs.percentile(99, last) },
      datagramsIn: m.datagramsIn,
      datagramsOut: m.datagramsOut,
      bytesIn: m.bytesIn,
      bytesOut: m.bytesOut,
      drops: Object.fromEntries(m.drops),
      actions: Object.fromEntries(m.actions),
      accounts: { inPlay: this.accountSessions.size },
      saves: { ...this.characters.stats, intervalMs: SAVE_INTERVAL_MS },
      chat: this.chat.stats,
      dialogs: this.dialogs.stats,
      custom: this.custom.stats,
      tileUpdates: this.tileUpdates.stats,
      interactables: { count: this.interactables.size, ...this.interactables.stats },
    };
  }
}
