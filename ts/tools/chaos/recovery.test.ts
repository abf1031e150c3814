import { describe, expect, it } from "vitest";
import { quantile, RecoveryTracker } from "./recovery.js";

describe("the chaos run's recovery times", () => {
  it("counts a bot against the fault it went silent after, back the first time it plays again", () => {
    const tracker = new RecoveryTracker();
    tracker.sample(0, [true, true, true]);
    tracker.fault(1000, "SIGKILL region 1");
    tracker.sample(1100, [true, false, true]);
    tracker.sample(1500, [true, false, false]);
    // A second fault while bot 1 is still down: bot 1 stays the first fault's.
    tracker.fault(2000, "SIGSTOP redis");
    tracker.sample(2100, [false, false, true]);
    tracker.sample(3200, [false, true, true]);
    tracker.sample(4000, [true, true, true]);
    expect([...tracker.faults[0].backMs]).toEqual([
      [1, 2200],
      [2, 1100],
    ]);
    expect([...tracker.faults[1].backMs]).toEqual([[0, 2000]]);
    expect(tracker.neverBack()).toEqual([]);
  });

  it("names the bots never back, and their fault", () => {
    const tracker = new RecoveryTracker();
    tracker.fault(0, "SIGKILL gateway 0");
    tracker.sample(100, [true, false]);
    expect(tracker.neverBack()).toEqual([{ bot: 1, label: "SIGKILL gateway 0" }]);
    expect(tracker.faults[0].backMs.get(1)).toBeNaN();
  });

  it("takes quantiles by nearest rank", () => {
    expect(quantile([5, 1, 3, 2, 4], 0.5)).toBe(3);
    expect(quantile([5, 1, 3, 2, 4], 0.99)).toBe(5);
    expect(quantile([], 0.5)).toBeNaN();
  });
});
