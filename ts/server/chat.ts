// Chat (docs/protocol.md § Chat): global, every line goes to every session.
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
} from "../protocol/chat-post-ack.js";
import { CHAT_TEXT_RULE, type ChatPostPacket } from "../protocol/chat-post.js";
import type { ChatAckPacket } from "../protocol/chat-ack.js";
import { CHAT_NAME_RULE, CHAT_SPEAKER_SYSTEM, encodeChat } from "../protocol/chat.js";
import { MAX_DATAGRAM_BYTES } from "../protocol/header.js";
import { checkText } from "../protocol/text.js";
import type { Game } from "./game-server.js";
import { TokenBucket } from "./rate-limit.js";
import { RetransmitTimer } from "./retransmit.js";
import type { Session } from "./session.js";

/** Lines a session may post per second, sustained, and in a burst. */
export const CHAT_RATE_PER_SECOND = 1;
export const CHAT_BURST = 5;
/** Lines queued per session before the oldest is dropped. */
export const CHAT_QUEUE_MAX = 64;
/** Lines in flight (sent, not yet acknowledged) per session. */
export const CHAT_WINDOW = 8;

interface ChatLine {
  readonly seq: number;
  readonly speakerEntityId: number;
  readonly speakerName: string;
  readonly text: string;
}

/** One session's chat state: its outbound queue and where its inbound lines stand. */
export class ChatChannel {
  private nextSeq = 1;
  private readonly queue: ChatLine[] = [];
  /** Highest line number sent at least once. */
  private sentUpTo = 0;
  private readonly timer = new RetransmitTimer();
  /** The last inbound line number handled, and the status it got. */
  inboundSeq = 0;
  inboundStatus = CHAT_STATUS_POSTED;
  readonly limiter: TokenBucket;

  constructor(nowMs: number) {
    this.limiter = new TokenBucket(CHAT_RATE_PER_SECOND, CHAT_BURST, nowMs);
  }

  /** The oldest line still held: what ChatPackets report as oldest_seq. */
  get oldestSeq(): number {
    return this.queue.length > 0 ? this.queue[0].seq : this.nextSeq;
  }

  get pending(): number {
    return this.queue.length;
  }

  /** Queues a line; returns true when the queue overflowed and its oldest line was dropped. */
  enqueue(speakerEntityId: number, speakerName: string, text: string): boolean {
    this.queue.push({ seq: this.nextSeq++, speakerEntityId, speakerName, text });
    if (this.queue.length <= CHAT_QUEUE_MAX) return false;
    this.queue.shift();
    return true;
  }

  /** Drops every line up to `seq` (cumulative); returns whether that acknowledged anything new. */
  acknowledge(seq: number, nowMs: number): boolean {
    let progress = false;
    while (this.queue.length > 0 && this.queue[0].seq <= seq) {
      this.queue.shift();
      progress = true;
    }
    if (progress) {
      this.timer.reset();
      if (this.queue.length > 0 && this.sentUpTo >= this.queue[0].seq) this.timer.sent(nowMs);
      else this.timer.stop();
    }
    return progress;
  }

  /**
   * The lines to send at `nowMs`, into `out`: lines of the window never sent,
   * or the whole window when the re-send timer ran out. Returns how many of
   * them are re-sends.
   */
  due(nowMs: number, out: ChatLine[]): number {
    out.length = 0;
    const window = Math.min(this.queue.length, CHAT_WINDOW);
    if (window === 0) {
      this.timer.stop();
      return 0;
    }
    const resend = this.timer.due(nowMs);
    let resent = 0;
    for (let index = 0; index < window; index++) {
      const line = this.queue[index];
      if (resend || line.seq > this.sentUpTo) {
        out.push(line);
        if (line.seq <= this.sentUpTo) resent++;
      }
    }
    if (out.length === 0) return 0;
    if (resend) this.timer.backOff();
    // The timer runs from the oldest unacknowledged send; new lines do not push it back.
    if (resend || !this.timer.armed) this.timer.sent(nowMs);
    this.sentUpTo = Math.max(this.sentUpTo, this.queue[window - 1].seq);
    return resent;
  }
}

export interface ChatStats {
  /** Lines accepted from players and system lines posted. */
  posted: number;
  rateLimited: number;
  refused: number;
  /** Re-sent copies of client lines, acknowledged again and not posted. */
  duplicates: number;
  /** ChatPackets re-sent because no ack came. */
  retransmits: number;
  /** Lines dropped from a full session queue. */
  overflowDropped: number;
}

export class ChatService {
  readonly stats: ChatStats = {
    posted: 0,
    rateLimited: 0,
    refused: 0,
    duplicates: 0,
    retransmits: 0,
    overflowDropped: 0,
  };
  private readonly dueScratch: ChatLine[] = [];
  private readonly out = new Uint8Array(MAX_DATAGRAM_BYTES);

  constructor(private readonly game: Game) {}

  /** A system line (speaker 0) to every session: joins, leaves, notices. Throws EncodeError for text chat cannot carry. */
  system(text: string, speakerName = ""): void {
    this.broadcast(CHAT_SPEAKER_SYSTEM, speakerName, text);
  }

  /**
   * A system line to the sessions whose player is within `radius` tiles (Chebyshev) of (x, y).
   * Joins and leaves use it: announced to everyone, they would cost N lines per join, N² in all,
   * which at a few hundred players is most of the chat traffic and none of its use.
   */
  systemNear(x: number, y: number, radius: number, text: string): void {
    this.broadcast(CHAT_SPEAKER_SYSTEM, "", text, (session) => {
      const entity = session.entity;
      return Math.abs(entity.x - x) <= radius && Math.abs(entity.y - y) <= radius;
    });
  }

  /**
   * A line from `speakerEntityId` (0: system) to every session, or to those `audience` accepts.
   * Throws EncodeError for text chat cannot carry.
   */
  broadcast(
    speakerEntityId: number,
    speakerName: string,
    text: string,
    audience: (session: Session) => boolean = () => true,
  ): void {
    checkText("chat speaker name", speakerName, CHAT_NAME_RULE);
    checkText("chat text", text, CHAT_TEXT_RULE);
    this.stats.posted++;
    const nowMs = performance.now();
    for (const session of this.game.sessions.values()) {
      if (!audience(session)) continue;
      if (session.chat.enqueue(speakerEntityId, speakerName, text)) this.stats.overflowDropped++;
      this.pump(session, nowMs);
    }
  }

  /** A line to one session only (a private notice). Throws EncodeError for text chat cannot carry. */
  tell(session: Session, text: string, speakerName = ""): void {
    checkText("chat speaker name", speakerName, CHAT_NAME_RULE);
    checkText("chat text", text, CHAT_TEXT_RULE);
    if (session.chat.enqueue(CHAT_SPEAKER_SYSTEM, speakerName, text)) this.stats.overflowDropped++;
    this.pump(session, performance.now());
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
      this.game.metrics.drop("chat_out_of_order");
      if (channel.inboundSeq > 0) this.sendPostAck(session);
      return;
    }
    const text = packet.text.trim();
    let status = CHAT_STATUS_POSTED;
    if (text === "") {
      status = CHAT_STATUS_REFUSED;
      this.stats.refused++;
    } else if (!channel.limiter.take(nowMs)) {
      status = CHAT_STATUS_RATE_LIMITED;
      this.stats.rateLimited++;
      this.game.metrics.drop("chat_rate_limited");
    }
    channel.inboundSeq = packet.seq;
    channel.inboundStatus = status;
    this.sendPostAck(session);
    if (status === CHAT_STATUS_POSTED) this.broadcast(session.entity.id, session.nick, text);
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
      this.game.send(session, this.out.slice(0, size));
    }
  }

  private sendPostAck(session: Session): void {
    const channel = session.chat;
    const size = encodeChatPostAck(
      { type: "chat_post_ack", clientType: 0, seq: channel.inboundSeq, status: channel.inboundStatus },
      this.out,
    );
    this.game.send(session, this.out.slice(0, size));
  }
}
