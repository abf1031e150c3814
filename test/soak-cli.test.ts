// The soak command as a user runs it: a real process that starts a real
// server process, honest bots, the attacker process and its flood, for a few
// seconds at small rates. It must exit 0 with every line of the report, the
// server must have stayed up and lost no account, and nothing it started may
// outlive it. Bad command lines exit 2 with a clear message.
import { afterAll, describe, it } from "vitest";
import { spawnTsx, type TsxProcess } from "./support/tsx-process.js";

const SOAK = "ts/tools/soak.ts";
// A run takes ~20 s on an idle machine (server start, scrypt for the accounts, joins, 4 s of attack, logins).
const RUN_TIMEOUT_MS = 60_000;
const QUICK_TIMEOUT_MS = 30_000;

const running: TsxProcess[] = [];
afterAll(() => {
  for (const run of running) run.kill("SIGKILL");
});

function soak(args: string[]): TsxProcess {
  const run = spawnTsx(SOAK, args);
  running.push(run);
  return run;
}

/** Whether process `pid` still exists. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe.concurrent("soak CLI", () => {
  it("--help prints the usage and exits 0", { timeout: QUICK_TIMEOUT_MS }, async ({ expect }) => {
    const run = soak(["--help"]);
    expect(await run.exited).toBe(0);
    expect(run.stdout()).toContain("--minutes N");
    expect(run.stdout()).toContain("--flood-rate N");
    expect(run.stdout()).toContain("Exit status: 0");
  });

  it(
    "exits 2 with a clear message for a bad flag or a missing duration",
    { timeout: QUICK_TIMEOUT_MS },
    async ({ expect }) => {
      const bad = soak(["--minutes", "1", "--flood-rate", "lots"]);
      const missing = soak(["--bots", "2"]);
      const unknown = soak(["--seconds", "5", "--colour", "red"]);
      expect(await bad.exited).toBe(2);
      expect(bad.stderr()).toBe(
        'soak: --flood-rate must be an integer 0..500000, got "lots"\nTry --help for the options.\n',
      );
      expect(await missing.exited).toBe(2);
      expect(missing.stderr()).toContain("say how long: --minutes N or --seconds N");
      expect(await unknown.exited).toBe(2);
      expect(unknown.stderr()).toContain("unknown option --colour");
      expect(bad.stdout() + missing.stdout() + unknown.stdout()).toBe("");
    },
  );

  it(
    "runs a few seconds of the whole attack and prints the report",
    { timeout: RUN_TIMEOUT_MS },
    async ({ expect }) => {
      const run = soak([
        "--seconds",
        "4",
        "--seed",
        "7",
        "--bots",
        "3",
        "--flood-rate",
        "3000",
        "--flood-sources",
        "8",
        "--idle-connections",
        "100",
        "--http-rate",
        "10",
        "--login-rate",
        "10",
        "--accounts",
        "3",
      ]);
      const code = await run.exited;
      const out = run.stdout();
      expect(code, `${out}\n${run.stderr()}`).toBe(0);
      for (const label of [
        "soak report after ",
        "  load         before: load average ",
        "  server       stayed up: 0 crashes; RSS ",
        "  flood        ",
        "  reflection   server: ",
        "  ticks        lateness p99 ",
        "  bots         3/3 joined",
        "  http         /api/status answered in ",
        "  bad requests ",
        "  brute force  ",
        "  drops        ",
        "  accounts     3/3 logged in after the attack; 7/7 in the database",
      ]) {
        expect(out).toContain(`\n${label}`);
      }
      expect(out).toMatch(/lost 0\nresult: passed\n/);
      // The flood really went out and the server really counted it.
      const sent = Number(/flood {8}(\d+) datagrams sent/.exec(out)?.[1]);
      expect(sent).toBeGreaterThan(5000);
      // What unproven addresses got back stays within the 3× rule (docs/protocol.md § 12.1).
      const ratio = Number(/bytes from them = ([\d.]+)/.exec(out)?.[1]);
      expect(ratio).toBeLessThanOrEqual(3);
      // A wrong content type or a foreign origin is refused, never accepted.
      expect(out).toMatch(/breaches 0\n/);
      // Nothing the soak started outlives it.
      const serverPid = Number(/server pid (\d+)/.exec(out)?.[1]);
      expect(serverPid).toBeGreaterThan(0);
      expect(alive(serverPid)).toBe(false);
    },
  );
});
