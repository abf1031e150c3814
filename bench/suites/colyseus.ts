// The Colyseus rows of the server suite (issue 20 goal 2; docs/benchmarks.md § Colyseus): the same
// workload in a Colyseus 0.17 room (bench/colyseus/world-room.ts) on the same world file, its server
// pinned to core 0 and its SDK bots (bench/colyseus/bots.ts) to core 1, measured like our server:
// CPU from /proc/<pid>/stat, event-loop delay from the same preload, the room's own tick and patch
// durations and counts from its status endpoint, and the bytes each way at the IP level from the
// kernel's TCP counters of the server's sockets (`ss -ti`: payload bytes plus an IPv4 and TCP header
// per segment, pure ACKs included), the TCP counterpart of the UDP rows' payload + 28 per datagram.
//
// Colyseus and its SDK are not dependencies of the project: bench/colyseus/ has its own package.json
// and lock file, installed here on first use (`npm ci --prefix bench/colyseus`).
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { BROADCAST_EVERY_TICKS, TICK_HZ } from "../../ts/constants.js";
import { fmt, log } from "../lib/harness.js";
import { cpuSeconds, cpuTimes, loadAverages, pinned, readEld, rssMiB, stop } from "../server/processes.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const COLYSEUS_DIR = join(ROOT, "bench/colyseus");
const PRELOAD = fileURLToPath(new URL("../server/eld-preload.mjs", import.meta.url));
const SERVER = join(COLYSEUS_DIR, "server.ts");
const BOTS = join(COLYSEUS_DIR, "bots.ts");
const BROADCAST_HZ = TICK_HZ / BROADCAST_EVERY_TICKS;
const TICK_MS = 1000 / TICK_HZ;
/** IPv4 header without options and TCP header without options; the timestamp option adds 12 (10 + 2 padding). */
const IPV4_TCP_HEADER_BYTES = 40;
const TCP_TIMESTAMP_OPTION_BYTES = 12;

interface ColyseusBotResult {
  bots: number;
  seconds: number;
  botProcessCpuPercent: number;
  perBot: {
    messagesInPerSecond: number;
    wsPayloadBytesInPerSecond: number;
    patchesPerSecond: number;
    chunkPerSecond: number;
    messagesOutPerSecond: number;
    pongsPerSecond: number;
  };
}

interface ColyseusStatus {
  tick: number;
  patches: number;
  players: number;
  chunksSent: number;
  tickMs: { p50: number; p99: number; max: number };
  broadcastMs: { p50: number; p99: number; max: number };
}

/** Sums of the kernel's counters over the server's established TCP connections. */
interface TcpCounters {
  sockets: number;
  bytesSent: number;
  bytesReceived: number;
  segmentsOut: number;
  segmentsIn: number;
  /** Sockets that negotiated TCP timestamps (12 more header bytes per segment). */
  withTimestamps: number;
}

export interface ColyseusRow {
  bots: number;
  seconds: number;
  serverCpuPercent: number;
  cpuUsPerClientSecond: number;
  /** The same split as /proc/<pid>/stat splits it: user time (the server's own code) and system time (the kernel's); absent from rows measured before the split. */
  userCpuUsPerClientSecond?: number;
  systemCpuUsPerClientSecond?: number;
  rssMiB: number;
  eventLoopDelayMs: { p50: number; p99: number } | null;
  /** The room's simulation callback (moves, views) and its patch broadcast, over the window. */
  tickMs: { p50: number; p99: number; max: number };
  broadcastMs: { p50: number; p99: number; max: number };
  tickRateHz: number;
  patchRateHz: number;
  bot: ColyseusBotResult;
  tcp: {
    sockets: number;
    headerBytesPerSegment: number;
    ipBytesOutPerClientSecond: number;
    ipBytesInPerClientSecond: number;
    payloadBytesOutPerClientSecond: number;
    segmentsOutPerClientSecond: number;
  };
  keepsUp: boolean;
  load: { before: number[]; after: number[] };
}

/** Whether bench/colyseus/node_modules holds the pinned packages; installs them (npm ci) when not. */
export function ensureColyseus(): { ok: true } | { ok: false; reason: string } {
  const installed = () =>
    ["@colyseus/core", "@colyseus/ws-transport", "@colyseus/schema", "@colyseus/sdk"].every((name) =>
      existsSync(join(COLYSEUS_DIR, "node_modules", name, "package.json")),
    );
  if (installed()) return { ok: true };
  log(
    "colyseus: installing Colyseus 0.17 and its SDK for the comparison rows, once: npm ci --prefix bench/colyseus " +
      "(bench/colyseus/package-lock.json; its .npmrc sets legacy-peer-deps; not part of the main install)",
  );
  const result = spawnSync("npm", ["ci", "--prefix", COLYSEUS_DIR, "--no-audit", "--no-fund"], {
    cwd: COLYSEUS_DIR,
    stdio: ["ignore", "inherit", "inherit"],
    timeout: 600_000,
  });
  if (result.status !== 0 || !installed()) {
    return {
      ok: false,
      reason: `npm ci --prefix bench/colyseus failed (${result.error?.message ?? `exit ${result.status}`}): Colyseus rows not run`,
    };
  }
  return { ok: true };
}

/** One connection's counters, keyed by its peer address. */
type TcpSockets = Map<string, TcpCounters>;

/**
 * The kernel's TCP counters of the established connections whose local port is `port`, per peer. The
 * matchmaking HTTP requests share the WebSocket port, and their kept-alive connections close during the
 * window, so a window's figures come from tcpWindow over the connections present at both of its ends.
 */
export function tcpSockets(port: number): TcpSockets {
  const result = spawnSync("ss", ["-tinH", "state", "established", `( sport = :${port} )`], { encoding: "utf8" });
  if (result.status !== 0) throw new Error(`ss failed: ${result.stderr || result.error?.message}`);
  const sockets: TcpSockets = new Map();
  const field = (line: string, name: string) => Number(new RegExp(`\\b${name}:(\\d+)`).exec(line)?.[1] ?? 0);
  let peer = "";
  for (const line of result.stdout.split("\n")) {
    // ss prints each socket's address line (…, local, peer), then its details indented on the next line.
    if (!/\bsegs_out:/.test(line)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length >= 2) peer = fields[fields.length - 1];
      continue;
    }
    sockets.set(peer, {
      sockets: 1,
      bytesSent: field(line, "bytes_sent"),
      bytesReceived: field(line, "bytes_received"),
      segmentsOut: field(line, "segs_out"),
      segmentsIn: field(line, "segs_in"),
      withTimestamps: /(^|\s)ts(\s|$)/.test(line) ? 1 : 0,
    });
  }
  return sockets;
}

/** What the connections present at both ends sent and received between them, summed. */
export function tcpWindow(start: TcpSockets, end: TcpSockets): TcpCounters {
  const sum: TcpCounters = {
    sockets: 0,
    bytesSent: 0,
    bytesReceived: 0,
    segmentsOut: 0,
    segmentsIn: 0,
    withTimestamps: 0,
  };
  for (const [peer, last] of end) {
    const first = start.get(peer);
    if (!first) continue;
    sum.sockets++;
    sum.bytesSent += last.bytesSent - first.bytesSent;
    sum.bytesReceived += last.bytesReceived - first.bytesReceived;
    sum.segmentsOut += last.segmentsOut - first.segmentsOut;
    sum.segmentsIn += last.segmentsIn - first.segmentsIn;
    sum.withTimestamps += last.withTimestamps;
  }
  return sum;
}

async function startColyseus(
  mapPath: string,
  eldFile: string,
): Promise<{ child: ChildProcess; port: number; status: string }> {
  const [command, args] = pinned(0, process.execPath, [
    "--import",
    "tsx",
    "--import",
    PRELOAD,
    SERVER,
    "--map",
    mapPath,
  ]);
  const child = spawn(command, args, {
    cwd: ROOT,
    env: { ...process.env, BENCH_ELD_FILE: eldFile },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  return new Promise((resolve, reject) => {
    const timeout = setTimeout(() => reject(new Error(`Colyseus did not start in 120 s: ${stderr}`)), 120_000);
    child.on("exit", (code) => reject(new Error(`Colyseus exited with ${code}: ${stderr}`)));
    createInterface({ input: child.stdout! }).on("line", (line) => {
      try {
        const message = JSON.parse(line) as { event?: string; port?: number; statusPort?: number };
        if (message.event === "listening") {
          clearTimeout(timeout);
          resolve({ child, port: message.port!, status: `http://127.0.0.1:${message.statusPort}/status` });
        }
      } catch {
        // not a JSON line
      }
    });
  });
}

async function colyseusStatus(url: string, ticks?: number): Promise<ColyseusStatus> {
  const response = await fetch(ticks === undefined ? url : `${url}?ticks=${ticks}`);
  return (await response.json()) as ColyseusStatus;
}

/** One Colyseus row: a fresh server and `bots` SDK bots, `warmupS` after the joins, then a `measureS` window. */
export async function runColyseusRow(
  mapPath: string,
  bots: number,
  warmupS: number,
  measureS: number,
): Promise<ColyseusRow> {
  const eldFile = join(tmpdir(), `fc-colyseus-eld-${process.pid}-${bots}.json`);
  const loadBefore = loadAverages();
  const { child: server, port, status } = await startColyseus(mapPath, eldFile);
  const serverPid = server.pid!;
  await new Promise((resolve) => setTimeout(resolve, 3000));
  try {
    const [command, args] = pinned(1, process.execPath, [
      "--import",
      "tsx",
      BOTS,
      "--endpoint",
      `ws://127.0.0.1:${port}`,
      "--count",
      String(bots),
      "--warmup",
      String(warmupS),
      "--measure",
      String(measureS),
    ]);
    const botProcess = spawn(command, args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let botErr = "";
    botProcess.stderr!.on("data", (chunk: Buffer) => (botErr = (botErr + chunk.toString()).slice(-4000)));
    const window = {
      startCpu: 0,
      startTimes: { user: 0, system: 0 },
      endTimes: { user: 0, system: 0 },
      endCpu: 0,
      startMs: 0,
      endMs: 0,
      rss: NaN,
      startTcp: null as TcpSockets | null,
      endTcp: null as TcpSockets | null,
      startStatus: null as ColyseusStatus | null,
      endStatus: null as ColyseusStatus | null,
      eld: null as { p50: number; p99: number } | null,
      result: null as ColyseusBotResult | null,
    };
    const pending: Promise<void>[] = [];
    createInterface({ input: botProcess.stdout! }).on("line", (line) => {
      let message: { event: string } & Record<string, unknown>;
      try {
        message = JSON.parse(line);
      } catch {
        return;
      }
      if (message.event === "joined") log(`colyseus: ${bots} bots joined`);
      if (message.event === "measure-start") {
        window.startCpu = cpuSeconds(serverPid);
        window.startTimes = cpuTimes(serverPid);
        window.startMs = performance.now();
        window.startTcp = tcpSockets(port);
        pending.push(
          (async () => {
            window.startStatus = await colyseusStatus(status);
            await readEld(serverPid, eldFile); // resets the histogram
          })(),
        );
      }
      if (message.event === "measure-end") {
        window.endCpu = cpuSeconds(serverPid);
        window.endTimes = cpuTimes(serverPid);
        window.endMs = performance.now();
        window.endTcp = tcpSockets(port);
        window.rss = rssMiB(serverPid);
        pending.push(
          (async () => {
            window.endStatus = await colyseusStatus(status, Math.min(1024, Math.round(measureS * TICK_HZ)));
            window.eld = await readEld(serverPid, eldFile);
          })(),
        );
      }
      if (message.event === "result") window.result = message as unknown as ColyseusBotResult;
    });
    const timeoutMs = (warmupS + measureS) * 1000 + bots * 100 + 120_000;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        botProcess.kill("SIGKILL");
        reject(new Error(`Colyseus bots did not finish in ${timeoutMs} ms: ${botErr}`));
      }, timeoutMs);
      botProcess.on("exit", (code) => {
        clearTimeout(timer);
        if (code === 0) resolve();
        else reject(new Error(`Colyseus bots exited with ${code}: ${botErr}`));
      });
    });
    await Promise.all(pending);
    const { result, startStatus, endStatus, startTcp, endTcp } = window;
    if (!result || !startStatus || !endStatus || !startTcp || !endTcp)
      throw new Error("the Colyseus bot run ended without a measurement window");
    const seconds = (window.endMs - window.startMs) / 1000;
    const cpu = window.endCpu - window.startCpu;
    const clientSeconds = bots * seconds;
    const tcp = tcpWindow(startTcp, endTcp);
    const headerBytesPerSegment =
      IPV4_TCP_HEADER_BYTES + (tcp.sockets > 0 && tcp.withTimestamps === tcp.sockets ? TCP_TIMESTAMP_OPTION_BYTES : 0);
    const tickRateHz = (endStatus.tick - startStatus.tick) / seconds;
    const patchRateHz = (endStatus.patches - startStatus.patches) / seconds;
    const eld = window.eld;
    const row: ColyseusRow = {
      bots,
      seconds,
      serverCpuPercent: (cpu / seconds) * 100,
      cpuUsPerClientSecond: (cpu * 1e6) / clientSeconds,
      userCpuUsPerClientSecond: ((window.endTimes.user - window.startTimes.user) * 1e6) / clientSeconds,
      systemCpuUsPerClientSecond: ((window.endTimes.system - window.startTimes.system) * 1e6) / clientSeconds,
      rssMiB: window.rss,
      eventLoopDelayMs: eld,
      tickMs: endStatus.tickMs,
      broadcastMs: endStatus.broadcastMs,
      tickRateHz,
      patchRateHz,
      bot: result,
      tcp: {
        sockets: tcp.sockets,
        headerBytesPerSegment,
        ipBytesOutPerClientSecond: (tcp.bytesSent + tcp.segmentsOut * headerBytesPerSegment) / clientSeconds,
        ipBytesInPerClientSecond: (tcp.bytesReceived + tcp.segmentsIn * headerBytesPerSegment) / clientSeconds,
        payloadBytesOutPerClientSecond: tcp.bytesSent / clientSeconds,
        segmentsOutPerClientSecond: tcp.segmentsOut / clientSeconds,
      },
      // The simulation and the patches at ≥ 95 % of their rates, and the event loop never a tick late at p99.
      keepsUp:
        tickRateHz >= TICK_HZ * 0.95 &&
        patchRateHz >= BROADCAST_HZ * 0.95 &&
        eld !== null &&
        eld.p99 < TICK_MS &&
        endStatus.tickMs.p99 < TICK_MS,
      load: { before: loadBefore, after: loadAverages() },
    };
    log(
      `colyseus: N=${bots}: cpu ${fmt(row.serverCpuPercent)} %, ${fmt(row.cpuUsPerClientSecond)} µs/client-s, ` +
        `event-loop p99 ${eld ? fmt(eld.p99) : "—"} ms, tick p99 ${fmt(row.tickMs.p99)} ms, ${fmt(tickRateHz)} ticks/s, ` +
        `${fmt(patchRateHz)} patches/s, down ${fmt(row.tcp.ipBytesOutPerClientSecond)} B/s per client (IP), ` +
        `${fmt(row.tcp.segmentsOutPerClientSecond)} segments/s, bots' cpu ${fmt(result.botProcessCpuPercent)} %, ` +
        `load ${loadBefore[0]} → ${row.load.after[0]}`,
    );
    return row;
  } finally {
    await stop(server);
    rmSync(eldFile, { force: true });
  }
}
