// The phase balancer (ts/server/broadcast/phase-balance.ts): which sessions are broadcast to
// on even ticks and which on odd ones, levelled by the ticks' whole work. Driven
// with chosen tick times, and the registry's moves it leads to. (What it does for
// 5000 players is measured by the server5000 bench suite, docs/udp-batching.md.)
import { describe, expect, it } from "vitest";
import { BROADCAST_EVERY_TICKS } from "../ts/constants.js";
import { ENTITY_TYPE_PLAYER, EntityStore } from "../ts/server/entities/entities.js";
import { MAX_MOVE_SHARE, MAX_PHASE_SHARE, PhaseBalancer } from "../ts/server/broadcast/phase-balance.js";
import { SessionRegistry } from "../ts/server/sessions/session.js";

/** One second (12 ticks of each parity) of ticks taking `even` / `odd` ms, each broadcasting `perTick` sessions at `perSessionMs`. */
function second(balancer: PhaseBalancer, even: number, odd: number, perTick: number, perSessionMs: number): void {
  for (let tick = 0; tick < 24; tick++) {
    balancer.observe(tick % 2, tick % 2 === 0 ? even : odd, perTick * perSessionMs, perTick);
  }
}

describe("PhaseBalancer", () => {
  it("moves sessions from the heavier parity to the lighter: a quarter of the gap's worth", () => {
    const balancer = new PhaseBalancer();
    // Even ticks 18 ms, odd 10: a gap of 8 ms, at 4 µs a session → 8 / (8 × 0.004) = 250 sessions.
    second(balancer, 18, 10, 2500, 0.004);
    expect(balancer.decide([2500, 2500])).toEqual({ from: 0, to: 1, count: 250 });
    expect(balancer.moved).toBe(250);
    // The other way round.
    second(balancer, 10, 18, 2500, 0.004);
    expect(balancer.decide([2500, 2500])).toEqual({ from: 1, to: 0, count: 250 });
  });

  it("leaves phases alone when the gap is noise: under 1 ms, or under a tenth of the lighter tick", () => {
    const balancer = new PhaseBalancer();
    second(balancer, 1.8, 1.0, 20, 0.01);
    expect(balancer.decide([20, 20])).toBeNull();
    second(balancer, 10.9, 10.0, 2500, 0.004);
    expect(balancer.decide([2500, 2500])).toBeNull();
    second(balancer, 22, 20.5, 2500, 0.004);
    expect(balancer.decide([2500, 2500])).toBeNull();
    // Nothing observed (a new server, or a second with no broadcast): nothing to decide on.
    expect(balancer.decide([2500, 2500])).toBeNull();
    expect(balancer.moved).toBe(0);
  });

  it("moves at most a twentieth of the sessions a second, and never gives one parity three quarters", () => {
    const balancer = new PhaseBalancer();
    second(balancer, 40, 5, 2500, 0.004);
    expect(balancer.decide([2500, 2500])).toEqual({ from: 0, to: 1, count: Math.floor(MAX_MOVE_SHARE * 5000) });
    second(balancer, 40, 5, 2500, 0.004);
    expect(balancer.decide([1300, 3700])).toEqual({ from: 0, to: 1, count: Math.floor(MAX_PHASE_SHARE * 5000) - 3700 });
    second(balancer, 40, 5, 2500, 0.004);
    expect(balancer.decide([1250, 3750])).toBeNull();
    // A server of fewer than 20 players never moves one (a twentieth of them rounds to none).
    second(balancer, 40, 5, 9, 0.004);
    expect(balancer.decide([10, 9])).toBeNull();
  });

  it("starts each second afresh", () => {
    const balancer = new PhaseBalancer();
    second(balancer, 18, 10, 2500, 0.004);
    balancer.decide([2500, 2500]);
    // A level second after a heavy one: the heavy one is forgotten.
    second(balancer, 10, 10, 2500, 0.004);
    expect(balancer.decide([2250, 2750])).toBeNull();
  });
});

describe("SessionRegistry phases", () => {
  it("puts new sessions in the phases by turns and moves the newest of one phase to the other", () => {
    expect(BROADCAST_EVERY_TICKS).toBe(2);
    const registry = new SessionRegistry({ ratePerSecond: 60, burst: 120 });
    const entities = new EntityStore();
    const sessions = Array.from({ length: 10 }, (_, index) =>
      registry.create(
        entities.spawn({
          typeId: ENTITY_TYPE_PLAYER,
          x: index,
          y: 0,
          hp: 1,
          hpMax: 1,
          elo: 0,
          flags: 0,
          name: `p${index}`,
          meta: [],
        }),
        `p${index}`,
        0,
      ),
    );
    expect(registry.phaseSizes()).toEqual([5, 5]);
    registry.movePhase(0, 1, 2);
    expect(registry.phaseSizes()).toEqual([3, 7]);
    // The two newest of phase 0 (sessions 8 and 6) moved; each says so itself.
    expect(sessions.map((session) => session.sendPhase)).toEqual([0, 1, 0, 1, 0, 1, 1, 1, 1, 1]);
    for (const phase of [0, 1]) {
      expect(registry.inPhase(phase).every((session) => session.sendPhase === phase)).toBe(true);
    }
    // A moved session leaves the registry from its new phase.
    registry.remove(sessions[8]);
    expect(registry.phaseSizes()).toEqual([3, 6]);
    expect(registry.inPhase(1)).not.toContain(sessions[8]);
    // Asking for more than a phase holds moves what there is.
    registry.movePhase(0, 1, 99);
    expect(registry.phaseSizes()).toEqual([0, 9]);
  });
});
