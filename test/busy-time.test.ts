// ops/busy-time.ts, the sum behind /api/status scripts.busyMs, on a clock the test moves: the outermost call
// is timed, a call inside it is part of it (not counted twice), and a call that throws still counts.
import { describe, expect, it } from "vitest";
import { BusyTime } from "../ts/server/ops/busy-time.js";

describe("BusyTime", () => {
  it("adds each outermost call's time once, nested calls and throws included", () => {
    let nowMs = 100;
    const busy = new BusyTime(() => nowMs);
    expect(busy.run(() => ((nowMs += 3), "answer"))).toBe("answer");
    expect(busy.totalMs).toBe(3);
    // Outside any call, time passes uncounted.
    nowMs += 50;
    busy.run(() => {
      nowMs += 2;
      // A callback reaching the room again inside the call: part of the outer call's 2 + 4 + 1.
      busy.run(() => (nowMs += 4));
      nowMs += 1;
    });
    expect(busy.totalMs).toBe(10);
    expect(() =>
      busy.run(() => {
        nowMs += 5;
        throw new Error("a handler failed");
      }),
    ).toThrow("a handler failed");
    expect(busy.totalMs).toBe(15);
    // After the throw the next call is an outermost one again.
    busy.run(() => (nowMs += 1));
    expect(busy.totalMs).toBe(16);
  });
});
