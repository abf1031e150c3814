// Chat (docs/protocol.md § Chat): global, every line goes to every session.
// What is said in public is overheard by the spectators (spectators/, issue 40)
// as a player at their camera would hear it: every player's and system line, a
// presence line near their camera; never a line told to one session (`tell`,
// `lineTo`: private, party, a sign's or a shop's answer).
//
// Delivery is reliable in both directions without a stream:
// - client → server: ChatPost lines carry per-session numbers 1, 2, 3, …; the
//   server handles them strictly in order (a gap means an earlier line was
//   lost, so the later one is dropped and the client re-sends both), answers
//   every one with a cumulative ChatPostAck, and answers a re-sent copy with
//   the same ack without posting it twice.
// - server → client: each session has its own numbered queue; lines are sent
//   at once, re-sent on a backing-off timer (retransmit.ts) until a cumulative
//   ChatAck covers them, and at most CHAT_WINDOW of them are in flight. The
//   queue is bounded: on overflow the oldest line is dropped and counted, and
//   every ChatPacket names the oldest line still queued, so the client sees the
//   gap instead of waiting for a line that will never come.
import {
  CHAT_STATUS_POSTED,
  CHAT_STATUS_RATE_LIMITED,
  CHAT_STATUS_REFUSED,
  encodeChatPostAck,
} from "../../protocol/chat-post-ack.js";
import { CHAT_TEXT_RULE, type ChatPostPacket } from "../../protocol/chat-post.js";
import type { ChatAckPacket } from "../../protocol/chat-ack.js";
import { CHAT_NAME_RULE, CHAT_SPEAKER_SYSTEM, encodeChat } from "../../protocol/chat.js";
import { MAX_DATAGRAM_BYTES } from "../../protocol/header.js";
import { checkText } from "../../protocol/text.js";
import type { ChatLine } from "../sessions/chat-channel.js";
import { ChatLog } from "./chat-log.js";
import type { Egress } from "../edge/egress.js";
import type { Metrics } from "../ops/metrics.js";
import type { Session, SessionRegistry } from "../sessions/session.js";

/**
 * A line as it travels to the other processes of a cluster (ts/cluster/chat-relay.ts): what every
 * session there hears too. `near` keeps a presence line to the players around the spot it names,
 * as it is kept here.
 */
export interface RelayedLine {
  readonly speakerEntityId: number;
  readonly speakerName: string;
  readonly text: string;
  readonly near?: { readonly x: number; readonly y: number; readonly radius: number };
  /** A player's line: who said it (the social room's key, which ignore lists name), so an ignore holds across regions. */
  readonly speakerKey?: string;
}

/** Who hears whom (social/social-room.ts): a player's ignore list, by the speaker's key. */
export interface Hearing {
  /** The key `speaker` is known by across sessions and regions (an account's, a guest's nick fold). */
  keyOf(speaker: Session): string;
  /** Whether `listener` hears the player whose key is `speakerKey` (false: it ignores them). */
  hearsKey(listener: Session, speakerKey: string): boolean;
}

/** The commands a chat line may carry (social/social-room.ts implements them). */
export interface ChatCommands {
  /**
   * Whether `line` is a command, and which sort: one that "speaks" (a private or party line: refused
   * to a muted player like any line) or one that "acts" (lists, leaving a party: allowed to the muted).
   */
  kindOf(line: string): "speaks" | "acts" | null;
  /** Runs the command `line` from `session` (after it was acknowledged as posted). */
  run(session: Session, line: string): void;
  /** What an ordinary line posts ("//x" posts "/x"). */
  postedLine(line: string): string;
}

export interface ChatStats {
  /** Lines accepted from players and system lines posted. */
  posted: number;
  rateLimited: number;
  refused: number;
  /** Lines from other processes of a cluster, delivered here. */
  relayedIn: number;
  /** Lines from other processes that were not lines chat can carry, dropped. */
  relayedBad: number;
  /** Lines of muted players, refused. */
  muted: number;
  /** Re-sent copies of client lines, acknowledged again and not posted. */
  duplicates: number;
  /** ChatPackets re-sent because no ack came. */
  retransmits: number;
  /** Lines dropped from a full session queue. */
  overflowDropped: number;
}

/** A spot a line is said near: who stands within `radius` tiles (either axis) of (x, y) hears it. */
interface NearSpot {
  readonly x: number;
  readonly y: number;
  readonly radius: number;
}

/** Whether `session`'s player (a spectator's camera) stands within `near`. */
function within(session: Session, near: NearSpot): boolean {
  const entity = session.entity;
  return Math.abs(entity.x - near.x) <= near.radius && Math.abs(entity.y - near.y) <= near.radius;
}

/**
 * Bidi embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069):
 * they reorder what follows them, so "\u202Enimda :metsys" reads as a line from
 * "system: admin". Right-to-left text needs none of them (the marks U+200E,
 * U+200F and U+061C stay allowed), so a line carrying one is refused.
 */
const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069]/;

export class ChatService {
  readonly stats: ChatStats = {
    posted: 0,
    rateLimited: 0,
    refused: 0,
    relayedIn: 0,
    relayedBad: 0,
    muted: 0,
    duplicates: 0,
    retransmits: 0,
    overflowDropped: 0,
  };
  private readonly dueScratch: ChatLine[] = [];
  private readonly out = new Uint8Array(MAX_DATAGRAM_BYTES);
  /**
   * Where the lines every session hears go besides this process's sessions: null in one process; in a
   * cluster region, the relay that hands them to the other regions (players' lines, system lines,
   * presence lines — the channels a single process has; private `tell` lines stay here).
   */
  relay: ((line: RelayedLine) => void) | null = null;
  /** What a line starting with "/" asks for (social/): run instead of posted. Null: every line is posted. */
  commands: ChatCommands | null = null;
  /** The lines players posted for everyone, newest kept (the operators' console reads it: chat-log.ts). */
  readonly said = new ChatLog();
  /** Who hears whose lines (an ignore list). Null: everyone hears everyone. */
  hearing: Hearing | null = null;
  /**
   * The sessions with no body that overhear the public lines (the spectators' own registry, spectators/):
   * each as a player standing at its camera would, but with no ignore list. Null: nobody overhears.
   */
  overhearing: Pick<SessionRegistry, "values"> | null = null;

  constructor(
    /** Who hears a line: every session, or those an audience accepts. */
    private readonly sessions: Pick<SessionRegistry, "values">,
    private readonly egress: Egress,
    private readonly metrics: Metrics,
    /** Whether a session may not post now (an operator muted it, admin/); its lines are refused. */
    private readonly muted: (session: Session) => boolean = () => false,
  ) {}

  /** A system line (speaker 0) to every session: joins, leaves, notices. Throws EncodeError for text chat cannot carry. */
  system(text: string, speakerName = ""): void {
    this.publicLine(CHAT_SPEAKER_SYSTEM, speakerName, text);
    this.relay?.({ speakerEntityId: CHAT_SPEAKER_SYSTEM, speakerName, text });
  }

  /**
   * A system line to the sessions whose player is within `radius` tiles (Chebyshev) of (x, y).
   * Joins and leaves use it: announced to everyone, they would cost N lines per join, N² in all,
   * which at a few hundred players is most of the chat traffic and none of its use.
   */
  systemNear(x: number, y: number, radius: number, text: string, speakerName = ""): void {
    this.publicLine(CHAT_SPEAKER_SYSTEM, speakerName, text, { x, y, radius });
    this.relay?.({ speakerEntityId: CHAT_SPEAKER_SYSTEM, speakerName, text, near: { x, y, radius } });
  }

  /**
   * A line another process of the cluster delivered to its own sessions: delivered here the same way
   * (and not relayed again). Returns false, counting it, for one chat cannot carry — a relay is a
   * trusted peer, but what it sends is checked like anything that arrives.
   */
  deliverRelayed(line: RelayedLine): boolean {
    const near = line.near;
    try {
      if (!Number.isInteger(line.speakerEntityId) || line.speakerEntityId < 0) throw new Error("speaker");
      if (near !== undefined && ![near.x, near.y, near.radius].every((n) => Number.isInteger(n)))
        throw new Error("near");
      const key = line.speakerKey;
      if (key !== undefined && (typeof key !== "string" || key.length > 200)) throw new Error("speaker key");
      const hearing = this.hearing;
      // A player's line said in another region: its listeners here who ignore the speaker do not hear it.
      const hears =
        key === undefined || hearing === null ? undefined : (session: Session) => hearing.hearsKey(session, key);
      this.deliver(line.speakerEntityId, line.speakerName, line.text, near, hears);
    } catch {
      this.stats.relayedBad++;
      return false;
    }
    this.stats.relayedIn++;
    return true;
  }

  /**
   * A line said in public by `speakerEntityId` (0: system): to every session, or to those within `near`
   * (Chebyshev, around the spot) — those whom `hears` accepts among them — and to the spectators whose
   * camera is there. Throws EncodeError for text chat cannot carry.
   */
  private publicLine(
    speakerEntityId: number,
    speakerName: string,
    text: string,
    near?: NearSpot,
    hears?: (session: Session) => boolean,
  ): void {
    this.deliver(speakerEntityId, speakerName, text, near, hears);
    this.stats.posted++;
  }

  /** Queues a public line (checked first: throws EncodeError); see publicLine. */
  private deliver(
    speakerEntityId: number,
    speakerName: string,
    text: string,
    near: NearSpot | undefined,
    hears: ((session: Session) => boolean) | undefined,
  ): void {
    checkText("chat speaker name", speakerName, CHAT_NAME_RULE);
    checkText("chat text", text, CHAT_TEXT_RULE);
    const nowMs = performance.now();
    for (const session of this.sessions.values()) {
      if (near !== undefined && !within(session, near)) continue;
      if (hears !== undefined && !hears(session)) continue;
      this.queue(session, speakerEntityId, speakerName, text, nowMs);
    }
    const overhearing = this.overhearing;
    if (overhearing === null) return;
    // A spectator ignores nobody: it hears what a player at its camera would, before anyone's ignore list.
    for (const session of overhearing.values()) {
      if (near === undefined || within(session, near)) this.queue(session, speakerEntityId, speakerName, text, nowMs);
    }
  }

  private queue(session: Session, speakerEntityId: number, speakerName: string, text: string, nowMs: number): void {
    if (session.chat.enqueue(speakerEntityId, speakerName, text)) this.stats.overflowDropped++;
    this.pump(session, nowMs);
  }

  /** A line to one session only (a private notice). Throws EncodeError for text chat cannot carry. */
  tell(session: Session, text: string, speakerName = ""): void {
    checkText("chat speaker name", speakerName, CHAT_NAME_RULE);
    checkText("chat text", text, CHAT_TEXT_RULE);
    if (session.chat.enqueue(CHAT_SPEAKER_SYSTEM, speakerName, text)) this.stats.overflowDropped++;
    this.pump(session, performance.now());
  }

  /**
   * A line with a speaker to one session only — a private or party line (its speaker name tagged,
   * protocol/chat-speakers.ts). Returns the line's number in the session's channel (for a caller that
   * waits for its acknowledgement: ChatChannel.ackedUpTo). Throws EncodeError for text chat cannot carry.
   */
  lineTo(session: Session, speakerEntityId: number, speakerName: string, text: string): number {
    checkText("chat speaker name", speakerName, CHAT_NAME_RULE);
    checkText("chat text", text, CHAT_TEXT_RULE);
    if (session.chat.enqueue(speakerEntityId, speakerName, text)) this.stats.overflowDropped++;
    this.stats.posted++;
    this.pump(session, performance.now());
    return session.chat.lastQueuedSeq;
  }

  /** A ChatPost from an authenticated session. */
  onPost(session: Session, packet: ChatPostPacket, nowMs: number): void {
    const channel = session.chat;
    if (packet.seq <= channel.inboundSeq) {
      this.stats.duplicates++;
      return this.sendPostAck(session);
    }
    if (packet.seq > channel.inboundSeq + 1) {
      // An earlier line was lost: the client re-sends from there, in order.
      this.metrics.drop("chat_out_of_order");
      if (channel.inboundSeq > 0) this.sendPostAck(session);
      return;
    }
    const text = packet.text.trim();
    const command = text === "" || this.commands === null ? null : this.commands.kindOf(text);
    let status = CHAT_STATUS_POSTED;
    if (text === "" || BIDI_CONTROLS.test(text)) {
      status = CHAT_STATUS_REFUSED;
      this.stats.refused++;
    } else if (command !== "acts" && this.muted(session)) {
      // A muted player may still leave a party or look at its friends: only what speaks is refused.
      status = CHAT_STATUS_REFUSED;
      this.stats.muted++;
    } else if (!channel.limiter.take(nowMs)) {
      status = CHAT_STATUS_RATE_LIMITED;
      this.stats.rateLimited++;
      this.metrics.drop("chat_rate_limited");
    }
    channel.inboundSeq = packet.seq;
    channel.inboundStatus = status;
    this.sendPostAck(session);
    if (status !== CHAT_STATUS_POSTED) return;
    if (command !== null) return this.commands!.run(session, text);
    const said = this.commands === null ? text : this.commands.postedLine(text);
    const hearing = this.hearing;
    const speakerKey = hearing?.keyOf(session);
    this.publicLine(
      session.entity.id,
      session.nick,
      said,
      undefined,
      hearing === null ? undefined : (listener) => hearing.hearsKey(listener, speakerKey!),
    );
    this.said.add(session.entity.id, session.nick, said);
    this.relay?.({ speakerEntityId: session.entity.id, speakerName: session.nick, text: said, speakerKey });
  }

  /** A ChatAck: lines up to its seq arrived. */
  onAck(session: Session, packet: ChatAckPacket, nowMs: number): void {
    if (session.chat.acknowledge(packet.seq, nowMs)) this.pump(session, nowMs);
  }

  /** Sends what is due for `session`: new lines, or re-sends after a timeout. Called every tick. */
  pump(session: Session, nowMs: number): void {
    if (!session.peer || session.chat.pending === 0) return;
    const channel = session.chat;
    this.stats.retransmits += channel.due(nowMs, this.dueScratch);
    const oldestSeq = channel.oldestSeq;
    for (const line of this.dueScratch) {
      const size = encodeChat(
        {
          type: "chat",
          clientType: 0,
          seq: line.seq,
          oldestSeq,
          speakerEntityId: line.speakerEntityId,
          speakerName: line.speakerName,
          text: line.text,
        },
        this.out,
      );
      this.egress.send(session, this.out.slice(0, size));
    }
  }

  private sendPostAck(session: Session): void {
    const channel = session.chat;
    const size = encodeChatPostAck(
      { type: "chat_post_ack", clientType: 0, seq: channel.inboundSeq, status: channel.inboundStatus },
      this.out,
    );
    this.egress.send(session, this.out.slice(0, size));
  }
}
