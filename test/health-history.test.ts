// The console's health history (issue 43): the ring keeps at most its capacity, oldest first, and the
// sampler reads a real Game's own figures — the tick percentiles over just the ticks since the last sample,
// counters as what changed, gauges as they stand.
import { beforeAll, describe, expect, it } from "vitest";
import { Game } from "../ts/server/game-server.js";
import { HEALTH_SERIES, type HealthSample, HealthHistory } from "../ts/server/ops/health-history.js";
import { HEALTH_HISTORY_MS, HealthSampler } from "../ts/server/http/health-sampler.js";
import { Logger } from "../ts/server/ops/log.js";
import type { Core } from "../ts/wasm/core.js";
import { loadCore } from "../ts/wasm/node.js";
import { boundGuest, floorMap } from "./support/game-without-network.js";

let core: Core;
beforeAll(async () => {
  core = await loadCore();
});

/** A sample whose every series is `value`. */
function sampleOf(value: number): HealthSample {
  return Object.fromEntries(HEALTH_SERIES.map((name) => [name, value])) as HealthSample;
}

describe("the health history ring", () => {
  it("holds at most its capacity, the newest, oldest first; `since` gives only the later ones; NaN is null", () => {
    const history = new HealthHistory(5);
    for (let i = 1; i <= 12; i++) history.add(i * 1000, sampleOf(i === 11 ? NaN : i));
    expect(history.size).toBe(5);
    const all = history.since();
    expect(all.atMs).toEqual([8000, 9000, 10_000, 11_000, 12_000]);
    for (const name of HEALTH_SERIES) expect(all.series[name]).toEqual([8, 9, 10, null, 12]);
    expect(history.since(10_000).atMs).toEqual([11_000, 12_000]);
    expect(history.since(12_000).atMs).toEqual([]);
    expect(() => new HealthHistory(0)).toThrow(/at least 1 sample/);
  });

  it("an hour of samples at the sampler's interval, whatever the interval", () => {
    expect(new HealthSampler(idleGame(), 5000).history.capacity).toBe(HEALTH_HISTORY_MS / 5000);
    expect(new HealthSampler(idleGame(), 1000).history.capacity).toBe(3600);
  });
});

/** A Game that never steps: the capacity depends on the interval alone. */
function idleGame(): ConstructorParameters<typeof HealthSampler>[0] {
  return new Game(core, floorMap("open", 32, { x: 16, y: 16 }), {}, new Logger("silent"));
}

describe("the health sampler on a real Game", () => {
  it("samples the tick's p50 and p99 over the ticks since the last sample, and the counters' change per second", () => {
    const game = new Game(core, floorMap("open", 64, { x: 32, y: 32 }), {}, new Logger("silent"));
    boundGuest(game, "Sampled");
    let now = 1_000_000;
    const sampler = new HealthSampler(game, 5000, () => now);
    // A 1-second tick before the first reading: it must not count in the next sample's percentiles.
    game.metrics.recordTick(1000);
    sampler.sample();
    expect(sampler.history.size).toBe(0); // the first reading only notes where the counters stand
    const bytesOutBefore = game.metrics.bytesOut;
    for (let i = 0; i < 30; i++) game.step();
    now += 5000;
    sampler.sample();
    const { atMs, series } = sampler.history.since();
    expect(atMs).toEqual([now]);
    expect(series.tickP99Ms[0]).toBe(game.metrics.tickMs.percentile(99, 30));
    expect(series.tickP50Ms[0]).toBe(game.metrics.tickMs.percentile(50, 30));
    expect(series.tickP99Ms[0]).toBeLessThan(1000);
    expect(series.players[0]).toBe(1);
    expect(series.creatures[0]).toBe(game.npcs.size);
    expect(series.ticksLost[0]).toBe(0);
    expect(game.metrics.bytesOut).toBeGreaterThan(bytesOutBefore);
    expect(series.bytesOutPerSecond[0]).toBe((game.metrics.bytesOut - bytesOutBefore) / 5);
    expect(series.residentMemoryBytes[0]).toBeGreaterThan(0);
    // No tick in a sample: no percentile (null), not a stale one.
    now += 5000;
    sampler.sample();
    expect(sampler.history.since(atMs[0]).series.tickP99Ms).toEqual([null]);
  });
});
