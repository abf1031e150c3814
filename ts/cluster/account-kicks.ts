// A login of a character another region plays (docs/scaling.md § Accounts): in one process a second
// login replaces the session in play; in a cluster the region holding the character's lease is asked,
// over one Redis pub/sub channel, to end its session. Ending it saves the character and gives the
// lease back (pg-accounts.ts), and the login, which waits for the lease a little, goes on with it.
// The ask carries only an account id, and the login that sent it has already checked the password:
// a region believes it because only regions publish on the channel (Redis is inside the cluster).
import type { Redis } from "ioredis";
import type { Game } from "../server/game-server.js";
import type { Logger } from "../server/log.js";
import { REPLACED_ELSEWHERE } from "../server/session-lifecycle.js";

const MAX_MESSAGE_BYTES = 256;

export class AccountKicks {
  readonly stats = { asked: 0, ended: 0, dropped: 0 };
  private readonly subscriber: Redis;
  private readonly channel: string;

  constructor(
    private readonly region: number,
    private readonly publisher: Redis,
    private readonly game: Pick<Game, "sessionOfAccount" | "leave">,
    private readonly log: Logger,
    prefix = "fc:",
  ) {
    this.channel = `${prefix}kick`;
    this.subscriber = publisher.duplicate();
  }

  async start(): Promise<void> {
    this.subscriber.on("message", (_channel: string, message: string) => this.onMessage(message));
    await this.subscriber.subscribe(this.channel);
  }

  /** Asks whichever region plays `accountId`'s character to end that session. */
  ask(accountId: number): void {
    this.stats.asked++;
    this.publisher
      .publish(this.channel, JSON.stringify({ from: this.region, accountId }))
      .catch((error: unknown) => this.log.warn("account kick: publish failed", { error: String(error) }));
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
    const { from, accountId } = (parsed ?? {}) as { from?: unknown; accountId?: unknown };
    if (from === this.region) return;
    if (!Number.isSafeInteger(accountId)) {
      this.stats.dropped++;
      return;
    }
    const session = this.game.sessionOfAccount(accountId as number);
    if (session === undefined) return;
    this.stats.ended++;
    this.game.leave(session, REPLACED_ELSEWHERE);
  }

  async close(): Promise<void> {
    this.subscriber.disconnect();
    await Promise.resolve();
  }
}
