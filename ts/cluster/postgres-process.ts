// A private PostgreSQL cluster for the tests (and for trying the shared store by hand): initdb and
// pg_ctl in a temporary directory, on a free loopback port, trust authentication on loopback only,
// stopped and removed afterwards. PostgreSQL refuses to run as root, so as root it runs as `nobody`
// through runuser; as any other user it runs as that user. pg_ctl leaves the postmaster running on its
// own (not our child), so its end is seen by watching its pid; the launcher's supervisor starts it again
// in the same data directory, on the same port.
import { execFile, execFileSync, spawnSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./redis-process.js";

const CANDIDATE_BIN_DIRS = ["/usr/lib/postgresql/17/bin", "/usr/lib/postgresql/16/bin", "/usr/lib/postgresql/15/bin"];
const UNPRIVILEGED = { user: "nobody", uid: 65534, gid: 65534 };

/** How often a postmaster's pid is checked. */
const WATCH_MS = 500;

export interface PostgresProcess {
  readonly url: string;
  readonly port: number;
  /** The postmaster's process id. */
  readonly pid: number | null;
  /** Resolves, saying how, once the postmaster is gone. */
  readonly ended: Promise<string>;
  /** Starts it again (after it ended) in the same data directory, on the same port. */
  restart(): Promise<PostgresProcess>;
  /** Stops it and removes its directory. */
  stop(): void;
}

/** The directory holding initdb and pg_ctl, or null with the reason they cannot be used. */
export function findPostgres(): { bin: string } | { bin: null; reason: string } {
  for (const dir of CANDIDATE_BIN_DIRS)
    if (existsSync(join(dir, "initdb")) && existsSync(join(dir, "pg_ctl"))) return { bin: dir };
  return { bin: null, reason: "PostgreSQL is not installed (Debian: apt-get install postgresql)" };
}

/** The command line that runs a PostgreSQL program as the unprivileged user when we are root. */
function commandOf(bin: string, program: string, args: string[]): [string, string[]] {
  const asRoot = process.getuid?.() === 0;
  const command = asRoot ? "runuser" : join(bin, program);
  const argv = asRoot ? ["-u", UNPRIVILEGED.user, "--", join(bin, program), ...args] : args;
  return [command, argv];
}

/** Runs a PostgreSQL program; throws with its output on failure. */
function run(bin: string, program: string, args: string[], timeoutMs: number): void {
  const [command, argv] = commandOf(bin, program, args);
  const result = spawnSync(command, argv, { encoding: "utf8", timeout: timeoutMs, cwd: tmpdir() });
  if (result.status !== 0) {
    throw new Error(`${program} failed (${String(result.status ?? result.signal)}): ${result.stderr || result.stdout}`);
  }
}

/** `run`, without blocking the event loop (the launcher serves its children meanwhile). */
function runAsync(bin: string, program: string, args: string[], timeoutMs: number): Promise<void> {
  const [command, argv] = commandOf(bin, program, args);
  return new Promise((resolve, reject) => {
    execFile(command, argv, { encoding: "utf8", timeout: timeoutMs, cwd: tmpdir() }, (error, stdout, stderr) => {
      if (error === null) resolve();
      else reject(new Error(`${program} failed (${String(error.code ?? error.signal)}): ${stderr || stdout}`));
    });
  });
}

/** Whether process `pid` exists (signal 0 checks without sending). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === "EPERM";
  }
}

/** The running postmaster's pid, from the first line of its lock file. */
function postmasterPid(data: string): number | null {
  try {
    const pid = Number(readFileSync(join(data, "postmaster.pid"), "utf8").split("\n")[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/** Creates and starts a cluster; resolves once it accepts connections (pg_ctl -w), within `timeoutMs`. */
export async function startPostgres(timeoutMs = 60_000): Promise<PostgresProcess> {
  const found = findPostgres();
  if (found.bin === null) throw new Error(found.reason);
  const bin = found.bin;
  const dir = mkdtempSync(join(tmpdir(), "caves-pg-"));
  const data = join(dir, "data");
  if (process.getuid?.() === 0) {
    chownSync(dir, UNPRIVILEGED.uid, UNPRIVILEGED.gid);
    chmodSync(dir, 0o700);
  }
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
  const startArgs = ["-D", data, "-o", options, "-l", join(dir, "log"), "-w", "-t", "60", "start"];
  try {
    run(bin, "initdb", ["-D", data, "-U", "caves", "--auth=trust", "-E", "UTF8", "--no-sync"], timeoutMs);
    run(bin, "pg_ctl", startArgs, timeoutMs);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    try {
      run(bin, "pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"], 30_000);
    } catch {
      // Already down: nothing to stop.
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const running = (): PostgresProcess => {
    const pid = postmasterPid(data);
    const ended = new Promise<string>((resolve) => {
      const watch = setInterval(() => {
        if (!stopped && pid !== null && alive(pid)) return;
        clearInterval(watch);
        resolve(stopped ? "stopped" : "the postmaster exited");
      }, WATCH_MS);
      watch.unref();
    });
    return {
      url: `postgres://caves@127.0.0.1:${port}/postgres`,
      port,
      pid,
      ended,
      async restart() {
        await runAsync(bin, "pg_ctl", startArgs, timeoutMs);
        return running();
      },
      stop,
    };
  };
  return running();
}

/** Whether this user may run PostgreSQL here (root needs runuser). */
export function postgresSkipReason(): string | null {
  const found = findPostgres();
  if (found.bin === null) return found.reason;
  if (process.getuid?.() === 0) {
    try {
      execFileSync("sh", ["-c", "command -v runuser"], { encoding: "utf8" });
    } catch {
      return "running as root without runuser: PostgreSQL will not start as root";
    }
  }
  return null;
}
