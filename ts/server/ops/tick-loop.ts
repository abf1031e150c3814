// A fixed-rate tick loop on a monotonic clock. Each tick is due one period
// after the last one's deadline; the loop sleeps until the next deadline, so
// timer jitter does not accumulate into drift. If the process falls far behind
// (a GC pause, a suspended laptop), it skips ahead instead of running a burst of
// catch-up ticks, and counts the ticks it skipped. How late each tick ran
// (against its own deadline) goes to `lateMs`: the one figure that says whether
// players' moves execute on time, whatever stalled the loop.
//
// With an overload governor (overload.ts) the period is 1 / hz times the
// governor's stretch: a loop that cannot keep its rate runs slower, evenly (time
// dilation), instead of falling behind and skipping. The governor is told each
// tick's duration and lateness.
import { performance } from "node:perf_hooks";
import type { SampleWindow } from "./metrics.js";

/** What sets the loop's period and hears how each tick went: an OverloadGovernor, or a cluster's world-wide one. */
export interface TickGovernor {
  /** The period's stretch (1: 1 / hz). */
  readonly stretch: number;
  /** After each tick: its work and its lateness in nominal periods, and whether NPC thinking is part of the load. */
  observe(tickPeriods: number, latePeriods: number, npcsThinking: boolean): void;
}

/** What the loop tells its governor after each tick besides its timing: whether NPCs are thinking. */
export interface LoopGovernor {
  readonly governor: TickGovernor;
  /** Whether NPC thinking is part of the load (something to shed before the tick stretches). */
  readonly npcsThinking: () => boolean;
}

/** Never run more than this many overdue ticks back to back. */
const MAX_CATCH_UP_TICKS = 4;
/** How far anchor() moves a deadline, in periods: within the catch-up limit, so a shift never skips a tick. */
const MAX_ANCHOR_TICKS = 3;

export class TickLoop {
  private timer: NodeJS.Timeout | null = null;
  /** The next tick's deadline (performance.now() time). */
  private dueMs = 0;
  skippedTicks = 0;

  constructor(
    private readonly hz: number,
    private readonly onTick: () => void,
    private readonly lateMs?: SampleWindow,
    private readonly governed?: LoopGovernor,
  ) {}

  start(): void {
    if (this.timer) return;
    this.dueMs = performance.now() + this.periodMs();
    this.schedule();
  }

  /** The current period: 1 / hz, stretched by the governor under overload. */
  periodMs(): number {
    return (1000 / this.hz) * (this.governed?.governor.stretch ?? 1);
  }

  /**
   * Moves the next tick's deadline to `dueMs` (performance.now() time): keeps a loop on a timeline kept
   * elsewhere (a cluster's world clock) against timer drift and against falling behind it, without ever
   * running a tick twice or skipping one for it. A deadline up to MAX_ANCHOR_TICKS periods earlier than
   * the one scheduled makes the loop run the ticks it is behind back to back, as after any late start (a
   * region a tick behind stayed a tick behind for good, and its neighbours saw its ghosts a tick late); a
   * larger earlier shift is refused: a stall is the caller's to rejoin. A later deadline, however much
   * later, is always taken: waiting neither skips nor repeats a tick, and a loop ahead of the timeline has
   * no other way back to it (one refused at more than 3 periods ahead stayed ahead for good).
   */
  anchor(dueMs: number): void {
    if (this.timer === null || !Number.isFinite(dueMs)) return;
    if (this.dueMs - dueMs > MAX_ANCHOR_TICKS * this.periodMs()) return;
    this.dueMs = dueMs;
    clearTimeout(this.timer);
    this.schedule();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  get running(): boolean {
    return this.timer !== null;
  }

  private schedule(): void {
    this.timer = setTimeout(() => this.run(), Math.max(0, this.dueMs - performance.now()));
  }

  private run(): void {
    const periodMs = this.periodMs();
    const nowMs = performance.now();
    // The first due tick's lateness against its own deadline, before a skip forgives the stall.
    let lateMs = nowMs - this.dueMs;
    let due = 1 + Math.floor(lateMs / periodMs);
    if (due < 1) {
      // The timer fired a little before the deadline (timers round to whole milliseconds).
      this.schedule();
      return;
    }
    if (due > MAX_CATCH_UP_TICKS) {
      this.skippedTicks += due - 1;
      this.dueMs += (due - 1) * periodMs;
      due = 1;
    }
    for (let i = 0; i < due; i++) {
      if (i > 0) lateMs = performance.now() - this.dueMs;
      this.lateMs?.add(Math.max(0, lateMs));
      // The next deadline is this tick's plus the period in force after it, which the tick itself and the
      // governor hearing of it may change (a cluster's world clock switches period at a tick): the period
      // read before the tick is corrected once it has run, each tick of a catch-up run alike.
      const before = this.periodMs();
      this.dueMs += before;
      const startMs = performance.now();
      this.onTick();
      if (!this.timer) return; // stopped from inside a tick
      this.observe(performance.now() - startMs, lateMs);
      this.dueMs += this.periodMs() - before;
    }
    this.schedule();
  }

  /** Tells the governor how long the tick took and how late it started; the next period follows its stretch. */
  private observe(tickMs: number, lateMs: number): void {
    const governed = this.governed;
    if (governed === undefined) return;
    const nominalMs = 1000 / this.hz;
    governed.governor.observe(tickMs / nominalMs, Math.max(0, lateMs) / nominalMs, governed.npcsThinking());
  }
}
