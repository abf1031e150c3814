// The bots CLI as a user runs it: a real process against the real server
// (in this process, on the caves map), over real UDP — directly, through
// in-process netsim, and through the netsim UDP proxy.
import { createSocket } from "node:dgram";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, it } from "vitest";
import { parseProfileSpec } from "../netsim/profile.js";
import { startUdpProxy } from "../netsim/udp-proxy.js";
import type { RunningServer } from "../server/server.js";
import { startCavesServer } from "../../test/support/caves-server.js";
import { pollUntil, spawnTsx } from "../../test/support/tsx-process.js";

// Each test starts a TypeScript process (about a second on an idle machine); allow for a loaded one.
const CLI_TEST_TIMEOUT_MS = 60_000;
const MAIN = fileURLToPath(new URL("./main.ts", import.meta.url));

let server: RunningServer;
let http: string;

beforeAll(async () => {
  ({ server, baseUrl: http } = await startCavesServer());
});

afterAll(() => server?.close());

const runCli = (args: string[]) => spawnTsx(MAIN, args);
const waitFor = (condition: () => boolean) => pollUntil(condition, 20);

/** A port nothing listens on (bound, read, closed). */
async function freePort(kind: "tcp" | "udp"): Promise<number> {
  if (kind === "udp") {
    const socket = createSocket("udp4");
    await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
    const port = socket.address().port;
    await new Promise<void>((resolve) => socket.close(() => resolve()));
    return port;
  }
  const listener = createServer();
  await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
  const port = (listener.address() as { port: number }).port;
  await new Promise<void>((resolve) => listener.close(() => resolve()));
  return port;
}

describe.concurrent("bots CLI", () => {
  it("--help prints the usage and exits 0", { timeout: CLI_TEST_TIMEOUT_MS }, async ({ expect }) => {
    const run = runCli(["--help"]);
    expect(await run.exited).toBe(0);
    expect(run.stdout()).toContain("--behaviour NAME");
    expect(run.stdout()).toContain("Exit status: 0 done");
  });

  it("exits 2 with a clear message for a bad flag", { timeout: CLI_TEST_TIMEOUT_MS }, async ({ expect }) => {
    const run = runCli(["--count", "0"]);
    expect(await run.exited).toBe(2);
    expect(run.stderr()).toBe('bots: --count must be an integer 1..1000, got "0"\nTry --help for the options.\n');
    expect(run.stdout()).toBe("");
  });

  it("exits 1 when the HTTP server is unreachable", { timeout: CLI_TEST_TIMEOUT_MS }, async ({ expect }) => {
    const port = await freePort("tcp");
    const run = runCli(["--http", `http://127.0.0.1:${port}`, "--count", "2"]);
    expect(await run.exited).toBe(1);
    expect(run.stderr()).toContain(`bots: server unreachable at http://127.0.0.1:${port}`);
  });

  it("exits 1 when nothing answers over UDP", { timeout: CLI_TEST_TIMEOUT_MS }, async ({ expect }) => {
    const port = await freePort("udp");
    const run = runCli(["--http", http, "--server", `127.0.0.1:${port}`, "--count", "2", "--duration", "30"]);
    expect(await run.exited).toBe(1);
    expect(run.stdout()).toContain("joining 2/2");
    expect(run.stderr()).toContain(`nothing answers over UDP at 127.0.0.1:${port}`);
  });

  it(
    "joins, drives bots over in-process netsim, prints live figures and a summary, exits 0",
    { timeout: CLI_TEST_TIMEOUT_MS },
    async ({ expect }) => {
      const run = runCli([
        "--http",
        http,
        "--count",
        "4",
        "--duration",
        "3",
        "--seed",
        "7",
        "--nick",
        "cli",
        "--netsim",
        "delay=20,jitter=10,loss=2",
      ]);
      expect(await run.exited).toBe(0);
      const out = run.stdout();
      expect(out).toContain("bots: 4 × wander, UDP to the session's udpPort, netsim delay=20,jitter=10,loss=2,dup=0");
      expect(out).toContain("seed 7 (--seed 7 repeats it)");
      expect(out).toContain("joining 4/4");
      expect(out).toMatch(/^\d+s joined 4\/4 playing 4 moving \d+ \| rtt p50 \d+ p90 \d+ p99 \d+ ms \| corrections/m);
      expect(out).toMatch(/summary after [\d.]+ s\n {2}bots {8}4 joined of 4 \(0 failed\), 4 playing at the end/);
      expect(out).toMatch(/memory {6}[\d.]+ MiB wasm per bot/);
      expect(out).toMatch(/bots: done\n$/);
      expect(run.stderr()).toBe("");
    },
  );

  it(
    "goes through the netsim UDP proxy with --server, and stops cleanly on SIGINT",
    { timeout: CLI_TEST_TIMEOUT_MS },
    async ({ expect }) => {
      const proxy = await startUdpProxy({
        listen: { host: "127.0.0.1", port: 0 },
        server: { host: "127.0.0.1", port: server.udpPort },
        profile: parseProfileSpec("delay=15,loss=3").profile,
        seed: 5,
      });
      const run = runCli([
        "--http",
        http,
        "--server",
        `127.0.0.1:${proxy.port}`,
        "--count",
        "3",
        "--behaviour",
        "keyboard",
        "--duration",
        "0",
        "--nick",
        "proxied",
      ]);
      try {
        await waitFor(() => /joined 3\/3 playing 3 moving/.test(run.stdout()));
        const counts = proxy.counts();
        expect(counts.clients).toBe(3); // every bot's datagrams went through the proxy
        expect(counts.up.forwarded).toBeGreaterThan(0);
        expect(counts.down.forwarded).toBeGreaterThan(0);
        run.kill("SIGINT");
        expect(await run.exited).toBe(0);
        expect(run.stdout()).toContain("3 joined of 3 (0 failed)");
        expect(run.stdout()).toMatch(/bots: stopped by signal\n$/);
      } finally {
        run.kill("SIGKILL");
        await proxy.close();
      }
    },
  );
});
