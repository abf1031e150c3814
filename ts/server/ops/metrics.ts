// Server counters and duration percentiles, exposed by /api/status (JSON) and
// /metrics (Prometheus text format, http/prometheus.ts).
import { Histogram } from "prom-client";

/** Ticks of timing kept for /api/status: ≈ 43 s at 24 Hz. */
export const TIMING_WINDOW_TICKS = 1024;

/** A fixed-size ring of recent samples; percentiles over the ring. */
export class SampleWindow {
  private readonly samples: Float64Array;
  /** The samples held, in order; rebuilt by the first percentile() after an add(). */
  private readonly sorted: Float64Array;
  private sortedValid = false;
  private sortedCount = 0;
  private count = 0;
  private next = 0;

  constructor(size = TIMING_WINDOW_TICKS) {
    this.samples = new Float64Array(size);
    this.sorted = new Float64Array(size);
  }

  add(value: number): void {
    this.samples[this.next] = value;
    this.next = (this.next + 1) % this.samples.length;
    if (this.count < this.samples.length) this.count++;
    this.sortedValid = false;
  }

  /** How many samples are held (at most the window size). */
  get size(): number {
    return this.count;
  }

  /**
   * The p-th percentile (0..100) of the newest `last` samples held (all of
   * them by default), or 0 when empty. A benchmark asks for just its
   * measurement window, so the warm-up before it does not count.
   */
  percentile(p: number, last = this.count): number {
    const count = Math.min(this.count, Math.max(0, Math.floor(last)));
    if (count === 0) return 0;
    // One numeric sort serves every percentile asked before the next sample (a status call asks for several).
    if (!this.sortedValid || this.sortedCount !== count) {
      const sorted = this.sorted.subarray(0, count);
      const size = this.samples.length;
      for (let i = 0; i < count; i++) sorted[i] = this.samples[(this.next - 1 - i + 2 * size) % size];
      sorted.sort();
      this.sortedValid = true;
      this.sortedCount = count;
    }
    const index = Math.min(count - 1, Math.max(0, Math.ceil((p / 100) * count) - 1));
    return this.sorted[index];
  }
}

/**
 * The histograms' upper bounds, in seconds: fine below a 24 Hz tick's 41.7 ms period (its budget), coarse
 * beyond it, where a tick is already late. Fixed, so every region's histograms add up in a query.
 */
export const TICK_DURATION_BUCKETS_SECONDS = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.02, 0.03, 0.04, 0.05, 0.075, 0.1, 0.25, 0.5, 1,
] as const;

/** A duration histogram for /metrics, registered by the server's own registry (http/prometheus.ts), not the global one. */
function durationHistogram(name: string, help: string): Histogram {
  return new Histogram({ name, help, buckets: [...TICK_DURATION_BUCKETS_SECONDS], registers: [] });
}

export class Metrics {
  datagramsIn = 0;
  datagramsOut = 0;
  bytesIn = 0;
  bytesOut = 0;
  /** Return routability (address-proof.ts): datagrams withheld from unproven addresses, challenges sent, */
  heldUnproven = 0;
  challengesSent = 0;
  /** bytes sent to unproven addresses (challenges only) and received from them. */
  bytesToUnproven = 0;
  bytesFromUnproven = 0;
  /** Unproven addresses that echoed their challenge. */
  addressesProven = 0;
  /** Dropped inbound datagrams by reason (decode error codes, rate limits, unknown tokens, ...). */
  readonly drops = new Map<string, number>();
  /** Scheduling outcomes of offered actions. */
  readonly actions = new Map<string, number>();
  readonly tickMs = new SampleWindow();
  /** How long after its deadline each tick started (tick-loop.ts). */
  readonly tickLateMs = new SampleWindow();
  readonly broadcastMs = new SampleWindow();
  /** Time of the NPC room's part of each entity tick (npc/npc-room.ts). */
  readonly npcMs = new SampleWindow();
  /** Every tick's and broadcast's duration since start, for /metrics (the windows above are /api/status's). */
  readonly tickSeconds = durationHistogram("caves_tick_duration_seconds", "Duration of a simulation tick's work.");
  readonly broadcastSeconds = durationHistogram(
    "caves_broadcast_duration_seconds",
    "Duration of a tick's broadcast phase (State packets built and sent).",
  );

  /** Ticks timed since start: how many of the newest `tickMs` samples are new to a reader that counted before. */
  ticksTimed = 0;

  /** A tick's duration, in ms: into the status window and the /metrics histogram. */
  recordTick(ms: number): void {
    this.ticksTimed++;
    this.tickMs.add(ms);
    this.tickSeconds.observe(ms / 1000);
  }

  /** A broadcast phase's duration, in ms: into the status window and the /metrics histogram. */
  recordBroadcast(ms: number): void {
    this.broadcastMs.add(ms);
    this.broadcastSeconds.observe(ms / 1000);
  }

  drop(reason: string): void {
    this.drops.set(reason, (this.drops.get(reason) ?? 0) + 1);
  }

  action(outcome: string, count = 1): void {
    this.actions.set(outcome, (this.actions.get(outcome) ?? 0) + count);
  }

  totalDrops(): number {
    let total = 0;
    for (const n of this.drops.values()) total += n;
    return total;
  }
}
