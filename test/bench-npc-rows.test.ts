// The NPC suite's row specs (bench/suites/server.ts parseNpcRows): COUNT[@BUDGET] with "+deltas" or
// "+compact" for what the bots ask for, and "+record" for a server running its flight recorder (the
// recorder's cost is that row against the same row without it).
import { describe, expect, it } from "vitest";
import { parseNpcRows } from "../bench/suites/server.js";

describe("the NPC bench's rows", () => {
  it("read counts, budgets, carriers and the recorder", () => {
    expect(parseNpcRows("20000, 20000+record,0+deltas+record,5@300+compact")).toEqual([
      { npcs: 20000 },
      { npcs: 20000, record: true },
      { npcs: 0, deltas: true, record: true },
      { npcs: 5, compact: true, deltas: true, budgetBase: 300 },
    ]);
    expect(() => parseNpcRows("many+record")).toThrow(/COUNT or COUNT@BUDGET/);
  });
});
