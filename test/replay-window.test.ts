// The replay window and the address proof alone (docs/protocol.md § 6.1, § 12.1):
// each sequence is accepted once, reordering within the window is fine, anything
// too old is refused; an unproven address's budget is 3× what it sent.
import { describe, expect, it } from "vitest";
import { AddressProof, UNPROVEN_AMPLIFICATION } from "../ts/server/edge/address-proof.js";
import { REPLAY_WINDOW, ReplayWindow } from "../ts/server/edge/replay-window.js";

describe("ReplayWindow", () => {
  it("accepts each sequence once, in any order within the window, and nothing too old or 0", () => {
    const window = new ReplayWindow();
    expect(window.accept(0)).toBe(false);
    expect(window.accept(5)).toBe(true);
    expect(window.accept(5)).toBe(false);
    expect(window.accept(3)).toBe(true); // reordered, still inside
    expect(window.accept(3)).toBe(false);
    expect(window.accept(5 + REPLAY_WINDOW)).toBe(true);
    expect(window.accept(5)).toBe(false); // now REPLAY_WINDOW behind the newest
    expect(window.accept(6)).toBe(true); // REPLAY_WINDOW - 1 behind: never seen, accepted once
    expect(window.accept(6)).toBe(false);
    expect(window.accept(0xffffffff)).toBe(true);
    expect(window.accept(0xffffffff)).toBe(false);
  });

  it("never accepts a sequence twice over a long shuffled run", () => {
    const window = new ReplayWindow();
    const seen = new Set<number>();
    let state = 12345;
    for (let i = 1; i < 20_000; i++) {
      state = (state * 1103515245 + 12345) >>> 0;
      const sequence = Math.max(1, i - (state % 40)); // mostly new, some repeats and reorders
      const accepted = window.accept(sequence);
      if (seen.has(sequence)) expect(accepted).toBe(false);
      if (accepted) seen.add(sequence);
    }
    expect(seen.size).toBeGreaterThan(10_000);
  });
});

describe("ReplayWindow.inboundLoss", () => {
  it("counts the numbers never seen among the newest the client used, from its first", () => {
    const none = new ReplayWindow();
    expect(none.inboundLoss()).toEqual({ sent: 0, lost: 0 });
    const early = new ReplayWindow();
    for (let sequence = 1; sequence <= 100; sequence++) if (sequence % 4 !== 0) early.accept(sequence);
    early.accept(100); // the newest arrives after all
    expect(early.inboundLoss()).toEqual({ sent: 100, lost: 24 });
    const late = new ReplayWindow();
    for (let sequence = 1; sequence <= 1000; sequence++)
      if (sequence % 10 !== 0 || sequence === 1000) late.accept(sequence);
    // The newest REPLAY_WINDOW numbers: 745..1000, of which 750, 760, …, 990 never came.
    expect(late.inboundLoss()).toEqual({ sent: REPLAY_WINDOW, lost: 25 });
    const fromLater = new ReplayWindow();
    for (let sequence = 500; sequence <= 509; sequence++) if (sequence !== 505) fromLater.accept(sequence);
    expect(fromLater.inboundLoss()).toEqual({ sent: 10, lost: 1 });
  });
});

describe("AddressProof", () => {
  it("starts a UDP address unproven with a cookie, budgets 3× what arrived, and is proven by the echo", () => {
    const proof = new AddressProof();
    const udp = "udp:10.0.0.1:5000";
    proof.bound(udp, false);
    expect(proof.proven).toBe(false);
    expect(proof.cookieLow !== 0 || proof.cookieHigh !== 0).toBe(true);
    expect(proof.allows(1)).toBe(false);
    proof.bytesIn = 100;
    expect(proof.allows(UNPROVEN_AMPLIFICATION * 100)).toBe(true);
    expect(proof.allows(UNPROVEN_AMPLIFICATION * 100 + 1)).toBe(false);
    expect(proof.echoes(0, 0)).toBe(false);
    expect(proof.echoes(proof.cookieLow, proof.cookieHigh ^ 2)).toBe(false);
    expect(proof.echoes(proof.cookieLow >>> 0, proof.cookieHigh >>> 0)).toBe(true);
    proof.prove(udp);
    expect(proof.proven).toBe(true);
    // Another address starts over; back to the proven one needs no challenge.
    proof.bound("udp:10.0.0.2:6000", false);
    expect(proof.proven).toBe(false);
    proof.bound(udp, false);
    expect(proof.proven).toBe(true);
  });

  it("counts a link vouched for (connection-bound, or the HTTP join's source) as proven", () => {
    const proof = new AddressProof();
    proof.bound("ws:1", true);
    expect(proof.proven).toBe(true);
    proof.bound("udp:10.0.0.3:1", true);
    expect(proof.proven).toBe(true);
  });
});
