// Overload (ts/server/ops/overload.ts, issue 19): a server that cannot keep its
// tick sheds NPC thinking first, then stretches every tick's period (time
// dilation) instead of skipping ticks, and gives both back when the load goes.
// The governor against a model of a loop whose busy time per tick is fixed;
// the real TickLoop with ticks that really take 60 ms, against one without
// dilation; and the real server's /metrics and State ticks under a real
// event-loop load. Real timers, bounded.
import { describe, expect, it } from "vitest";
import {
  BUDGET_SCALE_FLOOR,
  DEFAULT_MAX_TICK_STRETCH,
  OverloadGovernor,
  TARGET_TICK_SHARE,
} from "../ts/server/ops/overload.js";
import { SampleWindow } from "../ts/server/ops/metrics.js";
import { TickLoop } from "../ts/server/ops/tick-loop.js";
import { startServerOnTestMap } from "./support/test-server.js";
import { UdpTestClient } from "./support/udp-client.js";

const HZ = 24;
const PERIOD_MS = 1000 / HZ;

/**
 * A model loop, in nominal periods: each tick's own work `tick`, and `between` of work arriving per
 * period of real time (datagrams). A stretched period s holds tick + between × s of work; what does not
 * fit makes the next tick late.
 */
class ModelLoop {
  late = 0;
  constructor(readonly governor: OverloadGovernor) {}
  run(ticks: number, tick: number, between: number, npcs: boolean, each?: () => void): void {
    for (let index = 0; index < ticks; index++) {
      const governor = this.governor;
      governor.observe(tick, this.late, npcs);
      this.late = Math.max(0, this.late + tick + between * governor.stretch - governor.stretch);
      each?.();
    }
  }
}

function busyFor(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // real work would be here: the thread is busy either way
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("the overload governor", () => {
  it("sheds NPC thinking to its floor before the tick stretches, then stretches until the ticks fit", () => {
    const governor = new OverloadGovernor();
    const loop = new ModelLoop(governor);
    loop.run(300, 1.2, 0, true, () => {
      // Never a stretched tick while some budget was left to shed.
      if (governor.stretch > 1) expect(governor.npcBudgetScale).toBe(BUDGET_SCALE_FLOOR);
    });
    // Ticks of 1.2 periods: stretched to at least 1.2 (they fit, nothing runs late), at most to the target share.
    expect(governor.stretch).toBeGreaterThanOrEqual(1.2);
    expect(governor.stretch).toBeLessThanOrEqual(1.2 / TARGET_TICK_SHARE + 1e-9);
    expect(loop.late).toBeLessThan(0.5);
    expect(governor.dilation).toBeCloseTo(1 / governor.stretch, 9);
    expect(governor.dilatedTicks).toBeGreaterThan(200);
  });

  it("does not slow the world when the work between ticks is what does not fit", () => {
    const governor = new OverloadGovernor();
    const loop = new ModelLoop(governor);
    // Short ticks, and more datagrams than the loop can take: a longer period would not help.
    loop.run(300, 0.2, 1.1, true);
    expect(governor.stretch).toBe(1);
    expect(governor.npcBudgetScale).toBe(BUDGET_SCALE_FLOOR);
    expect(governor.lateness).toBeGreaterThan(1);
  });

  it("stretches at once when NPCs are not the load, never beyond its largest stretch", () => {
    const governor = new OverloadGovernor();
    new ModelLoop(governor).run(100, 10, 0, false);
    expect(governor.npcBudgetScale).toBe(1);
    expect(governor.stretch).toBe(DEFAULT_MAX_TICK_STRETCH);
    const off = new OverloadGovernor(1);
    new ModelLoop(off).run(100, 10, 0, false);
    expect(off.stretch).toBe(1);
    expect(() => new OverloadGovernor(0.5)).toThrow(RangeError);
  });

  it("gives the stretch back first and the NPC budget after it once the load goes", () => {
    const governor = new OverloadGovernor();
    const loop = new ModelLoop(governor);
    loop.run(300, 1.5, 0, true);
    expect(governor.stretch).toBeGreaterThan(1.4);
    loop.run(600, 0.3, 0, true, () => {
      if (governor.stretch > 1) expect(governor.npcBudgetScale).toBe(BUDGET_SCALE_FLOOR);
    });
    expect(governor.stretch).toBe(1);
    expect(governor.npcBudgetScale).toBe(1);
  });

  it("a step from idle to any load it can take never falls 4 periods behind (the loop would skip ticks)", () => {
    for (const npcs of [false, true]) {
      for (const tick of [1.2, 1.46, 1.8, 2.2, 2.5, 3, DEFAULT_MAX_TICK_STRETCH * TARGET_TICK_SHARE]) {
        const governor = new OverloadGovernor();
        const loop = new ModelLoop(governor);
        loop.run(100, 0.05, 0, npcs);
        let behind = 0;
        // The loop skips when it is MAX_CATCH_UP_TICKS (4) of its own, stretched, periods behind.
        loop.run(300, tick, 0, npcs, () => (behind = Math.max(behind, loop.late / governor.stretch)));
        expect(behind, `ticks of ${tick} periods, NPCs ${npcs}`).toBeLessThan(4);
        expect(governor.stretch).toBeGreaterThanOrEqual(tick);
      }
    }
  });

  it("does not stretch for one stall between ticks, nor for one long tick", () => {
    const governor = new OverloadGovernor();
    const loop = new ModelLoop(governor);
    loop.run(100, 0.3, 0, false);
    loop.late = 6; // the host gave the process no time for 6 periods
    loop.run(1, 0.3, 0, false);
    loop.run(1, 6, 0, false); // a GC pause inside a tick
    loop.run(1, 0.3, 0, false);
    expect(governor.stretch).toBe(1);
  });

  it("leaves a loop alone whose ticks fit, however busy", () => {
    const governor = new OverloadGovernor();
    new ModelLoop(governor).run(600, 0.85, 0.1, true);
    expect(governor.stretch).toBe(1);
    expect(governor.npcBudgetScale).toBe(1);
  });
});

describe("TickLoop under a tick longer than its period", () => {
  /** Runs a loop whose ticks take `tickMs` for `forMs`, then `lightMs` ticks for `thenMs`. */
  async function heavyLoop(maxStretch: number, tickMs: number, forMs: number) {
    const governor = new OverloadGovernor(maxStretch);
    let heavy = true;
    let ticks = 0;
    /** The longest heavy tick as the loop timed it: 60 ms on a quiet host, more where the host preempted it. */
    let longestMs = 0;
    const late = new SampleWindow();
    const loop = new TickLoop(
      HZ,
      () => {
        ticks++;
        const startMs = performance.now();
        busyFor(heavy ? tickMs : 2);
        if (heavy) longestMs = Math.max(longestMs, performance.now() - startMs);
      },
      late,
      { governor, npcsThinking: () => false },
    );
    loop.start();
    await sleep(forMs);
    const heavyTicks = ticks;
    const stretchUnderLoad = governor.stretch;
    const skippedUnderLoad = loop.skippedTicks;
    heavy = false;
    return {
      governor,
      heavyTicks,
      longestPeriods: longestMs / PERIOD_MS,
      stretchUnderLoad,
      skippedUnderLoad,
      async light(thenMs: number) {
        await sleep(thenMs);
        loop.stop();
      },
    };
  }

  it("stretches its period (no tick skipped) where the loop without dilation skips, and recovers", async () => {
    const dilated = await heavyLoop(DEFAULT_MAX_TICK_STRETCH, 60, 3000);
    // 60 ms of work a tick at 85 % load: a 71 ms period, 14 ticks a second instead of 24.
    expect(dilated.stretchUnderLoad).toBeGreaterThan(1.4);
    // Never more than the longest tick asked for. On a quiet host that is 60 ms (a stretch of 1.7); where the
    // host preempted the process inside ticks they took longer, and slowing the world to what they took is
    // right (a fixed bound of 2.4 failed a whole run at load 4 with 3.39: two ticks measured ~113 ms each).
    // The loop times each tick from outside it (a few microseconds more than measured here): 1 % of slack.
    expect(dilated.stretchUnderLoad).toBeLessThanOrEqual(
      Math.min(DEFAULT_MAX_TICK_STRETCH, (dilated.longestPeriods / TARGET_TICK_SHARE) * 1.01),
    );
    expect(dilated.heavyTicks).toBeGreaterThan(30);
    expect(dilated.heavyTicks).toBeLessThan(3000 / PERIOD_MS - 10);
    expect(dilated.skippedUnderLoad).toBe(0);
    await dilated.light(3000);
    expect(dilated.governor.stretch).toBe(1);

    const plain = await heavyLoop(1, 60, 3000);
    await plain.light(0);
    // Without dilation the loop falls behind by 18 ms a tick and skips once it is 4 ticks behind.
    expect(plain.skippedUnderLoad).toBeGreaterThan(0);
    expect(plain.stretchUnderLoad).toBe(1);
  }, 20_000);
});

describe("a server whose ticks take longer than their period", () => {
  it("shows its dilation on /metrics and /api/status, and its State ticks slow down instead of jumping", async () => {
    const server = await startServerOnTestMap({ maxPlayers: 8 });
    const game = server.server.game;
    const client = await UdpTestClient.connect(server.server.httpPort, "dilated");
    // Stand-in for a crowded world: every tick does 60 ms more work (1.44 periods at 24 Hz).
    let heavy = true;
    const step = game.step.bind(game);
    game.step = () => {
      step();
      if (heavy) busyFor(60);
    };
    try {
      client.action(0, 0);
      await sleep(4000);
      const metrics = await (await fetch(`${server.baseUrl}/metrics`)).text();
      const gauge = (text: string, name: string) => Number(new RegExp(`^${name} (\\S+)$`, "m").exec(text)?.[1]);
      expect(gauge(metrics, "caves_time_dilation")).toBeLessThan(0.8);
      expect(gauge(metrics, "caves_tick_load")).toBeGreaterThan(1.2);
      expect(gauge(metrics, "caves_dilated_ticks_total")).toBeGreaterThan(0);
      // The last two seconds of States: consecutive broadcasts of a slower world, not skips.
      const now = performance.now();
      const ticks = client.received
        .filter((r) => r.packet?.type === "state" && r.at > now - 2000)
        .map((r) => (r.packet as { tick: number }).tick);
      expect(ticks.length).toBeGreaterThan(3);
      for (let index = 1; index < ticks.length; index++) expect(ticks[index] - ticks[index - 1]).toBeLessThanOrEqual(2);
      expect((ticks[ticks.length - 1] - ticks[0]) / 2).toBeLessThan(HZ * 0.8);
      const status = (await (await fetch(`${server.baseUrl}/api/status`)).json()) as {
        ticksSkipped: number;
        overload: { dilation: number };
      };
      expect(status.overload.dilation).toBeLessThan(0.8);
      expect(status.ticksSkipped).toBe(0);
      heavy = false;
      // Load gone: back to real time within a few seconds.
      const deadline = performance.now() + 8000;
      let back = 0;
      while (performance.now() < deadline) {
        await sleep(250);
        back = gauge(await (await fetch(`${server.baseUrl}/metrics`)).text(), "caves_time_dilation");
        if (back === 1) break;
      }
      expect(back).toBe(1);
    } finally {
      heavy = false;
      client.close();
      await server.close();
    }
  }, 30_000);
});
