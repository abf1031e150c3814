// How long each fault of a chaos run kept players from playing (docs/scaling.md § The chaos run). Fed a
// sample of every bot's "playing" (a State received lately) every few tens of ms: a bot seen not playing
// after a fault is one it affected, and it is back the first time it is seen playing again — measured
// from the fault. A bot that goes silent while it is still counted against an earlier fault stays that
// fault's. Pure: the run supplies the clock and the samples.

export interface FaultRecovery {
  readonly label: string;
  readonly atMs: number;
  /** Each affected bot's time from the fault to playing again (ms), in bot order; NaN: not back yet. */
  readonly backMs: Map<number, number>;
}

export class RecoveryTracker {
  readonly faults: FaultRecovery[] = [];
  /** The fault each bot that is down now is counted against. */
  private readonly downSince = new Map<number, FaultRecovery>();

  /** A fault happened now. */
  fault(nowMs: number, label: string): void {
    this.faults.push({ label, atMs: nowMs, backMs: new Map() });
  }

  /** Whether each bot plays now (index = bot). */
  sample(nowMs: number, playing: readonly boolean[]): void {
    const current = this.faults.at(-1);
    playing.forEach((isPlaying, bot) => {
      const against = this.downSince.get(bot);
      if (isPlaying) {
        if (against === undefined) return;
        against.backMs.set(bot, nowMs - against.atMs);
        this.downSince.delete(bot);
      } else if (against === undefined && current !== undefined) {
        // Silent with no fault before it is no fault's doing: counted against the latest one all the same,
        // so a bot that never plays again is never left out of the verdict.
        current.backMs.set(bot, NaN);
        this.downSince.set(bot, current);
      }
    });
  }

  /** Bots not back at the end, with the fault they went down after. */
  neverBack(): { bot: number; label: string }[] {
    return [...this.downSince].map(([bot, fault]) => ({ bot, label: fault.label }));
  }
}

/** The value at quantile q (0…1) of `values` (nearest rank); NaN for none. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}
