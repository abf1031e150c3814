// A session's round trip as the server sees it, for the operators' console (docs/server.md § Admin): the time
// from a broadcast leaving (its tick's lists, stamped when the broadcast round began) to the client's
// acknowledgement naming that tick (an EntityAck or CompactAck, P-21/P-25) arriving. No packet is added: the
// acknowledgements a delta client sends anyway are timed. A client acknowledges at most every 500 ms and names
// the newest list it holds, which may have arrived up to one broadcast before the acknowledgement left, so a
// single sample can be long by that much; the lowest of the last few is the figure shown (each is a round trip
// plus a delay, never less than the round trip). It includes the server's own waits — the rest of the tick
// before a broadcast's datagrams are sent, a busy tick before an acknowledgement is read — which is what a
// player's packets live through. A figure to look at: nothing in the world reads it.

/** The samples the lowest is taken over: 8 acknowledgements, about 4 s of a client that acknowledges twice a second. */
export const ROUND_TRIP_SAMPLES = 8;

export class RoundTrip {
  private readonly recent = new Float64Array(ROUND_TRIP_SAMPLES);
  /** Samples taken in all. */
  samples = 0;
  /** The newest sample (ms), NaN before the first. */
  lastMs = NaN;

  /** A broadcast sent at `sentAtMs` was acknowledged at `nowMs` (one clock: performance.now()). */
  add(sentAtMs: number, nowMs: number): void {
    const sample = nowMs - sentAtMs;
    if (!(sample >= 0)) return; // no stamp (NaN), or clocks out of order: nothing learnt
    this.recent[this.samples % ROUND_TRIP_SAMPLES] = sample;
    this.samples++;
    this.lastMs = sample;
  }

  /** The lowest of the last ROUND_TRIP_SAMPLES samples (ms), or null before the first. */
  lowMs(): number | null {
    if (this.samples === 0) return null;
    let low = Infinity;
    for (let index = 0; index < Math.min(this.samples, ROUND_TRIP_SAMPLES); index++) {
      low = Math.min(low, this.recent[index]);
    }
    return low;
  }
}
