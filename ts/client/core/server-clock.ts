// Where the server's tick timeline is right now, from this host's clock.
//
// Every StatePacket says "the server was at tick T when it sent me"; it was
// delayed on the way by some unknown amount, so T - arrival_time (in ticks)
// under-estimates the server's offset by that delay. The least-delayed recent
// packet is the best evidence, so the offset is the maximum over a window of
// recent samples (about two seconds): jitter cannot pull the estimate back,
// yet a server that fell behind (it skips ticks after a stall) is followed
// within the window. The one-way delay is then added back as RTT / 2.
//
// A server under overload may run slower than its nominal rate, every tick's
// period stretched (time dilation, ts/server/ops/overload.ts). Its offsets then
// fall steadily, and the window's maximum — its oldest sample — would put the
// estimate ahead by the drift of two seconds. So the clock also looks at the
// least-delayed sample of each third of a longer history: when both steps
// between them show the same slower rate (a stall shows in one step only), it
// follows the line through the newest of them at that rate.

/** Samples the offset's maximum is taken over: two seconds of States at 12 Hz. */
const SAMPLE_WINDOW = 24;
/** Samples held for the rate: three thirds of this many. */
const HISTORY = 48;
const THIRD = HISTORY / 3;
/** A rate below this share of the nominal one, seen in both steps, is followed; above it, the nominal rate. */
const FOLLOW_RATE_BELOW = 0.95;
/** The two steps' rates agree when they differ by less than this share of the nominal rate. */
const RATE_AGREEMENT = 0.1;
/** The envelope points must be this far apart for a rate to be read between them. */
const MIN_STEP_MS = 500;
/** No rate below this is believed (a server slower than 1/16 of its rate has stopped, not dilated). */
const MIN_RATE = 1 / 16;

export class ServerClock {
  private readonly ticks = new Float64Array(HISTORY);
  private readonly times = new Float64Array(HISTORY);
  private count = 0;
  private next = 0;
  private offsetTicks = 0;
  /** The server's rate as a share of the nominal one: 1, or the slower rate being followed. */
  private rateShare = 1;
  /** With rateShare < 1: the envelope point the line goes through. */
  private anchorTick = 0;
  private anchorMs = 0;

  constructor(readonly tickHz: number) {}

  /** Whether any StatePacket has been seen. */
  get synced(): boolean {
    return this.count > 0;
  }

  /** The server's tick rate as estimated (tickHz, or the slower rate of a dilated server). */
  get estimatedHz(): number {
    return this.tickHz * this.rateShare;
  }

  /** Records that a StatePacket for `tick` arrived at local time `receivedAtMs`. */
  observe(tick: number, receivedAtMs: number): void {
    this.ticks[this.next] = tick;
    this.times[this.next] = receivedAtMs;
    this.next = (this.next + 1) % HISTORY;
    if (this.count < HISTORY) this.count++;
    let best = -Infinity;
    for (let back = 1; back <= Math.min(this.count, SAMPLE_WINDOW); back++) best = Math.max(best, this.offsetOf(back));
    this.offsetTicks = best;
    this.followRate();
  }

  /**
   * Estimated server tick at local time `nowMs` (fractional: tick T is being
   * processed at T.0). NaN before the first StatePacket.
   */
  tickAt(nowMs: number, rttMs: number): number {
    if (this.count === 0) return NaN;
    if (this.rateShare < 1) {
      return this.anchorTick + ((nowMs + rttMs / 2 - this.anchorMs) * this.tickHz * this.rateShare) / 1000;
    }
    return this.offsetTicks + ((nowMs + rttMs / 2) * this.tickHz) / 1000;
  }

  reset(): void {
    this.count = 0;
    this.next = 0;
    this.offsetTicks = 0;
    this.rateShare = 1;
  }

  /** The offset (tick − arrival in nominal ticks) of the sample `back` places before the newest (1: the newest). */
  private offsetOf(back: number): number {
    const index = (this.next - back + HISTORY) % HISTORY;
    return this.ticks[index] - (this.times[index] * this.tickHz) / 1000;
  }

  /** Reads the rate from the least-delayed sample of each third of the history (see the top of the file). */
  private followRate(): void {
    this.rateShare = 1;
    if (this.count < HISTORY) return;
    // Thirds, oldest first: back HISTORY..2·THIRD+1, 2·THIRD..THIRD+1, THIRD..1.
    const a = this.envelopeBack(HISTORY, 2 * THIRD + 1);
    const b = this.envelopeBack(2 * THIRD, THIRD + 1);
    const c = this.envelopeBack(THIRD, 1);
    const first = this.rateBetween(a, b);
    const second = this.rateBetween(b, c);
    if (!(first < FOLLOW_RATE_BELOW && second < FOLLOW_RATE_BELOW)) return;
    if (Math.abs(first - second) > RATE_AGREEMENT) return;
    const rate = this.rateBetween(a, c);
    if (!(rate >= MIN_RATE && rate < FOLLOW_RATE_BELOW)) return;
    const index = (this.next - c + HISTORY) % HISTORY;
    this.rateShare = rate;
    this.anchorTick = this.ticks[index];
    this.anchorMs = this.times[index];
  }

  /** The sample (as `back`) with the largest offset among back from..to (from > to). */
  private envelopeBack(from: number, to: number): number {
    let best = from;
    let bestOffset = this.offsetOf(from);
    for (let back = from - 1; back >= to; back--) {
      const offset = this.offsetOf(back);
      if (offset > bestOffset) {
        bestOffset = offset;
        best = back;
      }
    }
    return best;
  }

  /** The server's rate between two samples (as `back`, older first), as a share of the nominal one; NaN if too close. */
  private rateBetween(older: number, newer: number): number {
    const i = (this.next - older + HISTORY) % HISTORY;
    const j = (this.next - newer + HISTORY) % HISTORY;
    const ms = this.times[j] - this.times[i];
    if (ms < MIN_STEP_MS) return NaN;
    return ((this.ticks[j] - this.ticks[i]) * 1000) / (ms * this.tickHz);
  }
}
