// A real server process (test/support/persistent-server.ts, run from its bundle:
// test/support/node-bundle.ts) on a database file, for the crash tests: started
// the way main.ts starts one, resolved once it listens. Every child is recorded
// in `children` so a test's cleanup can kill what is still running.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { nodeBundleArgs } from "./node-bundle.js";

export interface ServerProcess {
  child: ChildProcess;
  httpPort: number;
  stderr: () => string;
}

export async function startServerProcess(
  dbPath: string,
  mapPath: string,
  children: ChildProcess[],
  args: readonly string[] = [],
): Promise<ServerProcess> {
  const child = spawn(
    process.execPath,
    [...nodeBundleArgs("persistent-server"), "--db", dbPath, "--map", mapPath, ...args],
    { stdio: ["ignore", "pipe", "pipe"], env: process.env },
  );
  children.push(child);
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const lines = createInterface({ input: child.stdout! });
  const first = await Promise.race([
    once(lines, "line").then(([line]) => line as string),
    once(child, "exit").then(([code]) => {
      throw new Error(`server exited with ${String(code)}: ${stderr}`);
    }),
  ]);
  return { child, httpPort: (JSON.parse(first) as { httpPort: number }).httpPort, stderr: () => stderr };
}
