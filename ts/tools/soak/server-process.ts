// The server under test: a real process started the way `npm start` starts it
// (ts/server/main.ts, free ports read back from its first line, a database in
// a temporary directory), watched for an exit nobody asked for, its resident
// memory read from /proc, its /api/status fetched with the time it took.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createWriteStream, readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const SERVER_MAIN = fileURLToPath(new URL("../../server/main.ts", import.meta.url));
const READY_TIMEOUT_MS = 30_000;
/** The last stderr kept for a crash report. */
const STDERR_TAIL_BYTES = 8192;
/** USER_HZ, the unit of /proc/<pid>/stat times: 100 on every Linux architecture Node runs on. */
const CLOCK_TICKS_PER_SECOND = 100;

/** The machine's CPU time so far, busy and in all (Linux /proc/stat, every core), in USER_HZ ticks. */
export function machineCpuTicks(): { busy: number; total: number } {
  try {
    const fields = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1).map(Number);
    const total = fields.reduce((sum, value) => sum + value, 0);
    const idle = fields[3] + (fields[4] ?? 0); // idle and iowait
    return { busy: total - idle, total };
  } catch {
    return { busy: Number.NaN, total: Number.NaN };
  }
}

/**
 * Datagrams the kernel dropped because a UDP socket's receive buffer was full, machine-wide
 * (/proc/net/snmp Udp RcvbufErrors); NaN where it cannot be read. On loopback, most are the
 * server's socket overrun by the flood.
 */
export function kernelReceiveDrops(): number {
  try {
    const lines = readFileSync("/proc/net/snmp", "utf8")
      .split("\n")
      .filter((line) => line.startsWith("Udp: "));
    const names = lines[0].split(" ");
    const values = lines[1].split(" ");
    return Number(values[names.indexOf("RcvbufErrors")]);
  } catch {
    return Number.NaN;
  }
}

export interface ServerStatus {
  tick: number;
  players: number;
  tickMs: { p50: number; p99: number; max: number };
  tickLateMs: { p50: number; p99: number; max: number };
  ticksSkipped: number;
  eventLoopDelayMs: { p50: number; p99: number; max: number; windowMs: number };
  datagramsIn: number;
  datagramsOut: number;
  bytesIn: number;
  bytesOut: number;
  addressProof: {
    challengesSent: number;
    proven: number;
    heldUnproven: number;
    bytesToUnproven: number;
    bytesFromUnproven: number;
  };
  drops: Record<string, number>;
  http?: { open: number; refusedConnections: number; loginsHeldBack: number; registrationsHeldBack: number };
  udp?: { backend: string; receiveBatches?: number };
}

export class ServerProcess {
  /** Set when the process exited before stop() asked it to: the crash. */
  crash: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  private stopping = false;
  private stderrTail = "";
  readonly exited: Promise<void>;

  private constructor(
    private readonly child: ChildProcess,
    readonly httpPort: number,
    readonly udpPort: number,
  ) {
    this.exited = new Promise((resolve) => child.once("exit", () => resolve()));
    child.on("exit", (code, signal) => {
      if (!this.stopping) this.crash = { code, signal };
    });
  }

  /**
   * Starts the server on `dbPath` with `extraArgs`; resolves once it listens
   * (its stdout line names both ports). Rejects with its stderr if it exits first.
   */
  static async start(
    dbPath: string,
    extraArgs: readonly string[],
    nodeArgs: readonly string[] = [],
    logPath: string | null = null,
  ): Promise<ServerProcess> {
    const args = [
      ...nodeArgs,
      "--import",
      "tsx",
      SERVER_MAIN,
      "--http-port",
      "0",
      "--udp-port",
      "0",
      "--db",
      dbPath,
      "--log-level",
      "warn",
      ...extraArgs,
    ];
    const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] });
    if (logPath !== null) {
      const log = createWriteStream(logPath);
      child.stdout!.on("data", (chunk: Buffer) => log.write(chunk));
      child.stderr!.on("data", (chunk: Buffer) => log.write(chunk));
      child.once("exit", () => log.end());
    }
    let stderr = "";
    const keepTail = (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-STDERR_TAIL_BYTES);
    };
    child.stderr!.on("data", keepTail);
    const lines = createInterface({ input: child.stdout! });
    const ready = new Promise<{ http: number; udp: number }>((resolve) => {
      lines.on("line", (line) => {
        const match = /running: http:\/\/[^:]+:(\d+)\/\s+\(UDP [^)]*:(\d+),/.exec(line);
        if (match) resolve({ http: Number(match[1]), udp: Number(match[2]) });
      });
    });
    let timer: NodeJS.Timeout | undefined;
    const ports = await Promise.race([
      ready,
      once(child, "exit").then(([code]) => {
        throw new Error(`the server exited with ${String(code)} before it listened:\n${stderr}`);
      }),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          child.kill("SIGKILL");
          reject(new Error(`the server did not listen within ${READY_TIMEOUT_MS / 1000} s:\n${stderr}`));
        }, READY_TIMEOUT_MS);
      }),
    ]).finally(() => clearTimeout(timer));
    const server = new ServerProcess(child, ports.http, ports.udp);
    // However the soak ends (an exception, process.exit), the server does not outlive it.
    const killOnExit = () => child.kill("SIGKILL");
    process.once("exit", killOnExit);
    child.once("exit", () => process.off("exit", killOnExit));
    child.stderr!.off("data", keepTail);
    server.stderrTail = stderr;
    child.stderr!.on("data", (chunk: Buffer) => {
      server.stderrTail = (server.stderrTail + chunk.toString()).slice(-STDERR_TAIL_BYTES);
    });
    return server;
  }

  get pid(): number {
    return this.child.pid!;
  }

  get alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** What the server last wrote to stderr (warnings, errors, a crash's stack). */
  get stderr(): string {
    return this.stderrTail;
  }

  /** Resident set size in bytes (Linux /proc), or NaN once the process is gone. */
  rssBytes(): number {
    try {
      const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${this.pid}/status`, "utf8"));
      return match ? Number(match[1]) * 1024 : Number.NaN;
    } catch {
      return Number.NaN;
    }
  }

  /** CPU time the process has used (user + system, Linux /proc), ms; NaN once it is gone. */
  cpuMs(): number {
    try {
      // Fields after the command name (which may hold spaces, hence the last ")"): utime and stime are the 12th and 13th.
      const stat = readFileSync(`/proc/${this.pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
    } catch {
      return Number.NaN;
    }
  }

  /** GET /api/status (newest `ticks` ticks) and how long the answer took, ms. */
  async status(ticks: number, timeoutMs = 5000): Promise<{ status: ServerStatus; ms: number }> {
    const startMs = performance.now();
    const response = await fetch(`http://127.0.0.1:${this.httpPort}/api/status?ticks=${ticks}`, {
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!response.ok) throw new Error(`/api/status answered ${response.status}`);
    const status = (await response.json()) as ServerStatus;
    return { status, ms: performance.now() - startMs };
  }

  /** SIGTERM (the server saves and closes its database), SIGKILL after `graceMs`. */
  async stop(graceMs = 10_000): Promise<void> {
    this.stopping = true;
    if (!this.alive) return;
    this.child.kill("SIGTERM");
    const timer = setTimeout(() => this.child.kill("SIGKILL"), graceMs);
    await this.exited;
    clearTimeout(timer);
  }
}
