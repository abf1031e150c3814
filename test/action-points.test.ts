// The action-point schedule (ts/action-points.ts): when entity ticks fall, and how they sit beside the
// players' movement windows (ts/window.ts).
import { describe, expect, it } from "vitest";
import { ENTITY_TICK_EVERY, entityTickOf, isEntityTick } from "../ts/action-points.js";
import { TICK_HZ } from "../ts/constants.js";
import { executesWindow } from "../ts/window.js";

describe("entity ticks", () => {
  it("fall on every 2nd simulation tick, 12 a second, numbered one after another", () => {
    const entityTicks: number[] = [];
    for (let tick = 1; tick <= TICK_HZ * 10; tick++) if (isEntityTick(tick)) entityTicks.push(tick);
    expect(entityTicks.length).toBe((TICK_HZ * 10) / ENTITY_TICK_EVERY);
    for (let index = 1; index < entityTicks.length; index++) {
      expect(entityTicks[index] - entityTicks[index - 1]).toBe(ENTITY_TICK_EVERY);
      expect(entityTickOf(entityTicks[index])).toBe(entityTickOf(entityTicks[index - 1]) + 1);
    }
  });

  it("never share a tick with a movement window, so the players' moves and the NPCs' are on different ticks", () => {
    let windows = 0;
    for (let tick = 0; tick <= TICK_HZ * 60; tick++) {
      if (!executesWindow(tick)) continue;
      windows++;
      expect(isEntityTick(tick), `tick ${tick} runs a window and an entity tick`).toBe(false);
    }
    expect(windows).toBeGreaterThan(0);
  });
});
