// Issue 19's border bench: N wandering bots on the 1024² bench world cut into R regions behind G
// gateways (`ts/cluster/main.ts`, a private redis-server), each bot a real protocol client over UDP
// (bench/server/bots.ts, through a gateway's /api/guest and UDP port). The cluster — Redis, every region
// and every gateway — runs pinned to core 0, the bot processes to core 1 ("pinned as far as two cores
// allow"). Over the measured window it reads, per region, /api/cluster (handoffs in and out, ghosts,
// claim conflicts) and /api/status (tick p50/p99, ticks run), per gateway /api/gateway, Redis's
// commands from INFO, and each process's CPU from /proc; the bots report States/s and checksum
// mismatches (an entity list that did not match its checksum).
//
// Run: npx tsx bench/cluster-border.ts [--bots 2000] [--regions 4] [--gateways 2] [--warmup 10] [--measure 30]
//      (not part of `npm run bench`: it needs redis-server, and the machine's both cores)
// Writes bench/results/cluster.json (a suite result: `npx tsx bench/report.ts` puts it in REPORT.md)
// and prints a Markdown table.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import { gitCommit, machineNow } from "./lib/harness.js";
import type { SuiteResult } from "./lib/results.js";
import { cpuSeconds, loadAverages, pinned, redisCommands, stop } from "./server/processes.js";
import { writeWorld } from "./server/world.js";

const ROOT = new URL("..", import.meta.url).pathname;
const HELP = `usage: npx tsx bench/cluster-border.ts [--bots N] [--regions N] [--gateways N] [--warmup S] [--measure S]

  --bots N       wandering bots, shared evenly over the gateways (default 2000)
  --regions N    region processes; the world is cut into N near-square rectangles (default 4)
  --gateways N   gateway processes, one bot process each (default 2)
  --warmup S     seconds after all bots joined before the window (default 10)
  --measure S    the measured window in seconds (default 30)
`;

const { values } = parseArgs({
  options: {
    bots: { type: "string", default: "2000" },
    regions: { type: "string", default: "4" },
    gateways: { type: "string", default: "2" },
    warmup: { type: "string", default: "10" },
    measure: { type: "string", default: "30" },
    help: { type: "boolean", short: "h", default: false },
  },
  strict: true,
});
if (values.help) {
  process.stdout.write(HELP);
  process.exit(0);
}
function positive(name: string, value: string, max: number): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > max) {
    process.stderr.write(`error: --${name} must be an integer 1..${max}, got "${value}"\n\n${HELP}`);
    process.exit(2);
  }
  return n;
}
const BOTS = positive("bots", values.bots, 5000);
const REGIONS = positive("regions", values.regions, 16);
const GATEWAYS = positive("gateways", values.gateways, 8);
const WARMUP_S = positive("warmup", values.warmup, 600);
const MEASURE_S = positive("measure", values.measure, 600);

interface Ready {
  redis: string;
  regions: { region: number; httpPort: number; pid?: number }[];
  gateways: { id: string; httpPort: number; udpPort: number }[];
  pid: number;
}

interface RegionSample {
  region: number;
  cluster: {
    handoffsIn: number;
    handoffsOut: number;
    ghosts: number;
    players: number;
    claimConflicts: number;
    stepsCarried: number;
    stepsMovedWindow: number;
    stepsLost: number;
    stepsDoubled: number;
    rerouted: number;
    ghostFramesIn: number;
    ghostLagTicks: [number, number, number];
  };
  status: { tickMs: { p50: number; p99: number; max: number }; tick: number; actions: Record<string, number> };
}

/** Steps a region could not schedule at all (schedule.ts): dropped late, or addressed beyond the horizon. */
function lostActions(actions: Record<string, number>): number {
  return (actions.late_dropped ?? 0) + (actions.beyond_horizon ?? 0);
}

async function getJson<T>(url: string): Promise<T> {
  const response = await fetch(url, { signal: AbortSignal.timeout(5000) });
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return (await response.json()) as T;
}

/** The pids of a process and all its descendants (the cluster's regions, gateways and Redis). */
function processTree(root: number): number[] {
  const parents = new Map<number, number[]>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      const list = parents.get(ppid) ?? [];
      list.push(Number(name));
      parents.set(ppid, list);
    } catch {
      // gone meanwhile
    }
  }
  const out: number[] = [];
  const walk = (pid: number) => {
    out.push(pid);
    for (const child of parents.get(pid) ?? []) walk(child);
  };
  walk(root);
  return out;
}

function treeCpu(pids: number[]): number {
  let total = 0;
  for (const pid of pids) {
    try {
      total += cpuSeconds(pid);
    } catch {
      // exited
    }
  }
  return total;
}

const dir = mkdtempSync(join(tmpdir(), "fc-cluster-border-"));
const mapPath = writeWorld(dir);
const loadBefore = loadAverages();
const [command, args] = pinned(0, process.execPath, [
  "--import",
  "tsx",
  join(ROOT, "ts/cluster/main.ts"),
  "--regions",
  String(REGIONS),
  "--gateways",
  String(GATEWAYS),
  "--map",
  mapPath,
  "--http-port",
  "0",
  "--udp-port",
  "0",
  "--json",
  "--log-level",
  "warn",
  // Thousands of bots join from this one address, each through region 0.
  "--join-rate",
  "1000000",
  "--max-players",
  String(BOTS),
]);
const cluster = spawn(command, args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
let clusterErr = "";
cluster.stderr!.on("data", (chunk: Buffer) => (clusterErr = (clusterErr + chunk.toString()).slice(-4000)));
const bots: ChildProcess[] = [];
try {
  const ready = await new Promise<Ready>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no cluster after 120 s: ${clusterErr}`)), 120_000);
    cluster.on("exit", (code) => reject(new Error(`the cluster exited (${String(code)}): ${clusterErr}`)));
    createInterface({ input: cluster.stdout! }).once("line", (line) => {
      clearTimeout(timer);
      resolve(JSON.parse(line) as Ready);
    });
  });
  process.stderr.write(`cluster up: ${ready.regions.length} regions, ${ready.gateways.length} gateways\n`);
  const share = (index: number) => Math.floor(BOTS / GATEWAYS) + (index < BOTS % GATEWAYS ? 1 : 0);
  const results: Record<string, unknown>[] = [];
  const events = ready.gateways.map((gateway, index) => {
    const [botCommand, botArgs] = pinned(1, process.execPath, [
      "--import",
      "tsx",
      join(ROOT, "bench/server/bots.ts"),
      "--http",
      `http://127.0.0.1:${gateway.httpPort}`,
      "--count",
      String(share(index)),
      "--warmup",
      String(WARMUP_S),
      "--measure",
      String(MEASURE_S),
      "--seed",
      String(index + 1),
      "--first",
      String(Array.from({ length: index }, (_, i) => share(i)).reduce((a, b) => a + b, 0)),
      ...(GATEWAYS > 1 ? ["--wait-go"] : []),
    ]);
    const child = spawn(botCommand, botArgs, { cwd: ROOT, stdio: ["pipe", "pipe", "pipe"] });
    bots.push(child);
    let err = "";
    child.stderr!.on("data", (chunk: Buffer) => (err = (err + chunk.toString()).slice(-2000)));
    const seen = new Map<string, (fields: Record<string, unknown>) => void>();
    const waiters = (name: string) =>
      new Promise<Record<string, unknown>>((resolve, reject) => {
        seen.set(name, resolve);
        child.on("exit", (code) => reject(new Error(`bots ${index} exited (${String(code)}): ${err}`)));
      });
    const joined = waiters("joined");
    const start = waiters("measure-start");
    const end = waiters("measure-end");
    const result = waiters("result");
    // A bot process that dies rejects all four; the one awaited then ends the run through `finally`
    // (cluster stopped), and the others must not crash it first as unhandled rejections.
    for (const waiting of [joined, start, end, result]) waiting.catch(() => {});
    createInterface({ input: child.stdout! }).on("line", (line) => {
      try {
        const fields = JSON.parse(line) as Record<string, unknown>;
        seen.get(String(fields.event))?.(fields);
      } catch {
        // not an event line
      }
    });
    return { child, joined, start, end, result };
  });
  await Promise.all(events.map((e) => e.joined));
  process.stderr.write(`all ${BOTS} bots joined\n`);
  // With several bot processes, each waits for "go" on stdin after its joins (bots.ts --wait-go).
  if (GATEWAYS > 1) for (const e of events) e.child.stdin!.write("go\n");
  await Promise.all(events.map((e) => e.start));
  const pids = processTree(cluster.pid!);
  const sample = async (): Promise<RegionSample[]> =>
    Promise.all(
      ready.regions.map(async (r) => ({
        region: r.region,
        cluster: await getJson<RegionSample["cluster"]>(`http://127.0.0.1:${r.httpPort}/api/cluster`),
        status: await getJson<RegionSample["status"]>(`http://127.0.0.1:${r.httpPort}/api/status`),
      })),
    );
  const t0 = performance.now();
  const cpu0 = treeCpu(pids);
  const redis0 = await redisCommands(ready.redis);
  const before = await sample();
  await Promise.all(events.map((e) => e.end));
  const seconds = (performance.now() - t0) / 1000;
  const cpu1 = treeCpu(pids);
  const redis1 = await redisCommands(ready.redis);
  // The tick percentiles cover the window's ticks.
  const ticks = Math.round(seconds * 24);
  const after = await Promise.all(
    ready.regions.map(async (r) => ({
      region: r.region,
      cluster: await getJson<RegionSample["cluster"]>(`http://127.0.0.1:${r.httpPort}/api/cluster`),
      status: await getJson<RegionSample["status"]>(`http://127.0.0.1:${r.httpPort}/api/status?ticks=${ticks}`),
    })),
  );
  const gateways = await Promise.all(
    ready.gateways.map((g) => getJson<Record<string, number>>(`http://127.0.0.1:${g.httpPort}/api/gateway`)),
  );
  for (const e of events) results.push(await e.result);
  const loadAfter = loadAverages();
  const regions = after.map((a, index) => {
    const b = before[index];
    return {
      region: a.region,
      // At the window's start: by its end the bots are leaving.
      players: b.cluster.players,
      ghosts: a.cluster.ghosts,
      handoffsInPerSecond: (a.cluster.handoffsIn - b.cluster.handoffsIn) / seconds,
      handoffsOutPerSecond: (a.cluster.handoffsOut - b.cluster.handoffsOut) / seconds,
      claimConflicts: a.cluster.claimConflicts - b.cluster.claimConflicts,
      stepsCarried: a.cluster.stepsCarried - b.cluster.stepsCarried,
      stepsLate: a.cluster.stepsMovedWindow - b.cluster.stepsMovedWindow,
      stepsLost: a.cluster.stepsLost - b.cluster.stepsLost,
      stepsDoubled: a.cluster.stepsDoubled - b.cluster.stepsDoubled,
      rerouted: a.cluster.rerouted - b.cluster.rerouted,
      // Every step any player sent, handoffs or not: dropped late, or beyond the horizon.
      actionsLost: lostActions(a.status.actions) - lostActions(b.status.actions),
      actionsLate: (a.status.actions.late_moved ?? 0) - (b.status.actions.late_moved ?? 0),
      ghostFrames: a.cluster.ghostFramesIn - b.cluster.ghostFramesIn,
      ghostLag: a.cluster.ghostLagTicks.map((n, i) => n - b.cluster.ghostLagTicks[i]),
      ticksPerSecond: (a.status.tick - b.status.tick) / seconds,
      tickMs: a.status.tickMs,
    };
  });
  const perBot = results.map((r) => r.perBot as Record<string, number>);
  const statesPerBot = perBot.reduce((sum, p, i) => sum + p.statePerSecond * share(i), 0) / BOTS;
  const mismatches = results.reduce((sum, r) => sum + Number(r.checksumMismatches), 0);
  const summary = {
    when: new Date().toISOString(),
    bots: BOTS,
    regions: REGIONS,
    gateways: GATEWAYS,
    seconds,
    loadBefore,
    loadAfter,
    clusterCpuPercent: ((cpu1 - cpu0) / seconds) * 100,
    clusterCpuUsPerClientSecond: ((cpu1 - cpu0) / seconds / BOTS) * 1e6,
    redisCommandsPerSecond: (redis1 - redis0) / seconds,
    statesPerSecondPerBot: statesPerBot,
    checksumMismatches: mismatches,
    regionRows: regions,
    gatewayRows: gateways,
    botResults: results,
  };
  const f = (n: number, digits = 1) => n.toFixed(digits);
  const worstP99 = Math.max(...regions.map((r) => r.tickMs.p99));
  const sum = (of: (r: (typeof regions)[number]) => number) => regions.reduce((total, r) => total + of(r), 0);
  const slowestRate = Math.min(...regions.map((r) => r.ticksPerSecond));
  const load = `load ${loadBefore[0]} / ${loadAfter[0]}`;
  const suite: SuiteResult = {
    suite: "cluster",
    title: `One world on ${REGIONS} regions and ${GATEWAYS} gateways: ${BOTS} wandering bots across the borders`,
    date: summary.when,
    command: `npx tsx bench/cluster-border.ts ${process.argv.slice(2).join(" ")}`.trim(),
    quick: false,
    gitCommit: gitCommit(),
    machine: machineNow(loadBefore[0]),
    timing: `${f(WARMUP_S, 0)} s warm-up after all joins, then a ${f(seconds)} s window; the cluster (Redis, regions, gateways) pinned to core 0, the bots to core 1; CPU from /proc over the window; tick percentiles over the window's ticks`,
    tables: [
      {
        title: "Per region",
        columns: [
          "region",
          "players",
          "ghosts",
          "handoffs in / out per s",
          "claim conflicts",
          "ticks/s",
          "tick ms p50 / p99 / max",
        ],
        rows: regions.map((r) => [
          r.region,
          r.players,
          r.ghosts,
          `${f(r.handoffsInPerSecond, 2)} / ${f(r.handoffsOutPerSecond, 2)}`,
          r.claimConflicts,
          f(r.ticksPerSecond),
          `${f(r.tickMs.p50)} / ${f(r.tickMs.p99)} / ${f(r.tickMs.max)}`,
        ]),
        note: "players: sessions each region simulated at the window's start; ghosts: read-only copies of a neighbour's entities near its ground.",
      },
      {
        title: "At the borders",
        columns: [
          "region",
          "steps carried in handoffs",
          "run at a later window",
          "lost",
          "doubled",
          "datagrams it rerouted (after a handoff)",
          "steps of all players: late / lost",
          "GHOSTS frames in",
          "applied before the next tick / 1 tick late / later",
        ],
        rows: regions.map((r) => [
          r.region,
          r.stepsCarried,
          r.stepsLate,
          r.stepsLost,
          r.stepsDoubled,
          r.rerouted,
          `${r.actionsLate} / ${r.actionsLost}`,
          r.ghostFrames,
          r.ghostLag.join(" / "),
        ]),
        note: "Steps: the scheduled steps a handoff brought into the region, offered again there (ts/cluster/handoff.ts restoreSession): at their window, or (a clock a tick behind) at the next free one, as any late step; lost = dropped or beyond the horizon; doubled = for a window the old region had already run. A step sent while its session moved reaches the old region after the handoff and is rerouted to the new one (counted by the old region), where it is scheduled like any other: the steps of all players column is every step each region scheduled late or could not schedule, handoffs or not. GHOSTS frames: the neighbours' entities near this region's ground, published after each of their broadcast ticks (the frame names the tick). Applied before this region runs its next tick, the entities are in each player's next broadcast one tick after an entity of this region's own would be; a tick late, two ticks after — one broadcast period; later, more than one broadcast late.",
      },
      {
        title: "The whole cluster",
        columns: [
          "bots",
          "cluster CPU %",
          "CPU µs per client-second",
          "Redis commands/s",
          "States/s per bot",
          "checksum mismatches",
          "gateway datagrams forwarded / delivered",
        ],
        rows: [
          [
            BOTS,
            f(summary.clusterCpuPercent),
            f(summary.clusterCpuUsPerClientSecond, 0),
            f(summary.redisCommandsPerSecond),
            f(statesPerBot, 2),
            mismatches,
            gateways.map((g) => `${g.forwarded} / ${g.delivered}`).join(", "),
          ],
        ],
      },
    ],
    charts: [],
    targets: [
      {
        target: `${BOTS} bots over ${REGIONS} regions on one core: every region keeps 24 ticks/s and the bots 12 States/s (≥ 95 %)`,
        measured: `slowest region ${f(slowestRate)} ticks/s, ${f(statesPerBot, 2)} States/s per bot (${load})`,
        met: slowestRate >= 0.95 * 24 && statesPerBot >= 0.95 * 12,
      },
      {
        target: `${BOTS} bots over ${REGIONS} regions: tick p99 < 20 ms in every region`,
        measured: `worst region p99 ${f(worstP99)} ms (${load}; ${REGIONS} regions, ${GATEWAYS} gateways and Redis share core 0)`,
        met: worstP99 < 20,
      },
      {
        target: "no step lost or run twice at a handoff",
        measured: `${sum((r) => r.stepsCarried)} scheduled steps carried in ${f(sum((r) => r.handoffsInPerSecond) * seconds, 0)} handoffs (${sum((r) => r.stepsLate)} at a later window, ${sum((r) => r.stepsLost)} lost, ${sum((r) => r.stepsDoubled)} doubled); ${sum((r) => r.rerouted)} datagrams rerouted; of every step sent, ${sum((r) => r.actionsLate)} ran late and ${sum((r) => r.actionsLost)} were lost`,
        met: sum((r) => r.stepsLost + r.stepsDoubled + r.actionsLost) === 0,
      },
      {
        target:
          "players see a neighbour across a border within one broadcast: no GHOSTS frame applied 2 or more ticks after the tick it was published after",
        measured: `${sum((r) => r.ghostLag[0] + r.ghostLag[1])} of ${sum((r) => r.ghostFrames)} GHOSTS frames (${f(
          (100 * sum((r) => r.ghostLag[0] + r.ghostLag[1])) /
            Math.max(
              1,
              sum((r) => r.ghostFrames),
            ),
          2,
        )} %): ${sum((r) => r.ghostLag[0])} before the receiver's next tick, ${sum((r) => r.ghostLag[1])} a tick late; ${sum((r) => r.ghostLag[2])} later`,
        met: sum((r) => r.ghostLag[2]) === 0,
      },
      {
        target: "no entity claimed by two regions, no entity list that fails its checksum at a border",
        measured: `${regions.reduce((sum, r) => sum + r.claimConflicts, 0)} claim conflicts, ${mismatches} checksum mismatches in ${f(statesPerBot * BOTS * seconds, 0)} States`,
        met: regions.every((r) => r.claimConflicts === 0) && mismatches === 0,
      },
    ],
    notes: [
      "Not part of `npm run bench`: it needs redis-server (and PostgreSQL, when installed, for the accounts the bots do not use) and both cores.",
      "The bots are guests wandering the server suite's 1024×1024 world (bench/server/bots.ts through each gateway's /api/guest and UDP port); each region is one process, so its tick shares core 0 with the others, the gateways and Redis — a fleet gives each its own core.",
    ],
    raw: summary,
  };
  writeFileSync(join(ROOT, "bench/results/cluster.json"), `${JSON.stringify(suite, null, 1)}\n`);
  const lines = [
    `${BOTS} bots, ${REGIONS} regions, ${GATEWAYS} gateways, ${f(seconds)} s window, load ${loadBefore[0]} / ${loadAfter[0]}: ` +
      `cluster CPU ${f(summary.clusterCpuPercent)} % (${f(summary.clusterCpuUsPerClientSecond, 0)} µs per client-second), ` +
      `Redis ${f(summary.redisCommandsPerSecond)} commands/s, ${f(statesPerBot, 2)} States/s per bot, ${mismatches} checksum mismatches`,
    "",
    "| region | players | ghosts | handoffs in / out per s | claim conflicts | ticks/s | tick ms p50 / p99 |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ...regions.map(
      (r) =>
        `| ${r.region} | ${r.players} | ${r.ghosts} | ${f(r.handoffsInPerSecond, 2)} / ${f(r.handoffsOutPerSecond, 2)} | ${r.claimConflicts} | ${f(r.ticksPerSecond)} | ${f(r.tickMs.p50)} / ${f(r.tickMs.p99)} |`,
    ),
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
} finally {
  for (const child of bots) await stop(child);
  await stop(cluster);
  rmSync(dir, { recursive: true, force: true });
}
