// The server's baseline ring for entity deltas (ts/server/sessions/entity-baselines.ts, docs/protocol.md § 8.4): which
// list the next delta is written against as acknowledgements arrive in time, late, out of order or too late.
import { describe, expect, it } from "vitest";
import { BASELINES_KEPT, EntityBaselines } from "../ts/server/sessions/entity-baselines.js";
import { ROUND_TRIP_SAMPLES, RoundTrip } from "../ts/server/sessions/round-trip.js";

/** When the test's broadcast of `tick` is sent (ms): 1000 ms a tick, so a round trip is read off plainly. */
const sentAt = (tick: number) => tick * 1000;

/** Fills the ring as broadcasts would: one list per tick, every other tick from `from`. */
function broadcast(baselines: EntityBaselines, from: number, count: number): number[] {
  const ticks: number[] = [];
  for (let index = 0; index < count; index++) {
    const list = baselines.next(sentAt(from + 2 * index));
    list.tick = from + 2 * index;
    ticks.push(list.tick);
  }
  return ticks;
}

describe("the baseline ring", () => {
  it("writes against the empty list until a list it holds is acknowledged, then against that one", () => {
    const baselines = new EntityBaselines();
    const ticks = broadcast(baselines, 2, 4);
    expect(baselines.baseline().tick).toBe(-1);
    baselines.acknowledge(ticks[2], sentAt(ticks[2]) + 40);
    expect(baselines.baseline().tick).toBe(ticks[2]);
    // An older or repeated acknowledgement (reordered, duplicated) changes nothing.
    baselines.acknowledge(ticks[1], sentAt(ticks[1]) + 40);
    baselines.acknowledge(ticks[2], sentAt(ticks[2]) + 40);
    expect(baselines.baseline().tick).toBe(ticks[2]);
    expect(baselines.staleAcks).toBe(0);
  });

  it("never gives up the acknowledged list, however many broadcasts follow", () => {
    const baselines = new EntityBaselines();
    const [first] = broadcast(baselines, 2, 1);
    baselines.acknowledge(first, sentAt(first) + 40);
    broadcast(baselines, 4, 5 * BASELINES_KEPT);
    expect(baselines.baseline().tick).toBe(first);
  });

  it("goes back to the empty list when an acknowledgement names a list the ring has let go of", () => {
    const baselines = new EntityBaselines();
    const early = broadcast(baselines, 2, 2);
    baselines.acknowledge(early[0], sentAt(early[0]) + 40);
    // More than a ring of broadcasts later, the client acknowledges the second list: the ring no longer has
    // it, and the client, which keeps 16 lists, may no longer have the first either.
    broadcast(baselines, 100, BASELINES_KEPT + 4);
    baselines.acknowledge(early[1], sentAt(early[1]) + 40);
    expect(baselines.staleAcks).toBe(1);
    expect(baselines.baseline().tick).toBe(-1);
    // An acknowledgement in time again moves it on.
    const [fresh] = broadcast(baselines, 500, 1);
    baselines.acknowledge(fresh, sentAt(fresh) + 40);
    expect(baselines.baseline().tick).toBe(fresh);
  });
});

describe("the round trip timed from acknowledgements (sessions/round-trip.ts)", () => {
  it("is the time from a list's broadcast to the acknowledgement naming it; none for an old, repeated or unsent one", () => {
    const baselines = new EntityBaselines();
    const ticks = broadcast(baselines, 2, 4);
    expect(baselines.roundTrip.lowMs()).toBeNull();
    baselines.acknowledge(ticks[1], sentAt(ticks[1]) + 35);
    expect([baselines.roundTrip.samples, baselines.roundTrip.lastMs, baselines.roundTrip.lowMs()]).toEqual([1, 35, 35]);
    // Older or repeated acknowledgements teach nothing (a reordered one would look longer than it was).
    baselines.acknowledge(ticks[0], sentAt(ticks[0]) + 5000);
    baselines.acknowledge(ticks[1], sentAt(ticks[1]) + 5000);
    expect(baselines.roundTrip.samples).toBe(1);
    // A later acknowledgement, long (the client held the list a while before acknowledging): the low one stands.
    baselines.acknowledge(ticks[3], sentAt(ticks[3]) + 120);
    expect([baselines.roundTrip.lastMs, baselines.roundTrip.lowMs()]).toEqual([120, 35]);
    // A list filled and not sent (an idle broadcast held back) carries no time: acknowledging its tick times nothing.
    const held = baselines.next(sentAt(20));
    held.tick = 20;
    baselines.discard(held);
    held.tick = 20;
    baselines.acknowledge(20, sentAt(20) + 10);
    expect(baselines.roundTrip.samples).toBe(2);
  });

  it("shows the lowest of the last samples only, and ignores a sample without a send time", () => {
    const roundTrip = new RoundTrip();
    roundTrip.add(0, 5);
    for (let index = 0; index < ROUND_TRIP_SAMPLES; index++) roundTrip.add(100, 150 + index);
    // The 5 ms sample has left the window; the lowest of the last ones is 50.
    expect([roundTrip.samples, roundTrip.lowMs(), roundTrip.lastMs]).toEqual([
      ROUND_TRIP_SAMPLES + 1,
      50,
      50 + ROUND_TRIP_SAMPLES - 1,
    ]);
    roundTrip.add(NaN, 1000);
    roundTrip.add(2000, 1000);
    expect(roundTrip.samples).toBe(ROUND_TRIP_SAMPLES + 1);
  });
});
