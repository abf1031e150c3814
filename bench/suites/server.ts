// Server scale: the real server (ts/server/main.ts) on a 1024×1024 world with
// N wandering bots in a separate process (bench/server/bots.ts), server pinned
// to core 0 and bots to core 1. Per N: server CPU and CPU µs per
// client-second from /proc/<pid>/stat, RSS, event-loop delay, tick and
// broadcast durations and the achieved tick rate from /api/status, the
// achieved broadcast rate and IP-level bytes per client each way on the bot
// side and from the server's counters. Then the idle case: downstream bytes
// per client when nothing in view changes.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { type RunOptions, commandLine, fmt, gitCommit, loadNow, log, machineNow } from "../lib/harness.js";
import { BROADCAST_EVERY_TICKS, TICK_HZ } from "../../ts/constants.js";
import { STATE_BYTES } from "../../ts/protocol/index.js";
import { windowsPerSecond } from "../../ts/window.js";
import type { SuiteResult, Target } from "../lib/results.js";
import { IP_UDP_OVERHEAD_BYTES } from "../server/ip-overhead.js";
import { WORLD_SEED, WORLD_SIZE, writeWorld } from "../server/world.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const PRELOAD = fileURLToPath(new URL("../server/eld-preload.mjs", import.meta.url));
const BOTS = fileURLToPath(new URL("../server/bots.ts", import.meta.url));
const DEFAULT_COUNTS = [100, 250, 500, 750, 1000, 1500, 2000];
/** States per client per second: the server broadcasts every BROADCAST_EVERY_TICKS ticks. */
const BROADCAST_HZ = TICK_HZ / BROADCAST_EVERY_TICKS;
/** One tick's budget in ms: a p99 tick above it means the server falls behind. */
const TICK_MS = 1000 / TICK_HZ;
/** Move intents per bot per second: one per movement window. */
const MOVES_HZ = windowsPerSecond(TICK_HZ);

type UdpBackendChoice = "auto" | "dgram";

interface Status {
  tick: number;
  players: number;
  tickMs: { p50: number; p99: number; max: number };
  broadcastMs: { p50: number; p99: number };
  datagramsIn: number;
  datagramsOut: number;
  bytesIn: number;
  bytesOut: number;
  drops: Record<string, number>;
  eventLoopDelayMs?: { p50: number; p99: number };
  udp?: { backend: string };
}

interface BotResult {
  bots: number;
  seconds: number;
  botProcessCpuPercent: number;
  perBot: {
    datagramsInPerSecond: number;
    ipBytesInPerSecond: number;
    statePerSecond: number;
    entityPerSecond: number;
    chunkPerSecond: number;
    datagramsOutPerSecond: number;
    ipBytesOutPerSecond: number;
  };
  checksumMismatches: number;
  datagramsInPerBotSecondByType: Record<string, number>;
}

export interface ScaleRow {
  bots: number;
  idle: boolean;
  /** How the server moved UDP: "mmsg" (batched system calls) or "dgram" (node:dgram). */
  udpBackend: string;
  seconds: number;
  serverCpuPercent: number;
  cpuUsPerClientSecond: number;
  rssMiB: number;
  eventLoopDelayMs: { p50: number; p99: number; source: string } | null;
  tickMs: { p50: number; p99: number; max: number };
  broadcastMs: { p50: number; p99: number };
  tickRateHz: number;
  bot: BotResult;
  server: { ipBytesOutPerClientSecond: number; ipBytesInPerClientSecond: number; datagramsOutPerClientSecond: number };
  drops: Record<string, number>;
  keepsUp: boolean;
}

const clockTicks = (() => {
  const result = spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" });
  return Number(result.stdout) || 100;
})();

/** utime + stime of a process in seconds. */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / clockTicks;
}

function rssMiB(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return match ? Number(match[1]) / 1024 : NaN;
}

const tasksetWorks = spawnSync("taskset", ["-c", "0", "true"]).status === 0;

function pinned(core: number, command: string, args: string[]): [string, string[]] {
  return tasksetWorks ? ["taskset", ["-c", String(core), command, ...args]] : [command, args];
}

async function startServer(
  mapPath: string,
  eldFile: string,
  udpBackend: UdpBackendChoice,
): Promise<{ child: ChildProcess; http: string }> {
  const [command, args] = pinned(0, process.execPath, [
    "--import",
    "tsx",
    "--import",
    PRELOAD,
    join(ROOT, "ts/server/main.ts"),
    "--map",
    mapPath,
    "--http-port",
    "0",
    "--udp-port",
    "0",
    "--max-players",
    "5000",
    "--session-rate",
    "200",
    "--address-rate",
    "1000000",
    // Thousands of bots join from this one address.
    "--join-rate",
    "1000000",
    "--log-level",
    "warn",
    "--udp-backend",
    udpBackend,
  ]);
  const child = spawn(command, args, {
    cwd: ROOT,
    env: { ...process.env, BENCH_ELD_FILE: eldFile },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
    if (stderr.length > 20000) stderr = stderr.slice(-10000);
  });
  const http = await new Promise<string>((resolve, reject) => {
    const timeout = setTimeout(() => reject(new Error(`server did not start in 90 s: ${stderr.slice(-2000)}`)), 90_000);
    child.on("exit", (code) => reject(new Error(`server exited with ${code}: ${stderr.slice(-2000)}`)));
    const lines = createInterface({ input: child.stdout! });
    lines.on("line", (line) => {
      const match = /running: (http:\/\/[^/\s]+)\//.exec(line);
      if (match) {
        clearTimeout(timeout);
        resolve(match[1]);
      }
    });
    // The "listening" JSON log line on stderr carries the same address when info logging is on.
    child.stderr!.on("data", (chunk: Buffer) => {
      for (const line of chunk.toString().split("\n")) {
        try {
          const entry = JSON.parse(line) as { msg?: string; http?: string };
          if (entry.msg === "listening" && entry.http) {
            clearTimeout(timeout);
            resolve(entry.http.replace(/\/$/, ""));
          }
        } catch {
          // not a JSON line
        }
      }
    });
  });
  return { child, http };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
  await exited;
  clearTimeout(timer);
}

/** The server's status; with `ticks`, its tick and broadcast percentiles cover only the newest ticks. */
async function status(http: string, ticks?: number): Promise<Status> {
  const response = await fetch(`${http}/api/status${ticks === undefined ? "" : `?ticks=${ticks}`}`);
  return (await response.json()) as Status;
}

async function readEld(pid: number, file: string): Promise<{ p50: number; p99: number } | null> {
  rmSync(file, { force: true });
  process.kill(pid, "SIGUSR2");
  for (let i = 0; i < 50; i++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    if (existsSync(file)) {
      try {
        return JSON.parse(readFileSync(file, "utf8")) as { p50: number; p99: number };
      } catch {
        // written but not complete yet
      }
    }
  }
  return null;
}

async function runScale(
  mapPath: string,
  bots: number,
  idle: boolean,
  warmupS: number,
  measureS: number,
  udpBackend: UdpBackendChoice = "auto",
): Promise<ScaleRow> {
  const eldFile = join(tmpdir(), `fc-eld-${process.pid}-${bots}.json`);
  const { child: server, http } = await startServer(mapPath, eldFile, udpBackend);
  const serverPid = server.pid!;
  // Let the fresh server settle (JIT, first ticks) before the joins start.
  await new Promise((resolve) => setTimeout(resolve, 3000));
  try {
    const [command, args] = pinned(1, process.execPath, [
      "--import",
      "tsx",
      BOTS,
      "--http",
      http,
      "--count",
      String(bots),
      "--warmup",
      String(warmupS),
      "--measure",
      String(measureS),
      ...(idle ? ["--idle"] : []),
    ]);
    const botProcess = spawn(command, args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let botErr = "";
    botProcess.stderr!.on("data", (chunk: Buffer) => (botErr = (botErr + chunk.toString()).slice(-4000)));
    let startCpu = 0;
    let startStatus: Status | null = null;
    let startMs = 0;
    let endCpu = 0;
    let endStatus: Status | null = null;
    let endMs = 0;
    let eld: { p50: number; p99: number } | null = null;
    let rss = NaN;
    let result: BotResult | null = null;
    const pending: Promise<void>[] = [];
    const lines = createInterface({ input: botProcess.stdout! });
    lines.on("line", (line) => {
      let message: { event: string } & Record<string, unknown>;
      try {
        message = JSON.parse(line);
      } catch {
        return;
      }
      if (message.event === "joined") log(`server: ${bots} bots joined${idle ? " (idle)" : ""}`);
      if (message.event === "measure-start") {
        startCpu = cpuSeconds(serverPid);
        startMs = performance.now();
        pending.push(
          (async () => {
            startStatus = await status(http);
            await readEld(serverPid, eldFile); // resets the histogram
          })(),
        );
      }
      if (message.event === "measure-end") {
        endCpu = cpuSeconds(serverPid);
        endMs = performance.now();
        rss = rssMiB(serverPid);
        pending.push(
          (async () => {
            // Percentiles of the window's ticks only (the server keeps up to 1024).
            endStatus = await status(http, Math.min(1024, Math.round(measureS * TICK_HZ)));
            eld = await readEld(serverPid, eldFile);
          })(),
        );
      }
      if (message.event === "result") result = message as unknown as BotResult;
    });
    const timeoutMs = (warmupS + measureS) * 1000 + bots * 50 + 120_000;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        botProcess.kill("SIGKILL");
        reject(new Error(`bots did not finish in ${timeoutMs} ms: ${botErr}`));
      }, timeoutMs);
      botProcess.on("exit", (code) => {
        clearTimeout(timer);
        if (code === 0) resolve();
        else reject(new Error(`bots exited with ${code}: ${botErr}`));
      });
    });
    await Promise.all(pending);
    if (!result || !startStatus || !endStatus) throw new Error("the bot run ended without a measurement window");
    const s0: Status = startStatus;
    const s1: Status = endStatus;
    const bot: BotResult = result;
    const seconds = (endMs - startMs) / 1000;
    const cpu = endCpu - startCpu;
    const clientSeconds = bots * seconds;
    const eldFromStatus = s1.eventLoopDelayMs;
    const tickRateHz = (s1.tick - s0.tick) / seconds;
    const row: ScaleRow = {
      bots,
      idle,
      udpBackend: s1.udp?.backend ?? "dgram",
      seconds,
      serverCpuPercent: (cpu / seconds) * 100,
      cpuUsPerClientSecond: (cpu * 1e6) / clientSeconds,
      rssMiB: rss,
      // The preload's histogram covers exactly the window; the server's own covers its last 5 s.
      eventLoopDelayMs: eld
        ? { p50: (eld as { p50: number }).p50, p99: (eld as { p99: number }).p99, source: "preload" }
        : eldFromStatus
          ? { ...eldFromStatus, source: "/api/status" }
          : null,
      tickMs: s1.tickMs,
      broadcastMs: s1.broadcastMs,
      tickRateHz,
      bot,
      server: {
        ipBytesOutPerClientSecond:
          (s1.bytesOut - s0.bytesOut + IP_UDP_OVERHEAD_BYTES * (s1.datagramsOut - s0.datagramsOut)) / clientSeconds,
        ipBytesInPerClientSecond:
          (s1.bytesIn - s0.bytesIn + IP_UDP_OVERHEAD_BYTES * (s1.datagramsIn - s0.datagramsIn)) / clientSeconds,
        datagramsOutPerClientSecond: (s1.datagramsOut - s0.datagramsOut) / clientSeconds,
      },
      drops: s1.drops,
      keepsUp:
        tickRateHz >= TICK_HZ * 0.95 && bot.perBot.statePerSecond >= BROADCAST_HZ * 0.95 && s1.tickMs.p99 < TICK_MS,
    };
    log(
      `server: N=${bots}${idle ? " idle" : ""}: cpu ${fmt(row.serverCpuPercent)} %, ${fmt(row.cpuUsPerClientSecond)} µs/client-s, ` +
        `tick p99 ${fmt(row.tickMs.p99)} ms, ${fmt(tickRateHz)} Hz, state ${fmt(bot.perBot.statePerSecond)}/s per bot, ` +
        `down ${fmt(bot.perBot.ipBytesInPerSecond)} B/s per bot, bots' cpu ${fmt(bot.botProcessCpuPercent)} %, ` +
        `in by type ${JSON.stringify(bot.datagramsInPerBotSecondByType)}`,
    );
    return row;
  } finally {
    await stop(server);
    rmSync(eldFile, { force: true });
  }
}

export async function runServer(options: RunOptions & { serverCounts?: number[] }): Promise<SuiteResult> {
  const loadStart = loadNow();
  const dir = mkdtempSync(join(tmpdir(), "fc-world-"));
  const mapPath = writeWorld(dir);
  const counts = options.serverCounts ?? (options.quick ? [100] : DEFAULT_COUNTS);
  const warmupS = options.quick ? 2 : 10;
  const measureS = options.quick ? 5 : 30;
  const rows: ScaleRow[] = [];
  /** Rows of the server forced onto node:dgram for comparison (not part of the N series). */
  const comparison: ScaleRow[] = [];
  try {
    for (const bots of counts) {
      const row = await runScale(mapPath, bots, false, warmupS, measureS);
      rows.push(row);
      if (!row.keepsUp) {
        log(`server: N=${bots} no longer keeps up; larger N skipped`);
        break;
      }
    }
    const idleRow = await runScale(mapPath, 100, true, warmupS, measureS);
    rows.push(idleRow);
    // The same server on node:dgram at the largest N, to show what batched system calls buy.
    const largestBatched = rows.filter((row) => !row.idle && row.udpBackend === "mmsg").pop();
    if (!options.quick && largestBatched) {
      const dgramRow = await runScale(mapPath, largestBatched.bots, false, warmupS, measureS, "dgram");
      rows.push(dgramRow);
      comparison.push(dgramRow);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  const moving = rows.filter((row) => !row.idle && !comparison.includes(row));
  const idleRow = rows.find((row) => row.idle)!;
  const eldCell = (row: ScaleRow) =>
    row.eventLoopDelayMs ? `${fmt(row.eventLoopDelayMs.p50)} / ${fmt(row.eventLoopDelayMs.p99)}` : "—";
  const table = rows.map((row) => [
    `${row.bots}${row.idle ? " idle" : ""}${comparison.includes(row) ? " on node:dgram" : ""}`,
    fmt(row.serverCpuPercent),
    fmt(row.cpuUsPerClientSecond),
    fmt(row.rssMiB),
    eldCell(row),
    `${fmt(row.tickMs.p50)} / ${fmt(row.tickMs.p99)}`,
    `${fmt(row.broadcastMs.p50)} / ${fmt(row.broadcastMs.p99)}`,
    fmt(row.tickRateHz),
    fmt(row.bot.perBot.statePerSecond),
    `${fmt(row.bot.perBot.ipBytesInPerSecond)} / ${fmt(row.server.ipBytesOutPerClientSecond)}`,
    `${fmt(row.bot.perBot.ipBytesOutPerSecond)} / ${fmt(row.server.ipBytesInPerClientSecond)}`,
    fmt(row.bot.perBot.datagramsInPerSecond),
    fmt(row.bot.botProcessCpuPercent),
    row.keepsUp ? "yes" : "**no**",
  ]);
  const at2000 = moving.find((row) => row.bots === 2000);
  const largest = moving[moving.length - 1];
  const targets: Target[] = [
    {
      target: `2000 bots: p99 tick < 20 ms, ${TICK_HZ} Hz ticks and ${BROADCAST_HZ} Hz broadcasts achieved, < 150 CPU µs per client-second`,
      measured: at2000
        ? `p99 tick ${fmt(at2000.tickMs.p99)} ms, ${fmt(at2000.tickRateHz)} Hz, ${fmt(at2000.bot.perBot.statePerSecond)} States/s per bot, ${fmt(at2000.cpuUsPerClientSecond)} µs/client-s`
        : `not run (largest N here: ${largest?.bots ?? "none"}${largest ? `: p99 tick ${fmt(largest.tickMs.p99)} ms, ${fmt(largest.cpuUsPerClientSecond)} µs/client-s` : ""})`,
      met: at2000
        ? at2000.tickMs.p99 < 20 &&
          at2000.tickRateHz >= TICK_HZ * 0.95 &&
          at2000.bot.perBot.statePerSecond >= BROADCAST_HZ * 0.95 &&
          at2000.cpuUsPerClientSecond < 150
        : null,
    },
    {
      target: `idle clients under 1.3 KB/s downstream at the IP level (one ${STATE_BYTES}-byte StatePacket per broadcast)`,
      measured: `${fmt(idleRow.bot.perBot.ipBytesInPerSecond)} B/s per bot (server counters: ${fmt(idleRow.server.ipBytesOutPerClientSecond)} B/s), ${fmt(idleRow.bot.perBot.statePerSecond)} States/s, ${fmt(idleRow.bot.perBot.entityPerSecond)} EntityPackets/s`,
      met: idleRow.bot.perBot.ipBytesInPerSecond < 1300,
    },
  ];
  const eldSource = rows.find((row) => row.eventLoopDelayMs)?.eventLoopDelayMs?.source ?? "none";
  return {
    suite: "server",
    title: "Server scale: wandering bots on a 1024×1024 world",
    date: new Date().toISOString(),
    command: commandLine(),
    quick: options.quick,
    gitCommit: gitCommit(),
    machine: machineNow(loadStart),
    timing: `per N: ${warmupS} s warm-up after all joins, then a ${measureS} s window; server CPU from /proc/<pid>/stat (utime+stime, ${clockTicks} ticks/s)`,
    tables: [
      {
        title: "Per N (server on core 0, bots on core 1)",
        columns: [
          "bots",
          "server CPU %",
          "CPU µs per client-s",
          "RSS MiB",
          "event-loop delay p50 / p99 ms",
          "tick ms p50 / p99",
          "broadcast ms p50 / p99",
          "ticks/s",
          "States/s per bot",
          "down B/s per client: bots / server",
          "up B/s per client: bots / server",
          "datagrams/s in per bot",
          "bots' CPU %",
          "keeps up",
        ],
        rows: table,
        note:
          `World: ${WORLD_SIZE}×${WORLD_SIZE} tiles, 10 % walls and 4096 spawn points from seed ${WORLD_SEED} (bench/server/world.ts writes it as ` +
          `a Tiled map). Bots: bench/server/bots.ts, one UDP socket and session each; a move intent every window (${MOVES_HZ}/s) ` +
          "for the next window, direction changing every 1.5–2.5 s, chunk requests and checksum keep-alives as needed, a " +
          `Ping per second. Bytes are at the IP level: payload + ${IP_UDP_OVERHEAD_BYTES} bytes per UDP datagram, counted by the bots (what ` +
          "they received / sent) and from the server's /api/status counters. Tick and broadcast percentiles cover the " +
          "measurement window's ticks only (/api/status?ticks=N). Event-loop delay: " +
          (eldSource === "/api/status"
            ? "the server's own eventLoopDelayMs in /api/status (its last 5 s window; the preload did not answer)."
            : "perf_hooks.monitorEventLoopDelay (1 ms resolution) in a preload module (bench/server/eld-preload.mjs), reset at the start of the window and read at its end by SIGUSR2, so it covers exactly the window.") +
          ` Keeps up: ≥ 95 % of ${TICK_HZ} ticks/s and ${BROADCAST_HZ} States/s per bot, and p99 tick under one tick (${TICK_MS.toFixed(1)} ms).${tasksetWorks ? "" : " taskset was not available: processes were NOT pinned."}` +
          ` UDP: ${moving.every((row) => row.udpBackend === "mmsg") ? "batched sendmmsg/recvmmsg (native/udp-mmsg, --udp-backend auto)" : `backends ${moving.map((row) => row.udpBackend).join(", ")} (native/udp-mmsg unavailable for some rows)`}` +
          (comparison.length > 0
            ? "; the row marked node:dgram is the same server with --udp-backend dgram, one system call and one JS callback per datagram."
            : "."),
      },
    ],
    charts: [
      {
        file: "server-tick-p99.svg",
        title: "Server: p99 tick time vs bots",
        kind: "line",
        categories: moving.map((row) => row.bots),
        series: [
          { name: "p99 tick ms", values: moving.map((row) => row.tickMs.p99) },
          { name: "p99 broadcast ms", values: moving.map((row) => row.broadcastMs.p99) },
        ],
        xLabel: "bots",
        yLabel: "ms",
        references: [{ label: "target 20 ms", value: 20 }],
      },
      {
        file: "server-cpu-per-client.svg",
        title: "Server: CPU µs per client-second vs bots",
        kind: "line",
        categories: moving.map((row) => row.bots),
        series: [{ name: "CPU µs per client-second", values: moving.map((row) => row.cpuUsPerClientSecond) }],
        xLabel: "bots",
        yLabel: "µs per client-second",
        references: [{ label: "target 150 µs", value: 150 }],
      },
    ],
    targets,
    notes: [
      "Server command (reproducible on any machine): node --import tsx ts/server/main.ts --map <dir>/map.tmj --http-port 0 --udp-port 0 --max-players 5000 --session-rate 200 --address-rate 1000000 --join-rate 1000000 --log-level warn --udp-backend auto (plus the event-loop-delay preload).",
    ],
    raw: rows,
  };
}
