// Spectators (issue 40): sessions with no body that watch the live world with a
// free camera, over the same transports as players. Each is a session of the
// room's own registry, whose entity is a camera record never put in the world
// (camera.ts): players never see it, it holds no player slot, wakes no creature
// and counts in no player figure. Its datagrams go through a DatagramHandler of
// their own — the same binding, tag, replay-window and return-routability rules
// as players' (datagram-handler.ts) — whose sessions act in nothing: their
// Actions only keep them alive and carry their cache lists, their queries only
// ask, and their CameraPackets aim the camera. The Game routes a spectator's
// datagrams here before the flight recorder sees them, and this room has its own
// per-source limiter: a spectator is no input of the world, so a recording
// replays the same with or without one (docs/recording.md).
//
// A spectator hears and sees what a player standing at its camera would: the
// public chat lines (talk/chat.ts overhears them to this room's sessions; never
// a private or party line) and the blows near its camera, which the combat room
// hands here (CombatOnlookers) and this room sends as CombatPackets.
import { performance } from "node:perf_hooks";
import { isValidAction, readActionTokenHigh, readActionTokenLow } from "../../protocol/action.js";
import type { CameraPacket } from "../../protocol/camera.js";
import { entityAckTokenHigh, entityAckTokenLow, isValidEntityAck } from "../../protocol/entity-ack.js";
import { HEADER_BYTES, PACKET_CAMERA, readPacketType } from "../../protocol/header.js";
import type { EntityDetails } from "../broadcast/entity-detail.js";
import { BLOW_FIELDS, type CombatOnlookers, sendCombatEvents } from "../combat/combat-room.js";
import { COMBAT_EVENTS_MAX } from "../../protocol/combat.js";
import { DatagramHandler } from "../datagram-handler.js";
import type { Egress } from "../edge/egress.js";
import type { Peer } from "../edge/peer.js";
import { KeyedRateLimiter, TokenBucket } from "../edge/rate-limit.js";
import type { EntityStore } from "../entities/entities.js";
import { VIEW_RADIUS } from "../entities/view.js";
import type { Clock } from "../ops/clock.js";
import type { Logger } from "../ops/log.js";
import type { Metrics } from "../ops/metrics.js";
import type { ChatService } from "../talk/chat.js";
import { JoinError } from "../sessions/join-error.js";
import type { ChatChannelState } from "../sessions/chat-channel.js";
import { type Session, SessionRegistry } from "../sessions/session.js";
import type { ChunkStream } from "../world/chunk-stream.js";
import type { World } from "../world/world.js";
import type { WorldClock } from "../world/world-clock.js";
import { Camera, cameraRecord } from "./camera.js";

/**
 * Camera moves a spectator may make a second (burst: twice that), beyond which a CameraPacket is dropped
 * (`camera_rate_limited`). Each move to a new place costs up to nine chunks sent for its neighbourhood, so
 * this, not the session's datagram rate, bounds what one spectator can make the server send; the page's
 * CameraFeed sends at most ten a second.
 */
export const CAMERA_MOVES_PER_SECOND = 10;

/** What the spectators' room reads and where it sends. */
export interface SpectatorPorts {
  readonly metrics: Metrics;
  readonly clock: Clock;
  /** Answers a spectator's cache list around its camera. */
  readonly chunks: Pick<ChunkStream, "answerCacheList">;
  /** What a camera follows, and what a query asks about. */
  readonly entities: Pick<EntityStore, "get">;
  readonly egress: Egress;
  readonly log: Logger;
  /** A spectator's EntityQuery is answered as a player's at its camera would be (names, looks). */
  readonly details: Pick<EntityDetails, "send">;
  /** The map a camera stays inside, and where a camera starts when the join names no tile. */
  readonly world: Pick<World, "mapWidth" | "mapHeight" | "spawns">;
  /** The time of day and the weather, told to a spectator as it starts watching. */
  readonly worldClock: Pick<WorldClock, "sendTo">;
  /** Where a spectator's ChatAck goes: it acknowledges the public lines it overhears. */
  readonly chat: Pick<ChatService, "onAck">;
}

export interface SpectatorOptions {
  /** Spectators at once (`--max-spectators`); joins beyond are refused with 503. */
  readonly maxSpectators: number;
  /** Inbound datagrams per second per spectator (burst: twice that) and per source address, as for players. */
  readonly sessionRatePerSecond: number;
  readonly addressRatePerSecond: number;
  /** A spectator unseen this long is ended; one that never sent a datagram, this long after its join. */
  readonly sessionTimeoutMs: number;
  readonly unboundSessionTimeoutMs: number;
}

/**
 * A spectator arriving from another process of a cluster (ts/cluster/spectator-handoff.ts): the camera
 * followed an entity across a border, and the region now holding the entity goes on serving the same
 * session — its token and key, its link (through the same gateway), what its link had proven, its replay
 * window and the public lines it was overhearing — so the page watching notices nothing.
 */
export interface SpectatorArrival {
  readonly token: bigint;
  readonly key: Uint8Array;
  readonly keyed: boolean;
  readonly proven: boolean;
  readonly joinSource: string | null;
  readonly reads: number;
  /** Where the camera stood, and the entity it follows (on its way here, or here already). */
  readonly camera: { readonly x: number; readonly y: number; readonly followEntityId: number };
  /** The old process's tick: it may have sent the spectator frames up to it (Session.quietThroughTick). */
  readonly quietThroughTick: number;
  readonly replay: { newest: number; received: readonly number[] };
  readonly chat: ChatChannelState;
}

/** The sends a spectator's broadcast takes (the Game's Broadcaster). */
export interface SpectatorBroadcast {
  sendTo(session: Session): void;
}

export class SpectatorRoom implements CombatOnlookers {
  /** The spectators: tokens, links, broadcast phases, as players' are, but in a registry of their own. */
  readonly sessions: SessionRegistry;
  private readonly cameras = new Map<Session, { camera: Camera; moves: TokenBucket }>();
  private readonly handler: DatagramHandler;
  readonly stats = {
    joined: 0,
    refusedFull: 0,
    left: 0,
    cameraMoves: 0,
    follows: 0,
    blowsShown: 0,
    /** Spectators handed to another process of a cluster with the entity they follow, and taken from one. */
    handedOut: 0,
    handedIn: 0,
  };
  /** One spectator's share of a tick's blows, BLOW_FIELDS numbers each (reused). */
  private readonly blowScratch: number[] = [];
  /**
   * No frames to spectators at ticks up to this one: a replay's seek runs its ticks as fast as it can
   * and shows only where it lands (replay-viewer/replay-player.ts). 0: every frame is sent.
   */
  private framesHeldThroughTick = 0;
  /** The tick each spectator was last sent the world at: never two lists of one tick (the client would mix them). */
  private readonly shownTick = new WeakMap<Session, number>();

  constructor(
    private readonly ports: SpectatorPorts,
    private readonly options: SpectatorOptions,
  ) {
    const limits = { ratePerSecond: options.sessionRatePerSecond, burst: options.sessionRatePerSecond * 2 };
    // No tape: a spectator's challenge cookie is drawn unrecorded (it is no input of the world).
    this.sessions = new SessionRegistry(limits, (session) => ports.worldClock.sendTo(session, ports.clock.tick));
    this.handler = new DatagramHandler({
      metrics: ports.metrics,
      addressLimiter: new KeyedRateLimiter(options.addressRatePerSecond, options.addressRatePerSecond * 2, 4096),
      sessions: this.sessions,
      clock: ports.clock,
      chunks: ports.chunks,
      entities: ports.entities,
      egress: ports.egress,
      log: ports.log,
      details: ports.details,
      lifecycle: { leave: (session, reason) => this.leave(session, reason) },
      play: null,
      cameras: { onCamera: (session, packet) => this.onCamera(session, packet) },
      heard: ports.chat,
    });
  }

  /** Spectators in play. */
  get size(): number {
    return this.sessions.size;
  }

  /**
   * Starts a spectator whose camera looks at (x, y), clamped to the map — the map's first spawn when
   * absent; throws JoinError 503 when `maxSpectators` watch already. `joinSource` and `reads`: where its
   * HTTP join came from and what its client reads, as for a player (Session); `followEntityId`, an entity
   * its camera follows from the start (0: none; one the world does not hold leaves the camera free).
   */
  join(at: { x: number; y: number } | null, joinSource: string | null = null, reads = 0, followEntityId = 0): Session {
    const { world, log } = this.ports;
    if (this.sessions.size >= this.options.maxSpectators) {
      this.stats.refusedFull++;
      throw new JoinError(503, `spectators full (${this.options.maxSpectators})`);
    }
    const spot = at ?? world.spawns[0] ?? { x: 0, y: 0 };
    const session = this.sessions.create(cameraRecord(spot.x, spot.y, world), "spectator", performance.now());
    session.joinSource = joinSource;
    session.reads = reads;
    const moves = new TokenBucket(CAMERA_MOVES_PER_SECOND, CAMERA_MOVES_PER_SECOND * 2, performance.now());
    const camera = new Camera(session.entity);
    // A page coming back (a replay's world made again) asks to follow whom it followed: its first view is there.
    if (followEntityId !== 0) camera.aim({ ...spot, followEntityId }, this.ports.entities, world);
    this.cameras.set(session, { camera, moves });
    this.stats.joined++;
    log.info("spectator joined", { x: session.entity.x, y: session.entity.y, spectators: this.sessions.size });
    return session;
  }

  /**
   * A spectator handed here by another process (a cluster's region: its camera follows an entity that crossed
   * a border). Taken even at `maxSpectators`: it moved, the number watching the world did not grow (the
   * gateway that relays it bounds those). Throws when a session with its token is here already.
   */
  adopt(arrival: SpectatorArrival, peer: Peer, nowMs: number): Session {
    const { world, log } = this.ports;
    const { camera: at } = arrival;
    const session = this.sessions.create(cameraRecord(at.x, at.y, world), "spectator", nowMs, null, {
      token: arrival.token,
      key: arrival.key,
    });
    session.keyed = arrival.keyed;
    session.joinSource = arrival.joinSource;
    session.reads = arrival.reads;
    session.quietThroughTick = arrival.quietThroughTick;
    session.replay.restore(arrival.replay);
    session.chat.restore(arrival.chat);
    this.sessions.bind(session, peer, arrival.proven);
    const camera = new Camera(session.entity);
    // Followed on: the entity is here already, or on its way (its own handoff may come a moment later on
    // another link); the next broadcast finds it, or frees the camera where it stands if it never comes.
    camera.followId = at.followEntityId;
    this.cameras.set(session, {
      camera,
      moves: new TokenBucket(CAMERA_MOVES_PER_SECOND, CAMERA_MOVES_PER_SECOND * 2, nowMs),
    });
    this.stats.handedIn++;
    log.info("spectator arrived", { follows: at.followEntityId, spectators: this.sessions.size });
    return session;
  }

  /** A spectator handed on to another process: it stops here, with no "left" (it watches on there). */
  release(session: Session): void {
    if (this.sessions.byTokenValue(session.token) !== session) return;
    this.sessions.remove(session);
    this.cameras.delete(session);
    this.stats.handedOut++;
  }

  /**
   * Each spectator with the id of the entity its camera follows, 0 for a free camera (which stands where its
   * session's record stands): a cluster's region hands a camera on with its entity, or to the region whose
   * ground a free one looks at.
   */
  *cameraTargets(): IterableIterator<[Session, number]> {
    for (const [session, { camera }] of this.cameras) yield [session, camera.followId];
  }

  /**
   * Whether `datagram` is a spectator's, to be handled here and not by the players' handler (nor
   * recorded): every CameraPacket; an Action or an EntityAck whose token names a spectator; anything
   * else from a link a spectator is bound to.
   */
  claims(datagram: Uint8Array, peer: Peer): boolean {
    if (datagram.length >= HEADER_BYTES && readPacketType(datagram) === PACKET_CAMERA) return true;
    const sessions = this.sessions;
    if (sessions.size === 0) return false;
    if (isValidAction(datagram)) {
      return sessions.byTokenWords(readActionTokenLow(datagram), readActionTokenHigh(datagram)) !== undefined;
    }
    if (isValidEntityAck(datagram)) {
      return sessions.byTokenWords(entityAckTokenLow(datagram), entityAckTokenHigh(datagram)) !== undefined;
    }
    return sessions.byPeerKey(peer.key) !== undefined;
  }

  /** Handles one datagram `claims` accepted. Never throws. */
  receive(datagram: Uint8Array, peer: Peer, nowMs: number): void {
    this.handler.handle(datagram, peer, nowMs);
  }

  /** A transport's link closed: a spectator that had no other way in ends ("closed"). Whether it was a spectator's. */
  linkClosed(peerKey: string): boolean {
    const session = this.sessions.byPeerKey(peerKey);
    if (session === undefined) return false;
    this.sessions.unbindPeer(peerKey);
    if (session.peer === null) this.leave(session, "closed");
    return true;
  }

  /** Sends no frames to any spectator, nor to one who joins meanwhile, at ticks up to `tick` (a replay's seek). */
  holdFramesThrough(tick: number): void {
    this.framesHeldThroughTick = tick;
  }

  /** Whether any spectator watches: the combat room keeps a tick's blows for them only then. */
  get watching(): boolean {
    return this.sessions.size > 0;
  }

  /**
   * The tick's blows (CombatOnlookers): each bound spectator is sent, in one CombatPacket, those whose
   * target stands in view of its camera (VIEW_RADIUS, the broadcast's square) — the first
   * COMBAT_EVENTS_MAX of them; more in one tick are cosmetic and not shown. None while frames are held.
   */
  see(tick: number, blows: readonly number[]): void {
    if (tick <= this.framesHeldThroughTick) return;
    const { entities, world, egress } = this.ports;
    const mine = this.blowScratch;
    for (const session of this.sessions.values()) {
      if (session.peer === null) continue;
      this.cameras.get(session)?.camera.track(entities, world);
      const { x, y } = session.entity;
      mine.length = 0;
      for (let b = 0; b < blows.length && mine.length < COMBAT_EVENTS_MAX * BLOW_FIELDS; b += BLOW_FIELDS) {
        const bx = blows[b + BLOW_FIELDS - 2];
        const by = blows[b + BLOW_FIELDS - 1];
        if (Math.abs(bx - x) > VIEW_RADIUS || Math.abs(by - y) > VIEW_RADIUS) continue;
        for (let f = 0; f < BLOW_FIELDS; f++) mine.push(blows[b + f]);
      }
      if (mine.length === 0) continue;
      sendCombatEvents(egress, session, tick, mine, BLOW_FIELDS, mine.length / BLOW_FIELDS);
      this.stats.blowsShown += mine.length / BLOW_FIELDS;
    }
  }

  /** The broadcast of phase `phase` to the spectators due: each following camera moves to its entity first. */
  broadcast(phase: number, tick: number, broadcaster: SpectatorBroadcast): void {
    if (tick <= this.framesHeldThroughTick) return;
    const { entities, world } = this.ports;
    for (const session of this.sessions.inPhase(phase)) {
      if (session.peer === null || session.quietThroughTick >= tick) continue;
      this.cameras.get(session)?.camera.track(entities, world);
      broadcaster.sendTo(session);
      this.shownTick.set(session, tick);
    }
  }

  /**
   * Between ticks: sends the world as it stands at `tick` to each bound spectator not yet sent it at that
   * tick — a paused replay's new viewer, or one whose broadcast phase the tick a seek landed on was not.
   */
  showStill(tick: number, broadcaster: SpectatorBroadcast): void {
    const { entities, world } = this.ports;
    for (const session of this.sessions.values()) {
      if (session.peer === null || (this.shownTick.get(session) ?? -1) >= tick) continue;
      this.cameras.get(session)?.camera.track(entities, world);
      broadcaster.sendTo(session);
      this.shownTick.set(session, tick);
    }
  }

  /** Ends the spectators unseen for the session timeout, as of `nowMs` (the machine's clock: no tape here). */
  evictStale(nowMs: number): void {
    const { sessionTimeoutMs, unboundSessionTimeoutMs } = this.options;
    const stale = this.sessions.stale(
      nowMs - sessionTimeoutMs,
      nowMs - Math.min(sessionTimeoutMs, unboundSessionTimeoutMs),
    );
    for (const session of stale) this.leave(session, "timeout");
  }

  /** Ends a spectator (a no-op for one already ended). */
  leave(session: Session, reason: string): void {
    if (this.sessions.byTokenValue(session.token) !== session) return;
    this.sessions.remove(session);
    this.cameras.delete(session);
    this.stats.left++;
    this.ports.log.info("spectator left", { reason, spectators: this.sessions.size });
  }

  /** The spectators' figures of /api/status. */
  status(): Record<string, number> {
    let bound = 0;
    let following = 0;
    for (const session of this.sessions.values()) {
      if (session.peer !== null) bound++;
      if ((this.cameras.get(session)?.camera.followId ?? 0) !== 0) following++;
    }
    return { count: this.sessions.size, max: this.options.maxSpectators, bound, following, ...this.stats };
  }

  private onCamera(session: Session, packet: CameraPacket): void {
    const held = this.cameras.get(session);
    if (held === undefined) return;
    if (!held.moves.take(performance.now())) return this.ports.metrics.drop("camera_rate_limited");
    const camera = held.camera;
    camera.aim(packet, this.ports.entities, this.ports.world);
    this.stats.cameraMoves++;
    if (camera.followId !== 0) this.stats.follows++;
  }
}
