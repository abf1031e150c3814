// The console's world answer at a gateway, shared by the consoles that ask (issue 43: "many consoles at
// once: bounded cost to the server"). Each open console asks for the whole world every second, and each ask
// at a gateway is a request to every region — HTTP parsed on the thread that runs the region's tick — and
// their answers put together. Shared here for as long as a region shares its own (WORLD_ANSWER_MAX_AGE_MS,
// console-world-answer.ts), and while it is being put together: ten consoles cost the regions what one does.
// Only with the login that was answered: a request presenting another (a wrong one included) is asked of the
// regions, which check it and log a refusal; the login is kept as its SHA-256 digest, never as it is.
import { createHash } from "node:crypto";
import { WORLD_ANSWER_MAX_AGE_MS } from "../server/http/console-world-answer.js";
import type { AdminAnswer } from "./admin-fanout.js";

export class SharedAnswer {
  /** Asks answered by the regions, and asks answered with one being (or just) put together. */
  readonly stats = { asked: 0, shared: 0 };
  private entry: { login: string; atMs: number; answer: Promise<AdminAnswer> } | null = null;

  constructor(private readonly maxAgeMs = WORLD_ANSWER_MAX_AGE_MS) {}

  /** The answer for a request presenting `authorization`: a shared one young enough, else `ask()`'s, shared from now. */
  get(authorization: string | undefined, nowMs: number, ask: () => Promise<AdminAnswer>): Promise<AdminAnswer> {
    const login = createHash("sha256")
      .update(authorization ?? "")
      .digest("hex");
    const entry = this.entry;
    if (entry !== null && entry.login === login && nowMs - entry.atMs < this.maxAgeMs) {
      this.stats.shared++;
      return entry.answer;
    }
    this.stats.asked++;
    const answer = ask();
    const shared = { login, atMs: nowMs, answer };
    this.entry = shared;
    // Only a world is shared: a refusal, or a region that did not answer, is asked again next time.
    const forget = () => {
      if (this.entry === shared) this.entry = null;
    };
    answer.then((result) => result.status !== 200 && forget(), forget);
    return answer;
  }
}
