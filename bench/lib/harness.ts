// Shared benchmark machinery: tinybench runs with warm-up and retained
// samples, robust statistics (median and inter-quartile range, not the mean,
// because a loaded machine adds long outliers to one side only), CPU-time
// clocks, machine facts, and formatting.
import { execFileSync } from "node:child_process";
import { availableParallelism, cpus, loadavg, release, totalmem, type } from "node:os";
import { Bench, type Fn } from "tinybench";
import type { Machine } from "./results.js";

export interface RunOptions {
  quick: boolean;
  /** Server suite: bot counts to try (default 100 … 2000, or 100 with --quick). */
  serverCounts?: number[];
}

/** Median, quartiles and extremes of a sample, in the sample's unit. */
export interface Spread {
  median: number;
  p25: number;
  p75: number;
  min: number;
  max: number;
  mean: number;
  samples: number;
}

export function spreadOf(values: ArrayLike<number>): Spread {
  const sorted = Float64Array.from(values).sort();
  const at = (q: number) => {
    if (sorted.length === 0) return NaN;
    const position = q * (sorted.length - 1);
    const low = Math.floor(position);
    const high = Math.min(sorted.length - 1, low + 1);
    return sorted[low] + (sorted[high] - sorted[low]) * (position - low);
  };
  let sum = 0;
  for (const value of sorted) sum += value;
  return {
    median: at(0.5),
    p25: at(0.25),
    p75: at(0.75),
    min: sorted[0],
    max: sorted[sorted.length - 1],
    mean: sum / sorted.length,
    samples: sorted.length,
  };
}

/** Scales every statistic (e.g. ms per sample → ns per call). */
export function scaleSpread(spread: Spread, factor: number): Spread {
  return {
    ...spread,
    median: spread.median * factor,
    p25: spread.p25 * factor,
    p75: spread.p75 * factor,
    min: spread.min * factor,
    max: spread.max * factor,
    mean: spread.mean * factor,
  };
}

/** Milliseconds of CPU time used by this process (user + system), for tinybench's `now`. */
export function cpuNowMs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

export interface TaskSpec {
  name: string;
  fn: Fn;
  /** Untimed set-up before the task's samples (e.g. load inputs into wasm memory). */
  beforeAll?: () => void;
  afterAll?: () => void;
}

export interface BenchSettings {
  /** Time budget per task in ms (after warm-up). */
  timeMs: number;
  warmupMs: number;
  /** Minimum samples per task. */
  iterations?: number;
  warmupIterations?: number;
  /** Use process CPU time instead of wall-clock time. */
  cpuTime?: boolean;
}

/**
 * Runs the tasks in one tinybench Bench (so both sides of every comparison run
 * in the same process, interleaved by task order, after their own warm-up) and
 * returns each task's per-sample spread in milliseconds.
 */
export async function runTasks(tasks: TaskSpec[], settings: BenchSettings): Promise<Map<string, Spread>> {
  const bench = new Bench({
    time: settings.timeMs,
    warmup: true,
    warmupTime: settings.warmupMs,
    iterations: settings.iterations ?? 10,
    warmupIterations: settings.warmupIterations ?? 5,
    retainSamples: true,
    throws: true,
    ...(settings.cpuTime ? { now: cpuNowMs } : {}),
  });
  for (const task of tasks) {
    bench.add(task.name, task.fn, {
      ...(task.beforeAll ? { beforeAll: task.beforeAll } : {}),
      ...(task.afterAll ? { afterAll: task.afterAll } : {}),
    });
  }
  await bench.run();
  const out = new Map<string, Spread>();
  for (const task of bench.tasks) {
    const result = task.result;
    if (result.state !== "completed") throw new Error(`benchmark task "${task.name}" ended as ${result.state}`);
    const samples = result.latency.samples;
    if (!samples || samples.length === 0) throw new Error(`benchmark task "${task.name}" kept no samples`);
    out.set(task.name, spreadOf(samples));
  }
  return out;
}

function firstLine(path: string, pattern: RegExp): string | null {
  try {
    const text = execFileSync("cat", [path], { encoding: "utf8" });
    const match = pattern.exec(text);
    return match ? match[1].trim() : null;
  } catch {
    return null;
  }
}

export function machineNow(loadStart: number): Machine {
  const cpuList = cpus();
  return {
    cpuModel: cpuList[0]?.model ?? firstLine("/proc/cpuinfo", /model name\s*:\s*(.*)/) ?? "unknown",
    cores: cpuList.length,
    availableCores: availableParallelism(),
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    os: `${type()} ${release()}`,
    node: process.version,
    loadStart,
    loadEnd: loadavg()[0],
  };
}

export function loadNow(): number {
  return loadavg()[0];
}

export function gitCommit(): string {
  try {
    return execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim();
  } catch {
    return "unknown";
  }
}

/** The command line as typed, for the report ("npm run bench -- --quick" shows as the script it ran). */
export function commandLine(): string {
  const npmScript = process.env.npm_lifecycle_event;
  const args = process.argv.slice(2).join(" ");
  // npx sets npm_lifecycle_event too ("npx"): a report once said `npm run npx -- --only client`.
  if (npmScript && npmScript !== "npx") return `npm run ${npmScript}${args ? ` -- ${args}` : ""}`;
  return `npx tsx ${process.argv[1]?.replace(process.cwd() + "/", "") ?? "bench/run.ts"}${args ? ` ${args}` : ""}`;
}

/** 3 significant digits, thousands separated with a thin space for big numbers. */
export function fmt(value: number, digits = 3): string {
  if (!Number.isFinite(value)) return "—";
  const abs = Math.abs(value);
  if (abs >= 10 ** digits) return Math.round(value).toLocaleString("en-US").replace(/,/g, " ");
  if (abs === 0) return "0";
  const decimals = Math.max(0, digits - 1 - Math.floor(Math.log10(abs)));
  return value.toFixed(decimals);
}

/** "median (p25–p75)" in the given unit. */
export function fmtSpread(spread: Spread, digits = 3): string {
  return `${fmt(spread.median, digits)} (${fmt(spread.p25, digits)}–${fmt(spread.p75, digits)})`;
}

/** Ratio a/b as "12.3×". */
export function fmtRatio(ratio: number): string {
  return Number.isFinite(ratio) ? `${fmt(ratio, 3)}×` : "—";
}

/** Relative inter-quartile range in percent: a quick read of how noisy a number is. */
export function iqrPercent(spread: Spread): number {
  return ((spread.p75 - spread.p25) / spread.median) * 100;
}

export function log(message: string): void {
  process.stderr.write(`${message}\n`);
}

/**
 * What every suite's result opens with (SuiteResult's date, command, quick, gitCommit and machine): when, how,
 * from which commit and on what machine it ran, the load from `loadStart` (loadNow() at the suite's start) to now.
 */
export function runHeader(
  quick: boolean,
  loadStart: number,
): { date: string; command: string; quick: boolean; gitCommit: string; machine: Machine } {
  return {
    date: new Date().toISOString(),
    command: commandLine(),
    quick,
    gitCommit: gitCommit(),
    machine: machineNow(loadStart),
  };
}
