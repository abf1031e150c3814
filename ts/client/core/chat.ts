// Chat delivery on the client (docs/protocol.md § 14.5, P-11). The game link is
// one datagram channel, so chat brings its own reliability, one counter pair
// per direction:
// - out: lines are numbered 1, 2, 3, … per session, sent at once and kept until
//   a cumulative ChatPostAck covers them; every CHAT_RESEND_MS all unacknowledged
//   lines are re-sent in order (the server handles lines strictly in order, so a
//   lost line holds back the later ones until it arrives). At most
//   CHAT_OUTBOX_MAX lines wait; more are refused until some are acknowledged.
// - in: `expected` is the next line number to show. A line with that number is
//   shown, anything else (a duplicate, a line beyond a gap) is ignored because
//   the server re-sends in order; `oldest_seq` above `expected` says lines were
//   dropped and will never come. Every ChatPacket, duplicates included, is
//   answered with a ChatAck of `expected - 1`, so a lost ack is repaired by the
//   next re-send.
import { encodeChatAck } from "../../protocol/chat-ack.js";
import { CHAT_STATUS_POSTED, CHAT_STATUS_RATE_LIMITED, type ChatPostAckPacket } from "../../protocol/chat-post-ack.js";
import { CHAT_TEXT_MAX_BYTES, CHAT_TEXT_RULE, encodeChatPost } from "../../protocol/chat-post.js";
import type { ChatPacket } from "../../protocol/chat.js";
import { MAX_DATAGRAM_BYTES } from "../../protocol/header.js";
import { textProblem, utf8ByteLength, writeUtf8 } from "../../protocol/text.js";
import type { ChannelLink } from "./channel-link.js";

/** Protocol: re-send unacknowledged lines every 250–300 ms. */
export const CHAT_RESEND_MS = 250;
/** Lines waiting for their acknowledgement before post() refuses more. */
export const CHAT_OUTBOX_MAX = 16;

export type ChatEvent =
  /** A line to show, in order. `speakerEntityId` 0 is the system. */
  | { kind: "line"; seq: number; speakerEntityId: number; speakerName: string; text: string }
  /** The server dropped `count` lines for this client (its queue overflowed): they will never come. */
  | { kind: "missed"; count: number }
  /** A line of ours the server handled without posting it. */
  | { kind: "not_posted"; text: string; reason: "rate_limited" | "refused" }
  /** The session ended with `count` lines of ours unacknowledged: they may not have been posted. */
  | { kind: "unsent"; count: number };

/** What became of a post() call. */
export type PostResult =
  /** Queued and sent. */
  | "sent"
  /** Nothing but spaces. */
  | "empty"
  /** More than CHAT_TEXT_MAX_BYTES bytes of UTF-8. */
  | "too_long"
  /** Characters a chat line cannot carry (control characters, broken UTF-16). */
  | "bad_text"
  /** CHAT_OUTBOX_MAX lines still wait for their acknowledgement. */
  | "busy";

interface OutboundLine {
  readonly seq: number;
  readonly text: string;
}

const scratchText = new Uint8Array(CHAT_TEXT_MAX_BYTES * 3);

/** Why `text` cannot be posted as it is, or null if it can (the UI checks as the player types). */
export function chatTextProblem(text: string): Exclude<PostResult, "sent" | "busy"> | null {
  if (text.trim() === "") return "empty";
  const bytes = utf8ByteLength(text);
  if (bytes < 0) return "bad_text";
  if (bytes > CHAT_TEXT_RULE.maxBytes) return "too_long";
  return textProblem(scratchText, 0, writeUtf8(text, scratchText, 0), false) === null ? null : "bad_text";
}

export class ChatDelivery {
  private nextSeq = 1;
  private readonly outbox: OutboundLine[] = [];
  private lastSendMs = -Infinity;
  private expected = 1;
  private readonly out = new Uint8Array(MAX_DATAGRAM_BYTES);
  private readonly listeners = new Set<(event: ChatEvent) => void>();
  readonly counters = {
    /** Lines posted by the player (first sends). */
    posted: 0,
    /** Copies of our lines sent again because no ack came in time. */
    resent: 0,
    /** Lines shown. */
    received: 0,
    /** ChatPackets ignored: duplicates, or beyond a gap. */
    ignored: 0,
    /** Lines the server said it dropped for us. */
    missed: 0,
  };

  constructor(
    private readonly link: ChannelLink,
    readonly resendMs = CHAT_RESEND_MS,
    readonly outboxMax = CHAT_OUTBOX_MAX,
  ) {}

  /** Calls `listener` for every event from now on; returns a function that stops it. */
  listen(listener: (event: ChatEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Lines of ours not yet acknowledged. */
  get unacknowledged(): number {
    return this.outbox.length;
  }

  /** Posts a line: sends it at once and keeps re-sending it until acknowledged. */
  post(text: string, nowMs: number): PostResult {
    const problem = chatTextProblem(text);
    if (problem !== null) return problem;
    if (this.outbox.length >= this.outboxMax) return "busy";
    const line = { seq: this.nextSeq++, text };
    // The re-send timer runs from the oldest unacknowledged send; a new line does not push it back.
    if (this.outbox.length === 0) this.lastSendMs = nowMs;
    this.outbox.push(line);
    this.counters.posted++;
    this.sendLine(line);
    return "sent";
  }

  /** Re-sends every unacknowledged line, in order, when the re-send interval has passed. */
  update(nowMs: number): void {
    if (this.outbox.length === 0 || nowMs - this.lastSendMs < this.resendMs) return;
    this.lastSendMs = nowMs;
    for (const line of this.outbox) {
      this.sendLine(line);
      this.counters.resent++;
    }
  }

  /** A ChatPostAck: every line up to `seq` is handled; `status` is line `seq`'s. */
  receivePostAck(packet: ChatPostAckPacket, nowMs: number): void {
    let progress = false;
    while (this.outbox.length > 0 && this.outbox[0].seq <= packet.seq) {
      const line = this.outbox.shift()!;
      progress = true;
      // Only the acked line's own status travels; earlier lines were acknowledged by a lost ack.
      if (line.seq === packet.seq && packet.status !== CHAT_STATUS_POSTED) {
        const reason = packet.status === CHAT_STATUS_RATE_LIMITED ? "rate_limited" : "refused";
        this.emit({ kind: "not_posted", text: line.text, reason });
      }
    }
    if (progress) this.lastSendMs = nowMs;
  }

  /** A ChatPacket from the server: shows it if it is the next line, and acknowledges in every case. */
  receiveLine(packet: ChatPacket): void {
    if (packet.oldestSeq > this.expected) {
      const count = packet.oldestSeq - this.expected;
      this.counters.missed += count;
      this.expected = packet.oldestSeq;
      this.emit({ kind: "missed", count });
    }
    if (packet.seq === this.expected) {
      this.expected++;
      this.counters.received++;
      this.emit({
        kind: "line",
        seq: packet.seq,
        speakerEntityId: packet.speakerEntityId,
        speakerName: packet.speakerName,
        text: packet.text,
      });
    } else {
      this.counters.ignored++;
    }
    const size = encodeChatAck(
      { type: "chat_ack", clientType: this.link.clientType, authToken: this.link.token(), seq: this.expected - 1 },
      this.out,
    );
    this.link.send(this.out.slice(0, size));
  }

  /**
   * A new session: both directions number from 1 again. Lines still waiting are
   * dropped (they may or may not have been posted) and reported.
   */
  reset(): void {
    const unsent = this.outbox.length;
    this.outbox.length = 0;
    this.nextSeq = 1;
    this.expected = 1;
    this.lastSendMs = -Infinity;
    if (unsent > 0) this.emit({ kind: "unsent", count: unsent });
  }

  private sendLine(line: OutboundLine): void {
    const size = encodeChatPost(
      {
        type: "chat_post",
        clientType: this.link.clientType,
        authToken: this.link.token(),
        seq: line.seq,
        text: line.text,
      },
      this.out,
    );
    this.link.send(this.out.slice(0, size));
  }

  private emit(event: ChatEvent): void {
    for (const listener of this.listeners) listener(event);
  }
}
