// The soak's login brute force: wrong passwords at a fixed rate against the
// target accounts (and names nobody registered), from a few loopback sources
// of its own (127.0.4.x), each reply counted by status. A 200 is a guess that
// got in: a breached defence. The server should answer almost all of them
// 429 (the per-source and per-account backoff) before hashing anything.
import { postJsonFrom } from "./http-from.js";

const SOURCES = 4;
const REQUEST_TIMEOUT_MS = 15_000;

export interface BruteForceCounters {
  guesses: number;
  /** Answers by status ("401", "429", "503", "closed", …). */
  answers: Record<string, number>;
  /** Guesses answered 200: must stay 0. */
  successes: number;
  /** Answer time of the guesses the server hashed (401), and of those it held back (429), ms: the sum, for a mean. */
  hashedMs: number;
  heldBackMs: number;
}

export class BruteForce {
  readonly counters: BruteForceCounters = { guesses: 0, answers: {}, successes: 0, hashedMs: 0, heldBackMs: 0 };
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly httpPort: number,
    private readonly targets: readonly string[],
    private readonly rate: number,
  ) {}

  start(): void {
    if (this.rate <= 0) return;
    this.timer = setInterval(() => this.guess(), Math.max(1, 1000 / this.rate));
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private guess(): void {
    const counters = this.counters;
    const index = counters.guesses++;
    // Every fifth guess names an account nobody registered (a username sweep).
    const name = index % 5 === 4 ? `nobody${index % 97}` : this.targets[index % this.targets.length];
    const from = `127.0.4.${1 + (index % SOURCES)}`;
    const startMs = performance.now();
    postJsonFrom(this.httpPort, "/api/login", { name, password: `guess-${index}` }, from, {}, REQUEST_TIMEOUT_MS).then(
      (reply) => {
        const status = String(reply.status);
        counters.answers[status] = (counters.answers[status] ?? 0) + 1;
        if (reply.status === 200) counters.successes++;
        if (reply.status === 401) counters.hashedMs += performance.now() - startMs;
        if (reply.status === 429) counters.heldBackMs += performance.now() - startMs;
      },
      (error: Error) => {
        const answer = /timeout/.test(error.message) ? "timeout" : "closed";
        counters.answers[answer] = (counters.answers[answer] ?? 0) + 1;
      },
    );
  }
}
