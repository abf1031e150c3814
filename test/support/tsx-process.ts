// A TypeScript entry point run as a real process (node --import tsx, or its
// prebuilt bundle), the way a user runs our CLIs, with its output collected: one
// place for the spawning and capturing that the CLI tests would otherwise each
// write out.
import { spawn } from "node:child_process";
import { type NodeBundle, nodeBundleArgs } from "./node-bundle.js";

export interface TsxProcess {
  /** Everything written to stdout so far. */
  stdout: () => string;
  /** Everything written to stderr so far. */
  stderr: () => string;
  /** The exit code; null when a signal ended the process. */
  exited: Promise<number | null>;
  kill: (signal: NodeJS.Signals) => void;
  /** Its process id (a bench pins it and its children). */
  pid: number;
}

/** Starts `node --import tsx <script> ...args` (stdin closed); `script` is a path, relative ones to the cwd. */
export function spawnTsx(script: string, args: readonly string[]): TsxProcess {
  return spawnNode(["--import", "tsx", script, ...args]);
}

/** Starts the prebuilt bundle of a Node program (test/support/node-bundle.ts) with `...args` (stdin closed). */
export function spawnBundle(name: NodeBundle, args: readonly string[]): TsxProcess {
  return spawnNode([...nodeBundleArgs(name), ...args]);
}

function spawnNode(argv: readonly string[]): TsxProcess {
  const child = spawn(process.execPath, argv, { stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { stdout: () => stdout, stderr: () => stderr, exited, kill: (signal) => child.kill(signal), pid: child.pid! };
}

/** Resolves once `condition()` holds, checking every `pollMs`; the test's own timeout bounds the wait. */
export async function pollUntil(condition: () => boolean, pollMs: number): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, pollMs));
}
