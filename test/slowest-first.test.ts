// The order test files start in (test/support/slowest-first.ts): on a clean clone, with no cache of the
// last run, the kept times put a short file that runs long ahead of large quick ones.
import { describe, expect, it } from "vitest";
import { readKeptDurations, slowestFirst } from "./support/slowest-first.js";

const file = (key: string, cachedMs?: number, groupOrder = 0) => ({
  key,
  groupOrder,
  project: key.slice(0, key.indexOf(":")),
  cachedMs,
});

describe("slowest files first", () => {
  it("orders by group, then project, then the cache's time, else the kept time, else last", () => {
    const kept = new Map([
      ["parallel:test/chaos-run.test.ts", 85_000],
      ["parallel:test/quick.test.ts", 300],
      ["browser, one at a time:test/e2e/a.test.ts", 50_000],
    ]);
    const files = [
      file("browser, one at a time:test/e2e/a.test.ts", undefined, 2),
      file("parallel:test/new.test.ts"),
      file("parallel:test/quick.test.ts"),
      file("parallel:test/cached.test.ts", 20_000),
      file("parallel:test/chaos-run.test.ts"),
      file("one at a time:test/faults.test.ts", 47_000, 1),
    ];
    expect(slowestFirst(files, kept).map((f) => f.key)).toEqual([
      "parallel:test/chaos-run.test.ts",
      "parallel:test/cached.test.ts",
      "parallel:test/quick.test.ts",
      "parallel:test/new.test.ts",
      "one at a time:test/faults.test.ts",
      "browser, one at a time:test/e2e/a.test.ts",
    ]);
    // The cache, when this checkout has one, wins over the kept time.
    const cachedQuick = [file("parallel:test/chaos-run.test.ts", 100), file("parallel:test/quick.test.ts")];
    expect(slowestFirst(cachedQuick, kept).map((f) => f.key)[0]).toBe("parallel:test/quick.test.ts");
  });

  it("reads the kept times of the repository", () => {
    const kept = readKeptDurations();
    expect(kept.size).toBeGreaterThan(100);
    expect(kept.get("parallel:test/chaos-run.test.ts")).toBeGreaterThan(10_000);
  });
});
