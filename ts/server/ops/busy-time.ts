// The wall time the server spends in one room's calls, added up since start — what `/api/status` shows as
// `scripts.busyMs` for the content scripts (docs/server.md § /api/status), so a benchmark can divide it by
// the room's events. Only the outermost call is timed: a call that reaches the room again inside a timed
// one (a callback run synchronously) is part of the outer call, not counted twice.
import { performance } from "node:perf_hooks";

export class BusyTime {
  private depth = 0;
  private startMs = 0;
  /** Milliseconds spent in timed calls since start. */
  totalMs = 0;

  /** `nowMs` is the clock read at each outermost call's start and end (a test's own clock). */
  constructor(private readonly nowMs: () => number = () => performance.now()) {}

  /** Runs `call`, adding its wall time to totalMs unless it runs inside another timed call; a throw counts too. */
  run<T>(call: () => T): T {
    if (this.depth++ === 0) this.startMs = this.nowMs();
    try {
      return call();
    } finally {
      if (--this.depth === 0) this.totalMs += this.nowMs() - this.startMs;
    }
  }
}
