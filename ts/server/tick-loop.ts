// A fixed-rate tick loop on a monotonic clock. Each tick is due at
// start + n / hz; the loop sleeps until the next deadline, so timer jitter does
// not accumulate into drift. If the process falls far behind (a GC pause, a
// suspended laptop), it skips ahead instead of running a burst of catch-up
// ticks, and counts the ticks it skipped. How late each tick ran (against its
// own deadline) goes to `lateMs`: the one figure that says whether players'
// moves execute on time, whatever stalled the loop.
import { performance } from "node:perf_hooks";
import type { SampleWindow } from "./metrics.js";

/** Never run more than this many overdue ticks back to back. */
const MAX_CATCH_UP_TICKS = 4;

export class TickLoop {
  private timer: NodeJS.Timeout | null = null;
  private startMs = 0;
  private ticksRun = 0;
  skippedTicks = 0;

  constructor(
    private readonly hz: number,
    private readonly onTick: () => void,
    private readonly lateMs?: SampleWindow,
  ) {}

  start(): void {
    if (this.timer) return;
    this.startMs = performance.now();
    this.ticksRun = 0;
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
    const dueMs = this.startMs + ((this.ticksRun + 1) * 1000) / this.hz;
    this.timer = setTimeout(() => this.run(), Math.max(0, dueMs - performance.now()));
  }

  private run(): void {
    const periodMs = 1000 / this.hz;
    const nowMs = performance.now();
    // The first due tick's lateness against its own deadline, before a skip forgives the stall.
    let lateMs = nowMs - this.startMs - (this.ticksRun + 1) * periodMs;
    const elapsedTicks = Math.floor((nowMs - this.startMs) / periodMs);
    let due = elapsedTicks - this.ticksRun;
    if (due > MAX_CATCH_UP_TICKS) {
      this.skippedTicks += due - 1;
      this.ticksRun += due - 1;
      due = 1;
    }
    for (let i = 0; i < due; i++) {
      this.ticksRun++;
      if (i > 0) lateMs = performance.now() - this.startMs - this.ticksRun * periodMs;
      this.lateMs?.add(Math.max(0, lateMs));
      this.onTick();
      if (!this.timer) return; // stopped from inside a tick
    }
    this.schedule();
  }
}
