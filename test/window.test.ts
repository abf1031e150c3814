// The tick ↔ window module (ts/window.ts): properties that tie its functions
// together, and agreement with the formulas it replaced, each as it was written
// at its old site (with the literal 4, 3 and 1000 / 6 those sites used).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { earliestWindow } from "../ts/client/core/scheduler.js";
import { ACTION_WINDOW_HORIZON, TICK_HZ, TICKS_PER_MOVE } from "../ts/constants.js";
import {
  ADDRESSABLE_WINDOWS,
  executesWindow,
  farthestWindow,
  lastWindowConsumedAt,
  NO_TARGET_TICK,
  nextWindowAfter,
  tickOfWindow,
  windowOfTick,
  windowPeriodMs,
  windowsPerSecond,
} from "../ts/window.js";

const windowNumber = fc.integer({ min: 0, max: 2 ** 30 });
const tick = fc.integer({ min: 0, max: 2 ** 32 - 1 }); // target_tick is a u32 on the wire
/**
 * Estimated server ticks on the client: fractional (in 1/1024 tick steps: an estimate is a sum of
 * ms-scale terms, never a denormal), and occasionally negative early on.
 */
const continuousTick = fc.integer({ min: -64 * 1024, max: 2 ** 41 }).map((n) => n / 1024);

describe("tick ↔ window", () => {
  it("addresses a window by the tick it executes on", () => {
    fc.assert(
      fc.property(windowNumber, (w) => {
        expect(windowOfTick(tickOfWindow(w))).toBe(w);
        expect(executesWindow(tickOfWindow(w))).toBe(true);
      }),
      { seed: 11, numRuns: 2000 },
    );
  });

  it("sends a target tick to the first window that executes at or after it", () => {
    fc.assert(
      fc.property(tick, (t) => {
        const executesOn = tickOfWindow(windowOfTick(t));
        expect(executesOn).toBeGreaterThanOrEqual(t);
        expect(executesOn - t).toBeLessThan(TICKS_PER_MOVE);
        expect(executesWindow(t)).toBe(executesOn === t);
      }),
      { seed: 12, numRuns: 5000 },
    );
  });

  it("after a tick that executes window w, w is the last consumed and w + 1 the next", () => {
    fc.assert(
      fc.property(windowNumber, (w) => {
        const t = tickOfWindow(w);
        expect(lastWindowConsumedAt(t)).toBe(w);
        expect(nextWindowAfter(t)).toBe(w + 1);
        // ...and just before it, w itself was still to come.
        expect(nextWindowAfter(t - 1)).toBe(w);
      }),
      { seed: 13, numRuns: 2000 },
    );
  });

  it("splits the timeline at every tick into executed and upcoming windows", () => {
    fc.assert(
      fc.property(continuousTick, (t) => {
        const next = nextWindowAfter(t);
        expect(tickOfWindow(next)).toBeGreaterThan(t);
        expect(tickOfWindow(next - 1)).toBeLessThanOrEqual(t);
        if (t >= 0) expect(lastWindowConsumedAt(t)).toBe(next - 1);
        else expect(lastWindowConsumedAt(t)).toBe(-1);
      }),
      { seed: 14, numRuns: 5000 },
    );
  });

  it("never moves backwards as ticks advance", () => {
    fc.assert(
      fc.property(continuousTick, fc.double({ min: 0, max: 1e6, noNaN: true }), (t, later) => {
        expect(nextWindowAfter(t + later)).toBeGreaterThanOrEqual(nextWindowAfter(t));
        expect(lastWindowConsumedAt(t + later)).toBeGreaterThanOrEqual(lastWindowConsumedAt(t));
      }),
      { seed: 15, numRuns: 2000 },
    );
  });

  it("lets actions address exactly ADDRESSABLE_WINDOWS windows, the horizon beyond the next one", () => {
    fc.assert(
      fc.property(windowNumber, (next) => {
        expect(farthestWindow(next) - next + 1).toBe(ADDRESSABLE_WINDOWS);
        expect(farthestWindow(next) - next).toBe(ACTION_WINDOW_HORIZON);
      }),
      { seed: 16, numRuns: 200 },
    );
  });

  it("gives target tick 0 no window that will ever execute", () => {
    // The server's first step runs tick 1; window 0 would have executed on tick 0.
    expect(windowOfTick(NO_TARGET_TICK)).toBe(0);
    expect(nextWindowAfter(1)).toBeGreaterThan(windowOfTick(NO_TARGET_TICK));
  });

  it("lasts TICKS_PER_MOVE ticks per window at any tick rate", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1000 }), (hz) => {
        expect((windowPeriodMs(hz) * hz) / 1000).toBeCloseTo(TICKS_PER_MOVE, 9);
        expect(windowsPerSecond(hz) * windowPeriodMs(hz)).toBeCloseTo(1000, 9);
      }),
      { seed: 17, numRuns: 500 },
    );
  });
});

describe("agrees with the formulas it replaced", () => {
  it("was written for TICKS_PER_MOVE 4 and ACTION_WINDOW_HORIZON 3", () => {
    // The old sites below hard-code these; if a constant changes, they stop being the old behaviour.
    expect(TICKS_PER_MOVE).toBe(4);
    expect(ACTION_WINDOW_HORIZON).toBe(3);
    expect(TICK_HZ).toBe(24);
  });

  it("on every integer tick of a range", () => {
    // Plain comparisons (an expect per value would take longer than the test's budget); the
    // mismatches, if any, are listed in the failure.
    const mismatches: string[] = [];
    const check = (site: string, t: number, got: number | boolean, old: number | boolean) => {
      if (got !== old) mismatches.push(`${site} at tick ${t}: ${got}, was ${old}`);
    };
    for (let t = -100; t <= 100_000; t++) {
      // server/entities/schedule.ts windowOfTick, tickOfWindow
      if (t >= 0) check("windowOfTick", t, windowOfTick(t), Math.ceil(t / 4));
      check("tickOfWindow", t, tickOfWindow(t), t * 4);
      // server/game-server.ts nextWindow, and step(): tick % 4 === 0 executes window tick / 4
      if (t >= 0) check("nextWindowAfter", t, nextWindowAfter(t), Math.floor(t / 4) + 1);
      if (t >= 1) {
        check("executesWindow", t, executesWindow(t), t % 4 === 0);
        if (t % 4 === 0) check("windowOfTick (executing)", t, windowOfTick(t), t / 4);
      }
      // client/core/prediction.ts ackWindowOfTick
      check("lastWindowConsumedAt", t, lastWindowConsumedAt(t), t < 0 ? -1 : Math.floor(t / 4));
      // bench/server/bots.ts: window = Math.floor(tick / 4) + 1, sent as target tick window * 4
      if (t >= 0) check("bots' target tick", t, tickOfWindow(nextWindowAfter(t)), (Math.floor(t / 4) + 1) * 4);
    }
    expect(mismatches.slice(0, 20)).toEqual([]);
  });

  it("on the client's fractional server ticks (scheduler.ts earliestWindow)", () => {
    const oldEarliestWindow = (serverTick: number, lead: number, tickHz: number) => {
      const arrivalTick = serverTick + (lead * tickHz) / 1000;
      const horizonWindow = Math.floor(serverTick / 4) + 1 + 3;
      return Math.min(Math.floor(arrivalTick / 4) + 1, horizonWindow);
    };
    fc.assert(
      fc.property(
        continuousTick,
        fc.double({ min: 0, max: 5000, noNaN: true }),
        fc.constantFrom(24, 12, 30, 60),
        (serverTick, lead, hz) => {
          expect(earliestWindow(serverTick, lead, hz)).toBe(oldEarliestWindow(serverTick, lead, hz));
          expect(nextWindowAfter(serverTick)).toBe(Math.floor(serverTick / 4) + 1);
        },
      ),
      { seed: 18, numRuns: 5000 },
    );
  });

  it("on the bots' window period (bench/server/bots.ts: 1000 / 6 ms)", () => {
    expect(windowPeriodMs(TICK_HZ)).toBe(1000 / 6);
    expect(windowsPerSecond(TICK_HZ)).toBe(6);
  });
});
