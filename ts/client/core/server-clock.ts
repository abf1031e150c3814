// Where the server's tick timeline is right now, from this host's clock.
//
// Every StatePacket says "the server was at tick T when it sent me"; it was
// delayed on the way by some unknown amount, so T - arrival_time (in ticks)
// under-estimates the server's offset by that delay. The least-delayed recent
// packet is the best evidence, so the offset is the maximum over a window of
// recent samples (about two seconds): jitter cannot pull the estimate back,
// yet a server that fell behind (it skips ticks after a stall) is followed
// within the window. The one-way delay is then added back as RTT / 2.

/** Samples kept: two seconds of States at 12 Hz. */
const SAMPLE_WINDOW = 24;

export class ServerClock {
  private readonly samples = new Float64Array(SAMPLE_WINDOW);
  private count = 0;
  private next = 0;
  private offsetTicks = 0;

  constructor(readonly tickHz: number) {}

  /** Whether any StatePacket has been seen. */
  get synced(): boolean {
    return this.count > 0;
  }

  /** Records that a StatePacket for `tick` arrived at local time `receivedAtMs`. */
  observe(tick: number, receivedAtMs: number): void {
    this.samples[this.next] = tick - (receivedAtMs * this.tickHz) / 1000;
    this.next = (this.next + 1) % SAMPLE_WINDOW;
    if (this.count < SAMPLE_WINDOW) this.count++;
    let best = -Infinity;
    for (let index = 0; index < this.count; index++) best = Math.max(best, this.samples[index]);
    this.offsetTicks = best;
  }

  /**
   * Estimated server tick at local time `nowMs` (fractional: tick T is being
   * processed at T.0). NaN before the first StatePacket.
   */
  tickAt(nowMs: number, rttMs: number): number {
    if (this.count === 0) return NaN;
    return this.offsetTicks + ((nowMs + rttMs / 2) * this.tickHz) / 1000;
  }

  reset(): void {
    this.count = 0;
    this.next = 0;
    this.offsetTicks = 0;
  }
}
