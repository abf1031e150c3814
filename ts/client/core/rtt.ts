// Round-trip time: automatic pings once a second, smoothed the way TCP does it
// (RFC 6298: srtt gains 1/8 of each error, rttvar 1/4), so one delayed pong
// nudges the estimate instead of yanking the scheduling lead around.
//
// The ping's timestamp_ms carries the local send time in whole milliseconds;
// the server echoes it verbatim, so a pong names the ping it answers even when
// pongs are lost or reordered. The exact send time is kept locally for the
// few pings in flight.

/** Before the first pong: a typical internet round trip, so the first steps are not scheduled hopelessly late. */
export const INITIAL_RTT_MS = 100;
/** Pings awaiting a pong; older ones are forgotten (their pongs are then ignored). */
const OUTSTANDING_MAX = 8;

export class RttEstimator {
  smoothedMs: number;
  varianceMs: number;
  samples = 0;
  lastSampleMs = NaN;

  constructor(readonly initialMs = INITIAL_RTT_MS) {
    this.smoothedMs = initialMs;
    this.varianceMs = initialMs / 2;
  }

  addSample(rttMs: number): void {
    const sample = Math.max(0, rttMs);
    this.lastSampleMs = sample;
    if (this.samples === 0) {
      this.smoothedMs = sample;
      this.varianceMs = sample / 2;
    } else {
      this.varianceMs += (Math.abs(this.smoothedMs - sample) - this.varianceMs) / 4;
      this.smoothedMs += (sample - this.smoothedMs) / 8;
    }
    this.samples++;
  }
}

/** The pings the loss estimate looks back over (one a second: the last 20 s), and how long a pong may take. */
export const PING_LOSS_WINDOW = 20;
export const PONG_TIMEOUT_MS = 2000;

export class Pinger {
  private readonly outstanding = new Map<bigint, number>();
  private lastSentMs = -Infinity;
  /** The last PING_LOSS_WINDOW pings: when each was sent, and whether its pong came. */
  private readonly recent: { stamp: bigint; sentMs: number; answered: boolean }[] = [];
  sent = 0;
  answered = 0;

  constructor(readonly intervalMs = 1000) {}

  /** Whether a ping is due at `nowMs`. */
  due(nowMs: number): boolean {
    return nowMs - this.lastSentMs >= this.intervalMs;
  }

  /** Records a ping sent at `nowMs`; returns the timestamp_ms to put in it. */
  send(nowMs: number): bigint {
    this.lastSentMs = nowMs;
    this.sent++;
    const stamp = BigInt(Math.max(0, Math.floor(nowMs)));
    this.outstanding.delete(stamp);
    this.outstanding.set(stamp, nowMs);
    if (this.outstanding.size > OUTSTANDING_MAX) this.outstanding.delete(this.outstanding.keys().next().value!);
    this.recent.push({ stamp, sentMs: nowMs, answered: false });
    if (this.recent.length > PING_LOSS_WINDOW) this.recent.shift();
    return stamp;
  }

  /**
   * Round trips lost, in percent of the recent pings whose pong is overdue or came (a ping younger than
   * PONG_TIMEOUT_MS is still in flight and not counted); 0 before any is decided. A real loss measure
   * whatever the server sends: every ping is answered.
   */
  lossPercent(nowMs: number): number {
    let decided = 0;
    let lost = 0;
    for (const ping of this.recent) {
      if (ping.answered) decided++;
      else if (nowMs - ping.sentMs >= PONG_TIMEOUT_MS) {
        decided++;
        lost++;
      }
    }
    return decided > 0 ? (100 * lost) / decided : 0;
  }

  /** The round trip a pong with `stamp` completes, or null for an unknown or repeated pong. */
  receive(stamp: bigint, nowMs: number): number | null {
    const sentMs = this.outstanding.get(stamp);
    if (sentMs === undefined) return null;
    this.outstanding.delete(stamp);
    this.answered++;
    for (const ping of this.recent) if (ping.stamp === stamp) ping.answered = true;
    return nowMs - sentMs;
  }

  reset(): void {
    this.outstanding.clear();
    this.recent.length = 0;
    this.lastSentMs = -Infinity;
  }
}
