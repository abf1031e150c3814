// The netsim CLI as a user runs it: a real process, real loopback sockets.
import dgram from "node:dgram";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { pollUntil, spawnTsx } from "./support/tsx-process.js";

// Each test starts a TypeScript process (about a second on an idle machine); allow for a loaded one.
const CLI_TEST_TIMEOUT_MS = 60_000;

const MAIN = fileURLToPath(new URL("../ts/netsim/main.ts", import.meta.url));

const runCli = (args: string[]) => spawnTsx(MAIN, args);
const waitFor = (condition: () => boolean) => pollUntil(condition, 10);

describe("netsim CLI", () => {
  it("prints usage for --help and exits 0", { timeout: CLI_TEST_TIMEOUT_MS }, async () => {
    const run = runCli(["--help"]);
    expect(await run.exited).toBe(0);
    expect(run.stdout()).toContain("--up-delay");
    expect(run.stdout()).toContain("--listen HOST:PORT");
  });

  it("exits 2 with a clear message for a bad flag", { timeout: CLI_TEST_TIMEOUT_MS }, async () => {
    const run = runCli(["--loss", "250"]);
    expect(await run.exited).toBe(2);
    expect(run.stderr()).toContain("loss must be a number from 0 to 100");
    expect(run.stdout()).toBe("");
  });

  it(
    "listens on port 0, forwards, prints status lines and shuts down cleanly on SIGINT",
    { timeout: CLI_TEST_TIMEOUT_MS },
    async () => {
      const echo = dgram.createSocket("udp4");
      echo.on("message", (datagram, from) => echo.send(datagram, from.port, from.address));
      await new Promise<void>((resolve) => echo.bind(0, "127.0.0.1", resolve));
      const client = dgram.createSocket("udp4");
      const replies: string[] = [];
      client.on("message", (datagram) => replies.push(datagram.toString()));
      const run = runCli(["--listen", "127.0.0.1:0", "--server", `127.0.0.1:${echo.address().port}`, "--delay", "5"]);
      try {
        await waitFor(() => /listening on 127\.0\.0\.1:\d+/.test(run.stdout()));
        const port = Number(/listening on 127\.0\.0\.1:(\d+)/.exec(run.stdout())![1]);
        expect(port).toBeGreaterThan(0);
        expect(run.stdout()).toMatch(/profile delay=5,jitter=0,loss=0,dup=0, seed \d+/);
        client.send("hello", port, "127.0.0.1");
        await waitFor(() => replies.length === 1);
        expect(replies).toEqual(["hello"]);
        // stdout is a pipe here, so each status report is a plain line.
        await waitFor(() => /^up fwd 1 drop 0 dup 0 queued 0 \| down fwd 1 /m.test(run.stdout()));
        expect(run.stdout()).not.toContain("\r");
        run.kill("SIGINT");
        expect(await run.exited).toBe(0);
        expect(run.stdout()).toMatch(/netsim: stopped\n$/);
        expect(run.stderr()).toBe("");
      } finally {
        run.kill("SIGKILL");
        echo.close();
        client.close();
      }
    },
  );

  it("exits 1 when it cannot listen", { timeout: CLI_TEST_TIMEOUT_MS }, async () => {
    const taken = dgram.createSocket("udp4");
    await new Promise<void>((resolve) => taken.bind(0, "127.0.0.1", resolve));
    try {
      const run = runCli(["--listen", `127.0.0.1:${taken.address().port}`]);
      expect(await run.exited).toBe(1);
      expect(run.stderr()).toContain("EADDRINUSE");
    } finally {
      taken.close();
    }
  });
});
