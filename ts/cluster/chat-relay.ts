// Chat across regions (docs/scaling.md § Chat): a line heard by every session of one region — a
// player's line, a system line, a presence line near a spot — is published on one Redis pub/sub
// channel, and every other region delivers it to its own sessions as if it had been said there. The
// rules of a line (its text rule, the speaker's rate limit, mutes) are applied once, by the region
// that owns the speaker, exactly as in one process (ts/server/talk/chat.ts); the relay only carries lines
// already accepted. Each region publishes on its own connection, so its lines arrive everywhere in
// the order it said them.
//
// Private lines (issue 39, docs/social.md) travel the same channel: a /tell for nobody in the sender's
// region is published as {tell}; the region whose player it names delivers it (ignores and all, by that
// player's rules) and answers {answer, to} to the sender's region, which echoes it to the sender — or,
// hearing nothing within a few seconds, tells the sender nobody has that nick. And an account's player
// coming or going ({presence}) is heard by every region, whose players who keep it as a friend are told;
// and "Ada added you as a friend." ({befriended}) is told by the region that plays the new friend.
import type { Redis } from "ioredis";
import type { ChatService, RelayedLine } from "../server/talk/chat.js";
import type { RemoteTell, RemoteTellAnswer, SocialRoom } from "../server/social/social-room.js";
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
    private readonly region: number,
    publisher: Redis,
    private readonly chat: ChatService,
    log: Logger,
    prefix = "fc:",
    /** The region's social room: private lines across regions (none: only the lines everyone hears). */
    private readonly social: Pick<
      SocialRoom,
      "deliverRemote" | "remoteAnswered" | "remote" | "friendCameOrWent" | "befriendedHere"
    > | null = null,
  ) {
    this.channel = new RegionChannel(region, publisher, `${prefix}chat`, MAX_MESSAGE_BYTES, log, (fields) => {
      if ("tell" in fields) return this.onTell(fields.from as number, fields.tell);
      if ("answer" in fields) return this.onAnswer(fields.to, fields.answer);
      if ("presence" in fields) return this.onPresence(fields.presence);
      if ("befriended" in fields) return this.onBefriended(fields.befriended);
      const line = fields.line;
      if (typeof line !== "object" || line === null || !this.chat.deliverRelayed(line as RelayedLine)) return false;
      this.received++;
      return true;
    });
  }

  /** A private line from region `from`: delivered if its recipient plays here, and answered. */
  private onTell(from: number, tell: unknown): boolean {
    if (this.social === null) return true;
    if (!isRemoteTell(tell)) return false;
    this.received++;
    const answer = this.social.deliverRemote(tell);
    if (answer !== null) this.channel.publish({ to: from, answer });
    return true;
  }

  /** Another region's answer to a private line: this region's when `to` names it. */
  private onAnswer(to: unknown, answer: unknown): boolean {
    if (to !== this.region || this.social === null) return Number.isInteger(to);
    if (!isAnswer(answer)) return false;
    this.received++;
    this.social.remoteAnswered(answer);
    return true;
  }

  /** Tells the other regions an account's player came or went (SocialElsewhere.presence). */
  presence(accountId: number, nick: string, online: boolean): void {
    this.published++;
    this.channel.publish({ presence: { accountId, nick, online } });
  }

  private onPresence(presence: unknown): boolean {
    if (this.social === null) return true;
    if (typeof presence !== "object" || presence === null) return false;
    const { accountId, nick, online } = presence as Record<string, unknown>;
    if (!Number.isSafeInteger(accountId) || typeof nick !== "string" || nick.length > 64 || typeof online !== "boolean")
      return false;
    this.received++;
    this.social.friendCameOrWent(accountId as number, nick, online);
    return true;
  }

  /** Tells the other regions that `by` added an account as a friend (SocialElsewhere.befriended). */
  befriended(accountId: number, by: { nick: string; key: string }): void {
    this.published++;
    this.channel.publish({ befriended: { accountId, nick: by.nick, key: by.key } });
  }

  private onBefriended(befriended: unknown): boolean {
    if (this.social === null) return true;
    if (typeof befriended !== "object" || befriended === null) return false;
    const { accountId, nick, key } = befriended as Record<string, unknown>;
    if (
      !Number.isSafeInteger(accountId) ||
      typeof nick !== "string" ||
      nick.length > 64 ||
      typeof key !== "string" ||
      key.length > 200
    )
      return false;
    this.received++;
    this.social.befriendedHere(accountId as number, { nick, key });
    return true;
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
    if (this.social !== null)
      this.social.remote = (tell) => {
        this.published++;
        this.channel.publish({ tell });
      };
  }

  async close(): Promise<void> {
    this.chat.relay = null;
    if (this.social !== null) this.social.remote = null;
    await this.channel.close();
  }
}

const SHORT_TEXT = 400;

function isRemoteTell(value: unknown): value is RemoteTell {
  if (typeof value !== "object" || value === null) return false;
  const tell = value as Record<string, unknown>;
  return (
    Number.isInteger(tell.id) &&
    typeof tell.fromNick === "string" &&
    tell.fromNick.length <= 64 &&
    typeof tell.fromKey === "string" &&
    tell.fromKey.length <= 200 &&
    (tell.fromAccount === null || Number.isInteger(tell.fromAccount)) &&
    typeof tell.rest === "string" &&
    tell.rest.length <= SHORT_TEXT
  );
}

function isAnswer(value: unknown): value is RemoteTellAnswer {
  if (typeof value !== "object" || value === null) return false;
  const answer = value as Record<string, unknown>;
  return (
    Number.isInteger(answer.id) &&
    (answer.outcome === "delivered" || answer.outcome === "ignored" || answer.outcome === "empty") &&
    typeof answer.toNick === "string" &&
    answer.toNick.length <= 64 &&
    typeof answer.text === "string" &&
    answer.text.length <= SHORT_TEXT
  );
}
