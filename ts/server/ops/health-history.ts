// The console's health over time (issue 43): the last hour of the server's figures, one sample every few
// seconds, in a ring of fixed size — a console left open for hours, or a server up for months, holds no
// more than `capacity` samples. Each series is a column of numbers (what a chart draws), NaN where a sample
// has no value (no tick ran in it). The figures come from http/health-sampler.ts; this file only keeps them.

/** The series sampled, in the order they are kept and answered. Units are in the names. */
export const HEALTH_SERIES = [
  "tickP50Ms",
  "tickP99Ms",
  "ticksLost",
  "thinkSpentPerSecond",
  "thinkShedPerSecond",
  "players",
  "creatures",
  "bytesInPerSecond",
  "bytesOutPerSecond",
  "eventLoopDelayP99Ms",
  "residentMemoryBytes",
  "heapUsedBytes",
] as const;

export type HealthSeries = (typeof HEALTH_SERIES)[number];
export type HealthSample = Record<HealthSeries, number>;

/** Samples oldest first, column by column; null where a sample had no value (NaN). */
export interface HealthAnswer {
  atMs: number[];
  series: Record<HealthSeries, (number | null)[]>;
}

export class HealthHistory {
  private readonly atMs: Float64Array;
  private readonly columns: Float64Array[];
  private next = 0;
  private count = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new Error(`a history holds at least 1 sample, not ${capacity}`);
    this.atMs = new Float64Array(capacity);
    this.columns = HEALTH_SERIES.map(() => new Float64Array(capacity));
  }

  /** Samples held (at most `capacity`). */
  get size(): number {
    return this.count;
  }

  /** Adds the sample taken at `atMs` (wall clock, increasing); past `capacity` the oldest is forgotten. */
  add(atMs: number, sample: HealthSample): void {
    this.atMs[this.next] = atMs;
    HEALTH_SERIES.forEach((name, column) => {
      this.columns[column][this.next] = sample[name];
    });
    this.next = (this.next + 1) % this.capacity;
    if (this.count < this.capacity) this.count++;
  }

  /** The samples taken after `sinceMs` (every one held by default), oldest first. */
  since(sinceMs = -Infinity): HealthAnswer {
    const first = (this.next - this.count + this.capacity) % this.capacity;
    const indexes: number[] = [];
    for (let i = 0; i < this.count; i++) {
      const index = (first + i) % this.capacity;
      if (this.atMs[index] > sinceMs) indexes.push(index);
    }
    const series = {} as Record<HealthSeries, (number | null)[]>;
    HEALTH_SERIES.forEach((name, column) => {
      const values = this.columns[column];
      series[name] = indexes.map((index) => (Number.isNaN(values[index]) ? null : values[index]));
    });
    return { atMs: indexes.map((index) => this.atMs[index]), series };
  }
}
