import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { VirtualClock } from "../ts/netsim/clock.js";
import { DeliveryQueue } from "../ts/netsim/delivery-queue.js";
import { createImpairedDuplex } from "../ts/netsim/duplex.js";
import { ImpairedLink, type ImpairedLinkOptions } from "../ts/netsim/impairment.js";
import {
  PERFECT_DUPLEX,
  PERFECT_LINK,
  ProfileError,
  type DuplexProfile,
  type LinkProfile,
} from "../ts/netsim/profile.js";

interface Delivery {
  atMs: number;
  id: number;
  bytes: Uint8Array;
}

/** A link on a virtual clock that records every delivery with its time and the datagram's id (first 4 bytes). */
function recordingLink(profile: Partial<LinkProfile>, seed = 1, options: ImpairedLinkOptions = {}) {
  const clock = new VirtualClock();
  const deliveries: Delivery[] = [];
  const link = new ImpairedLink(
    { ...PERFECT_LINK, ...profile },
    seed,
    (bytes) => deliveries.push({ atMs: clock.nowMs(), id: new DataView(bytes.buffer).getUint32(0, true), bytes }),
    { clock, ...options },
  );
  return { clock, deliveries, link };
}

function datagram(id: number, sizeBytes = 8): Uint8Array {
  const bytes = new Uint8Array(sizeBytes);
  new DataView(bytes.buffer).setUint32(0, id, true);
  return bytes;
}

/** Sends count datagrams with ids 0..count-1, one every intervalMs of virtual time, then drains the link. */
function sendSpaced(setup: ReturnType<typeof recordingLink>, count: number, intervalMs: number): number[] {
  const sentAtMs: number[] = [];
  for (let id = 0; id < count; id++) {
    if (id > 0) setup.clock.advanceBy(intervalMs);
    sentAtMs.push(setup.clock.nowMs());
    setup.link.send(datagram(id));
  }
  setup.clock.runUntilIdle();
  return sentAtMs;
}

describe("ImpairedLink on a virtual clock", () => {
  it("passes everything through in order, synchronously, when unimpaired", () => {
    const setup = recordingLink({});
    for (let id = 0; id < 100; id++) setup.link.send(datagram(id));
    expect(setup.deliveries.map((d) => d.id)).toEqual([...Array(100).keys()]);
    expect(setup.deliveries.every((d) => d.atMs === 0)).toBe(true);
    expect(setup.clock.pendingTimerCount).toBe(0);
    expect(setup.link.counts).toEqual({
      received: 100,
      forwarded: 100,
      dropped: 0,
      duplicated: 0,
      overflowed: 0,
      queued: 0,
      queuedBytes: 0,
    });
  });

  it("delays each datagram by exactly the set delay, keeping one timer", () => {
    const setup = recordingLink({ delayMs: 50 });
    setup.link.send(datagram(0));
    setup.clock.advanceBy(10);
    setup.link.send(datagram(1));
    expect(setup.link.counts.queued).toBe(2);
    expect(setup.clock.pendingTimerCount).toBe(1);
    setup.clock.advanceTo(49.999);
    expect(setup.deliveries).toEqual([]);
    setup.clock.advanceTo(50);
    expect(setup.deliveries.map((d) => [d.id, d.atMs])).toEqual([[0, 50]]);
    setup.clock.advanceTo(59.999);
    expect(setup.deliveries).toHaveLength(1);
    setup.clock.advanceTo(60);
    expect(setup.deliveries.map((d) => [d.id, d.atMs])).toEqual([
      [0, 50],
      [1, 60],
    ]);
    expect(setup.link.counts.queued).toBe(0);
    expect(setup.clock.pendingTimerCount).toBe(0);
  });

  it("re-arms its timer when a later send is due earlier (delay lowered mid-run)", () => {
    const setup = recordingLink({ delayMs: 100 });
    setup.link.send(datagram(0));
    setup.link.setProfile({ ...PERFECT_LINK, delayMs: 20 });
    setup.link.send(datagram(1));
    setup.clock.runUntilIdle();
    expect(setup.deliveries.map((d) => [d.id, d.atMs])).toEqual([
      [1, 20],
      [0, 100],
    ]);
  });

  it("jitter reorders some datagrams, keeps every one, and stays within delay ± jitter", () => {
    const setup = recordingLink({ delayMs: 50, jitterMs: 30 }, 7);
    const sentAtMs = sendSpaced(setup, 1000, 1);
    expect(setup.deliveries).toHaveLength(1000);
    expect(new Set(setup.deliveries.map((d) => d.id)).size).toBe(1000);
    let inversions = 0;
    let delaySumMs = 0;
    setup.deliveries.forEach((delivery, index) => {
      if (index > 0 && delivery.id < setup.deliveries[index - 1].id) inversions++;
      const delayMs = delivery.atMs - sentAtMs[delivery.id];
      expect(delayMs).toBeGreaterThanOrEqual(20);
      expect(delayMs).toBeLessThanOrEqual(80);
      delaySumMs += delayMs;
    });
    expect(inversions).toBeGreaterThan(50);
    expect(delaySumMs / 1000).toBeGreaterThan(47);
    expect(delaySumMs / 1000).toBeLessThan(53);
    const counts = setup.link.counts;
    expect(counts.forwarded).toBe(1000);
    expect(counts.dropped + counts.duplicated + counts.overflowed + counts.queued).toBe(0);
  });

  it("floors jittered delays at zero (delivered synchronously)", () => {
    const setup = recordingLink({ delayMs: 5, jitterMs: 20 }, 3);
    let synchronous = 0;
    for (let id = 0; id < 200; id++) {
      const before = setup.deliveries.length;
      setup.link.send(datagram(id));
      if (setup.deliveries.length > before) synchronous++;
    }
    setup.clock.runUntilIdle();
    expect(setup.deliveries).toHaveLength(200);
    // P(delay <= 0) = P(5 + 20·(2u - 1) <= 0) = 0.375.
    expect(synchronous).toBeGreaterThan(50);
    expect(synchronous).toBeLessThan(100);
    expect(Math.max(...setup.deliveries.map((d) => d.atMs))).toBeLessThanOrEqual(25);
  });

  it.each([1, 2, 3])("drops close to the set loss rate over 10,000 datagrams (seed %i)", (seed) => {
    const setup = recordingLink({ lossPercent: 5 }, seed);
    for (let id = 0; id < 10_000; id++) setup.link.send(datagram(id));
    const { dropped, forwarded } = setup.link.counts;
    expect(dropped + forwarded).toBe(10_000);
    // 5% of 10,000 is 500 with a standard deviation of about 22; allow ± 100.
    expect(dropped).toBeGreaterThan(400);
    expect(dropped).toBeLessThan(600);
    const ids = setup.deliveries.map((d) => d.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
  });

  it("drops everything at loss=100 and nothing at loss=0", () => {
    const all = recordingLink({ lossPercent: 100 });
    const none = recordingLink({ lossPercent: 0, delayMs: 3 });
    for (let id = 0; id < 1000; id++) {
      all.link.send(datagram(id));
      none.link.send(datagram(id));
    }
    none.clock.runUntilIdle();
    expect(all.link.counts.dropped).toBe(1000);
    expect(all.deliveries).toHaveLength(0);
    expect(none.link.counts.dropped).toBe(0);
    expect(none.deliveries).toHaveLength(1000);
  });

  it.each([1, 2, 3])("duplicates close to the set rate over 10,000 datagrams (seed %i)", (seed) => {
    const setup = recordingLink({ duplicatePercent: 10, lossPercent: 20, delayMs: 10, jitterMs: 5 }, seed);
    sendSpaced(setup, 10_000, 1);
    const { received, dropped, duplicated, forwarded } = setup.link.counts;
    expect(received).toBe(10_000);
    expect(forwarded).toBe(received - dropped + duplicated);
    // Duplication applies to the ~8,000 survivors: ~800 copies, standard deviation about 27; allow ± 120.
    expect(duplicated).toBeGreaterThan(680);
    expect(duplicated).toBeLessThan(920);
    const perId = new Map<number, number>();
    for (const d of setup.deliveries) perId.set(d.id, (perId.get(d.id) ?? 0) + 1);
    expect([...perId.values()].filter((n) => n === 2)).toHaveLength(duplicated);
    expect([...perId.values()].every((n) => n === 1 || n === 2)).toBe(true);
  });

  it("gives each duplicate its own copy of the bytes", () => {
    const setup = recordingLink({ duplicatePercent: 100 });
    setup.link.send(datagram(42));
    expect(setup.deliveries).toHaveLength(2);
    expect(setup.deliveries[0].bytes).not.toBe(setup.deliveries[1].bytes);
    setup.deliveries[0].bytes[0] = 99;
    expect(setup.deliveries[1].id).toBe(42);
    expect(setup.deliveries[1].bytes[0]).toBe(42);
  });

  it("repeats the identical delivery schedule for the same seed, and a different one for another seed", () => {
    const profile = { delayMs: 40, jitterMs: 25, lossPercent: 10, duplicatePercent: 5 };
    const schedule = (seed: number) => {
      const setup = recordingLink(profile, seed);
      sendSpaced(setup, 2000, 2);
      return setup.deliveries.map((d) => `${d.id}@${d.atMs}`);
    };
    const first = schedule(1234);
    expect(schedule(1234)).toEqual(first);
    expect(schedule(1235)).not.toEqual(first);
  });

  it("keeps the other decisions of a seeded run when only the loss setting changes", () => {
    const survivors = (lossPercent: number) => {
      const setup = recordingLink({ delayMs: 30, jitterMs: 20, lossPercent }, 99);
      sendSpaced(setup, 500, 1);
      return new Map(setup.deliveries.map((d) => [d.id, d.atMs]));
    };
    const lossless = survivors(0);
    const lossy = survivors(30);
    expect(lossy.size).toBeLessThan(lossless.size);
    for (const [id, atMs] of lossy) expect(atMs).toBe(lossless.get(id));
  });

  it("copies on entry, so the caller may reuse its buffer", () => {
    const setup = recordingLink({ delayMs: 10, jitterMs: 5 }, 5);
    const buffer = new Uint8Array(8);
    const view = new DataView(buffer.buffer);
    for (let id = 0; id < 100; id++) {
      view.setUint32(0, id, true);
      setup.link.send(buffer);
    }
    buffer.fill(0xee);
    setup.clock.runUntilIdle();
    expect(setup.deliveries.map((d) => d.id).sort((a, b) => a - b)).toEqual([...Array(100).keys()]);
    for (const d of setup.deliveries) expect(d.bytes).not.toBe(buffer);
  });

  it("copies only the view's bytes from a subarray of a larger buffer", () => {
    const setup = recordingLink({ delayMs: 1 });
    const big = new Uint8Array(64).map((_, i) => i);
    setup.link.send(big.subarray(10, 14));
    setup.clock.runUntilIdle();
    expect([...setup.deliveries[0].bytes]).toEqual([10, 11, 12, 13]);
    expect(setup.deliveries[0].bytes.byteLength).toBe(4);
  });

  it("bounds the in-flight queue by datagrams, counting what overflows", () => {
    const setup = recordingLink({ delayMs: 100 }, 1, { maxQueuedDatagrams: 10 });
    for (let id = 0; id < 25; id++) setup.link.send(datagram(id));
    expect(setup.link.counts).toMatchObject({ received: 25, queued: 10, overflowed: 15, forwarded: 0 });
    setup.clock.advanceBy(100);
    expect(setup.deliveries.map((d) => d.id)).toEqual([...Array(10).keys()]);
    // Room again once the queue drained.
    setup.link.send(datagram(25));
    expect(setup.link.counts.queued).toBe(1);
  });

  it("bounds the in-flight queue by bytes", () => {
    const setup = recordingLink({ delayMs: 100 }, 1, { maxQueuedBytes: 1000 });
    for (let id = 0; id < 5; id++) setup.link.send(datagram(id, 300));
    expect(setup.link.counts).toMatchObject({ queued: 3, queuedBytes: 900, overflowed: 2 });
    setup.link.send(datagram(5, 100));
    expect(setup.link.counts).toMatchObject({ queued: 4, queuedBytes: 1000, overflowed: 2 });
  });

  it("delivers a datagram sent from inside deliver after the current one, without recursion", () => {
    const clock = new VirtualClock();
    const order: number[] = [];
    let depth = 0;
    let maxDepth = 0;
    const link: ImpairedLink = new ImpairedLink(
      PERFECT_LINK,
      1,
      (bytes) => {
        depth++;
        maxDepth = Math.max(maxDepth, depth);
        order.push(bytes[0]);
        if (bytes[0] < 5) link.send(Uint8Array.of(bytes[0] + 1));
        depth--;
      },
      { clock },
    );
    link.send(Uint8Array.of(0));
    expect(order).toEqual([0, 1, 2, 3, 4, 5]);
    expect(maxDepth).toBe(1);
  });

  it("stays consistent when deliver throws, delivering the rest later", () => {
    const clock = new VirtualClock();
    const delivered: number[] = [];
    const link = new ImpairedLink(
      { ...PERFECT_LINK, delayMs: 10 },
      1,
      (bytes) => {
        delivered.push(bytes[0]);
        if (bytes[0] === 1) throw new Error("receiver failed");
      },
      { clock },
    );
    for (let id = 0; id < 4; id++) link.send(Uint8Array.of(id));
    expect(() => clock.advanceBy(10)).toThrow("receiver failed");
    expect(delivered).toEqual([0, 1]);
    clock.runUntilIdle();
    expect(delivered).toEqual([0, 1, 2, 3]);
    expect(link.counts).toMatchObject({ forwarded: 4, queued: 0 });
  });

  it("close() discards what is in flight, cancels its timer and ignores later sends", () => {
    const setup = recordingLink({ delayMs: 20 });
    for (let id = 0; id < 5; id++) setup.link.send(datagram(id));
    expect(setup.clock.pendingTimerCount).toBe(1);
    setup.link.close();
    expect(setup.clock.pendingTimerCount).toBe(0);
    setup.link.send(datagram(9));
    setup.clock.advanceBy(100);
    expect(setup.deliveries).toEqual([]);
    expect(setup.link.counts).toMatchObject({ received: 5, queued: 0, queuedBytes: 0 });
    expect(setup.link.isClosed).toBe(true);
  });

  it("rejects out-of-range profiles and limits", () => {
    const deliver = () => {};
    expect(() => new ImpairedLink({ ...PERFECT_LINK, lossPercent: 101 }, 1, deliver)).toThrow(ProfileError);
    expect(() => new ImpairedLink({ ...PERFECT_LINK, delayMs: -1 }, 1, deliver)).toThrow(ProfileError);
    expect(() => new ImpairedLink({ ...PERFECT_LINK, jitterMs: Number.NaN }, 1, deliver)).toThrow(ProfileError);
    expect(() => new ImpairedLink(PERFECT_LINK, 1, deliver, { maxQueuedDatagrams: 0 })).toThrow(RangeError);
    const link = new ImpairedLink(PERFECT_LINK, 1, deliver);
    expect(() => link.setProfile({ ...PERFECT_LINK, duplicatePercent: 200 })).toThrow(ProfileError);
    expect(link.profile).toBe(PERFECT_LINK);
  });
});

describe("ImpairedLink on the real clock", () => {
  it("never delivers before the set delay", async () => {
    const sentAtMs = new Map<number, number>();
    const delaysMs: number[] = [];
    const done = new Promise<void>((resolve) => {
      const link = new ImpairedLink({ ...PERFECT_LINK, delayMs: 15, jitterMs: 5 }, 11, (bytes) => {
        delaysMs.push(performance.now() - sentAtMs.get(bytes[0])!);
        if (delaysMs.length === 20) resolve();
      });
      for (let id = 0; id < 20; id++) {
        sentAtMs.set(id, performance.now());
        link.send(Uint8Array.of(id));
      }
    });
    await done;
    for (const delayMs of delaysMs) expect(delayMs).toBeGreaterThanOrEqual(10);
  });
});

describe("DeliveryQueue", () => {
  it("pops in due order, ties in arrival order, under any interleaving of pushes and pops", () => {
    fc.assert(
      fc.property(
        fc.array(fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }), { maxLength: 200, size: "medium" }),
        (ops) => {
          const queue = new DeliveryQueue();
          const reference: { dueMs: number; sequence: number }[] = [];
          let sequence = 0;
          const datagram = new Uint8Array(0);
          for (const dueMs of ops) {
            if (dueMs === undefined) {
              reference.sort((a, b) => a.dueMs - b.dueMs || a.sequence - b.sequence);
              const expected = reference.shift();
              const actual = queue.pop();
              expect(actual?.sequence).toBe(expected?.sequence);
            } else {
              queue.push({ dueMs, sequence, datagram });
              reference.push({ dueMs, sequence });
              sequence++;
            }
            expect(queue.size).toBe(reference.length);
          }
        },
      ),
      { seed: 20240601, numRuns: 300 },
    );
  });
});

describe("createImpairedDuplex", () => {
  const lossy: DuplexProfile = { up: { ...PERFECT_LINK, lossPercent: 50 }, down: { ...PERFECT_LINK, lossPercent: 50 } };

  function downSurvivors(upTraffic: number): number[] {
    const survivors: number[] = [];
    const duplex = createImpairedDuplex(
      lossy,
      9,
      () => {},
      (bytes) => survivors.push(bytes[0]),
      { clock: new VirtualClock() },
    );
    for (let i = 0; i < upTraffic; i++) duplex.up.send(Uint8Array.of(0));
    for (let id = 0; id < 100; id++) duplex.down.send(Uint8Array.of(id));
    return survivors;
  }

  it("gives each direction its own stream, so one direction's traffic leaves the other's fates alone", () => {
    const quiet = downSurvivors(0);
    expect(quiet.length).toBeGreaterThan(25);
    expect(quiet.length).toBeLessThan(75);
    expect(downSurvivors(37)).toEqual(quiet);
  });

  it("changes both directions together, or neither when the profile is bad, and closes both", () => {
    const clock = new VirtualClock();
    const duplex = createImpairedDuplex(
      PERFECT_DUPLEX,
      1,
      () => {},
      () => {},
      { clock },
    );
    const bad = { up: { ...PERFECT_LINK, delayMs: 5 }, down: { ...PERFECT_LINK, lossPercent: -1 } };
    expect(() => duplex.setProfile(bad)).toThrow(ProfileError);
    expect(duplex.up.profile).toBe(PERFECT_LINK);
    duplex.setProfile(lossy);
    expect(duplex.up.profile).toBe(lossy.up);
    expect(duplex.down.profile).toBe(lossy.down);
    duplex.close();
    expect(duplex.up.isClosed && duplex.down.isClosed).toBe(true);
  });
});
