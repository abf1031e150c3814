// Samples the server's health for the console's graphs (ops/health-history.ts): every HEALTH_SAMPLE_MS, the
// figures /metrics reports, read from the same places (prometheus.ts's MetricsSource) — no second measure
// of anything. The tick's p50 and p99 are the status window's own percentile (ops/metrics.ts SampleWindow)
// over the ticks timed since the last sample; counters (ticks lost, think budget spent and shed, bytes) are
// turned into what changed since the last sample, per second where the name says so; gauges are read as
// they stand. Not part of the simulation: it reads, on a timer of its own, and changes nothing.
import { HealthHistory, type HealthSample } from "../ops/health-history.js";
import { type MetricsSource, processMemory } from "./prometheus.js";

/** How often a sample is taken: the event-loop delay's own window (ops/event-loop-delay.ts). */
export const HEALTH_SAMPLE_MS = 5000;
/** How far back the history reaches. */
export const HEALTH_HISTORY_MS = 3_600_000;

/** What the sampler reads: the figures /metrics reads. */
export type HealthSource = Pick<MetricsSource, "metrics" | "sessions" | "skippedTicks" | "eventLoopDelay" | "npcs">;

interface Counters {
  atMs: number;
  ticksTimed: number;
  ticksSkipped: number;
  thinkSpent: number;
  thinkShed: number;
  bytesIn: number;
  bytesOut: number;
}

export class HealthSampler {
  readonly history: HealthHistory;
  private last: Counters | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly source: HealthSource,
    readonly intervalMs = HEALTH_SAMPLE_MS,
    /** The wall clock samples are dated by. */
    private readonly now: () => number = Date.now,
  ) {
    this.history = new HealthHistory(Math.ceil(HEALTH_HISTORY_MS / intervalMs));
  }

  /** Samples every `intervalMs` from now on (the first sample one interval from now). */
  start(): void {
    if (this.timer !== null) return;
    this.sample();
    this.timer = setInterval(() => this.sample(), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }

  /**
   * Reads the figures now: the first call only notes where the counters stand; each later one adds a
   * sample of what happened since the one before.
   */
  sample(): void {
    const counters = this.counters();
    const last = this.last;
    this.last = counters;
    if (last === null) return;
    const seconds = Math.max(1e-3, (counters.atMs - last.atMs) / 1000);
    const ticks = counters.ticksTimed - last.ticksTimed;
    const { metrics, eventLoopDelay, npcs, sessions } = this.source;
    const sample: HealthSample = {
      tickP50Ms: ticks > 0 ? metrics.tickMs.percentile(50, ticks) : NaN,
      tickP99Ms: ticks > 0 ? metrics.tickMs.percentile(99, ticks) : NaN,
      ticksLost: counters.ticksSkipped - last.ticksSkipped,
      thinkSpentPerSecond: (counters.thinkSpent - last.thinkSpent) / seconds,
      thinkShedPerSecond: (counters.thinkShed - last.thinkShed) / seconds,
      players: sessions.size,
      creatures: npcs.size,
      bytesInPerSecond: (counters.bytesIn - last.bytesIn) / seconds,
      bytesOutPerSecond: (counters.bytesOut - last.bytesOut) / seconds,
      eventLoopDelayP99Ms: eventLoopDelay.summary.p99,
      residentMemoryBytes: processMemory.residentBytes(),
      heapUsedBytes: processMemory.heapUsedBytes(),
    };
    this.history.add(counters.atMs, sample);
  }

  private counters(): Counters {
    const { metrics, npcs } = this.source;
    return {
      atMs: this.now(),
      ticksTimed: metrics.ticksTimed,
      ticksSkipped: this.source.skippedTicks(),
      thinkSpent: npcs.stats.budgetSpent,
      thinkShed: npcs.stats.shed,
      bytesIn: metrics.bytesIn,
      bytesOut: metrics.bytesOut,
    };
  }
}
