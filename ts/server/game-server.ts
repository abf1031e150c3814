// The authoritative game server: owns the world, runs the 24 Hz simulation,
// and speaks the datagram protocol over every transport through one handler.
// Clients only ever send intent; every move goes through the wasm rule.
import { performance } from "node:perf_hooks";
import { ACTION_WINDOW_HORIZON, BROADCAST_EVERY_TICKS, TICK_HZ, TICKS_PER_MOVE, VIEW_TILES } from "../constants.js";
import { ACTION_DX, ACTION_DY } from "../protocol/action.js";
import { PROTOCOL_VERSION } from "../protocol/header.js";
import type { Core } from "../wasm/core.js";
import { broadcastTo } from "./broadcast.js";
import { type Entity, ENTITY_TYPE_PLAYER, EntityStore } from "./entities.js";
import { DatagramHandler } from "./datagram-handler.js";
import { Logger } from "./log.js";
import { Metrics } from "./metrics.js";
import { KeyedRateLimiter } from "./rate-limit.js";
import { type Peer, type Session, SessionRegistry } from "./session.js";
import { TickLoop } from "./tick-loop.js";
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

export class JoinError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export class Game {
  readonly world: World;
  readonly entities = new EntityStore();
  readonly sessions: SessionRegistry;
  readonly metrics = new Metrics();
  readonly addressLimiter: KeyedRateLimiter;
  readonly handler: DatagramHandler;
  readonly options: GameOptions;
  /** Last processed tick; the first tick processed is 1. */
  tick = 0;
  private readonly loop: TickLoop;
  private spawnCursor = 0;
  private readonly viewScratch: Entity[] = [];

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
  }

  start(): void {
    this.loop.start();
  }

  stop(): void {
    this.loop.stop();
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
    if (this.sessions.size >= this.options.maxPlayers) {
      throw new JoinError(503, `server full (${this.options.maxPlayers} players)`);
    }
    const spawn = this.world.spawns[this.spawnCursor++ % this.world.spawns.length];
    const entity = this.entities.spawn({
      typeId: ENTITY_TYPE_PLAYER,
      x: spawn.x,
      y: spawn.y,
      hp: 100,
      hpMax: 100,
      elo: 1000,
      flags: 0,
      name: nick,
      meta: [],
    });
    const session = this.sessions.create(entity, nick, performance.now());
    this.log.info("session joined", { entityId: entity.id, nick, x: spawn.x, y: spawn.y });
    return session;
  }

  leave(session: Session, reason: string): void {
    this.sessions.remove(session);
    this.entities.remove(session.entity);
    this.log.info("session left", { entityId: session.entity.id, nick: session.nick, reason });
  }

  /** One simulation tick: movement on window ticks, then this tick's broadcast phase. */
  step(): void {
    const startMs = performance.now();
    this.tick++;
    if (this.tick % TICKS_PER_MOVE === 0) this.executeWindow(this.tick / TICKS_PER_MOVE);
    const broadcastStartMs = performance.now();
    const phase = this.tick % BROADCAST_EVERY_TICKS;
    for (const session of this.sessions.values()) {
      if (session.sendPhase === phase && session.peer) broadcastTo(this, session, this.viewScratch);
    }
    const endMs = performance.now();
    this.metrics.broadcastMs.add(endMs - broadcastStartMs);
    this.metrics.tickMs.add(endMs - startMs);
    if (this.tick % this.options.tickHz === 0) this.evictStale(endMs);
  }

  /** Executes at most one action per entity for `window`, each through the wasm rule. */
  private executeWindow(window: number): void {
    for (const entity of this.entities.values()) {
      const action = entity.slots.take(window);
      if (action <= 0) continue;
      if (this.world.stepAllowed(entity.x, entity.y, action)) {
        this.entities.move(entity, entity.x + ACTION_DX[action], entity.y + ACTION_DY[action]);
        this.metrics.action("executed");
      } else {
        this.metrics.action("blocked");
      }
    }
  }

  private evictStale(nowMs: number): void {
    for (const session of this.sessions.stale(nowMs - this.options.sessionTimeoutMs)) this.leave(session, "timeout");
  }

  status(): Record<string, unknown> {
    const m = this.metrics;
    return {
      protocolVersion: PROTOCOL_VERSION,
      map: this.world.name,
      players: this.sessions.size,
      maxPlayers: this.options.maxPlayers,
      entities: this.entities.size,
      tick: this.tick,
      tickHz: this.options.tickHz,
      actionWindowHorizon: ACTION_WINDOW_HORIZON,
      tickMs: { p50: m.tickMs.percentile(50), p99: m.tickMs.percentile(99), max: m.tickMs.percentile(100) },
      broadcastMs: { p50: m.broadcastMs.percentile(50), p99: m.broadcastMs.percentile(99) },
      datagramsIn: m.datagramsIn,
      datagramsOut: m.datagramsOut,
      bytesIn: m.bytesIn,
      bytesOut: m.bytesOut,
      drops: Object.fromEntries(m.drops),
      actions: Object.fromEntries(m.actions),
    };
  }
}
