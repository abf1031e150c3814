// The numbers a bot run prints — live once a second and as a summary at the
// end — kept as plain data with pure formatters, so their shape is tested
// without a server.

/** Nearest-rank percentile (p in 0..100) of `values`; NaN for none. Sorts a copy. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

/**
 * Durations in 0.1 ms buckets up to 10 s (beyond: the last bucket), for
 * percentiles over a whole run in fixed memory — a day of 100 Hz rounds would
 * be 8.6 million samples.
 */
export class DurationHistogram {
  private readonly buckets = new Uint32Array(100_001);
  count = 0;

  add(ms: number): void {
    this.buckets[Math.min(this.buckets.length - 1, Math.max(0, Math.round(ms * 10)))]++;
    this.count++;
  }

  /** Nearest-rank percentile, to 0.1 ms; NaN when empty. */
  percentile(p: number): number {
    if (this.count === 0) return Number.NaN;
    const rank = Math.max(1, Math.ceil((p / 100) * this.count));
    let seen = 0;
    for (let bucket = 0; bucket < this.buckets.length; bucket++) {
      seen += this.buckets[bucket];
      if (seen >= rank) return bucket / 10;
    }
    return Number.NaN; // not reached: the buckets hold `count` samples
  }

  percentiles(): Percentiles {
    return { p50: this.percentile(50), p90: this.percentile(90), p99: this.percentile(99) };
  }
}

export interface Percentiles {
  p50: number;
  p90: number;
  p99: number;
}

export function percentiles(values: readonly number[]): Percentiles {
  return { p50: percentile(values, 50), p90: percentile(values, 90), p99: percentile(values, 99) };
}

/** A live snapshot of the whole swarm. */
export interface LiveFigures {
  elapsedS: number;
  joined: number;
  wanted: number;
  joinFailures: number;
  playing: number;
  /** Bots with steps in flight right now. */
  moving: number;
  /** Smoothed RTT of every playing bot that has had a pong, ms. */
  rttMs: Percentiles;
  corrections: number;
  replans: number;
  /** Replans per minute over the last minute (or the run so far, if shorter). */
  replansPerMinute: number;
  chunkRetransmits: number;
  reconnects: number;
  goalsReached: number;
  datagramsInPerSecond: number;
  datagramsOutPerSecond: number;
  /** Time one loop round (every bot's update and behaviour) took, over the last second, ms. */
  roundMs: Percentiles;
  /** How late the loop's timer fired, over the last second, ms: the event loop's own congestion. */
  lateMs: Percentiles;
}

export interface JoinProgress {
  joined: number;
  failed: number;
  wanted: number;
  /** The last join error, if any. */
  lastError: string;
}

export interface Summary {
  live: LiveFigures;
  /** Datagrams the bots sent in all, and what they were (the rest: cache acks and keep-alives). */
  datagramsOut: number;
  pingsSent: number;
  queriesSent: number;
  chatAcksSent: number;
  retractions: number;
  stepsSent: number;
  goalsSet: number;
  goalsAbandoned: number;
  maxReplansPerGoal: number;
  disconnects: number;
  decodeErrors: number;
  /** Linear memory of one bot's wasm core, MiB (every bot has its own instance). */
  wasmMiBPerBot: number;
  /** Process resident set growth while joining, per joined bot, MiB (all of a bot: core, client, socket). */
  rssMiBPerBot: number;
  rssMiB: number;
  /** Loop round duration and timer lateness over the whole run, ms. */
  runRoundMs: Percentiles;
  runLateMs: Percentiles;
}

const round = (value: number, digits = 0) => (Number.isNaN(value) ? "-" : value.toFixed(digits));

function formatPercentiles(p: Percentiles, digits = 0): string {
  return `p50 ${round(p.p50, digits)} p90 ${round(p.p90, digits)} p99 ${round(p.p99, digits)}`;
}

export function formatProgress(progress: JoinProgress): string {
  const failed = progress.failed > 0 ? ` (failed ${progress.failed}: ${progress.lastError})` : "";
  return `joining ${progress.joined}/${progress.wanted}${failed}`;
}

/** One status line, e.g. "12s joined 200/200 playing 200 moving 143 | rtt p50 3 p90 5 p99 12 ms | ...". */
export function formatLive(figures: LiveFigures): string {
  const parts = [
    `${round(figures.elapsedS)}s joined ${figures.joined}/${figures.wanted} playing ${figures.playing} ` +
      `moving ${figures.moving}`,
    `rtt ${formatPercentiles(figures.rttMs)} ms`,
    `corrections ${figures.corrections}`,
    `replans ${figures.replans} (${round(figures.replansPerMinute)}/min)`,
    `chunk retransmits ${figures.chunkRetransmits}`,
    `goals ${figures.goalsReached}`,
    `loop ${round(figures.roundMs.p99, 1)} ms late ${round(figures.lateMs.p99, 1)} ms`,
  ];
  if (figures.reconnects > 0) parts.push(`reconnects ${figures.reconnects}`);
  if (figures.joinFailures > 0) parts.push(`join failures ${figures.joinFailures}`);
  return parts.join(" | ");
}

export function formatSummary(summary: Summary): string {
  const live = summary.live;
  const perBot = (value: number) => (live.joined > 0 ? (value / live.joined).toFixed(1) : "-");
  return [
    `summary after ${round(live.elapsedS, 1)} s`,
    `  bots        ${live.joined} joined of ${live.wanted} (${live.joinFailures} failed), ${live.playing} playing at the end, ` +
      `${summary.disconnects} disconnected, ${live.reconnects} reconnects`,
    `  movement    ${summary.stepsSent} steps sent (${perBot(summary.stepsSent)} per bot), goals ${summary.goalsSet} set, ` +
      `${live.goalsReached} reached, ${summary.goalsAbandoned} abandoned`,
    `  prediction  ${live.corrections} corrections, ${live.replans} replans (${round(live.replansPerMinute)}/min over ` +
      `the last minute), at most ${summary.maxReplansPerGoal} replans for one goal`,
    `  chunks      ${live.chunkRetransmits} retransmitted requests`,
    `  rtt         ${formatPercentiles(live.rttMs)} ms (smoothed, per bot)`,
    `  traffic     ${round(live.datagramsInPerSecond)} datagrams/s in, ${round(live.datagramsOutPerSecond)} out (last second)`,
    `  sent        ${summary.datagramsOut} datagrams: ${summary.stepsSent} steps, ${summary.retractions} retractions, ` +
      `${summary.pingsSent} pings, ${summary.queriesSent} name queries, ${summary.chatAcksSent} chat acks, ` +
      `${summary.datagramsOut - summary.stepsSent - summary.retractions - summary.pingsSent - summary.queriesSent - summary.chatAcksSent} cache acks and keep-alives`,
    `  loop        round ${formatPercentiles(summary.runRoundMs, 1)} ms, timer late ` +
      `${formatPercentiles(summary.runLateMs, 1)} ms (whole run, one round drives every bot)`,
    `  memory      ${round(summary.wasmMiBPerBot, 1)} MiB wasm per bot, ${round(summary.rssMiBPerBot, 2)} MiB RSS per bot, ` +
      `${round(summary.rssMiB)} MiB RSS in all`,
    `  errors      ${summary.decodeErrors} undecodable datagrams`,
  ].join("\n");
}
