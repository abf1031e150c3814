// One session's chat state (docs/protocol.md § Chat): its numbered outbound
// queue with the re-send timer and window, and where its inbound lines stand.
// The rules of delivery are described in chat.ts, which drives these channels.
import { CHAT_STATUS_POSTED } from "../../protocol/chat-post-ack.js";
import { TokenBucket } from "../edge/rate-limit.js";
import { RetransmitTimer } from "./retransmit.js";

/** Lines a session may post per second, sustained, and in a burst. */
export const CHAT_RATE_PER_SECOND = 1;
export const CHAT_BURST = 5;
/** Lines queued per session before the oldest is dropped. */
export const CHAT_QUEUE_MAX = 64;
/** Lines in flight (sent, not yet acknowledged) per session. */
export const CHAT_WINDOW = 8;

export interface ChatLine {
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
  /** Every line up to this one was acknowledged by the client (a line dropped on overflow never is). */
  ackedUpTo = 0;
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

  /** The number the next queued line gets: the last queued line's is one less. */
  get lastQueuedSeq(): number {
    return this.nextSeq - 1;
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
    // Only lines that were queued: a client claiming more acknowledges nothing it was not sent.
    if (seq > this.ackedUpTo) this.ackedUpTo = Math.min(seq, this.nextSeq - 1);
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

  /** Where the channel stands, for a session moving to another process (ts/cluster/handoff.ts). */
  snapshot(nowMs = performance.now()): ChatChannelState {
    return {
      limiterTokens: this.limiter.tokensAt(nowMs),
      nextSeq: this.nextSeq,
      queue: this.queue.map((line) => ({ ...line })),
      inboundSeq: this.inboundSeq,
      inboundStatus: this.inboundStatus,
    };
  }

  /** Continues another process's channel: the same numbers both ways, its unacknowledged lines re-sent from here. */
  restore(state: ChatChannelState, nowMs = performance.now()): void {
    // The rate limit travels too: crossing a border does not refill a player's burst.
    this.limiter.resume(state.limiterTokens, nowMs);
    this.nextSeq = state.nextSeq;
    this.ackedUpTo = Math.max(0, (state.queue[0]?.seq ?? state.nextSeq) - 1);
    this.queue.length = 0;
    for (const line of state.queue.slice(-CHAT_QUEUE_MAX)) this.queue.push({ ...line });
    this.sentUpTo = 0;
    this.inboundSeq = state.inboundSeq;
    this.inboundStatus = state.inboundStatus;
  }
}

/** A chat channel's numbers and queue as they travel between processes. */
export interface ChatChannelState {
  /** The rate limiter's tokens when the state was written. */
  readonly limiterTokens: number;
  readonly nextSeq: number;
  readonly queue: readonly ChatLine[];
  readonly inboundSeq: number;
  readonly inboundStatus: number;
}
