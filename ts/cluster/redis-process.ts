// A private redis-server for `npm run cluster` and the tests: on a free loopback port (Redis cannot
// listen on port 0 and say which port it got, so a port is found by binding and releasing it, and
// taken again if another process won the race), no persistence (--save '' --appendonly no), in a
// temporary directory removed when it stops. The launcher's supervisor starts it again on the same
// port (every process holds its URL) when it dies.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface RedisProcess {
  readonly url: string;
  readonly port: number;
  /** Its temporary directory (a restart uses the same). */
  readonly dir: string;
  readonly child: ChildProcess;
  /** Resolves, saying how, when the server has exited. */
  readonly ended: Promise<string>;
  /** Stops it and removes its directory. */
  stop(): Promise<void>;
}

/** The path of redis-server, or null with the reason it cannot be used. */
export function findRedisServer(): { path: string } | { path: null; reason: string } {
  try {
    const path = execFileSync("sh", ["-c", "command -v redis-server"], { encoding: "utf8" }).trim();
    if (path !== "") return { path };
  } catch {
    // fall through
  }
  return { path: null, reason: "redis-server is not installed (Debian: apt-get install redis-server)" };
}

/** A TCP port free on 127.0.0.1 a moment ago. */
export async function freePort(host = "127.0.0.1"): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, host, () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * Starts redis-server and resolves once it accepts connections; rejects after `timeoutMs`. With `at`,
 * on that port and in that directory (a restart: one try, the supervisor tries again).
 */
export async function startRedis(timeoutMs = 10_000, at?: { port: number; dir: string }): Promise<RedisProcess> {
  const found = findRedisServer();
  if (found.path === null) throw new Error(found.reason);
  let lastError = "";
  for (let attempt = 0; attempt < (at === undefined ? 5 : 1); attempt++) {
    const port = at?.port ?? (await freePort());
    const dir = at?.dir ?? mkdtempSync(join(tmpdir(), "caves-redis-"));
    const child = spawn(
      found.path,
      ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    const ended = new Promise<string>((resolve) =>
      child.once("exit", (code, signal) => resolve(`redis-server exited (${String(signal ?? code)})`)),
    );
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const ready = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      const check = () => {
        if (output.includes("Ready to accept connections")) {
          clearTimeout(timer);
          resolve(true);
        }
      };
      child.stdout.on("data", check);
      child.on("exit", () => {
        clearTimeout(timer);
        resolve(false);
      });
    });
    const end = async () => {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGTERM");
        await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 3000))]);
        if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      }
    };
    const stop = async () => {
      await end();
      rmSync(dir, { recursive: true, force: true });
    };
    if (ready) return { url: `redis://127.0.0.1:${port}`, port, dir, child, ended, stop };
    lastError = output.trim().split("\n").slice(-3).join(" | ");
    // A restart's directory stays for the next try.
    if (at === undefined) await stop();
    else await end();
    // A port taken between our probe and redis binding it: try another.
    if (!/Address already in use/.test(output)) break;
  }
  throw new Error(`redis-server did not start: ${lastError}`);
}
