// SampleWindow percentiles: the nearest-rank percentile of the samples held
// (the last `size` added, or the newest `last` of them), the same after the ring
// wraps and between adds.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SampleWindow } from "../ts/server/ops/metrics.js";

function nearestRank(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

describe("SampleWindow", () => {
  it("gives the nearest-rank percentile of the last `size` samples", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }),
        fc.array(fc.array(fc.double({ min: 0, max: 1000, noNaN: true }), { maxLength: 30 }), { maxLength: 5 }),
        (size, batches) => {
          const window = new SampleWindow(size);
          const all: number[] = [];
          expect(window.percentile(50)).toBe(0);
          for (const batch of batches) {
            for (const value of batch) {
              window.add(value);
              all.push(value);
            }
            const held = all.slice(-size);
            for (const p of [0, 1, 50, 90, 99, 100]) expect(window.percentile(p)).toBe(nearestRank(held, p));
            // The newest `last` only (a benchmark's measurement window), asked in between full ones.
            for (const last of [1, 3, size, size + 5]) {
              for (const p of [0, 50, 99, 100]) {
                expect(window.percentile(p, last)).toBe(nearestRank(held.slice(-last), p));
              }
            }
            expect(window.size).toBe(held.length);
          }
        },
      ),
      { seed: 3, numRuns: 300 },
    );
  });
});
