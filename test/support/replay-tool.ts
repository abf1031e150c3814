// `npm run -s replay -- ARGS` as the tests run it: the tool itself (ts/tools/replay.ts) under tsx, its exit status
// and everything it printed, bounded in time. One helper for every test that verifies, cuts or reads a recording.
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

export const TSX = fileURLToPath(new URL("../../node_modules/.bin/tsx", import.meta.url));
export const REPLAY_TOOL = fileURLToPath(new URL("../../ts/tools/replay.ts", import.meta.url));
const run = promisify(execFile);

/** Runs the replay tool with `args`: its exit status (0 on success) and its stdout followed by its stderr. */
export async function replayTool(...args: string[]): Promise<{ code: number; out: string }> {
  try {
    const { stdout, stderr } = await run(TSX, [REPLAY_TOOL, ...args], { timeout: 120_000 });
    return { code: 0, out: stdout + stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, out: failed.stdout + failed.stderr };
  }
}
