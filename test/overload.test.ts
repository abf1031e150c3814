// Overload (ts/server/overload.ts, issue 19): a server that cannot keep its
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
  DILATE_ABOVE,
  OverloadGovernor,
  TARGET_UTILISATION,
} from "../ts/server/overload.js";
import { SampleWindow } from "../ts/server/metrics.js";
import { TickLoop } from "../ts/server/tick-loop.js";
import { startServerOnTestMap } from "./support/test-server.js";
import { UdpTestClient } from "./support/udp-client.js";

const HZ = 24;
const PERIOD_MS = 1000 / HZ;

/** Ticks of a loop whose busy time per tick is `busyShare` of the nominal period, as the governor stretches it. */
function run(governor: OverloadGovernor, busyShare: number, ticks: number, npcs: boolean): void {
  for (let tick = 0; tick < ticks; tick++) governor.observe(busyShare / governor.stretch, npcs);
}

function busyFor(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // real work would be here: the thread is busy either way
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("the overload governor", () => {
  it("sheds NPC thinking to its floor before the tick stretches, then stretches to the target load", () => {
    const governor = new OverloadGovernor();
    let shedBeforeStretch = false;
    for (let tick = 0; tick < 200; tick++) {
      governor.observe(1.2 / governor.stretch, true);
      if (governor.stretch > 1 && governor.npcBudgetScale <= BUDGET_SCALE_FLOOR) shedBeforeStretch = true;
      // Never a stretched tick while some budget was left to shed.
      if (governor.stretch > 1) expect(governor.npcBudgetScale).toBe(BUDGET_SCALE_FLOOR);
    }
    expect(shedBeforeStretch).toBe(true);
    // Busy 1.2 periods a tick: stretched until the tick's load is back under DILATE_ABOVE, toward the target.
    expect(governor.stretch).toBeGreaterThan(1.2 / DILATE_ABOVE);
    expect(governor.stretch).toBeLessThanOrEqual(1.2 / TARGET_UTILISATION + 1e-9);
    expect(governor.dilation).toBeCloseTo(1 / governor.stretch, 9);
    expect(governor.dilatedTicks).toBeGreaterThan(100);
  });

  it("stretches at once when NPCs are not the load, never beyond its largest stretch", () => {
    const governor = new OverloadGovernor();
    run(governor, 10, 100, false);
    expect(governor.npcBudgetScale).toBe(1);
    expect(governor.stretch).toBe(DEFAULT_MAX_TICK_STRETCH);
    const off = new OverloadGovernor(1);
    run(off, 10, 100, false);
    expect(off.stretch).toBe(1);
    expect(() => new OverloadGovernor(0.5)).toThrow(RangeError);
  });

  it("gives the stretch back first and the NPC budget after it once the load goes", () => {
    const governor = new OverloadGovernor();
    run(governor, 1.5, 200, true);
    expect(governor.stretch).toBeGreaterThan(1.5);
    let stretchedWithFullBudget = false;
    for (let tick = 0; tick < 600; tick++) {
      governor.observe(0.3 / governor.stretch, true);
      if (governor.stretch > 1 && governor.npcBudgetScale > BUDGET_SCALE_FLOOR) stretchedWithFullBudget = true;
    }
    expect(stretchedWithFullBudget).toBe(false);
    expect(governor.stretch).toBe(1);
    expect(governor.npcBudgetScale).toBe(1);
  });

  it("holds between its thresholds: a load of 85 % neither stretches the tick nor keeps it stretched", () => {
    const governor = new OverloadGovernor();
    run(governor, 0.85, 300, false);
    expect(governor.stretch).toBe(1);
    run(governor, 2, 100, false);
    run(governor, 0.85, 400, false);
    // 0.85 of the nominal period is above the target share at stretch 1: it stays just above 1, not at 2.
    expect(governor.stretch).toBeLessThan(1.1);
  });
});

describe("TickLoop under a tick longer than its period", () => {
  /** Runs a loop whose ticks take `tickMs` for `forMs`, then `lightMs` ticks for `thenMs`. */
  async function heavyLoop(maxStretch: number, tickMs: number, forMs: number) {
    const governor = new OverloadGovernor(maxStretch);
    let heavy = true;
    let ticks = 0;
    const late = new SampleWindow();
    const loop = new TickLoop(
      HZ,
      () => {
        ticks++;
        busyFor(heavy ? tickMs : 2);
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
    // 60 ms of work a tick at 80 % load: a 75 ms period, 13.3 ticks a second instead of 24.
    expect(dilated.stretchUnderLoad).toBeGreaterThan(1.4);
    expect(dilated.stretchUnderLoad).toBeLessThan(2.4);
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

describe("a server whose event loop is kept busy", () => {
  it("shows its dilation on /metrics and /api/status, and its State ticks slow down instead of jumping", async () => {
    const server = await startServerOnTestMap({ maxPlayers: 8 });
    const client = await UdpTestClient.connect(server.server.httpPort, "dilated");
    // Stand-in for a crowded process: 36 ms of every 40 the thread does other work.
    let loading = true;
    const load = setInterval(() => {
      if (loading) busyFor(36);
    }, 40);
    try {
      client.action(0, 0);
      await sleep(4000);
      const metrics = await (await fetch(`${server.baseUrl}/metrics`)).text();
      const dilation = Number(/^caves_time_dilation (\S+)$/m.exec(metrics)?.[1]);
      expect(dilation).toBeLessThan(0.8);
      expect(Number(/^caves_event_loop_utilization (\S+)$/m.exec(metrics)?.[1])).toBeGreaterThan(0.8);
      expect(Number(/^caves_dilated_ticks_total (\S+)$/m.exec(metrics)?.[1])).toBeGreaterThan(0);
      // The last two seconds of States: consecutive broadcasts of a slower world, not skips.
      const now = performance.now();
      const recent = client.received.filter((r) => r.packet?.type === "state" && r.at > now - 2000);
      const ticks = recent.map((r) => (r.packet as { tick: number }).tick);
      expect(ticks.length).toBeGreaterThan(3);
      const span = ticks[ticks.length - 1] - ticks[0];
      expect(span / 2).toBeLessThan(HZ * 0.85);
      const status = (await (await fetch(`${server.baseUrl}/api/status`)).json()) as {
        overload: { dilation: number; npcBudgetScale: number };
      };
      expect(status.overload.dilation).toBeLessThan(0.8);
      loading = false;
      // Load gone: back to real time within a few seconds.
      const deadline = performance.now() + 8000;
      let back = 0;
      while (performance.now() < deadline) {
        await sleep(250);
        const text = await (await fetch(`${server.baseUrl}/metrics`)).text();
        back = Number(/^caves_time_dilation (\S+)$/m.exec(text)?.[1]);
        if (back === 1) break;
      }
      expect(back).toBe(1);
    } finally {
      clearInterval(load);
      client.close();
      await server.close();
    }
  }, 30_000);
});
