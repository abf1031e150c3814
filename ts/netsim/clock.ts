// Time source and timers for the impairment core. Injected so tests (and headless bots) can run a link on a
// virtual clock, deterministically and without waiting; production uses the platform's clock.

/** Opaque handle of a pending timer. */
export type TimerHandle = unknown;

/** What the impairment core needs from time: a monotonic "now" and one-shot timers. */
export interface Clock {
  /** Monotonic time in milliseconds (any origin; may be fractional). */
  nowMs(): number;
  /** Calls callback once, delayMs (may be fractional) from now. */
  setTimer(callback: () => void, delayMs: number): TimerHandle;
  /** Cancels a timer that has not fired yet; cancelling a fired or cancelled timer does nothing. */
  clearTimer(handle: TimerHandle): void;
}

/** The platform clock: performance.now() and setTimeout. Works in Node and in browsers. */
export const realClock: Clock = {
  nowMs: () => performance.now(),
  // setTimeout truncates fractional delays, which would fire early; round up instead.
  setTimer: (callback, delayMs) => setTimeout(callback, Math.max(0, Math.ceil(delayMs))),
  clearTimer: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

interface VirtualTimer {
  dueMs: number;
  order: number;
  callback: () => void;
}

/**
 * A clock that only moves when told to. Timers fire in due order (ties in the order they were set), from inside
 * advanceBy/advanceTo, each with nowMs() equal to its due time; timers set by a firing callback that fall inside
 * the advanced span fire in the same call.
 */
export class VirtualClock implements Clock {
  private currentMs: number;
  private nextOrder = 0;
  private readonly timers = new Set<VirtualTimer>();

  constructor(startMs = 0) {
    this.currentMs = startMs;
  }

  nowMs(): number {
    return this.currentMs;
  }

  setTimer(callback: () => void, delayMs: number): TimerHandle {
    const timer: VirtualTimer = { dueMs: this.currentMs + Math.max(0, delayMs), order: this.nextOrder++, callback };
    this.timers.add(timer);
    return timer;
  }

  clearTimer(handle: TimerHandle): void {
    this.timers.delete(handle as VirtualTimer);
  }

  /** Timers not yet fired or cleared. */
  get pendingTimerCount(): number {
    return this.timers.size;
  }

  /** Due time of the earliest pending timer, or undefined when none is pending. */
  nextDueMs(): number | undefined {
    return this.earliest()?.dueMs;
  }

  /** Moves time forward by deltaMs, firing every timer that falls due on the way. */
  advanceBy(deltaMs: number): void {
    if (!(deltaMs >= 0)) throw new RangeError(`advanceBy needs a non-negative delta, got ${deltaMs}`);
    this.advanceTo(this.currentMs + deltaMs);
  }

  /** Moves time forward to targetMs (never backwards), firing every timer due at or before it. */
  advanceTo(targetMs: number): void {
    if (targetMs < this.currentMs) throw new RangeError(`time cannot go back from ${this.currentMs} to ${targetMs}`);
    for (;;) {
      const timer = this.earliest();
      if (timer === undefined || timer.dueMs > targetMs) break;
      this.timers.delete(timer);
      this.currentMs = timer.dueMs;
      timer.callback();
    }
    this.currentMs = targetMs;
  }

  /** Fires timers until none is pending (bounded, so a callback that always re-arms cannot hang a test). */
  runUntilIdle(maxTimers = 1_000_000): void {
    for (let fired = 0; fired < maxTimers; fired++) {
      const dueMs = this.nextDueMs();
      if (dueMs === undefined) return;
      this.advanceTo(Math.max(dueMs, this.currentMs));
    }
    throw new Error(`runUntilIdle: still busy after ${maxTimers} timers`);
  }

  private earliest(): VirtualTimer | undefined {
    // A linear scan: the impairment core keeps at most one timer per link pending, so this set stays tiny.
    let best: VirtualTimer | undefined;
    for (const timer of this.timers) {
      if (best === undefined || timer.dueMs < best.dueMs || (timer.dueMs === best.dueMs && timer.order < best.order)) {
        best = timer;
      }
    }
    return best;
  }
}
