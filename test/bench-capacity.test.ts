// The capacity suite's verdict (bench/suites/capacity.ts, issue 44): a sweep's capacity is the last step that held
// before the first that did not; when the bots' own core was full, the figure is only a lower bound ("≥"), so a
// load generator that ran out is never reported as the server's limit.
import { describe, expect, it } from "vitest";
import { sweepOf, withFailure } from "../bench/suites/capacity.js";

const row = (bots: number, holds: boolean, botsFull = false) => ({ bots, holds, botsFull });

describe("the capacity sweep's verdict", () => {
  it("is the last step that held before the first that did not", () => {
    expect(sweepOf([row(250, true), row(500, true), row(750, false)], [250, 500, 750, 1000])).toEqual({
      capacity: 500,
      stopped: "750 did not hold",
      atLeast: false,
    });
  });

  it("is a lower bound when the bots' core filled, whether that row held or not", () => {
    expect(sweepOf([row(1000, true), row(2000, true, true)], [1000, 2000, 3000])).toMatchObject({
      capacity: 2000,
      atLeast: true,
    });
    const failedFull = sweepOf([row(1000, true), row(2000, false, true)], [1000, 2000, 3000]);
    expect(failedFull).toMatchObject({ capacity: 1000, atLeast: true });
    expect(failedFull.stopped).toContain("bots' core was full at 2000");
  });

  it("is a lower bound when every step held, and zero when the first did not", () => {
    expect(sweepOf([row(100, true), row(200, true)], [100, 200])).toEqual({
      capacity: 200,
      stopped: "the last step held",
      atLeast: true,
    });
    expect(sweepOf([row(250, false)], [250, 500])).toMatchObject({ capacity: 0, atLeast: false });
  });

  it("is a lower bound, saying why, when a row could not be measured", () => {
    const cut = withFailure(sweepOf([row(1000, true)], [1000, 2000, 3000]), "the row at 2000 failed: fetch failed");
    expect(cut).toEqual({ capacity: 1000, stopped: "the row at 2000 failed: fetch failed", atLeast: true });
    expect(withFailure(sweepOf([row(250, false)], [250]), null)).toMatchObject({ capacity: 0, atLeast: false });
  });
});
