// Capacity, side by side (issue 44): how many players one process serves at 24 ticks a second, 12 States a second
// each and tick p99 under 20 ms, on the server suite's workload (wandering bots on the 1024² world), for ours and for
// Colyseus 0.17 — each found by a sweep in the same run: Colyseus from 250 upward in steps of 250 until a row does not
// hold, ours from 1000 upward in steps of 1000 until a row does not hold or the bots' own core is full (then the
// capacity is "at least" the last row that held: the load generator, not the server, stopped the sweep).
//
//   npm run bench -- --only capacity [--big-bots 1000,2000,…] [--colyseus 250,500,…] [--bot-cores 1,1]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BROADCAST_EVERY_TICKS, TICK_HZ } from "../../ts/constants.js";
import { type RunOptions, fmt, loadNow, log, runHeader } from "../lib/harness.js";
import type { SuiteResult, Target } from "../lib/results.js";
import { writeWorld } from "../server/world.js";
import { type ColyseusRow, ensureColyseus, runColyseusRow } from "./colyseus.js";
import { type ScaleRow, holdsRates, loadCell, runScale } from "./server.js";

/** The line a row must stay under (issue 44): tick p99, ms. */
export const CAPACITY_TICK_P99_MS = 20;
/** Ours must serve at least this many times Colyseus's players. */
export const CAPACITY_RATIO_GOAL = 5;
const BROADCAST_HZ = TICK_HZ / BROADCAST_EVERY_TICKS;
const OURS_STEPS = [1000, 2000, 3000, 4000, 5000, 6000, 7000, 8000];
const COLYSEUS_STEPS = [250, 500, 750, 1000, 1250, 1500, 1750, 2000];
/** The bots' processes together above this share of their core(s): the load generator is the limit. */
const BOTS_FULL_PERCENT = 90;

export interface CapacityOptions extends RunOptions {
  /** Our sweep's steps (--big-bots). */
  bigBots?: number[];
  /** Colyseus's sweep's steps (--colyseus); [] skips it. */
  colyseusCounts?: number[];
  /** One bot process per entry, pinned to that core (--bot-cores; default 1,1). */
  botCores?: number[];
}

/** How a sweep ended: the largest N that held, and why it stopped. */
export interface Sweep {
  capacity: number;
  /** "a row did not hold", "the bots' core was full", "the last step held", or why it could not run. */
  stopped: string;
  /** Whether the capacity is only a lower bound (the bots, or the steps, ran out first). */
  atLeast: boolean;
}

/** Colyseus's row held: both rates at ≥ 95 %, its simulation's p99 and the event loop's p99 under the line. */
export function colyseusHolds(row: ColyseusRow): boolean {
  return (
    row.tickRateHz >= TICK_HZ * 0.95 &&
    row.patchRateHz >= BROADCAST_HZ * 0.95 &&
    row.eventLoopDelayMs !== null &&
    row.eventLoopDelayMs.p99 < CAPACITY_TICK_P99_MS &&
    row.tickMs.p99 < CAPACITY_TICK_P99_MS
  );
}

/** Where a sweep stands after its rows: what held, and whether it stopped on the server or the load. */
export function sweepOf(
  rows: readonly { bots: number; holds: boolean; botsFull: boolean }[],
  steps: readonly number[],
): Sweep {
  let capacity = 0;
  for (const row of rows) {
    if (!row.holds) {
      return row.botsFull
        ? {
            capacity,
            stopped: `the bots' core was full at ${row.bots} (they, not the server, may have failed)`,
            atLeast: true,
          }
        : { capacity, stopped: `${row.bots} did not hold`, atLeast: false };
    }
    capacity = row.bots;
    if (row.botsFull) return { capacity, stopped: `the bots' core was full at ${row.bots}`, atLeast: true };
  }
  const ranAll = rows.length === steps.length;
  return { capacity, stopped: ranAll ? "the last step held" : "not run", atLeast: true };
}

/** A sweep cut short by a row that could not be measured: its capacity is a lower bound, and says why. */
export function withFailure(sweep: Sweep, failed: string | null): Sweep {
  return failed === null ? sweep : { capacity: sweep.capacity, stopped: failed, atLeast: true };
}

export async function runCapacity(options: CapacityOptions): Promise<SuiteResult> {
  const loadStart = loadNow();
  const oursSteps = options.bigBots ?? (options.quick ? [200, 400] : OURS_STEPS);
  const colyseusSteps = options.colyseusCounts ?? (options.quick ? [100, 200] : COLYSEUS_STEPS);
  const botCores = options.botCores ?? [1, 1];
  const warmupS = options.quick ? 2 : 10;
  const measureS = options.quick ? 5 : 30;
  const dir = mkdtempSync(join(tmpdir(), "fc-capacity-"));
  const ours: ScaleRow[] = [];
  const colyseus: ColyseusRow[] = [];
  /** Each row's verdict, decided once as it ran: what stops the sweep and what sweepOf reads. */
  const oursVerdicts: { bots: number; holds: boolean; botsFull: boolean }[] = [];
  const colyseusVerdicts: { bots: number; holds: boolean; botsFull: boolean }[] = [];
  let colyseusSkipped: string | null = null;
  let oursFailed: string | null = null;
  let colyseusFailed: string | null = null;
  // The bots' CPU is a share of one core per process, pinned: "full" is most of the cores they have.
  const botsFull = (percent: number) => percent >= BOTS_FULL_PERCENT * new Set(botCores).size;
  try {
    const mapPath = writeWorld(dir);
    if (colyseusSteps.length > 0) {
      const ready = ensureColyseus();
      if (!ready.ok) colyseusSkipped = ready.reason;
    } else colyseusSkipped = "not asked for (--colyseus none)";
    for (const bots of colyseusSkipped === null ? colyseusSteps : []) {
      log(`capacity: Colyseus at ${bots}`);
      try {
        const row = await runColyseusRow(mapPath, bots, warmupS, measureS);
        colyseus.push(row);
        const verdict = {
          bots,
          holds: colyseusHolds(row),
          botsFull: row.bot.botProcessCpuPercent >= BOTS_FULL_PERCENT,
        };
        colyseusVerdicts.push(verdict);
        if (!verdict.holds || verdict.botsFull) break;
      } catch (error) {
        // A row that could not be measured ends the sweep where it stands, said, with the rows before it kept.
        colyseusFailed = `the row at ${bots} failed: ${(error as Error).message.slice(0, 300)}`;
        log(`capacity: Colyseus: ${colyseusFailed}`);
        break;
      }
    }
    for (const bots of oursSteps) {
      log(`capacity: ours at ${bots} (bots in ${botCores.length} processes, cores ${botCores.join(", ")})`);
      try {
        const row = await runScale(mapPath, bots, false, warmupS, measureS, "auto", { sampleNpcs: false, botCores });
        ours.push(row);
        const verdict = {
          bots,
          holds: holdsRates(row, CAPACITY_TICK_P99_MS),
          botsFull: botsFull(row.bot.botProcessCpuPercent),
        };
        oursVerdicts.push(verdict);
        if (!verdict.holds || verdict.botsFull) break;
      } catch (error) {
        oursFailed = `the row at ${bots} failed: ${(error as Error).message.slice(0, 300)}`;
        log(`capacity: ours: ${oursFailed}`);
        break;
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const oursSweep = withFailure(sweepOf(oursVerdicts, oursSteps), oursFailed);
  const colyseusSweep: Sweep =
    colyseusSkipped !== null
      ? { capacity: 0, stopped: colyseusSkipped, atLeast: false }
      : withFailure(sweepOf(colyseusVerdicts, colyseusSteps), colyseusFailed);
  const ratio = colyseusSweep.capacity > 0 ? oursSweep.capacity / colyseusSweep.capacity : null;
  const capacityText = (sweep: Sweep) => `${sweep.atLeast ? "≥ " : ""}${sweep.capacity} (${sweep.stopped})`;
  const targets: Target[] = [
    {
      target: `Capacity at ${TICK_HZ} ticks/s, ${BROADCAST_HZ} States/s per player and tick p99 < ${CAPACITY_TICK_P99_MS} ms: ours ≥ ${CAPACITY_RATIO_GOAL}× Colyseus 0.17's, same run (issue 44: in three sessions)`,
      measured:
        ratio === null
          ? `ours ${capacityText(oursSweep)}; Colyseus ${capacityText(colyseusSweep)}: no ratio`
          : `ours ${capacityText(oursSweep)}, Colyseus ${capacityText(colyseusSweep)}: ${fmt(ratio)}×${colyseusSweep.atLeast ? " (Colyseus's a lower bound: the ratio may be less)" : ""}`,
      // A ratio met only because Colyseus's sweep ran out of steps or bots would not be a measure.
      met: ratio !== null && !colyseusSweep.atLeast && ratio >= CAPACITY_RATIO_GOAL,
    },
  ];
  const load = (row: { load?: { before: number[]; after: number[] } }) =>
    row.load ? `${row.load.before[0].toFixed(2)} / ${row.load.after[0].toFixed(2)}` : "—";
  return {
    suite: "capacity",
    title: "Capacity, side by side: players one process serves, ours and Colyseus 0.17",
    ...runHeader(options.quick, loadStart),
    timing: `per row: a fresh server, ${warmupS} s warm-up after all joins, then a ${measureS} s window; each sweep stops at its first row that does not hold`,
    tables: [
      {
        title: `The sweeps (server on core 0; our bots in ${botCores.length} processes pinned to cores ${botCores.join(", ")}, Colyseus's SDK bots on core 1)`,
        columns: [
          "server",
          "players",
          "load 1-min before / after",
          "server CPU %",
          "user + system µs per client-s",
          "tick p99 ms",
          "event-loop delay p99 ms",
          "ticks/s",
          "States (patches) /s",
          "bots' CPU %",
          "holds",
        ],
        rows: [
          ...colyseus.map((row) => [
            "Colyseus 0.17",
            String(row.bots),
            load(row),
            fmt(row.serverCpuPercent),
            `${fmt(row.userCpuUsPerClientSecond ?? Number.NaN)} + ${fmt(row.systemCpuUsPerClientSecond ?? Number.NaN)}`,
            fmt(row.tickMs.p99),
            row.eventLoopDelayMs ? fmt(row.eventLoopDelayMs.p99) : "—",
            fmt(row.tickRateHz),
            `${fmt(row.patchRateHz)} (room)`,
            fmt(row.bot.botProcessCpuPercent),
            colyseusHolds(row) ? "yes" : "**no**",
          ]),
          ...ours.map((row) => [
            "ours",
            String(row.bots),
            loadCell(row),
            fmt(row.serverCpuPercent),
            `${fmt(row.userCpuUsPerClientSecond ?? Number.NaN)} + ${fmt(row.systemCpuUsPerClientSecond ?? Number.NaN)}`,
            fmt(row.tickMs.p99),
            row.eventLoopDelayMs ? fmt(row.eventLoopDelayMs.p99) : "—",
            fmt(row.tickRateHz),
            `${fmt(row.bot.perBot.statePerSecond)} per bot`,
            fmt(row.bot.botProcessCpuPercent),
            holdsRates(row, CAPACITY_TICK_P99_MS) ? "yes" : "**no**",
          ]),
        ],
        note:
          `Holds, ours: ≥ 95 % of ${TICK_HZ} ticks/s and of ${BROADCAST_HZ} States/s per bot, tick p99 (the whole tick: simulation and broadcast) under ${CAPACITY_TICK_P99_MS} ms. ` +
          `Holds, Colyseus: ≥ 95 % of ${TICK_HZ} ticks/s and of ${BROADCAST_HZ} patches/s (the room's: a patch reaches a client only when its view changed), ` +
          `its simulation callback's p99 and the event loop's delay p99 under ${CAPACITY_TICK_P99_MS} ms (its patches run on a timer of their own). ` +
          `A sweep also stops when its bots use ≥ ${BOTS_FULL_PERCENT} % of their core(s): the capacity is then a lower bound ("≥"). ` +
          `The workload, world, bots and both servers are the server suite's (bench/suites/server.ts, bench/suites/colyseus.ts).`,
      },
      {
        title: "Capacity",
        columns: ["server", "players held", "the sweep stopped"],
        rows: [
          ["ours", `${oursSweep.atLeast ? "≥ " : ""}${oursSweep.capacity}`, oursSweep.stopped],
          ["Colyseus 0.17", `${colyseusSweep.atLeast ? "≥ " : ""}${colyseusSweep.capacity}`, colyseusSweep.stopped],
          ["ours ÷ Colyseus", ratio === null ? "—" : `${fmt(ratio)}×`, `goal ≥ ${CAPACITY_RATIO_GOAL}×`],
        ],
      },
    ],
    charts: [],
    targets,
    notes: [
      "Reproduce: npm run bench -- --only capacity [--big-bots 1000,2000,...] [--colyseus 250,500,...] [--bot-cores 1,1].",
      "Run it on a quiet machine: the load average is beside every row; above 2 on 2 cores something else wanted CPU.",
    ],
    raw: { ours, colyseus, oursSweep, colyseusSweep },
  };
}
