// `npm run cluster`'s command line (ts/cluster/main.ts): --help, and a bad flag refused with exit 2 and
// what is wrong — before anything starts, so a refused launch leaves no redis-server or PostgreSQL behind
// (each child inherits the launch's environment, so a marker in it finds them in /proc).
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { nodeBundleArgs } from "./support/node-bundle.js";

/** The launcher as `npm run cluster` runs it: its bundle. */
function launch(args: string[], marker: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [...nodeBundleArgs("cluster"), ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, FC_CLI_TEST_MARK: marker },
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on("exit", (code) => resolve({ code, stdout, stderr })));
}

/** Processes still running with `marker` in their environment. */
function marked(marker: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/environ`, "latin1").includes(`FC_CLI_TEST_MARK=${marker}`))
        found.push(Number(name));
    } catch {
      // gone, or not ours to read
    }
  }
  return found;
}

describe("npm run cluster's command line", () => {
  it("--help prints the usage, --max-players included, and exits 0", async () => {
    const run = await launch(["--help"], "help");
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/usage: npm run -s cluster/);
    expect(run.stdout).toMatch(/--max-players N/);
  }, 30_000);

  it.each([
    [["--max-players", "0"], /--max-players must be an integer 1\.\.100000, got "0"/],
    [["--http-port", "99999"], /--http-port must be a port number/],
    [["--udp-port", "70000"], /--udp-port must be a port number/],
    [["--join-rate", "0"], /--join-rate must be a whole number/],
    [["--admin-token-file", "/nonexistent/admin-token"], /admin token: ENOENT/],
    [["--admin-token-file", "/dev/null"], /admin token: the admin token must be at least 32 characters/],
    [["--gateway-url", "https://g0.example.org/play"], /--gateway-url must be an http\(s\) origin/],
    [["--gateways", "1", "--gateway-url", "http://a:1", "--gateway-url", "http://b:2"], /2 --gateway-url for 1/],
    [["--ice-server", "http://stun.example"], /--ice-server must be a stun:, turn: or turns: URL/],
    [["--rtc-ports", "6000-5000"], /--rtc-ports must be MIN-MAX/],
    [["--record-max-mb", "0"], /--record-max-mb must be a whole number of MiB/],
    [["--gateways", "3", "--rtc-ports", "6000-6001"], /--rtc-ports 6000-6001 has 2 ports for 3 gateways/],
  ])(
    "refuses %j with exit 2 and leaves nothing running",
    async (args, message) => {
      const marker = `bad-${process.pid}-${args.join("")}`;
      const run = await launch(args, marker);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(message);
      expect(marked(marker)).toEqual([]);
    },
    30_000,
  );
});
