// The chaos run as a user runs it (docs/scaling.md § The chaos run): a real process that starts the
// launcher's cluster (its redis-server, its PostgreSQL, two regions, two gateways), account bots that carry
// gold and gear across the border, trade, fight and take the stairs down and back up, and three seeded faults — region 0 killed with SIGKILL, the
// PostgreSQL killed with SIGKILL, gateway 0 frozen with SIGSTOP and thawed — over 75 s. It must exit 0 with
// every item the world created found once (trades done among the moves), every account there, every player
// back, none out of a level but by its stairs, every one walking at the end, no step lost or doubled at a
// handoff; and nothing it started may outlive it. Bad command lines exit 2.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, it } from "vitest";
import { postgresSkipReason } from "../ts/cluster/postgres-process.js";
import { clusterSkipReason } from "./support/cluster-process.js";
import { spawnTsx, type TsxProcess } from "./support/tsx-process.js";

const CHAOS = "ts/tools/chaos.ts";
const skip = clusterSkipReason() ?? postgresSkipReason();
if (skip !== null) process.stderr.write(`test/chaos-run.test.ts skipped: ${skip}\n`);

const running: TsxProcess[] = [];
// The cluster's log goes here rather than to the run's default, a file in the temporary folder kept for its user.
const logDir = mkdtempSync(join(tmpdir(), "caves-chaos-test-"));
afterAll(() => {
  // A run cut short by its bound is stopped as ^C stops it: it ends the cluster it started.
  for (const run of running) run.kill("SIGTERM");
  rmSync(logDir, { recursive: true, force: true });
});

function chaos(args: string[]): TsxProcess {
  const run = spawnTsx(CHAOS, args);
  running.push(run);
  return run;
}

interface Report {
  world: string;
  faults: { fault: string; affected: number; allBackMs: number }[];
  skipped: string[];
  neverBack: string[];
  items: { item: string; created: number; found: number }[];
  accounts: { registered: number; missing: string[] };
  steps: { handoffsIn: number; lost: number; doubled: number };
  trades: { asked: number; done: number };
  stairs: { wentDown: number; trapped: string[] };
  stuck: string[];
  notUp: string[];
  lost: boolean;
}

describe("the chaos run", () => {
  it("--help prints the usage; a bad option exits 2 with the reason", { timeout: 30_000 }, async ({ expect }) => {
    const help = chaos(["--help"]);
    const bad = chaos(["--seconds", "60", "--targets", "the moon"]);
    const unknown = chaos(["--colour", "red"]);
    expect(await help.exited).toBe(0);
    expect(help.stdout()).toContain("--minutes N");
    expect(await bad.exited).toBe(2);
    expect(bad.stderr()).toContain('unknown target "the moon"');
    expect(await unknown.exited).toBe(2);
    expect(unknown.stderr()).toContain("--colour");
  });

  it.skipIf(skip !== null)(
    "75 s of seeded kills and a freeze lose nothing and leave nothing running",
    { timeout: 200_000 },
    async ({ expect }) => {
      const run = chaos([
        ...["--seconds", "75", "--gap", "15", "--seed", "18", "--bots", "6", "--json"],
        ...["--log", join(logDir, "cluster.log")],
      ]);
      const code = await run.exited;
      const out = run.stdout();
      expect(code, `${out}\n${run.stderr()}`).toBe(0);
      const report = JSON.parse(out.trim().split("\n").at(-1)!) as Report;
      // The plan of seed 18: region 0 killed, the PostgreSQL killed, gateway 0 frozen.
      expect(report.faults.map((fault) => fault.fault.replace(/ [\d.]+ s/, ""))).toEqual([
        "SIGKILL region 0",
        "SIGKILL postgres",
        "SIGSTOP gateway 0",
      ]);
      expect(report.skipped).toEqual([]);
      expect(report.faults.some((fault) => fault.affected > 0)).toBe(true);
      expect(report.neverBack).toEqual([]);
      for (const item of report.items) expect(item.found, item.item).toBe(item.created);
      expect(report.accounts).toEqual({ registered: 6, missing: [] });
      expect(report.steps.handoffsIn).toBeGreaterThan(0);
      expect(report.steps.lost + report.steps.doubled).toBe(0);
      // Trades were done (each heard by both of its players) and bots went below, with nothing lost over them.
      expect(report.trades.done).toBeGreaterThan(0);
      expect(report.stairs.wentDown).toBeGreaterThan(0);
      expect(report.stairs.trapped).toEqual([]);
      expect(report.stuck).toEqual([]);
      expect(report.notUp).toEqual([]);
      expect(report.lost).toBe(false);
      // Nothing it started is left: no process names its world's files.
      const processes = execFileSync("ps", ["-eo", "args="], { encoding: "utf8" });
      expect(processes).not.toContain(report.world);
    },
  );
});
