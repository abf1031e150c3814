// The Grafana dashboard's queries run by a real Prometheus (Debian's `prometheus`) scraping a real server
// every second: each must return data, so no panel of ops/grafana/forgotten-caves.json stays empty on a
// live world. The server has a player joined over UDP and has dropped a datagram, so the labelled series
// exist. Skipped, with the reason, without Prometheus.
import { type ChildProcess, spawn } from "node:child_process";
import { createSocket } from "node:dgram";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { asPrometheusGetsIt, dashboardQueries } from "./support/grafana-dashboard.js";
import { freeLoopbackPort, toolSkipReason } from "./support/installed-tool.js";
import { startServerOnTestMap, type TestServer } from "./support/test-server.js";
import { UdpTestClient } from "./support/udp-client.js";

const skip = toolSkipReason("prometheus", ["--version"], "prometheus");
if (skip !== null) process.stderr.write(`test/dashboard-prometheus.test.ts skipped: ${skip}\n`);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(skip !== null)("the Grafana dashboard against a real Prometheus", () => {
  let game: TestServer;
  let client: UdpTestClient;
  let prometheus: ChildProcess | undefined;
  let directory: string;
  let api: string;

  /** The result of an instant query, or throws with Prometheus's error. */
  async function query(promql: string): Promise<unknown[]> {
    const answer = (await (await fetch(`${api}/api/v1/query?query=${encodeURIComponent(promql)}`)).json()) as {
      status: string;
      error?: string;
      data?: { result: unknown[] };
    };
    if (answer.status !== "success") throw new Error(`${promql}: ${answer.error}`);
    return answer.data!.result;
  }

  beforeAll(async () => {
    game = await startServerOnTestMap();
    const server = game.server;
    client = await UdpTestClient.connect(server.httpPort, "Scraped");
    client.action(0, 0);
    await client.waitFor("a State packet", () => client.lastState());
    // One datagram the server cannot decode: a drop, so the drops panel has a series.
    const junk = createSocket("udp4");
    await new Promise<void>((resolve) =>
      junk.send(Buffer.from([0xff, 0x00, 0x01]), server.udpPort, "127.0.0.1", () => resolve()),
    );
    junk.close();

    directory = mkdtempSync(join(tmpdir(), "caves-prometheus-"));
    const port = await freeLoopbackPort();
    api = `http://127.0.0.1:${port}`;
    const config = join(directory, "prometheus.yml");
    writeFileSync(
      config,
      JSON.stringify({
        global: { scrape_interval: "1s", evaluation_interval: "1s" },
        scrape_configs: [
          { job_name: "forgotten-caves", static_configs: [{ targets: [`127.0.0.1:${game.server.httpPort}`] }] },
        ],
      }),
    );
    let stderr = "";
    prometheus = spawn(
      "prometheus",
      [
        `--config.file=${config}`,
        `--storage.tsdb.path=${join(directory, "data")}`,
        `--web.listen-address=127.0.0.1:${port}`,
      ],
      { stdio: ["ignore", "ignore", "pipe"] },
    );
    prometheus.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    // Until it has scraped the server a few times (the test's timeout bounds the wait).
    for (;;) {
      if (prometheus.exitCode !== null) throw new Error(`prometheus exited: ${stderr}`);
      const samples = await query('count_over_time(caves_ticks_total{job="forgotten-caves"}[1m])').catch(() => []);
      if (samples.length > 0 && Number((samples[0] as { value: [number, string] }).value[1]) >= 4) break;
      await sleep(250);
    }
  });

  afterAll(async () => {
    if (prometheus !== undefined && prometheus.exitCode === null) {
      const exited = new Promise((resolve) => prometheus!.once("exit", resolve));
      prometheus.kill("SIGTERM");
      await exited;
    }
    client?.close();
    await game?.close();
    if (directory) rmSync(directory, { recursive: true, force: true });
  });

  it("has every query return data", async () => {
    const queries = dashboardQueries();
    expect(queries.length).toBeGreaterThan(10);
    for (const { where, expr } of queries) {
      const result = await query(asPrometheusGetsIt(expr, "10s"));
      expect(result.length, `${where}: ${expr}`).toBeGreaterThan(0);
    }
  });
});
