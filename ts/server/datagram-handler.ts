// The one datagram handler behind every transport (UDP, WebRTC data channel,
// WebSocket). Order matters: every datagram is charged to a limit before any
// work that costs more than reading a few fixed fields — one that names a live
// session over that session's own link to the session's bucket, anything else to
// its source address's bucket (an Action from another link before its tag is
// hashed; any other packet from an unbound link before it is decoded) — the
// protocol library validates every byte before anything else reads it,
// nothing is ever sent to a source that has not proven it holds a live
// token, and an address that has not proven it receives gets only challenges
// within 3× what it sent (address-proof.ts), so a spoofed source address
// cannot be made into a reflector. Only an ActionPacket binds or moves a
// session, and moving needs its authentication trailer (docs/protocol.md § 6.1).
import { actionTagValid } from "../protocol/action-mac-node.js";
import {
  hasActionAuth,
  isValidAction,
  readActionChallengeHigh,
  readActionChallengeLow,
  readActionSequence,
  readActionCacheChunkId,
  readActionCacheVersion,
  readActionCode,
  readActionTargetTick,
  readActionTokenHigh,
  readActionTokenLow,
} from "../protocol/action.js";
import type { CameraPacket } from "../protocol/camera.js";
import type { EntityQueryPacket } from "../protocol/entity-query.js";
import { PACKET_PONG, encodeHeader } from "../protocol/header.js";
import { decodePacket } from "../protocol/packet.js";
import {
  entityAckTick,
  entityAckTokenHigh,
  entityAckTokenLow,
  isCompactAck,
  isValidEntityAck,
} from "../protocol/entity-ack.js";
import { EntityBaselines } from "./sessions/entity-baselines.js";
import {
  CHALLENGE_BYTES,
  PING_BYTES,
  PING_TIMESTAMP_OFFSET,
  isValidPing,
  pingReportOf,
  writeChallenge,
} from "../protocol/ping.js";
import { MANIFEST_ENTRIES } from "../protocol/state.js";
import { addressKey } from "./edge/address-key.js";
import type { ChatService } from "./talk/chat.js";
import type { Clock } from "./ops/clock.js";
import type { CustomMessages } from "./talk/custom-messages.js";
import type { DialogService } from "./talk/dialogs.js";
import type { Egress } from "./edge/egress.js";
import type { EntityStore } from "./entities/entities.js";
import type { Interactables } from "./world/interactables.js";
import type { ItemRoom } from "./items/item-room.js";
import type { EntityDetails } from "./broadcast/entity-detail.js";
import type { ScriptRoom } from "./scripting/script-room.js";
import type { Doors } from "./world/doors.js";
import type { Logger } from "./ops/log.js";
import type { Metrics } from "./ops/metrics.js";
import type { KeyedRateLimiter } from "./edge/rate-limit.js";
import type { Session, SessionRegistry } from "./sessions/session.js";
import type { Peer } from "./edge/peer.js";
import type { ChunkStream } from "./world/chunk-stream.js";

/**
 * What the handler reads, where it sends, and the rooms it routes to. Each is
 * copied into a field of its own, so the per-datagram path reaches any of
 * them in one step.
 */
export interface DatagramPorts {
  readonly metrics: Metrics;
  /** The per-source-address limit: what an unproven datagram is charged to, before it is decoded or its tag hashed. */
  readonly addressLimiter: KeyedRateLimiter;
  /** Tokens and links to sessions, and binding a session to the link it sends from. */
  readonly sessions: SessionRegistry;
  /** The window an action is offered against, and the tick an EntityDetail carries. */
  readonly clock: Clock;
  /** Answers the cache list of every ActionPacket (chunk streaming: ../world/chunk-stream.ts). */
  readonly chunks: Pick<ChunkStream, "answerCacheList">;
  /** The entities an EntityQuery asks about. */
  readonly entities: Pick<EntityStore, "get">;
  readonly egress: Egress;
  readonly log: Logger;
  /** EntityDetail replies, composed for the asking player (broadcast/entity-detail.ts). */
  readonly details: Pick<EntityDetails, "send">;
  /** The session lifecycle (../sessions/session-lifecycle.ts): ends a session that said it is leaving (LeavePacket, P-26). */
  readonly lifecycle: { leave(session: Session, reason: string): void };
  /**
   * What a player's datagrams reach beyond what it is shown: its steps, chat, dialogs, items, the things it
   * uses. Null for the handler of spectators (spectators/), who have no body: their steps schedule nothing
   * and every packet that would act is dropped (`spectator_watches`).
   */
  readonly play: PlayPorts | null;
  /** Where a spectator's CameraPacket goes (spectators/, P-30); null for the players' handler (`not_spectator`). */
  readonly cameras: { onCamera(session: Session, packet: CameraPacket): void } | null;
  /**
   * Where a ChatAck goes: a player and a spectator alike acknowledge the lines they are told (a spectator
   * overhears the public ones, talk/chat.ts), so the lines stop being re-sent.
   */
  readonly heard: Pick<ChatService, "onAck">;
}

/** The rooms a player's datagrams act in (DatagramPorts.play). */
export interface PlayPorts {
  readonly chat: Pick<ChatService, "onPost">;
  readonly dialogs: Pick<DialogService, "onAck" | "onReply">;
  readonly custom: Pick<CustomMessages, "dispatch">;
  readonly interactables: Pick<Interactables, "onQuery">;
  /** Item requests. */
  readonly items: Pick<ItemRoom, "onRequest">;
  /** Talking to a creature a content script gives words (scripting/script-room.ts). */
  readonly scripts: Pick<ScriptRoom, "onQuery"> | null;
  /** A query from a player next to a door uses it (doors.ts). */
  readonly doors: Pick<Doors, "onQuery">;
}

export class DatagramHandler {
  /** The cache list of the ActionPacket being answered. */
  private readonly cacheIds = new Uint32Array(MANIFEST_ENTRIES);
  private readonly cacheVersions = new Uint16Array(MANIFEST_ENTRIES);
  private readonly metrics: Metrics;
  private readonly addressLimiter: KeyedRateLimiter;
  private readonly sessions: SessionRegistry;
  private readonly clock: Clock;
  private readonly chunks: DatagramPorts["chunks"];
  private readonly entities: DatagramPorts["entities"];
  private readonly egress: Egress;
  private readonly log: Logger;
  private readonly details: DatagramPorts["details"];
  private readonly lifecycle: DatagramPorts["lifecycle"];
  private readonly play: PlayPorts | null;
  private readonly cameras: DatagramPorts["cameras"];
  private readonly heard: DatagramPorts["heard"];

  constructor(ports: DatagramPorts) {
    this.metrics = ports.metrics;
    this.addressLimiter = ports.addressLimiter;
    this.sessions = ports.sessions;
    this.clock = ports.clock;
    this.chunks = ports.chunks;
    this.entities = ports.entities;
    this.egress = ports.egress;
    this.log = ports.log;
    this.details = ports.details;
    this.lifecycle = ports.lifecycle;
    this.play = ports.play;
    this.cameras = ports.cameras;
    this.heard = ports.heard;
  }

  /**
   * One inbound datagram; `carried`: a cluster's handoff carried it here (the old region sent it back
   * after letting its session go), so a step in it that missed its window is owed (schedule.ts).
   */
  handle(datagram: Uint8Array, peer: Peer, nowMs: number, carried = false): void {
    const metrics = this.metrics;
    metrics.datagramsIn++;
    metrics.bytesIn += datagram.length;
    // What every client sends several times a second takes a path that reads
    // the fields straight from the bytes: isValidAction and isValidPing check
    // exactly what decodePacket checks for these two types, so the outcome is
    // the same without a packet object, its nine cache entries or a bigint token.
    //
    // Who pays for a datagram: one that proves a live session (its token names
    // one; a Ping on a link bound to one) is counted against that session's
    // limit only, so a flood from the same address (a shared NAT, a spoofer)
    // can never use up an honest player's budget. Everything else is unproven
    // and counted against its source (unprovenFrom), before it is decoded when
    // no session is bound to its link.
    if (isValidAction(datagram)) return this.onActionBytes(datagram, peer, nowMs, carried);
    if (isValidPing(datagram)) return this.onPing(datagram, peer, nowMs);
    if (isValidEntityAck(datagram)) return this.onEntityAck(datagram, peer, nowMs);
    const onBoundLink = this.sessions.byPeerKey(peer.key) !== undefined;
    if (!onBoundLink && !this.addressLimiter.take(addressKey(peer.address), nowMs)) {
      return metrics.drop("rate_limited_address");
    }
    const result = decodePacket(datagram);
    if (!result.ok) return this.unproven(peer, nowMs, result.error.code, !onBoundLink);
    const packet = result.packet;
    const charged = !onBoundLink;
    // Every valid Action and Ping took the fast path above (the protocol's validators accept exactly
    // what decodePacket accepts for them: test/protocol-validators.test.ts), so they never get here.
    switch (packet.type) {
      case "entity_query":
        return this.onEntityQuery(packet, peer, nowMs, charged, datagram.length);
      case "chat_post":
        return this.act(packet.authToken, peer, nowMs, charged, datagram.length, (play, session) =>
          play.chat.onPost(session, packet, nowMs),
        );
      case "chat_ack": {
        // Lines told arrived: a spectator's acknowledgement counts as a player's (it acts in nothing).
        const session = this.authenticate(packet.authToken, peer, nowMs, charged, datagram.length);
        if (session) this.heard.onAck(session, packet, nowMs);
        return;
      }
      case "dialog_ack":
        return this.act(packet.authToken, peer, nowMs, charged, datagram.length, (play, session) =>
          play.dialogs.onAck(session, packet),
        );
      case "dialog_reply":
        return this.act(packet.authToken, peer, nowMs, charged, datagram.length, (play, session) =>
          play.dialogs.onReply(session, packet),
        );
      case "custom_to_server":
        return this.act(packet.authToken, peer, nowMs, charged, datagram.length, (play, session) =>
          play.custom.dispatch(session, packet),
        );
      case "item_request":
        return this.act(packet.authToken, peer, nowMs, charged, datagram.length, (play, session) =>
          play.items.onRequest(session, packet),
        );
      case "camera": {
        // A spectator's camera (P-30): only over its own link, like every packet but an Action.
        const session = this.authenticate(packet.authToken, peer, nowMs, charged, datagram.length);
        if (!session) return;
        if (this.cameras === null) return metrics.drop("not_spectator");
        this.cameras.onCamera(session, packet);
        return;
      }
      case "leave": {
        // A quitting UDP client (P-26): its session ends now rather than at the 10 s timeout. Only its own link
        // may say so (authenticate), so a spoofed source can end nobody's session.
        const session = this.authenticate(packet.authToken, peer, nowMs, charged, datagram.length);
        if (session) this.lifecycle.leave(session, "left");
        return;
      }
      default:
        // State, Chunk, Entity, EntityDetail, Pong, ChatPostAck, Chat, TileUpdate,
        // Dialog, DialogClose and CustomToClient only flow server → client.
        return this.unproven(peer, nowMs, "wrong_direction", charged);
    }
  }

  /**
   * A datagram that proves no session: counted against its source's limit
   * (IPv4 address or IPv6 /64) unless that was done before decoding it
   * (`charged`), then dropped as `reason`.
   */
  private unproven(peer: Peer, nowMs: number, reason: string, charged: boolean): void {
    if (!charged && !this.addressLimiter.take(addressKey(peer.address), nowMs)) {
      return this.metrics.drop("rate_limited_address");
    }
    this.metrics.drop(reason);
  }

  /**
   * A packet that acts (chat, dialogs, items, custom): `act` runs for the session its token names when it
   * came over that session's link — unless the session is a spectator's, which acts in nothing and is
   * dropped (`spectator_watches`).
   */
  private act(
    token: bigint,
    peer: Peer,
    nowMs: number,
    charged: boolean,
    size: number,
    act: (play: PlayPorts, session: Session) => void,
  ): void {
    const session = this.authenticate(token, peer, nowMs, charged, size);
    if (session === undefined) return;
    if (this.play === null) return this.metrics.drop("spectator_watches");
    act(this.play, session);
  }

  /** The session a token names, if `peer` is its link; undefined (and counted) when refused. */
  private authenticate(token: bigint, peer: Peer, nowMs: number, charged: boolean, size: number): Session | undefined {
    return this.admitOnLink(this.sessions.byTokenValue(token), peer, nowMs, charged, size);
  }

  /**
   * Rate-limits (against the session's own limit) and marks seen the session
   * a token named, when the datagram came over the link the session is bound
   * to; undefined (and counted) when refused. Only an ActionPacket binds or
   * moves a session (onActionBytes): any other packet from another link is
   * unproven, so a replayed chat or query can never pull a session away.
   */
  private admitOnLink(
    session: Session | undefined,
    peer: Peer,
    nowMs: number,
    charged: boolean,
    size: number,
  ): Session | undefined {
    if (!session) {
      this.unproven(peer, nowMs, "unknown_token", charged);
      return undefined;
    }
    const bound = session.peer;
    if (bound === null || bound.key !== peer.key) {
      this.unproven(peer, nowMs, "not_bound_link", charged);
      return undefined;
    }
    if (!session.inbound.take(nowMs)) {
      this.metrics.drop("rate_limited_session");
      return undefined;
    }
    if (bound !== peer) this.sessions.bind(session, peer); // same link; the freshest handle
    if (!session.proof.proven) this.receivedUnproven(session, size);
    session.lastSeenMs = nowMs;
    return session;
  }

  /** Counts `size` bytes from a session's unproven address: its amplification budget grows by 3× that. */
  private receivedUnproven(session: Session, size: number): void {
    session.proof.bytesIn += size;
    this.metrics.bytesFromUnproven += size;
  }

  /**
   * An ActionPacket that isValidAction accepted, read in place through the
   * protocol's readers (docs/protocol.md § 6.1 for the trailer rules).
   */
  private onActionBytes(bytes: Uint8Array, peer: Peer, nowMs: number, carried: boolean): void {
    const session = this.sessions.byTokenWords(readActionTokenLow(bytes), readActionTokenHigh(bytes));
    if (!session) return this.unproven(peer, nowMs, "unknown_token", false);
    const metrics = this.metrics;
    const bound = session.peer;
    const onLink = bound !== null && bound.key === peer.key;
    // Who pays: a datagram from the session's link pays the session's limit; one
    // from elsewhere (a first bind or a move, honest or not) is unproven until its
    // tag is checked, so its source pays, before any hashing is done for it.
    if (onLink) {
      if (!session.inbound.take(nowMs)) return metrics.drop("rate_limited_session");
    } else if (!this.addressLimiter.take(addressKey(peer.address), nowMs)) {
      return metrics.drop("rate_limited_address");
    }
    const tagged = hasActionAuth(bytes);
    const targetTick = readActionTargetTick(bytes);
    const proof = session.proof;
    if (tagged) {
      // Counted for the console's loss figure: over the link, checked or not; from elsewhere once checked.
      if (onLink) session.arrivals.accept(readActionSequence(bytes));
      // Every tagged packet's tag is checked and its sequence recorded, keep-alives over the proven link
      // too: a move must be newer than every packet the client sent, and a keep-alive is often its newest.
      // (One over the link once skipped the hash — sending it again changes nothing there — and, never
      // recorded, it moved the session when captured and sent from elsewhere: docs/security.md.) An idle
      // client sends few; a walking one hashes each step anyway.
      if (!actionTagValid(bytes, session.key)) return metrics.drop("bad_tag");
      // A move follows the client's newest packet only: one it sent earlier that comes late over another
      // link (held up in a cluster gateway that froze and thawed, or reordered across a NAT rebinding)
      // would move the session back to a way in the client has left.
      if (!onLink && readActionSequence(bytes) <= session.replay.newestAccepted) return metrics.drop("stale_move");
      if (!session.replay.accept(readActionSequence(bytes))) return metrics.drop("replayed");
      if (!onLink) session.arrivals.accept(readActionSequence(bytes));
      session.keyed = true;
    } else if (session.keyed) {
      // A keyed client always tags: an untagged packet for its session is a spec-only replay.
      return metrics.drop("untagged");
    } else if (!onLink && session.everBound) {
      // A spec-only client binds its first link only; moving needs the tag.
      return metrics.drop("untagged_move");
    }
    if (!onLink) {
      this.log.debug("session bound", { entityId: session.entity.id, peer: peer.key, transport: peer.transport });
      this.sessions.bind(session, peer, !tagged && session.joinSource === addressKey(peer.address));
    } else if (bound !== peer) {
      this.sessions.bind(session, peer); // same link; the freshest handle
    }
    session.lastSeenMs = nowMs;
    if (!proof.proven) {
      this.receivedUnproven(session, bytes.length);
      if (tagged && proof.echoes(readActionChallengeLow(bytes), readActionChallengeHigh(bytes))) {
        proof.prove(peer.key);
        metrics.addressesProven++;
        session.resendEntities = true;
      } else {
        this.challenge(session);
      }
    }
    for (let index = 0; index < MANIFEST_ENTRIES; index++) {
      this.cacheIds[index] = readActionCacheChunkId(bytes, index);
      this.cacheVersions[index] = readActionCacheVersion(bytes, index);
    }
    this.applyAction(session, targetTick, readActionCode(bytes), nowMs, carried);
  }

  /** Sends the session's unproven address its cookie (a challenge Pong), within the amplification limit. */
  private challenge(session: Session): void {
    const proof = session.proof;
    if (!proof.allows(CHALLENGE_BYTES)) return;
    const slab = this.egress.slab;
    slab.reserve(CHALLENGE_BYTES);
    writeChallenge(slab.bytes, slab.at, proof.cookieLow, proof.cookieHigh);
    this.egress.sendChallenge(session, slab.take(CHALLENGE_BYTES));
  }

  /** Schedules the action and answers the cache list (in cacheIds / cacheVersions). */
  private applyAction(session: Session, targetTick: number, action: number, nowMs: number, carried: boolean): void {
    // A spectator's Action only keeps it alive and carries its cache list: it has no body to step (P-30).
    if (this.play !== null)
      this.metrics.action(session.entity.slots.offer(targetTick, action, this.clock.nextWindow, carried));
    // A keep-alive is also how a client that saw a checksum mismatch asks for
    // the entity state again (protocol: Lost EntityPacket).
    if (targetTick === 0) session.resendEntities = true;
    else if (session.baselines !== null) session.baselines.lastStepTick = this.clock.tick;
    // Chunks wait for the address to be proven (they would only be held back, and the re-send guard set).
    if (session.proof.proven) this.chunks.answerCacheList(session, this.cacheIds, this.cacheVersions, nowMs);
  }

  private onEntityQuery(packet: EntityQueryPacket, peer: Peer, nowMs: number, charged: boolean, sizeIn: number): void {
    const session = this.authenticate(packet.authToken, peer, nowMs, charged, sizeIn);
    if (!session) return;
    const entity = this.entities.get(packet.entityId);
    if (!entity) return this.metrics.drop("unknown_entity");
    // What the player asked about, with what the rooms add for it (its own bag and quests, a chest's contents).
    this.details.send(session, entity);
    // From a player next to an interactable, the query is also "use it" (interactables.ts, doors.ts), and
    // next to a creature a script gives words, "talk to it" (scripting/). A spectator only asks.
    const play = this.play;
    if (play === null) return;
    if (play.interactables.onQuery(session, entity) || play.doors.onQuery(session, entity)) return;
    play.scripts?.onQuery(session, entity);
  }

  /**
   * Pong answers only a link already bound to a live session (a Ping carries
   * no token). `ping` is a Ping datagram decodePacket accepts; the Pong echoes
   * its timestamp bytes.
   */
  /**
   * An EntityAckPacket or CompactAckPacket (P-21, P-25): the client holds the
   * list of its tick. The first one turns entity deltas on for the session (bounded: one ring of lists per
   * session). Only over the session's own link, like every packet but an Action.
   */
  private onEntityAck(bytes: Uint8Array, peer: Peer, nowMs: number): void {
    const session = this.sessions.byTokenWords(entityAckTokenLow(bytes), entityAckTokenHigh(bytes));
    const onBoundLink = this.sessions.byPeerKey(peer.key) !== undefined;
    if (!onBoundLink && !this.addressLimiter.take(addressKey(peer.address), nowMs)) {
      return this.metrics.drop("rate_limited_address");
    }
    const admitted = this.admitOnLink(session, peer, nowMs, !onBoundLink, bytes.length);
    if (!admitted) return;
    // The first acknowledgement chooses the form for the session's life: a CompactAck the compact one (P-25).
    if (admitted.baselines === null) admitted.baselines = new EntityBaselines(isCompactAck(bytes));
    admitted.baselines.acknowledge(entityAckTick(bytes), nowMs);
  }

  private onPing(ping: Uint8Array, peer: Peer, nowMs: number): void {
    const session = this.sessions.byPeerKey(peer.key);
    if (!session) return this.unproven(peer, nowMs, "unbound_ping", false);
    if (!session.inbound.take(nowMs)) return this.metrics.drop("rate_limited_session");
    session.lastSeenMs = nowMs;
    // An unproven address gets no Pong (Egress would hold it back); its bytes count toward its challenge budget.
    if (!session.proof.proven) return this.receivedUnproven(session, ping.length);
    // A reporting Ping (§ 12.4): the client's counts, before this one is answered.
    const report = pingReportOf(ping);
    if (report !== null) session.downstream.report(report.pingsSent, report.pongsReceived);
    session.downstream.pongSent();
    const slab = this.egress.slab;
    slab.reserve(PING_BYTES);
    const out = slab.bytes;
    const at = slab.at;
    encodeHeader(PACKET_PONG, 0, out, at);
    for (let index = PING_TIMESTAMP_OFFSET; index < PING_BYTES; index++) out[at + index] = ping[index];
    this.egress.sendWritten(session, PING_BYTES);
  }
}
