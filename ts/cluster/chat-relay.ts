// Chat across regions (docs/scaling.md § Chat): a line heard by every session of one region — a
// player's line, a system line, a presence line near a spot — is published on one Redis pub/sub
// channel, and every other region delivers it to its own sessions as if it had been said there. The
// rules of a line (its text rule, the speaker's rate limit, mutes) are applied once, by the region
// that owns the speaker, exactly as in one process (ts/server/chat.ts); the relay only carries lines
// already accepted. Each region publishes on its own connection, so its lines arrive everywhere in
// the order it said them.
import type { Redis } from "ioredis";
import type { ChatService, RelayedLine } from "../server/chat.js";
import type { Logger } from "../server/log.js";

/** What one relayed message may weigh: a line is at most a few hundred bytes. */
const MAX_MESSAGE_BYTES = 4096;

export interface ChatRelayStats {
  published: number;
  received: number;
  /** Messages that were not a relayed line (not JSON, too big, bad fields), dropped. */
  dropped: number;
}

export class ChatRelay {
  readonly stats: ChatRelayStats = { published: 0, received: 0, dropped: 0 };
  private readonly subscriber: Redis;
  private readonly channel: string;

  constructor(
    private readonly region: number,
    private readonly publisher: Redis,
    private readonly chat: ChatService,
    private readonly log: Logger,
    prefix = "fc:",
  ) {
    this.channel = `${prefix}chat`;
    // A connection in subscriber mode can do nothing else: its own, re-subscribed by ioredis on reconnect.
    this.subscriber = publisher.duplicate();
  }

  async start(): Promise<void> {
    this.subscriber.on("message", (_channel: string, message: string) => this.onMessage(message));
    await this.subscriber.subscribe(this.channel);
    this.chat.relay = (line) => this.publish(line);
  }

  private publish(line: RelayedLine): void {
    this.stats.published++;
    this.publisher
      .publish(this.channel, JSON.stringify({ from: this.region, line }))
      .catch((error: unknown) => this.log.warn("chat relay: publish failed", { error: String(error) }));
  }

  private onMessage(message: string): void {
    let parsed: unknown;
    try {
      if (message.length > MAX_MESSAGE_BYTES) throw new Error("too big");
      parsed = JSON.parse(message);
    } catch {
      this.stats.dropped++;
      return;
    }
    const { from, line } = (parsed ?? {}) as { from?: unknown; line?: unknown };
    if (from === this.region) return; // our own line, delivered here when it was said
    if (!Number.isInteger(from) || typeof line !== "object" || line === null) {
      this.stats.dropped++;
      return;
    }
    if (this.chat.deliverRelayed(line as RelayedLine)) this.stats.received++;
    else this.stats.dropped++;
  }

  async close(): Promise<void> {
    this.chat.relay = null;
    this.subscriber.disconnect();
    await Promise.resolve();
  }
}
