// The server's baseline ring for entity deltas (ts/server/sessions/entity-baselines.ts, docs/protocol.md § 8.4): which
// list the next delta is written against as acknowledgements arrive in time, late, out of order or too late.
import { describe, expect, it } from "vitest";
import { BASELINES_KEPT, EntityBaselines } from "../ts/server/sessions/entity-baselines.js";

/** Fills the ring as broadcasts would: one list per tick, every other tick from `from`. */
function broadcast(baselines: EntityBaselines, from: number, count: number): number[] {
  const ticks: number[] = [];
  for (let index = 0; index < count; index++) {
    const list = baselines.next();
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
    baselines.acknowledge(ticks[2]);
    expect(baselines.baseline().tick).toBe(ticks[2]);
    // An older or repeated acknowledgement (reordered, duplicated) changes nothing.
    baselines.acknowledge(ticks[1]);
    baselines.acknowledge(ticks[2]);
    expect(baselines.baseline().tick).toBe(ticks[2]);
    expect(baselines.staleAcks).toBe(0);
  });

  it("never gives up the acknowledged list, however many broadcasts follow", () => {
    const baselines = new EntityBaselines();
    const [first] = broadcast(baselines, 2, 1);
    baselines.acknowledge(first);
    broadcast(baselines, 4, 5 * BASELINES_KEPT);
    expect(baselines.baseline().tick).toBe(first);
  });

  it("goes back to the empty list when an acknowledgement names a list the ring has let go of", () => {
    const baselines = new EntityBaselines();
    const early = broadcast(baselines, 2, 2);
    baselines.acknowledge(early[0]);
    // More than a ring of broadcasts later, the client acknowledges the second list: the ring no longer has
    // it, and the client, which keeps 16 lists, may no longer have the first either.
    broadcast(baselines, 100, BASELINES_KEPT + 4);
    baselines.acknowledge(early[1]);
    expect(baselines.staleAcks).toBe(1);
    expect(baselines.baseline().tick).toBe(-1);
    // An acknowledgement in time again moves it on.
    const [fresh] = broadcast(baselines, 500, 1);
    baselines.acknowledge(fresh);
    expect(baselines.baseline().tick).toBe(fresh);
  });
});
