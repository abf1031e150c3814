// Token-bucket rate limits for inbound datagrams. What exceeds a limit is
// dropped and counted by the caller, never queued: queuing would turn a flood
// into latency for everyone and memory for the server.

/** A token bucket: `ratePerSecond` refill, `burst` capacity. */
export class TokenBucket {
  private tokens: number;
  private lastMs: number;

  constructor(
    private readonly ratePerSecond: number,
    private readonly burst: number,
    nowMs: number,
  ) {
    this.tokens = burst;
    this.lastMs = nowMs;
  }

  /** Takes one token if available. */
  take(nowMs: number): boolean {
    const elapsedMs = nowMs - this.lastMs;
    if (elapsedMs > 0) {
      this.tokens = Math.min(this.burst, this.tokens + (elapsedMs * this.ratePerSecond) / 1000);
      this.lastMs = nowMs;
    }
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  /** The tokens held at `nowMs` (for a session moving to another process, whose clock is its own). */
  tokensAt(nowMs: number): number {
    return Math.min(this.burst, this.tokens + (Math.max(0, nowMs - this.lastMs) * this.ratePerSecond) / 1000);
  }

  /** Continues another process's bucket: `tokens` held now (clamped to 0…burst). */
  resume(tokens: number, nowMs: number): void {
    this.tokens = Number.isFinite(tokens) ? Math.min(this.burst, Math.max(0, tokens)) : 0;
    this.lastMs = nowMs;
  }

  /** Gives back a token taken for something that did not happen after all (never above the burst). */
  refund(): void {
    this.tokens = Math.min(this.burst, this.tokens + 1);
  }
}

/**
 * Token buckets keyed by source address, with a hard cap on how many addresses
 * are tracked: a spoofing flood of fresh source addresses evicts the oldest
 * entries instead of growing memory.
 */
export class KeyedRateLimiter {
  private readonly buckets = new Map<string, TokenBucket>();

  constructor(
    private readonly ratePerSecond: number,
    private readonly burst: number,
    private readonly maxKeys: number,
  ) {}

  take(key: string, nowMs: number): boolean {
    let bucket = this.buckets.get(key);
    if (!bucket) {
      if (this.buckets.size >= this.maxKeys) {
        // Map iteration order is insertion order: the first key is the oldest.
        const oldest = this.buckets.keys().next().value as string;
        this.buckets.delete(oldest);
      }
      bucket = new TokenBucket(this.ratePerSecond, this.burst, nowMs);
      this.buckets.set(key, bucket);
    }
    return bucket.take(nowMs);
  }

  /** Gives back a token `key` took (a no-op for a key no longer tracked). */
  refund(key: string): void {
    this.buckets.get(key)?.refund();
  }

  get size(): number {
    return this.buckets.size;
  }
}
