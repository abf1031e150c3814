// A login of a character another region plays (docs/scaling.md § Accounts): in one process a second
// login replaces the session in play; in a cluster the region holding the character's lease is asked,
// over one Redis pub/sub channel, to end its session. Ending it saves the character and gives the
// lease back (pg-accounts.ts), and the login, which waits for the lease a little, goes on with it.
// The ask carries only an account id, and the login that sent it has already checked the password:
// a region believes it because only regions publish on the channel (Redis is inside the cluster).
import type { Redis } from "ioredis";
import type { RegionGame } from "./region-game.js";
import type { Logger } from "../server/ops/log.js";
import { REPLACED_ELSEWHERE } from "../server/session-lifecycle.js";
import { RegionChannel } from "./region-channel.js";

const MAX_MESSAGE_BYTES = 256;

export class AccountKicks {
  private asked = 0;
  private ended = 0;
  private readonly channel: RegionChannel;

  constructor(
    region: number,
    publisher: Redis,
    private readonly game: Pick<RegionGame, "sessionOfAccount" | "leave">,
    log: Logger,
    prefix = "fc:",
  ) {
    this.channel = new RegionChannel(region, publisher, `${prefix}kick`, MAX_MESSAGE_BYTES, log, ({ accountId }) => {
      if (!Number.isSafeInteger(accountId)) return false;
      const session = this.game.sessionOfAccount(accountId as number);
      if (session === undefined) return true; // not played here
      this.ended++;
      this.game.leave(session, REPLACED_ELSEWHERE);
      return true;
    });
  }

  get stats(): { asked: number; ended: number; dropped: number } {
    return { asked: this.asked, ended: this.ended, dropped: this.channel.dropped };
  }

  start(): Promise<void> {
    return this.channel.start();
  }

  /** Asks whichever region plays `accountId`'s character to end that session. */
  ask(accountId: number): void {
    this.asked++;
    this.channel.publish({ accountId });
  }

  close(): Promise<void> {
    return this.channel.close();
  }
}
