// The tick loop's own account of being late (what /api/status reports as
// tickLateMs and ticksSkipped, and the soak reads): a tick that starts after
// its deadline records by how much, and a stall longer than the catch-up limit
// is counted as skipped ticks instead of run as a burst. Real timers.
import { describe, expect, it } from "vitest";
import { SampleWindow } from "../ts/server/ops/metrics.js";
import { TickLoop } from "../ts/server/ops/tick-loop.js";

const HZ = 24;

describe("TickLoop lateness", () => {
  it("records how late each tick started and counts the ticks a long stall skipped", async () => {
    const late = new SampleWindow();
    let ticks = 0;
    const loop = new TickLoop(
      HZ,
      () => {
        ticks++;
        // The third tick blocks the thread for 300 ms: seven ticks' time, more than the 4 the loop catches up.
        if (ticks === 3) {
          const until = performance.now() + 300;
          while (performance.now() < until) {
            // a stalled event loop
          }
        }
      },
      late,
    );
    loop.start();
    await new Promise((resolve) => setTimeout(resolve, 700));
    loop.stop();
    expect(loop.skippedTicks).toBeGreaterThanOrEqual(3);
    // The tick after the stall started about 300 ms late (less what the skip forgave: at most one period).
    expect(late.percentile(100)).toBeGreaterThan(200);
    // An unstalled tick starts within a few ms of its deadline on an idle machine; allow for a loaded one.
    expect(late.percentile(0)).toBeLessThan(40);
    expect(late.size).toBe(ticks);
  });
});

describe("TickLoop anchored to a timeline kept elsewhere", () => {
  it("a loop a tick behind the timeline runs the missed tick at once, back to back, and is on it again", async () => {
    let ticks = 0;
    const loop = new TickLoop(HZ, () => ticks++, new SampleWindow());
    const periodMs = 1000 / HZ;
    loop.start();
    // Half-way between two ticks: the loop's next deadline is half a period ahead.
    await new Promise((resolve) => setTimeout(resolve, 3.5 * periodMs));
    // The timeline says the next tick was due a period ago: this loop is a tick and a half behind it.
    const before = ticks;
    loop.anchor(performance.now() - periodMs);
    // The loop's timer fires first among those due now: it runs the tick it is behind and the one due.
    await new Promise((resolve) => setTimeout(resolve, 0));
    const caughtUp = ticks - before;
    // A shift beyond the catch-up bound is left alone (a stall is the caller's to rejoin): taken, it would
    // have made the loop skip ten ticks.
    const skipped = loop.skippedTicks;
    loop.anchor(performance.now() - 10 * periodMs);
    await new Promise((resolve) => setTimeout(resolve, 0));
    loop.stop();
    // Two at least: the one it was behind and the one due (more if this thread was held up meanwhile).
    expect(caughtUp).toBeGreaterThanOrEqual(2);
    expect(loop.skippedTicks).toBe(skipped);
  });

  it("a loop ahead of the timeline, by more than the catch-up bound, waits for it", async () => {
    let ticks = 0;
    const loop = new TickLoop(HZ, () => ticks++, new SampleWindow());
    const periodMs = 1000 / HZ;
    loop.start();
    await new Promise((resolve) => setTimeout(resolve, 2.5 * periodMs));
    // The timeline's next tick is 10 periods away: this loop is about 9 ticks ahead of it. (Refused as a
    // shift beyond the catch-up bound, a loop ahead stayed ahead for good.)
    loop.anchor(performance.now() + 10 * periodMs);
    const before = ticks;
    // Timers never fire early: for 8 periods no tick runs.
    await new Promise((resolve) => setTimeout(resolve, 8 * periodMs));
    const whileWaiting = ticks - before;
    // Then it ticks again, on the timeline.
    const deadline = performance.now() + 5000;
    while (ticks === before && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
    loop.stop();
    expect(whileWaiting).toBe(0);
    expect(ticks).toBeGreaterThan(before);
  });
});
