// Server counters and duration percentiles, exposed by /api/status (JSON) and
// /metrics (Prometheus text format).

/** A fixed-size ring of recent samples; percentiles over the ring. */
export class SampleWindow {
  private readonly samples: Float64Array;
  /** The samples held, in order; rebuilt by the first percentile() after an add(). */
  private readonly sorted: Float64Array;
  private sortedValid = false;
  private count = 0;
  private next = 0;

  constructor(size = 1024) {
    this.samples = new Float64Array(size);
    this.sorted = new Float64Array(size);
  }

  add(value: number): void {
    this.samples[this.next] = value;
    this.next = (this.next + 1) % this.samples.length;
    if (this.count < this.samples.length) this.count++;
    this.sortedValid = false;
  }

  /** The p-th percentile (0..100) of the samples held, or 0 when empty. */
  percentile(p: number): number {
    if (this.count === 0) return 0;
    // One numeric sort serves every percentile asked before the next sample (a status call asks for several).
    if (!this.sortedValid) {
      const sorted = this.sorted.subarray(0, this.count);
      sorted.set(this.samples.subarray(0, this.count));
      sorted.sort();
      this.sortedValid = true;
    }
    const index = Math.min(this.count - 1, Math.max(0, Math.ceil((p / 100) * this.count) - 1));
    return this.sorted[index];
  }
}

export class Metrics {
  datagramsIn = 0;
  datagramsOut = 0;
  bytesIn = 0;
  bytesOut = 0;
  /** Dropped inbound datagrams by reason (decode error codes, rate limits, unknown tokens, ...). */
  readonly drops = new Map<string, number>();
  /** Scheduling outcomes of offered actions. */
  readonly actions = new Map<string, number>();
  readonly tickMs = new SampleWindow();
  readonly broadcastMs = new SampleWindow();

  drop(reason: string): void {
    this.drops.set(reason, (this.drops.get(reason) ?? 0) + 1);
  }

  action(outcome: string): void {
    this.actions.set(outcome, (this.actions.get(outcome) ?? 0) + 1);
  }

  totalDrops(): number {
    let total = 0;
    for (const n of this.drops.values()) total += n;
    return total;
  }
}
