// Two builds of the server, compared fairly: the server suite's row (the bench's wandering bots on its
// 1024² world, runScale) run for each build in turn, in one session, alternated A B B A per round, so a
// drift in the machine's load falls on both alike. For a change that must not slow the server (a
// refactor): check out the old build beside this one and run
//
//   npx tsx bench/pairs.ts --a ../old-checkout --b . --bots 500,2000 --rounds 2
//
// Each build runs its own server and bots (its own bench/suites/server.ts), from its own folder; each row
// prints one line with µs per client-second, tick p50/p99, the rates held and the load. Not part of
// `npm run bench`: it writes no results file (put the pairs, with the load, where the change is reported).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

const HELP = `usage: npx tsx bench/pairs.ts --a DIR --b DIR [--bots N[,N...]] [--rounds R] [--warmup S] [--measure S] [--deltas|--compact]

  --a, --b     the two checkouts (each built: npm install, build/core.wasm)
  --bots       bot counts, each compared in turn (default 500,2000)
  --rounds     A B B A rounds per count (default 2)
  --warmup     seconds after the joins before measuring (default 10)
  --measure    seconds measured (default 30)
  --deltas     the bots ask for entity deltas (P-21); --compact for compact ones (P-25); default seed packets
`;

const { values } = parseArgs({
  options: {
    a: { type: "string" },
    b: { type: "string" },
    bots: { type: "string", default: "500,2000" },
    rounds: { type: "string", default: "2" },
    warmup: { type: "string", default: "10" },
    measure: { type: "string", default: "30" },
    deltas: { type: "boolean", default: false },
    compact: { type: "boolean", default: false },
    help: { type: "boolean", short: "h", default: false },
  },
});
if (values.help || values.a === undefined || values.b === undefined) {
  process.stdout.write(HELP);
  process.exit(values.help ? 0 : 2);
}
const counts = values.bots.split(",").map(Number);
const rounds = Number(values.rounds);
const warmupS = Number(values.warmup);
const measureS = Number(values.measure);
if (counts.some((n) => !Number.isInteger(n) || n < 1) || !(rounds >= 1) || !(warmupS >= 0) || !(measureS > 0)) {
  process.stderr.write(`pairs: bad numbers\n${HELP}`);
  process.exit(2);
}

/** What a row reports (bench/suites/server.ts ScaleRow: the fields read here). */
interface Row {
  bots: number;
  cpuUsPerClientSecond: number;
  serverCpuPercent: number;
  tickMs: { p50: number; p99: number };
  tickRateHz: number;
  bot: { perBot: { statePerSecond: number } };
  load?: { before: number[]; after: number[] };
}
type RunScale = (
  mapPath: string,
  bots: number,
  idle: boolean,
  warmupS: number,
  measureS: number,
  udpBackend?: "auto",
  run?: { deltas: boolean; compact: boolean; sampleNpcs: boolean },
) => Promise<Row>;

/** A build's own row runner and world writer, loaded from its folder. */
async function build(dir: string): Promise<{ runScale: RunScale; writeWorld: (dir: string) => string }> {
  const root = resolve(dir);
  const suite = (await import(pathToFileURL(join(root, "bench/suites/server.ts")).href)) as { runScale: RunScale };
  const world = (await import(pathToFileURL(join(root, "bench/server/world.ts")).href)) as {
    writeWorld: (dir: string) => string;
  };
  return { runScale: suite.runScale, writeWorld: world.writeWorld };
}

const builds = { A: await build(values.a), B: await build(values.b) };
const worldDir = mkdtempSync(join(tmpdir(), "fc-pairs-"));
// One world for both (written by A's writer): the same map, so only the servers differ.
const mapPath = builds.A.writeWorld(worldDir);
const run = values.deltas || values.compact ? { deltas: true, compact: values.compact, sampleNpcs: false } : undefined;
const mode = values.compact ? "compact deltas" : values.deltas ? "entity deltas" : "seed packets";
try {
  for (const bots of counts) {
    for (let round = 1; round <= rounds; round++) {
      for (const label of ["A", "B", "B", "A"] as const) {
        const row = await builds[label].runScale(mapPath, bots, false, warmupS, measureS, "auto", run);
        const load = (values: number[] | undefined) => (values ?? []).map((value) => value.toFixed(2)).join(" ");
        process.stdout.write(
          `${label} N=${bots} round ${round} (${mode}): ${row.cpuUsPerClientSecond.toFixed(0)} µs/client-s, ` +
            `server cpu ${row.serverCpuPercent.toFixed(1)} %, ` +
            `tick p50/p99 ${row.tickMs.p50.toFixed(2)}/${row.tickMs.p99.toFixed(2)} ms, ${row.tickRateHz.toFixed(1)} Hz, ` +
            `${row.bot.perBot.statePerSecond.toFixed(1)} States/s per bot, ` +
            `load ${load(row.load?.before)} → ${load(row.load?.after)}\n`,
        );
      }
    }
  }
} finally {
  rmSync(worldDir, { recursive: true, force: true });
}
