// The launcher's supervisor (ts/cluster/supervisor.ts) on real processes: a part killed with SIGKILL
// whose restarts then fail (each a real process exiting before it is ready) is tried again, with a
// delay that doubles to its cap, until one starts — never given up — and the log gets one line per
// change of state, not one per failed try.
import { type ChildProcess, spawn } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { Logger } from "../ts/server/ops/log.js";
import {
  DEFAULT_BACKOFF,
  nextDelayMs,
  type PartState,
  type RunningPart,
  SupervisedPart,
} from "../ts/cluster/supervisor.js";

/** A real process: one that says it is ready and runs until stopped, or one that exits at once with 1 (a start that fails). */
function startProcess(fails: boolean): Promise<RunningPart & { child: ChildProcess }> {
  const script = fails ? "process.exit(1)" : "console.log('ready'); setInterval(() => {}, 1000)";
  const child = spawn(process.execPath, ["-e", script], { stdio: ["ignore", "pipe", "ignore"] });
  const ended = new Promise<string>((resolve) =>
    child.once("exit", (code, signal) => resolve(`exited (${String(signal ?? code)})`)),
  );
  return new Promise((resolve, reject) => {
    child.stdout.once("data", () =>
      resolve({
        child,
        pid: child.pid ?? null,
        ended,
        stop: async () => {
          child.kill("SIGKILL");
          await ended;
        },
      }),
    );
    void ended.then((how) => reject(new Error(`the process ${how} before it was ready`)));
  });
}

describe("the supervisor", () => {
  const parts: SupervisedPart[] = [];
  afterEach(async () => {
    for (const part of parts.splice(0)) await part.stop();
  });

  it("doubles the delay between tries up to its cap", () => {
    const delays: number[] = [];
    let delay = 0;
    for (let i = 0; i < 8; i++) delays.push((delay = nextDelayMs(delay, DEFAULT_BACKOFF)));
    expect(delays).toEqual([250, 500, 1000, 2000, 4000, 8000, 8000, 8000]);
  });

  it("restarts a part killed with SIGKILL, trying again after every failed restart until one starts", async () => {
    const lines: string[] = [];
    const logger = new Logger("info", (line) => lines.push(line));
    let tries = 0;
    const states: PartState[] = [];
    const first = await startProcess(false);
    const part: SupervisedPart = new SupervisedPart(
      "worker",
      "region",
      first,
      () => startProcess(++tries <= 4),
      logger,
      () => states.push(part.health.state),
      { initialDelayMs: 20, maxDelayMs: 80, stableMs: 60_000 },
    );
    parts.push(part);
    expect(part.health).toMatchObject({ state: "up", restarts: 0, pid: first.pid });
    first.child.kill("SIGKILL");
    const deadline = performance.now() + 20_000;
    while (part.health.state !== "up" || part.health.restarts === 0) {
      if (performance.now() > deadline) throw new Error(`not back: ${JSON.stringify(part.health)}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(tries).toBe(5);
    expect(part.health).toMatchObject({ state: "up", restarts: 1, failedStarts: 4 });
    expect(part.health.pid).not.toBe(first.pid);
    // Three changes of state, three lines — not one per failed try.
    expect(states).toEqual(["restarting", "down", "up"]);
    expect(lines).toHaveLength(3);
    expect(JSON.parse(lines[0])).toMatchObject({ part: "worker", how: "exited (SIGKILL)" });
    expect(JSON.parse(lines[1]).error).toContain("before it was ready");
  }, 30_000);

  it("stops a part for good: stopped, it is not started again", async () => {
    let starts = 0;
    const first = await startProcess(false);
    const part = new SupervisedPart(
      "worker",
      "gateway",
      first,
      () => {
        starts++;
        return startProcess(false);
      },
      new Logger("silent"),
      () => {},
      { initialDelayMs: 20, maxDelayMs: 80, stableMs: 60_000 },
    );
    await part.stop();
    expect(first.child.signalCode).toBe("SIGKILL");
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(starts).toBe(0);
  });
});
