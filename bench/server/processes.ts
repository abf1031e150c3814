// Process helpers of the server suites (bench/suites/server.ts, bench/suites/colyseus.ts): CPU time and
// RSS of a process from /proc, pinning with taskset, the load average, stopping a child, and reading the
// event-loop delay the preload module writes.
import { type ChildProcess, spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { createConnection } from "node:net";

/** Clock ticks per second of /proc/<pid>/stat times. */
export const clockTicks = (() => {
  const result = spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" });
  return Number(result.stdout) || 100;
})();

/** utime + stime of a process in seconds. */
export function cpuSeconds(pid: number): number {
  const { user, system } = cpuTimes(pid);
  return user + system;
}

/**
 * A process's CPU time in seconds, split as /proc/<pid>/stat splits it: `user` (utime: its own code, the
 * part a server's authors control) and `system` (stime: the kernel working for it — on loopback that
 * includes delivering its datagrams or segments into the receivers' sockets).
 */
export function cpuTimes(pid: number): { user: number; system: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { user: Number(fields[11]) / clockTicks, system: Number(fields[12]) / clockTicks };
}

/** Resident set size of a process in MiB. */
export function rssMiB(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return match ? Number(match[1]) / 1024 : NaN;
}

/** Whether taskset can pin here (util-linux installed and allowed). */
export const tasksetWorks = spawnSync("taskset", ["-c", "0", "true"]).status === 0;

/** The command line that runs `command` pinned to `core` (unpinned when taskset does not work). */
export function pinned(core: number, command: string, args: string[]): [string, string[]] {
  return tasksetWorks ? ["taskset", ["-c", String(core), command, ...args]] : [command, args];
}

/** The 1-, 5- and 15-minute load averages. */
export function loadAverages(): number[] {
  return readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).map(Number);
}

/** SIGTERM, then SIGKILL after 5 s; resolves when the process has exited. */
export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
  await exited;
  clearTimeout(timer);
}

/**
 * The event-loop delay percentiles the preload (bench/server/eld-preload.mjs) writes on SIGUSR2 for the time
 * since the previous signal (it then resets), or null when it does not answer within a second.
 */
export async function readEld(pid: number, file: string): Promise<{ p50: number; p99: number } | null> {
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

/** Redis's total_commands_processed (INFO stats) at `url`: Redis operations, for a rate over a window. */
export async function redisCommands(url: string): Promise<number> {
  const { port } = new URL(url);
  const socket = createConnection({ port: Number(port), host: "127.0.0.1" });
  const text = await new Promise<string>((resolve, reject) => {
    let data = "";
    socket.on("error", reject);
    socket.on("data", (chunk) => {
      data += chunk.toString();
      if (data.includes("total_commands_processed")) resolve(data);
    });
    socket.write("INFO stats\r\n");
  });
  socket.destroy();
  return Number(/total_commands_processed:(\d+)/.exec(text)![1]);
}
