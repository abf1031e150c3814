// The levels suite (issue 15: "Generation never stalls the tick … tick p99 with
// 2000 bots while levels are generated stays < 20 ms"). The server suite's
// server and bots on the delve world (bench/server/world.ts: the 1024×1024
// world with a walled hall of 16 stairs down in its centre), two rows in one
// session with the same 2000 sessions: the hall's 8 bots stand still while the
// rest wander (no level is ever made), then the same with the hall's bots
// delving (bench/server/bots.ts --delve: stairs down, off and back onto the
// stairs up, other stairs), which with 16 stairs over the server's 4 level slots
// keeps levels being generated in the worker, put into the world on the tick
// (installMs) and dropped. The verdict is the delving row's tick p99.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BROADCAST_EVERY_TICKS, TICK_HZ } from "../../ts/constants.js";
import { DEFAULT_GAME_OPTIONS } from "../../ts/server/game-options.js";
import { type RunOptions, fmt, log, loadNow, runHeader } from "../lib/harness.js";
import type { SuiteResult, Target } from "../lib/results.js";
import { HALL_SPAWNS, HALL_STAIRS, writeWorld } from "../server/world.js";
import { dungeonLevelTable } from "./dungeon-levels.js";
import { type ScaleRow, holdsRates, loadCell, ratesText, runScale } from "./server.js";

/** Issue 15's target. */
const TICK_P99_GOAL_MS = 20;
const DEFAULT_BOTS = 2000;

export async function runServerLevels(options: RunOptions & { npcBots?: number }): Promise<SuiteResult> {
  const loadStart = loadNow();
  const bots = options.npcBots ?? (options.quick ? 100 : DEFAULT_BOTS);
  // One bot per hall spawn point (more would put wanderers in the hall, fewer would leave its spawns to them).
  const hall = Math.min(HALL_SPAWNS.length, bots);
  // Short on purpose (the lead re-runs it on a quiet machine): a fresh server per row, 8 s warm-up, 30 s window.
  const warmupS = options.quick ? 3 : 8;
  const measureS = options.quick ? 8 : 30;
  // Issue 15's bench row, generation per 256 × 256 level, on this thread before any server runs.
  log("levels: generating 256×256 levels");
  const generation = await dungeonLevelTable(options.quick);
  const dir = mkdtempSync(join(tmpdir(), "fc-levels-world-"));
  const rows: ScaleRow[] = [];
  try {
    const mapPath = writeWorld(join(dir, "world"), { delve: true });
    for (const delve of [false, true]) {
      log(`levels: ${bots} bots, ${hall} of them in the hall ${delve ? "taking the stairs" : "standing"}`);
      rows.push(await runScale(mapPath, bots, false, warmupS, measureS, "auto", { sampleNpcs: false, hall, delve }));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const label = (row: ScaleRow) =>
    `${row.bots} bots, ${row.hall?.bots ?? 0} in the hall ${row.hall?.delve ? "delving" : "standing (no levels)"}`;
  const [still, delving] = rows;
  const full = bots === DEFAULT_BOTS;
  const generating = delving.levels !== undefined && delving.levels.generatedPerSecond > 0;
  const targets: Target[] = [
    {
      target: `2000 bots while levels are generated: tick p99 < ${TICK_P99_GOAL_MS} ms, with ${TICK_HZ} ticks/s and ${TICK_HZ / BROADCAST_EVERY_TICKS} States/s per bot held (≥ 95 %)`,
      measured:
        full && generating
          ? `${ratesText(delving)}; ${fmt(delving.levels!.generatedPerSecond)} levels generated/s, installMs median ${fmt(delving.levels!.installMs?.p50 ?? NaN)} max ${fmt(delving.levels!.installMs?.max ?? NaN)}; without levels: p99 tick ${fmt(still.tickMs.p99)} ms (load ${loadCell(still)})`
          : full
            ? "no level was generated in the window (the delvers did not reach the stairs): not measured"
            : `not run (bots ${bots})`,
      met: full && generating ? holdsRates(delving, TICK_P99_GOAL_MS) : null,
    },
  ];
  const levelCell = (row: ScaleRow, value: (levels: NonNullable<ScaleRow["levels"]>) => string) =>
    row.levels ? value(row.levels) : "—";
  return {
    suite: "levels",
    title:
      "Server while dungeon levels are generated: 2000 bots, delvers taking the stairs on the 1024×1024 delve world",
    ...runHeader(options.quick, loadStart),
    timing: `per row: a fresh server, ${warmupS} s warm-up after all joins, then a ${measureS} s window; tick percentiles over the window's ticks (/api/status?ticks=…), levels' counts from /api/status at both ends; load average before and after each row in the table`,
    tables: [
      generation,
      {
        title: "Tick time with and without levels being generated (server on core 0, bots on core 1)",
        columns: [
          "row",
          "load 1-min before / after",
          "server CPU %",
          "CPU µs per client-s",
          "tick ms p50 / p99 / max",
          "ticks/s",
          "States/s per bot",
          "levels generated/s",
          "dropped/s",
          "stairs refused/s",
          "installMs median / max (installs)",
          "delvers' descents / returns",
          "keeps up",
        ],
        rows: rows.map((row) => [
          label(row),
          loadCell(row),
          fmt(row.serverCpuPercent),
          fmt(row.cpuUsPerClientSecond),
          `${fmt(row.tickMs.p50)} / ${fmt(row.tickMs.p99)} / ${fmt(row.tickMs.max)}`,
          fmt(row.tickRateHz),
          fmt(row.bot.perBot.statePerSecond),
          levelCell(row, (levels) => fmt(levels.generatedPerSecond)),
          levelCell(row, (levels) => fmt(levels.droppedPerSecond)),
          levelCell(row, (levels) => fmt(levels.refusedPerSecond)),
          levelCell(row, (levels) =>
            levels.installMs ? `${fmt(levels.installMs.p50)} / ${fmt(levels.installMs.max)} (${levels.installs})` : "—",
          ),
          row.bot.delves ? `${row.bot.delves.descents} / ${row.bot.delves.returns}` : "—",
          row.keepsUp ? "yes" : "**no**",
        ]),
        note:
          `World: the server suite's 1024×1024 (10 % walls) with a walled ${HALL_SPAWNS.length}-spawn hall in its centre holding ${HALL_STAIRS.length} stairs down ` +
          `(bench/server/world.ts delve), drawn with the built-in sheet and carrying the bundled creature kinds and items, so levels come with their creatures and chests. ` +
          `The server's defaults: ${DEFAULT_GAME_OPTIONS.levelSlots} level slots of ${DEFAULT_GAME_OPTIONS.levelSize}×${DEFAULT_GAME_OPTIONS.levelSize}, a level kept ${DEFAULT_GAME_OPTIONS.levelKeepEmptyMs / 1000} s after it empties — ` +
          `but with ${HALL_STAIRS.length} stairs over ${DEFAULT_GAME_OPTIONS.levelSlots} slots a new level takes the slot of the one empty the longest, so levels keep being made. ` +
          "The hall's bots join first (the server hands out spawn points in order); the rest wander as in the server suite. " +
          "Delvers walk to one of the hall's stairs (another than the one they came up by), stand on it while the worker generates the level, " +
          "step off the stairs up where they arrive and back on, and are in the hall again; stairs refused (every slot holds a level someone is in) are given up after 3 s. " +
          "installMs: the tick's time putting a finished level into the world (fillSlot, its spawns, chests and kept piles), the window's installs.",
      },
    ],
    charts: [],
    targets,
    notes: [
      "Reproduce: write the world with bench/server/world.ts writeWorld(dir, { delve: true }), start the server command of the server suite on it, and run bench/server/bots.ts with --count 2000 --hall 8 --delve (without --delve for the row without levels).",
      "The load average is the machine's (2 cores): above 2 means something besides this server and its bots wanted CPU during the row. The level generator's worker thread runs beside the server's main thread on the same pinned core.",
    ],
    raw: rows,
  };
}
