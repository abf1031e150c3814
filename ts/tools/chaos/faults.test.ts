import { describe, expect, it } from "vitest";
import { planFaults } from "./faults.js";

const options = {
  seed: 7,
  durationMs: 600_000,
  targets: ["region 0", "region 1", "gateway 0", "gateway 1", "redis-server", "postgres"],
  meanGapMs: 20_000,
  minGapMs: 10_000,
  firstAtMs: 15_000,
  quietEndMs: 30_000,
  maxStopMs: 5_000,
};

describe("the chaos run's fault plan", () => {
  it("is the same for the same seed, and another for another seed", () => {
    expect(planFaults(options)).toEqual(planFaults(options));
    expect(planFaults({ ...options, seed: 8 })).not.toEqual(planFaults(options));
  });

  it("keeps its gaps, its quiet end and its bounds, and hits every kind of target with both signals", () => {
    const faults = planFaults(options);
    expect(faults.length).toBeGreaterThan(15);
    expect(faults[0].atMs).toBe(options.firstAtMs);
    for (let i = 1; i < faults.length; i++) {
      expect(faults[i].atMs - faults[i - 1].atMs).toBeGreaterThanOrEqual(options.minGapMs + faults[i - 1].stopMs - 1);
    }
    expect(faults.at(-1)!.atMs).toBeLessThan(options.durationMs - options.quietEndMs);
    for (const fault of faults) {
      if (fault.signal === "SIGKILL") expect(fault.stopMs).toBe(0);
      else expect(fault.stopMs).toBeGreaterThanOrEqual(1000);
      expect(fault.stopMs).toBeLessThanOrEqual(options.maxStopMs);
    }
    expect(new Set(faults.map((fault) => fault.target)).size).toBe(options.targets.length);
    expect(new Set(faults.map((fault) => fault.signal))).toEqual(new Set(["SIGKILL", "SIGSTOP"]));
  });

  it("refuses a plan without targets", () => {
    expect(() => planFaults({ ...options, targets: [] })).toThrow(/no fault targets/);
  });
});
