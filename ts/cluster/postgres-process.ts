// A private PostgreSQL cluster for the tests (and for trying the shared store by hand): initdb and
// pg_ctl in a temporary directory, on a free loopback port, trust authentication on loopback only,
// stopped and removed afterwards. PostgreSQL refuses to run as root, so as root it runs as `nobody`
// through runuser; as any other user it runs as that user.
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./redis-process.js";

const CANDIDATE_BIN_DIRS = ["/usr/lib/postgresql/17/bin", "/usr/lib/postgresql/16/bin", "/usr/lib/postgresql/15/bin"];
const UNPRIVILEGED = { user: "nobody", uid: 65534, gid: 65534 };

export interface PostgresProcess {
  readonly url: string;
  readonly port: number;
  stop(): void;
}

/** The directory holding initdb and pg_ctl, or null with the reason they cannot be used. */
export function findPostgres(): { bin: string } | { bin: null; reason: string } {
  for (const dir of CANDIDATE_BIN_DIRS)
    if (existsSync(join(dir, "initdb")) && existsSync(join(dir, "pg_ctl"))) return { bin: dir };
  return { bin: null, reason: "PostgreSQL is not installed (Debian: apt-get install postgresql)" };
}

/** Runs a PostgreSQL program as the unprivileged user when we are root; throws with its output on failure. */
function run(bin: string, program: string, args: string[], timeoutMs: number): void {
  const asRoot = process.getuid?.() === 0;
  const command = asRoot ? "runuser" : join(bin, program);
  const argv = asRoot ? ["-u", UNPRIVILEGED.user, "--", join(bin, program), ...args] : args;
  const result = spawnSync(command, argv, { encoding: "utf8", timeout: timeoutMs, cwd: tmpdir() });
  if (result.status !== 0) {
    throw new Error(`${program} failed (${String(result.status ?? result.signal)}): ${result.stderr || result.stdout}`);
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
  try {
    run(bin, "initdb", ["-D", data, "-U", "caves", "--auth=trust", "-E", "UTF8", "--no-sync"], timeoutMs);
    const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
    run(bin, "pg_ctl", ["-D", data, "-o", options, "-l", join(dir, "log"), "-w", "-t", "60", "start"], timeoutMs);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  let stopped = false;
  return {
    url: `postgres://caves@127.0.0.1:${port}/postgres`,
    port,
    stop() {
      if (stopped) return;
      stopped = true;
      try {
        run(bin, "pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"], 30_000);
      } catch {
        // Already down: nothing to stop.
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
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
