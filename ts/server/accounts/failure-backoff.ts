// Backoff after failed logins, per key (an account and an address, an address,
// an account: login-limits.ts says which and when each holds).
// Up to `threshold` failures cost nothing; each failure beyond makes the key
// wait twice as long as the last (1 s, 2 s, 4 s … 15 min), and a wait that is
// still running refuses before any password is hashed. `succeed` clears the
// key; failures older than the forget window no longer count. Without it, one
// address tried 21–25 passwords per second, with no limit and no lockout.
//
// Memory is bounded: at most `maxKeys` keys, the longest-untouched dropped first.

export const BACKOFF_FIRST_MS = 1000;
export const BACKOFF_MAX_MS = 15 * 60 * 1000;
/** Failures this old are forgotten. */
export const FAILURE_FORGET_MS = 60 * 60 * 1000;

interface Record {
  failures: number;
  lastFailureMs: number;
  blockedUntilMs: number;
}

export class FailureBackoff {
  private readonly keys = new Map<string, Record>();

  /** `firstMs`: the first wait, doubled at each further failure up to BACKOFF_MAX_MS. */
  constructor(
    private readonly threshold: number,
    private readonly maxKeys = 100_000,
    private readonly firstMs = BACKOFF_FIRST_MS,
  ) {}

  /** Milliseconds `key` must still wait before its next attempt; 0 when it may try now. */
  waitMs(key: string, nowMs: number): number {
    const record = this.keys.get(key);
    if (!record) return 0;
    if (nowMs - record.lastFailureMs > FAILURE_FORGET_MS) {
      this.keys.delete(key);
      return 0;
    }
    return Math.max(0, record.blockedUntilMs - nowMs);
  }

  /** Records a failed attempt of `key`. */
  fail(key: string, nowMs: number): void {
    let record = this.keys.get(key);
    if (record && nowMs - record.lastFailureMs > FAILURE_FORGET_MS) record = undefined;
    if (!record) record = { failures: 0, lastFailureMs: nowMs, blockedUntilMs: 0 };
    else this.keys.delete(key); // re-inserted below: Map order is the eviction order
    record.failures++;
    record.lastFailureMs = nowMs;
    const beyond = record.failures - this.threshold;
    if (beyond >= 0) record.blockedUntilMs = nowMs + Math.min(BACKOFF_MAX_MS, this.firstMs * 2 ** Math.min(beyond, 30));
    if (this.keys.size >= this.maxKeys) this.keys.delete(this.keys.keys().next().value as string);
    this.keys.set(key, record);
  }

  /** A success: `key` starts afresh. */
  succeed(key: string): void {
    this.keys.delete(key);
  }

  get size(): number {
    return this.keys.size;
  }
}
