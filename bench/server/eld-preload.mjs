// Preloaded into the game server by the server-scale benchmark
// (node --import ./bench/server/eld-preload.mjs): measures event-loop delay
// with perf_hooks.monitorEventLoopDelay, without touching the server's code.
// On SIGUSR2 it writes {p50, p99, max, mean, count} in milliseconds for the
// time since the previous SIGUSR2 to the file named by BENCH_ELD_FILE, then
// resets. Used until /api/status reports eventLoopDelayMs itself.
import { writeFileSync } from "node:fs";
import { monitorEventLoopDelay } from "node:perf_hooks";

const file = process.env.BENCH_ELD_FILE;
if (file) {
  // Node records the time between samples of a `resolution`-ms timer, so an idle loop reads ≈ resolution:
  // sample every 1 ms and subtract that interval to report the delay itself.
  const RESOLUTION_MS = 1;
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  histogram.enable();
  process.on("SIGUSR2", () => {
    const ms = (ns) => Math.max(0, ns / 1e6 - RESOLUTION_MS);
    const stats = {
      p50: ms(histogram.percentile(50)),
      p99: ms(histogram.percentile(99)),
      max: ms(histogram.max),
      mean: ms(histogram.mean),
      count: histogram.count,
    };
    writeFileSync(file, JSON.stringify(stats));
    histogram.reset();
  });
}
