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
import { type RunOptions, commandLine, fmt, gitCommit, log, loadNow, machineNow } from "../lib/harness.js";
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
  options: RunOptions & { npcBots?: number; cpuProfileDir?: string },
): Promise<SuiteResult> {
  const loadStart = loadNow();
  const bots = options.npcBots ?? (options.quick ? 100 : DEFAULT_BOTS);
  const warmupS = options.quick ? 3 : 10;
  const measureS = options.quick ? 8 : 30;
  const dir = mkdtempSync(join(tmpdir(), "fc-consoles-"));
  const rows: ScaleRow[] = [];
  try {
    const mapPath = writeWorld(join(dir, "world"), { npcs: 0 });
    const tokenFile = join(dir, "admin-token");
    writeFileSync(tokenFile, `${TOKEN}\n`);
    for (const count of [0, CONSOLES]) {
      log(`consoles: ${bots} bots, ${count} consoles open`);
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
  const [none, ten] = rows;
  const full = bots === DEFAULT_BOTS;
  const cpuDelta = ten.serverCpuPercent - none.serverCpuPercent;
  const targets: Target[] = [
    {
      target: `${DEFAULT_BOTS} bots: ten consoles open cost the tick at most ${fmt((TICK_P99_GOAL_RATIO - 1) * 100)} % of its p99, and every console request is answered`,
      measured: full
        ? `tick p99 ${fmt(ten.tickMs.p99)} ms with ten, ${fmt(none.tickMs.p99)} ms without; server CPU ${cpuDelta >= 0 ? "+" : ""}${fmt(cpuDelta)} points; ${ten.consoles?.failed ?? 0} requests failed (load ${loadCell(none)}, ${loadCell(ten)})`
        : `not run (bots ${bots})`,
      met: full ? ten.tickMs.p99 <= none.tickMs.p99 * TICK_P99_GOAL_RATIO && (ten.consoles?.failed ?? 0) === 0 : null,
    },
  ];
  const cells = (row: ScaleRow): string[] => [
    `${row.bots} bots, ${row.consoles?.count ?? 0} consoles`,
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
    date: new Date().toISOString(),
    command: commandLine(),
    quick: options.quick,
    gitCommit: gitCommit(),
    machine: machineNow(loadStart),
    timing: `per row: a fresh server with an admin token, ${warmupS} s warm-up after all joins, then a ${measureS} s window with the consoles polling through it`,
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
