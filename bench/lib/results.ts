// The shape of bench/results/<suite>.json: everything REPORT.md is made from.
// A suite stores finished tables (cells already formatted), chart data and
// its targets, so the report generator needs no knowledge of any suite.

export interface Machine {
  cpuModel: string;
  cores: number;
  /** CPUs this process may run on (taskset / cgroup), as `os.availableParallelism()`. */
  availableCores: number;
  memoryGiB: number;
  os: string;
  node: string;
  /** 1-minute load average at the start and end of the suite. */
  loadStart: number;
  loadEnd: number;
}

export interface Table {
  title: string;
  columns: string[];
  rows: (string | number)[][];
  /** Printed under the table. */
  note?: string;
}

export interface ChartSeries {
  name: string;
  /** [x, y] points (line chart) or one value per category (bar chart). */
  values: number[];
}

export interface Chart {
  /** File name under bench/charts/, e.g. "pathfind-paths.svg". */
  file: string;
  title: string;
  kind: "bar" | "line";
  /** Bar charts: category labels. Line charts: x values. */
  categories: (string | number)[];
  series: ChartSeries[];
  xLabel?: string;
  yLabel: string;
  /** Logarithmic value axis (bar charts spanning several decades). */
  logScale?: boolean;
  /** Horizontal reference lines (targets). */
  references?: { label: string; value: number }[];
}

export interface Target {
  /** What is promised, in words: "unpack6 wasm ≤ 100 ns per chunk (resident)". */
  target: string;
  /** What was measured, in words with numbers. */
  measured: string;
  /** true met, false missed, null not measured in this run (e.g. skipped). */
  met: boolean | null;
  /** For a miss: by how much, and what profiling showed. */
  note?: string;
}

export interface SuiteResult {
  suite: string;
  title: string;
  /** ISO date of the run. */
  date: string;
  /** The exact command line that produced this file. */
  command: string;
  quick: boolean;
  gitCommit: string;
  machine: Machine;
  /** How time was taken: "wall clock", "process CPU time", ... */
  timing: string;
  tables: Table[];
  charts: Chart[];
  targets: Target[];
  notes: string[];
  /** Raw numbers for anyone who wants to re-analyse (free form per suite). */
  raw?: unknown;
}
