// The chaos run's faults (docs/scaling.md § The chaos run): when, what and how, drawn from one seed so a
// run that found something can be run again the same way. A pure plan; the run carries it out.
import { SeededRandom } from "../../netsim/index.js";

/** A part of the cluster a fault hits, by the launcher's names (supervisor.ts): "region 1", "gateway 0", "redis-server", "postgres". */
export type FaultTarget = string;

/** SIGKILL: the process dies and the launcher starts it again. SIGSTOP: it freezes for `stopMs`, then SIGCONT. */
export type FaultSignal = "SIGKILL" | "SIGSTOP";

export interface Fault {
  /** Since the run's faults began. */
  readonly atMs: number;
  readonly target: FaultTarget;
  readonly signal: FaultSignal;
  /** How long a SIGSTOP holds the process (0 for a SIGKILL). */
  readonly stopMs: number;
}

export interface FaultPlanOptions {
  readonly seed: number;
  /** Faults are planned in [firstAtMs, durationMs - quietEndMs). */
  readonly durationMs: number;
  readonly targets: readonly FaultTarget[];
  /** The mean gap between two faults; each gap is drawn in [minGapMs, 2 × mean − minGapMs]. */
  readonly meanGapMs: number;
  /** The shortest gap: the cluster is given time to heal before the next fault, so each one's recovery is its own. */
  readonly minGapMs: number;
  readonly firstAtMs: number;
  /** No fault in the run's last stretch: every player must be seen playing again before it ends. */
  readonly quietEndMs: number;
  /** A SIGSTOP lasts [1 s, maxStopMs]. */
  readonly maxStopMs: number;
}

/** The faults of a run, in time order. */
export function planFaults(options: FaultPlanOptions): Fault[] {
  if (options.targets.length === 0) throw new Error("no fault targets");
  if (options.minGapMs > options.meanGapMs) throw new Error("the shortest gap is longer than the mean gap");
  const random = new SeededRandom(options.seed);
  const faults: Fault[] = [];
  const endMs = options.durationMs - options.quietEndMs;
  let atMs = options.firstAtMs;
  while (atMs < endMs) {
    const target = options.targets[Math.floor(random.nextFloat() * options.targets.length)];
    const signal: FaultSignal = random.nextFloat() < 0.5 ? "SIGKILL" : "SIGSTOP";
    const stopMs = signal === "SIGSTOP" ? Math.round(1000 + random.nextFloat() * (options.maxStopMs - 1000)) : 0;
    faults.push({ atMs: Math.round(atMs), target, signal, stopMs });
    const spread = 2 * (options.meanGapMs - options.minGapMs);
    atMs += stopMs + options.minGapMs + random.nextFloat() * spread;
  }
  return faults;
}
