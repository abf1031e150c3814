// Prometheus's own checker (`promtool`, Debian's `prometheus` package; .ci/run installs it) for the tests of
// /metrics, the alert rules and the dashboard: run as a process on its real input, its findings returned.
import { execFile } from "node:child_process";
import { toolSkipReason } from "./installed-tool.js";

/** Why promtool cannot run here, or null when it can. */
export function promtoolSkipReason(): string | null {
  return toolSkipReason("promtool", ["--version"], "prometheus");
}

export interface PromtoolResult {
  /** promtool's exit code: 0 when it found nothing. */
  code: number;
  /** Its stdout and stderr together (findings go to either, by subcommand). */
  output: string;
}

/** Runs `promtool ...args`, with `input` on its stdin when given. */
export function promtool(args: readonly string[], input?: string): Promise<PromtoolResult> {
  return new Promise((resolve, reject) => {
    const child = execFile("promtool", [...args], { timeout: 30_000 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === "number" ? error.code : null;
      if (code === null) reject(error ?? new Error("promtool did not exit"));
      else resolve({ code, output: `${stdout}${stderr}` });
    });
    child.stdin?.end(input ?? "");
  });
}
