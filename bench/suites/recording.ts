// The flight recorder's figures (issue 40, docs/recording.md): the server suite's server and bots on the
// NPC world (20,000 NPCs), one row with the recorder off and one with it on, in one session — its cost
// in server CPU against the same row unrecorded (the target: at most 3 %), the recording's size per
// player-hour, and how fast `replay verify` replays the recording against real time.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { summarize } from "../../ts/server/recording/cut.js";
import { bytesSource } from "../../ts/server/recording/format.js";
import { replayRecording } from "../../ts/server/replay-world.js";
import { type RunOptions, fmt, log, loadNow, runHeader } from "../lib/harness.js";
import type { SuiteResult, Target } from "../lib/results.js";
import { writeWorld } from "../server/world.js";
import { type ScaleRow, loadCell, runScale } from "./server.js";

const DEFAULT_BOTS = 2000;
const NPCS = 20_000;
/** Issue 40's target: the recorder's share of the server's CPU. */
const OVERHEAD_GOAL_PERCENT = 3;

export async function runRecording(options: RunOptions & { npcBots?: number }): Promise<SuiteResult> {
  const loadStart = loadNow();
  const bots = options.npcBots ?? (options.quick ? 100 : DEFAULT_BOTS);
  const warmupS = options.quick ? 3 : 10;
  const measureS = options.quick ? 8 : 30;
  const dir = mkdtempSync(join(tmpdir(), "fc-recording-"));
  const rows: ScaleRow[] = [];
  let file: { bytes: number; ticks: number; datagrams: number; tickHz: number } | null = null;
  let replay: { seconds: number; worldSeconds: number; exact: boolean; divergence: string } | null = null;
  try {
    const mapPath = writeWorld(join(dir, "world"), { npcs: NPCS });
    for (const recorded of [false, true]) {
      log(`recording: ${bots} bots, ${NPCS} NPCs, recorder ${recorded ? "on" : "off"}`);
      rows.push(
        await runScale(mapPath, bots, false, warmupS, measureS, "auto", {
          recordDir: recorded ? join(dir, "recordings") : undefined,
        }),
      );
    }
    const names = readdirSync(join(dir, "recordings")).filter((name) => name.endsWith(".fcrec"));
    if (names.length !== 1) throw new Error(`expected one recording, found ${names.length}`);
    const path = join(dir, "recordings", names[0]);
    const bytes = readFileSync(path);
    const summary = summarize(bytesSource(bytes));
    const tickHz = Number(summary.header.options.tickHz ?? 24);
    file = { bytes: bytes.length, ticks: summary.lastTick, datagrams: summary.inputs.datagram ?? 0, tickHz };
    log(`recording: replaying ${bytes.length} bytes, ${summary.lastTick} ticks`);
    const startMs = performance.now();
    const result = await replayRecording({ file: path });
    replay = {
      seconds: (performance.now() - startMs) / 1000,
      worldSeconds: result.ticks / tickHz,
      exact: result.divergence === null,
      divergence:
        result.divergence === null ? "" : `tick ${result.divergence.tick}: ${result.divergence.what.join("; ")}`,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const [off, on] = rows;
  const overhead = ((on.serverCpuPercent - off.serverCpuPercent) / off.serverCpuPercent) * 100;
  // The recording covers the whole run (joins, warm-up, window): its players are the bots, its length its ticks.
  const recordedHours = file === null ? NaN : file.ticks / file.tickHz / 3600;
  const perPlayerHour = file === null ? NaN : file.bytes / (bots * recordedHours);
  const full = bots === DEFAULT_BOTS;
  const targets: Target[] = [
    {
      target: `2000 bots + ${fmt(NPCS)} NPCs: the flight recorder costs at most ${OVERHEAD_GOAL_PERCENT} % of the server's CPU`,
      measured: full
        ? `server CPU ${fmt(on.serverCpuPercent)} % recorded, ${fmt(off.serverCpuPercent)} % not: ${overhead >= 0 ? "+" : ""}${fmt(overhead)} % (load ${loadCell(off)}, ${loadCell(on)})`
        : `not run (bots ${bots})`,
      met: full ? overhead <= OVERHEAD_GOAL_PERCENT : null,
    },
    {
      target: "the recording replays exactly (replay verify)",
      measured: replay === null ? "not run" : replay.exact ? "exact" : `diverged at ${replay.divergence}`,
      met: replay === null ? null : replay.exact,
    },
  ];
  const cells = (row: ScaleRow, recorded: boolean): string[] => [
    `${row.bots} bots, ${fmt(NPCS)} NPCs, recorder ${recorded ? "on" : "off"}`,
    loadCell(row),
    fmt(row.serverCpuPercent),
    fmt(row.cpuUsPerClientSecond),
    `${fmt(row.tickMs.p50)} / ${fmt(row.tickMs.p99)}`,
    fmt(row.tickRateHz),
    fmt(row.bot.perBot.statePerSecond),
    row.keepsUp ? "yes" : "**no**",
  ];
  return {
    suite: "recording",
    title: `The flight recorder: its cost, its size per player-hour, and replay speed (${bots} bots, ${fmt(NPCS)} NPCs)`,
    ...runHeader(options.quick, loadStart),
    timing: `per row: a fresh server (--record off, then --record DIR), ${warmupS} s warm-up after all joins, then a ${measureS} s window; the replay timed on the wall clock in the bench's process`,
    tables: [
      {
        title: "Server CPU with the recorder off and on (server on core 0, bots on core 1)",
        columns: [
          "row",
          "load 1-min before / after",
          "server CPU %",
          "CPU µs per client-s",
          "tick ms p50 / p99",
          "ticks/s",
          "States/s per bot",
          "keeps up",
        ],
        rows: [cells(off, false), cells(on, true)],
        note: `The recorder's cost: ${overhead >= 0 ? "+" : ""}${fmt(overhead)} % of the unrecorded row's server CPU (target at most ${OVERHEAD_GOAL_PERCENT} %). The rows are the npcs suite's (bench/server/world.ts with ${fmt(NPCS)} NPCs, wandering bots).`,
      },
      {
        title: "The recording",
        columns: [
          "bytes",
          "ticks (s of the world)",
          "datagrams recorded",
          "bytes per player-hour",
          "replay: wall s",
          "replay speed (× real time)",
          "exact",
        ],
        rows:
          file === null || replay === null
            ? []
            : [
                [
                  fmt(file.bytes),
                  `${fmt(file.ticks)} (${fmt(file.ticks / file.tickHz)})`,
                  fmt(file.datagrams),
                  `${fmt(perPlayerHour / 1024 / 1024)} MiB`,
                  fmt(replay.seconds),
                  fmt(replay.worldSeconds / replay.seconds),
                  replay.exact ? "yes" : `**no** (${replay.divergence})`,
                ],
              ],
        note:
          "The recording covers the recorded row's whole run — the joins, the warm-up and the window — so its player-hours are the bots " +
          "times its ticks at the tick rate. The replay makes the world again from the recording's snapshot and feeds every input through " +
          "the same handler and Game (replay-world.ts), broadcast included (its datagrams go nowhere); one process, one thread.",
      },
    ],
    charts: [],
    targets,
    notes: [
      "Reproduce: the npcs suite's server command on writeWorld(dir, { npcs: 20000 }) with --record off and with --record DIR, bench/server/bots.ts --count 2000; then npm run -s replay -- verify on the recording.",
      "The load average is the machine's (2 cores): above 2 means something besides this server and its bots wanted CPU during the row.",
    ],
    raw: { rows, file, replay },
  };
}
