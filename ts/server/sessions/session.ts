// Sessions: who a token belongs to, where its datagrams come from, and what
// was last sent to it. Identity is the auth token, never the source address:
// the first ActionPacket with a live token binds the session to its source,
// and a later authenticated one (tagged with the session key, a sequence the
// replay window has not seen) from a new source moves it (NAT rebinding);
// docs/protocol.md § 6.1.
import type { WorldTape } from "../ops/world-tape.js";
import type { Peer } from "../edge/peer.js";
import { randomBytes } from "node:crypto";
import { createSessionKey } from "../../protocol/action-mac-node.js";
import { AddressProof } from "../edge/address-proof.js";
import { ReplayWindow } from "../edge/replay-window.js";
import { DownstreamLoss } from "./downstream-loss.js";
import { BROADCAST_EVERY_TICKS } from "../../constants.js";
import { ChatChannel } from "./chat-channel.js";
import type { EntityBaselines } from "./entity-baselines.js";
import type { StoredEntity } from "../entities/entities.js";
import { TokenBucket } from "../edge/rate-limit.js";
import { SessionDialogs } from "./session-dialogs.js";

/** The token bits that key `byTokenLow`: 30, a V8 small integer on every platform. */
const TOKEN_KEY_MASK = 0x3fffffff;

export interface Session {
  readonly token: bigint;
  /** The token's low and high 32 bits as int32, the way the datagram fast path reads it (no bigint). */
  readonly tokenLow: number;
  readonly tokenHigh: number;
  readonly tokenHex: string;
  /** The session key (HMAC-SHA256) that tags its ActionPackets, handed out with the token over HTTP. */
  readonly key: Uint8Array;
  readonly keyHex: string;
  /**
   * Whether an authenticated (tagged) ActionPacket arrived: from then on the
   * session refuses untagged ones, so a spec-only replay cannot reach it.
   */
  keyed: boolean;
  /** Authenticated sequences accepted. */
  readonly replay: ReplayWindow;
  /**
   * The numbered (tagged) ActionPackets that arrived over its link, keep-alives included (whose tag is not
   * checked: replay-window.ts is used here only to count): what its inbound loss is counted from, for the
   * operators' console (ReplayWindow.inboundLoss). A figure to look at; nothing is decided by it.
   */
  readonly arrivals: ReplayWindow;
  /** The pongs it was sent and those its client says it received: its loss on the way down (§ 12.4). */
  readonly downstream: DownstreamLoss;
  /** Whether the bound address receives (return routability), and its amplification budget. */
  readonly proof: AddressProof;
  /**
   * The source (addressKey) the HTTP request that created the session came from, or null:
   * a spec-only client's UDP address on that source counts as proven (a TCP handshake came from it).
   */
  joinSource: string | null;
  /**
   * The additions the client said it reads when it joined (READS_* bits, protocol/reads.ts); 0 for the
   * seed's client, which is sent every chunk as one ChunkPacket (docs/protocol.md § 7.2).
   */
  reads: number;
  readonly entity: StoredEntity;
  readonly nick: string;
  /** The account playing, or null for a guest (whose character is not saved). */
  readonly accountId: number | null;
  peer: Peer | null;
  lastSeenMs: number;
  /** Whether a datagram ever bound the session to a link: a session that never plays expires sooner. */
  everBound: boolean;
  /** Whether its "joined" notice went out (on its first bind); only then does it get a "left" one. */
  announced: boolean;
  /**
   * Broadcast parity: this session is sent State/Entity packets when tick % 2 === sendPhase. Changed only
   * by SessionRegistry.movePhase (the phase balancer: phase-balance.ts).
   */
  sendPhase: number;
  /**
   * No State/Entity packets at ticks up to this one: a session handed over by another process of a cluster
   * was sent that tick's broadcast there, and a second list under the same tick (a region whose clock runs
   * a tick behind) would be mixed with the first by the client. 0 for every other session.
   */
  quietThroughTick: number;
  readonly inbound: TokenBucket;
  /** Checksum and tick of the entity entries last sent, to skip unchanged updates. */
  lastEntityChecksum: number;
  lastEntityTick: number;
  /** Set by a keep-alive ActionPacket: re-send the entity entries even if unchanged. */
  resendEntities: boolean;
  /** Entity deltas (P-21): null until the client's first EntityAckPacket; then its baselines. */
  baselines: EntityBaselines | null;
  /** When each chunk (by id) was last sent, to avoid re-sending within the retransmit timeout. */
  readonly chunkSentAtMs: Map<number, { version: number; atMs: number }>;
  /** Reliable chat both ways: the outbound queue, the inbound sequence, the posting limit. */
  readonly chat: ChatChannel;
  /** Dialogs open on (or closing at) this client. */
  readonly dialogs: SessionDialogs<Session>;
}

export interface SessionLimits {
  /** Inbound datagrams per second per session, and burst. */
  ratePerSecond: number;
  burst: number;
}

export class SessionRegistry {
  private readonly byToken = new Map<bigint, Session>();
  /** The same sessions by the token's low word, which create() keeps unique among live sessions. */
  /**
   * Sessions by the low 30 bits of their token: a small integer key V8 hashes
   * without boxing (a full 32-bit word is a heap number half the time). The
   * server picks tokens, so it keeps these 30 bits unique.
   */
  private readonly byTokenLow = new Map<number, Session>();
  private readonly byPeer = new Map<string, Session>();
  /** Sessions by their player entity's id: where the combat room sends a player's blows. */
  private readonly byEntity = new Map<number, Session>();
  private phaseCounter = 0;
  /** The sessions of each broadcast phase (Session.sendPhase); the broadcast sorts them by chunk, so order is free. */
  private readonly phases: Session[][] = Array.from({ length: BROADCAST_EVERY_TICKS }, () => []);

  /**
   * `onFirstBind` runs when a session's first datagram binds it to a link:
   * where the game announces a player who is actually playing.
   */
  constructor(
    private readonly limits: SessionLimits,
    private readonly onFirstBind: (session: Session) => void = () => {},
    /** Where a new link's challenge cookie is drawn through (recording/tape.ts); none: drawn unrecorded. */
    private readonly tape?: Pick<WorldTape, "sample">,
  ) {}

  get size(): number {
    return this.byToken.size;
  }

  values(): IterableIterator<Session> {
    return this.byToken.values();
  }

  /** The sessions broadcast to on ticks of phase `phase` (tick % BROADCAST_EVERY_TICKS): about half of them each tick. */
  inPhase(phase: number): readonly Session[] {
    return this.phases[phase];
  }

  /** How many sessions each phase holds. */
  phaseSizes(): number[] {
    return this.phases.map((phase) => phase.length);
  }

  /** Moves the `count` newest sessions of phase `from` to phase `to` (the phase balancer's decision). */
  movePhase(from: number, to: number, count: number): void {
    const source = this.phases[from];
    const target = this.phases[to];
    for (let moved = 0; moved < count && source.length > 0; moved++) {
      const session = source.pop()!;
      session.sendPhase = to;
      target.push(session);
    }
  }

  /** `identity`: a session arriving from another process keeps its token and key (ts/cluster/). */
  create(
    entity: StoredEntity,
    nick: string,
    nowMs: number,
    accountId: number | null = null,
    identity?: { token: bigint; key: Uint8Array },
  ): Session {
    let token: bigint;
    let tokenLow: number;
    do {
      token = identity?.token ?? randomBytes(8).readBigUInt64LE(0);
      tokenLow = Number(token & 0xffffffffn) | 0;
      if (identity !== undefined && (this.byToken.has(token) || this.byTokenLow.has(tokenLow & TOKEN_KEY_MASK))) {
        throw new Error("a session with this token is already in play");
      }
    } while (token === 0n || this.byToken.has(token) || this.byTokenLow.has(tokenLow & TOKEN_KEY_MASK));
    const key = identity?.key ?? createSessionKey();
    const session: Session = {
      token,
      tokenLow,
      tokenHigh: Number(token >> 32n) | 0,
      tokenHex: token.toString(16).padStart(16, "0"),
      key,
      keyHex: Buffer.from(key).toString("hex"),
      keyed: false,
      replay: new ReplayWindow(),
      arrivals: new ReplayWindow(),
      downstream: new DownstreamLoss(),
      proof: new AddressProof(),
      joinSource: null,
      reads: 0,
      entity,
      nick,
      accountId,
      peer: null,
      lastSeenMs: nowMs,
      everBound: false,
      announced: false,
      sendPhase: this.phaseCounter++ % BROADCAST_EVERY_TICKS,
      quietThroughTick: 0,
      inbound: new TokenBucket(this.limits.ratePerSecond, this.limits.burst, nowMs),
      lastEntityChecksum: -1,
      lastEntityTick: 0,
      resendEntities: true,
      baselines: null,
      chunkSentAtMs: new Map(),
      chat: new ChatChannel(nowMs),
      dialogs: new SessionDialogs(),
    };
    this.byToken.set(token, session);
    this.byTokenLow.set(tokenLow & TOKEN_KEY_MASK, session);
    this.byEntity.set(entity.id, session);
    this.phases[session.sendPhase].push(session);
    return session;
  }

  byTokenValue(token: bigint): Session | undefined {
    return this.byToken.get(token);
  }

  /** The session whose token has these low and high 32 bits (each as int32 or u32). */
  byTokenWords(low: number, high: number): Session | undefined {
    const session = this.byTokenLow.get(low & TOKEN_KEY_MASK);
    return session !== undefined && session.tokenLow === (low | 0) && session.tokenHigh === (high | 0)
      ? session
      : undefined;
  }

  /** The session whose player is entity `entityId`, if it is in play. */
  byEntityId(entityId: number): Session | undefined {
    return this.byEntity.get(entityId);
  }

  byPeerKey(key: string): Session | undefined {
    return this.byPeer.get(key);
  }

  /**
   * Binds the session to `peer` (first datagram, or NAT rebinding); a new
   * link starts unproven unless AddressProof.bound says otherwise
   * (`sourceProven`: the HTTP join came from its source).
   */
  bind(session: Session, peer: Peer, sourceProven = false): void {
    if (session.peer?.key === peer.key) {
      session.peer = peer; // same link; keep the freshest handle
      return;
    }
    // A WebSocket or WebRTC link is proven by its connection (address-proof.ts).
    session.proof.bound(peer.key, peer.transport !== "udp" || sourceProven, this.tape);
    if (session.peer) this.byPeer.delete(session.peer.key);
    // Another session previously bound to this link loses it: one link, one session.
    const previous = this.byPeer.get(peer.key);
    if (previous && previous !== session) previous.peer = null;
    session.peer = peer;
    this.byPeer.set(peer.key, session);
    if (!session.everBound) {
      session.everBound = true;
      this.onFirstBind(session);
    }
  }

  /**
   * The link behind `peerKey` closed: its session (if any) keeps living until it
   * sends from another link or times out, but nothing is sent into the dead link.
   */
  unbindPeer(peerKey: string): void {
    const session = this.byPeer.get(peerKey);
    if (!session) return;
    this.byPeer.delete(peerKey);
    if (session.peer?.key === peerKey) session.peer = null;
  }

  remove(session: Session): void {
    if (this.byToken.get(session.token) === session) {
      const phase = this.phases[session.sendPhase];
      const index = phase.indexOf(session);
      if (index >= 0) phase.splice(index, 1);
    }
    this.byToken.delete(session.token);
    const key = session.tokenLow & TOKEN_KEY_MASK;
    if (this.byTokenLow.get(key) === session) this.byTokenLow.delete(key);
    if (this.byEntity.get(session.entity.id) === session) this.byEntity.delete(session.entity.id);
    if (session.peer && this.byPeer.get(session.peer.key) === session) this.byPeer.delete(session.peer.key);
  }

  /**
   * Sessions not seen since `cutoffMs`, and sessions never bound to a link
   * that were created before `unboundCutoffMs`.
   */
  stale(cutoffMs: number, unboundCutoffMs = cutoffMs): Session[] {
    const out: Session[] = [];
    for (const s of this.byToken.values()) if (s.lastSeenMs < (s.everBound ? cutoffMs : unboundCutoffMs)) out.push(s);
    return out;
  }
}
