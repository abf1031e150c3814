import { describe, expect, it } from "vitest";
import { windowOfTick } from "../../window.js";
import { ActionSlots, OWED_MAX } from "./schedule.js";

describe("tick-addressed action slots", () => {
  it("maps target ticks to windows by ceil(t / 4)", () => {
    expect([1, 4, 5, 8, 9].map(windowOfTick)).toEqual([1, 1, 2, 2, 3]);
  });

  it("replaces an action addressed to the same window (retraction by NOOP)", () => {
    const slots = new ActionSlots();
    expect(slots.offer(41, 2, 10)).toBe("scheduled"); // window 11
    expect(slots.offer(44, 0, 10)).toBe("replaced");
    expect(slots.take(11)).toBe(0);
    expect(slots.take(11)).toBe(-1);
  });

  it("drops windows beyond the horizon and accepts the last addressable one", () => {
    const slots = new ActionSlots();
    expect(slots.offer(4 * 14, 1, 10)).toBe("beyond_horizon");
    expect(slots.offer(4 * 13, 1, 10)).toBe("scheduled");
    expect(slots.take(13)).toBe(1);
  });

  it("takes a carried step one window past the horizon (its old region ran a window ahead), and no further", () => {
    const slots = new ActionSlots();
    // nextWindow 10: a client's own step ends at window 13, a carried one at 14; the ring holds both apart.
    expect(slots.offer(4 * 14, 1, 10)).toBe("beyond_horizon");
    expect(slots.offer(4 * 10, 2, 10, true)).toBe("scheduled");
    expect(slots.offer(4 * 14, 1, 10, true)).toBe("scheduled");
    expect(slots.offer(4 * 15, 1, 10, true)).toBe("beyond_horizon");
    expect(slots.take(10)).toBe(2);
    expect([11, 12, 13].map((window) => slots.take(window))).toEqual([-1, -1, -1]);
    expect(slots.take(14)).toBe(1);
  });

  it("moves late movement actions to the first empty upcoming window, in order", () => {
    const slots = new ActionSlots();
    slots.offer(40, 3, 10); // window 10 taken
    expect(slots.offer(20, 1, 10)).toBe("late_moved"); // -> 11
    expect(slots.offer(24, 2, 10)).toBe("late_moved"); // -> 12
    expect(slots.take(10)).toBe(3);
    expect(slots.take(11)).toBe(1);
    expect(slots.take(12)).toBe(2);
  });

  it("never lets a late action override newer intent and drops late NOOPs", () => {
    const slots = new ActionSlots();
    for (let w = 10; w <= 13; w++) slots.offer(w * 4, 4, 10);
    expect(slots.offer(8, 1, 10)).toBe("late_dropped");
    expect(slots.offer(8, 0, 10)).toBe("late_noop");
    for (let w = 10; w <= 13; w++) expect(slots.take(w)).toBe(4);
  });

  it("holds at most one action per window whatever is offered", () => {
    const slots = new ActionSlots();
    for (let i = 0; i < 10_000; i++) slots.offer(1 + (i % 60), 1 + (i % 8), 10);
    let executed = 0;
    for (let w = 10; w <= 14; w++) if (slots.take(w) >= 0) executed++;
    expect(executed).toBe(4); // windows 10..13 addressable, 14 beyond the horizon
  });

  it("treats target_tick 0 as carrying no intent", () => {
    const slots = new ActionSlots();
    expect(slots.offer(0, 1, 10)).toBe("no_intent");
    expect(slots.peek(10)).toBe(-1);
  });

  it("owes a carried step that missed its window: run in order at the next windows, the client's steps behind it", () => {
    const slots = new ActionSlots();
    slots.offer(4 * 11, 3, 10); // the client's own step for window 11
    expect(slots.offer(4 * 8, 1, 10, true)).toBe("late_owed");
    expect(slots.offer(4 * 9, 2, 10, true)).toBe("late_owed");
    expect(slots.offer(4 * 9, 0, 10, true)).toBe("late_noop");
    expect(slots.owedSteps()).toEqual([1, 2]);
    expect(slots.take(10)).toBe(1);
    expect(slots.take(11)).toBe(2); // window 11's own step (3) is owed behind it
    slots.offer(4 * 12, 0, 12); // a NOOP: no step of its own in window 12, so the owed one fills it
    expect(slots.take(12)).toBe(3);
    expect(slots.take(13)).toBe(-1);
  });

  it("bounds the owed steps, and a teleport drops them with the scheduled ones", () => {
    const slots = new ActionSlots();
    for (let i = 0; i < OWED_MAX; i++) expect(slots.offer(4, 1 + (i % 8), 10, true)).toBe("late_owed");
    expect(slots.offer(4, 1, 10, true)).toBe("owed_dropped");
    // A late step that no handoff carried keeps the one-process rule.
    expect(slots.offer(4, 1, 10)).toBe("late_moved");
    slots.clear();
    expect(slots.owedSteps()).toEqual([]);
    expect(slots.take(10)).toBe(-1);
  });

  it("owes the steps of windows a jumped clock passes over, in order; a NOOP is no step", () => {
    const slots = new ActionSlots();
    slots.offer(40, 1, 10); // window 10
    slots.offer(44, 0, 10); // window 11: a NOOP
    slots.offer(48, 2, 10); // window 12
    slots.offer(52, 3, 10); // window 13, not passed over
    expect(slots.oweSkipped(10, 13)).toEqual({ owed: 2, lost: 0 });
    expect(slots.owedSteps()).toEqual([1, 2]);
    // Windows 13, 14, 15: the owed first, then window 13's own step, owed behind them.
    expect([slots.take(13), slots.take(14), slots.take(15), slots.take(16)]).toEqual([1, 2, 3, -1]);
  });

  it("counts the passed-over steps the full owed queue cannot take", () => {
    const slots = new ActionSlots();
    for (let index = 0; index < OWED_MAX; index++) slots.owe(4);
    slots.offer(40, 1, 10);
    slots.offer(44, 2, 10);
    expect(slots.oweSkipped(10, 12)).toEqual({ owed: 0, lost: 2 });
  });
});
