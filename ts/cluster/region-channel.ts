// One Redis pub/sub channel every region of the world publishes on and hears (the chat relay, the
// account kicks). A message is a JSON object naming the region that sent it ({from, ...fields});
// the size bound, the parse, the sender check and skipping a region's own messages are here once, and
// each user reads only the fields it sent. A subscriber connection can do nothing else, so the channel
// has its own (ioredis subscribes it again after a reconnect, so the relay resumes once Redis is back).
import type { Redis } from "ioredis";
import type { Logger } from "../server/ops/log.js";

/** What a channel's user does with another region's message: false when its fields were not well formed. */
export type RegionMessageHandler = (fields: Record<string, unknown>) => boolean;

export class RegionChannel {
  /** Messages dropped: not JSON, too big, no sending region, or fields the handler refused. */
  dropped = 0;
  private readonly subscriber: Redis;

  constructor(
    private readonly region: number,
    private readonly publisher: Redis,
    readonly name: string,
    private readonly maxMessageBytes: number,
    private readonly log: Logger,
    private readonly handle: RegionMessageHandler,
  ) {
    this.subscriber = publisher.duplicate();
    // Its reconnects are the publisher's too: the directory logs the connection's state (directory.ts).
    this.subscriber.on("error", () => {});
  }

  async start(): Promise<void> {
    this.subscriber.on("message", (_channel: string, message: string) => this.onMessage(message));
    await this.subscriber.subscribe(this.name);
  }

  /** Sends `fields` to every other region; a failed publish is logged, as the message is best-effort. */
  publish(fields: Record<string, unknown>): void {
    this.publisher.publish(this.name, JSON.stringify({ from: this.region, ...fields })).catch((error: unknown) => {
      // While Redis is down the directory's one line says so; a failure with it up is worth a line.
      if (this.publisher.status === "ready") this.log.warn(`${this.name}: publish failed`, { error: String(error) });
    });
  }

  private onMessage(message: string): void {
    let parsed: unknown;
    try {
      if (message.length > this.maxMessageBytes) throw new Error("too big");
      parsed = JSON.parse(message);
    } catch {
      this.dropped++;
      return;
    }
    if (typeof parsed !== "object" || parsed === null) {
      this.dropped++;
      return;
    }
    const fields = parsed as Record<string, unknown>;
    if (fields.from === this.region) return; // our own message, delivered to us as well
    if (!Number.isInteger(fields.from) || !this.handle(fields)) this.dropped++;
  }

  async close(): Promise<void> {
    this.subscriber.disconnect();
    await Promise.resolve();
  }
}
