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

export class Pinger {
  private readonly outstanding = new Map<bigint, number>();
  private lastSentMs = -Infinity;
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
    return stamp;
  }

  /** The round trip a pong with `stamp` completes, or null for an unknown or repeated pong. */
  receive(stamp: bigint, nowMs: number): number | null {
    const sentMs = this.outstanding.get(stamp);
    if (sentMs === undefined) return null;
    this.outstanding.delete(stamp);
    this.answered++;
    return nowMs - sentMs;
  }

  reset(): void {
    this.outstanding.clear();
    this.lastSentMs = -Infinity;
  }
}
