// Chat across regions (docs/scaling.md § Chat): a line heard by every session of one region — a
// player's line, a system line, a presence line near a spot — is published on one Redis pub/sub
// channel, and every other region delivers it to its own sessions as if it had been said there. The
// rules of a line (its text rule, the speaker's rate limit, mutes) are applied once, by the region
// that owns the speaker, exactly as in one process (ts/server/talk/chat.ts); the relay only carries lines
// already accepted. Each region publishes on its own connection, so its lines arrive everywhere in
// the order it said them.
import type { Redis } from "ioredis";
import type { ChatService, RelayedLine } from "../server/talk/chat.js";
import type { Logger } from "../server/ops/log.js";
import { RegionChannel } from "./region-channel.js";

/** What one relayed message may weigh: a line is at most a few hundred bytes. */
const MAX_MESSAGE_BYTES = 4096;

export interface ChatRelayStats {
  published: number;
  received: number;
  /** Messages that were not a relayed line (not JSON, too big, bad fields), dropped. */
  dropped: number;
}

export class ChatRelay {
  private published = 0;
  private received = 0;
  private readonly channel: RegionChannel;

  constructor(
    region: number,
    publisher: Redis,
    private readonly chat: ChatService,
    log: Logger,
    prefix = "fc:",
  ) {
    this.channel = new RegionChannel(region, publisher, `${prefix}chat`, MAX_MESSAGE_BYTES, log, ({ line }) => {
      if (typeof line !== "object" || line === null || !this.chat.deliverRelayed(line as RelayedLine)) return false;
      this.received++;
      return true;
    });
  }

  get stats(): ChatRelayStats {
    return { published: this.published, received: this.received, dropped: this.channel.dropped };
  }

  async start(): Promise<void> {
    await this.channel.start();
    this.chat.relay = (line) => {
      this.published++;
      this.channel.publish({ line });
    };
  }

  async close(): Promise<void> {
    this.chat.relay = null;
    await this.channel.close();
  }
}
