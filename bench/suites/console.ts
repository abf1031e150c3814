// Many operators' consoles at once (issue 43: "many consoles at once: bounded cost to the server — a bench
// row: the tick with ten consoles open on a 2000-bot world"). The server suite's server and wandering bots
// on its plain world, one row without a console and one with ten, in one session. Each console asks what
// the console's page asks on its map tab (admin-console-page.ts, admin-console-health.ts): where everyone
// is every second (GET /api/admin/world, the heaviest: every player and up to the console's limit of
// creatures), the admin log every 5 s and the health history since its last sample every 5 s — over real
// HTTP with the operator's Basic login, from this process (the bench's, on the bots' core).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { type RunOptions, fmt, log, loadNow, runHeader } from "../lib/harness.js";
import type { SuiteResult, Target } from "../lib/results.js";
import { writeWorld } from "../server/world.js";
import { type ConsolePoller, type ScaleRow, loadCell, runScale } from "./server.js";

const DEFAULT_BOTS = 2000;
const CONSOLES = 10;
const TOKEN = "b".repeat(40);
/** What a console's map tab asks, and how often (ms). */
const POLLS: readonly { path: (since: number) => string; everyMs: number; history?: true }[] = [
  { path: () => "/api/admin/world", everyMs: 1000 },
  { path: () => "/api/admin/log?limit=12", everyMs: 5000 },
  {
    path: (since) => (since > 0 ? `/api/admin/history?since=${since}` : "/api/admin/history"),
    everyMs: 5000,
    history: true,
  },
];
/** The row with consoles keeps the tick if its p99 stays under this share more than the row without. */
const TICK_P99_GOAL_RATIO = 1.1;
/**
 * Pairs of rows (without, then with the consoles) run at the full size by default. One pair's verdict says
 * little at a 10 % margin: the row without consoles alone moved 8.5 → 13.0 ms between two runs of the same
 * build on the quiet machine (bench/REPORT.md). So the verdict is the median of the pairs' ratios, each pair
 * run back to back so that a drift of the machine touches both of its rows alike.
 */
const DEFAULT_PAIRS = 3;

/** The median of `values` (the mean of the middle two for an even count). */
function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** One console: each poll on its own timer (the page's setIntervals), the first at a random phase. */
function pollConsole(http: string): ConsolePoller {
  const authorization = `Basic ${Buffer.from(`host:${TOKEN}`).toString("base64")}`;
  let requests = 0;
  let failed = 0;
  let totalMs = 0;
  let bytes = 0;
  let since = 0;
  let stopped = false;
  const inFlight = new Set<Promise<void>>();
  const timers = POLLS.map((poll) => {
    const ask = () => {
      if (stopped) return;
      const startMs = performance.now();
      const request = fetch(`${http}${poll.path(since)}`, { headers: { authorization } })
        .then(async (response) => {
          const body = new Uint8Array(await response.arrayBuffer());
          bytes += body.length;
          if (!response.ok) failed++;
          else if (poll.history === true) {
            const atMs = (JSON.parse(new TextDecoder().decode(body)) as { atMs: number[] }).atMs;
            if (atMs.length > 0) since = atMs[atMs.length - 1];
          }
        })
        .catch(() => void failed++)
        .finally(() => {
          requests++;
          totalMs += performance.now() - startMs;
          inFlight.delete(request);
        });
      inFlight.add(request);
    };
    const first = setTimeout(ask, Math.random() * poll.everyMs);
    const every = setInterval(ask, poll.everyMs);
    return () => {
      clearTimeout(first);
      clearInterval(every);
    };
  });
  return {
    async stop() {
      stopped = true;
      for (const clear of timers) clear();
      await Promise.all(inFlight);
      return { requests, failed, meanMs: requests === 0 ? NaN : totalMs / requests, bytes };
    },
  };
}

export async function runConsoles(
  options: RunOptions & { npcBots?: number; cpuProfileDir?: string; repeat?: number },
): Promise<SuiteResult> {
  const loadStart = loadNow();
  const bots = options.npcBots ?? (options.quick ? 100 : DEFAULT_BOTS);
  const warmupS = options.quick ? 3 : 10;
  const measureS = options.quick ? 8 : 30;
  const pairs = options.repeat ?? (options.quick ? 1 : DEFAULT_PAIRS);
  const dir = mkdtempSync(join(tmpdir(), "fc-consoles-"));
  const rows: ScaleRow[] = [];
  try {
    const mapPath = writeWorld(join(dir, "world"), { npcs: 0 });
    const tokenFile = join(dir, "admin-token");
    writeFileSync(tokenFile, `${TOKEN}\n`);
    for (let pair = 0; pair < pairs; pair++)
      for (const count of [0, CONSOLES]) {
        log(`consoles: ${bots} bots, ${count} consoles open (pair ${pair + 1} of ${pairs})`);
        rows.push(
          await runScale(mapPath, bots, false, warmupS, measureS, "auto", {
            sampleNpcs: false,
            consoles: { count, tokenFile, poll: pollConsole },
            // Where a console's cost goes (one .cpuprofile per row): profiling rows, slower, not figures.
            nodeArgs: options.cpuProfileDir ? ["--cpu-prof", "--cpu-prof-dir", options.cpuProfileDir] : undefined,
          }),
        );
      }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const pairsRun = Array.from({ length: pairs }, (_, pair) => ({ none: rows[2 * pair], ten: rows[2 * pair + 1] }));
  const ratios = pairsRun.map(({ none, ten }) => ten.tickMs.p99 / none.tickMs.p99);
  const ratio = median(ratios);
  const cpuDelta = median(pairsRun.map(({ none, ten }) => ten.serverCpuPercent - none.serverCpuPercent));
  const failed = pairsRun.reduce((sum, { ten }) => sum + (ten.consoles?.failed ?? 0), 0);
  const full = bots === DEFAULT_BOTS;
  const percent = (r: number) => `${r >= 1 ? "+" : ""}${fmt((r - 1) * 100)} %`;
  const targets: Target[] = [
    {
      target: `${DEFAULT_BOTS} bots: ten consoles open cost the tick at most ${fmt((TICK_P99_GOAL_RATIO - 1) * 100)} % of its p99 (the median of the pairs), and every console request is answered`,
      measured: full
        ? `tick p99 with ten ÷ without, per pair: ${pairsRun.map(({ none, ten }) => `${fmt(ten.tickMs.p99)} / ${fmt(none.tickMs.p99)} ms`).join(", ")}; median ${percent(ratio)} over ${pairs} pair${pairs === 1 ? "" : "s"}; server CPU ${cpuDelta >= 0 ? "+" : ""}${fmt(cpuDelta)} points (median); ${failed} requests failed (load ${rows.map(loadCell).join(", ")})`
        : `not run (bots ${bots})`,
      met: full ? ratio <= TICK_P99_GOAL_RATIO && failed === 0 : null,
    },
  ];
  const cells = (row: ScaleRow, index: number): string[] => [
    `${pairs > 1 ? `pair ${Math.floor(index / 2) + 1}: ` : ""}${row.bots} bots, ${row.consoles?.count ?? 0} consoles`,
    loadCell(row),
    fmt(row.serverCpuPercent),
    `${fmt(row.tickMs.p50)} / ${fmt(row.tickMs.p99)}`,
    fmt(row.tickRateHz),
    fmt(row.bot.perBot.statePerSecond),
    row.consoles === undefined || row.consoles.count === 0
      ? "—"
      : `${fmt(row.consoles.requestsPerSecond)} / ${fmt(row.consoles.meanMs)} ms / ${fmt(row.consoles.kBytesPerSecond)} kB/s`,
    row.keepsUp ? "yes" : "**no**",
  ];
  return {
    suite: "consoles",
    title: `Operators' consoles open on a busy world (${bots} bots, 0 and ${CONSOLES} consoles)`,
    ...runHeader(options.quick, loadStart),
    timing: `per row: a fresh server with an admin token, ${warmupS} s warm-up after all joins, then a ${measureS} s window with the consoles polling through it; ${pairs} pair${pairs === 1 ? "" : "s"} of rows (without, then with the consoles), the verdict on the median of the pairs' p99 ratios`,
    tables: [
      {
        title: "The server with and without ten consoles (server on core 0, bots and consoles on core 1)",
        columns: [
          "row",
          "load 1-min before / after",
          "server CPU %",
          "tick ms p50 / p99",
          "ticks/s",
          "States/s per bot",
          "console requests/s / mean answer / bytes",
          "keeps up",
        ],
        rows: rows.map(cells),
        note:
          "Each console polls as the console's map tab does: /api/admin/world every second, the admin log and the health history " +
          "every 5 s, with the operator's Basic login, each poll's first at a random phase.",
      },
    ],
    charts: [],
    targets,
    notes: [
      "Reproduce: the server suite's server command on bench/server/world.ts's world with --admin-token-file, bench/server/bots.ts --count 2000, and ten pollers of the three routes.",
      "The load average is the machine's (2 cores): above 2 means something besides this server, its bots and the consoles wanted CPU during the row.",
    ],
    raw: { rows },
  };
}
