// /metrics of a real server on loopback, with a player joined over UDP so the labelled and histogram
// series have samples: checked by Prometheus's own `promtool check metrics` (its conventions: base units
// in names, `_total` on counters, quantiles only on summaries), and against docs/server.md § Metrics,
// which must list every metric it exports with its type, and nothing else; the Grafana dashboard's
// queries and the alert rules (ops/) name only metrics it exports, and promtool parses and tests the
// rules. Without promtool its checks are reported skipped, with the reason.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { asPrometheusGetsIt, dashboardQueries } from "./support/grafana-dashboard.js";
import { promqlMetricNames } from "./support/promql-names.js";
import { promtool, promtoolSkipReason } from "./support/promtool.js";
import { startServerOnTestMap, type TestServer } from "./support/test-server.js";
import { UdpTestClient } from "./support/udp-client.js";

const skip = promtoolSkipReason();
if (skip !== null) process.stderr.write(`test/metrics.test.ts skipped: ${skip}\n`);

/** The metrics docs/server.md § Metrics lists, each with its type (a row's first cell may name several). */
function documentedMetrics(): Map<string, string> {
  const doc = readFileSync(new URL("../docs/server.md", import.meta.url), "utf8");
  const section = /^## Metrics\n([\s\S]*?)^## /m.exec(doc)?.[1] ?? "";
  const documented = new Map<string, string>();
  for (const row of section.split("\n").filter((line) => line.startsWith("| `"))) {
    const [names, type] = row.split("|").slice(1, 3);
    for (const [, name] of names.matchAll(/`([a-z0-9_]+)(?:\{[a-z_]+\})?`/g)) documented.set(name, type.trim());
  }
  return documented;
}

/** The metrics a scrape exports, each with its type, from its `# TYPE` lines. */
function exportedMetrics(text: string): Map<string, string> {
  return new Map([...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map(([, name, type]) => [name, type]));
}

/**
 * The series names a scrape declares (a labelled counter nothing has counted yet has no sample, but is
 * declared): each metric's, and a histogram's `_bucket`, `_sum` and `_count`.
 */
function exportedSeries(text: string): Set<string> {
  const series = new Set<string>();
  for (const [name, type] of exportedMetrics(text)) {
    const suffixes =
      type === "histogram" ? ["_bucket", "_sum", "_count"] : type === "summary" ? ["", "_sum", "_count"] : [""];
    for (const suffix of suffixes) series.add(`${name}${suffix}`);
  }
  return series;
}

const repositoryFile = (path: string) => new URL(`../${path}`, import.meta.url);

describe("/metrics by Prometheus's conventions", () => {
  let game: TestServer;
  let client: UdpTestClient | undefined;

  beforeAll(async () => {
    game = await startServerOnTestMap();
  });

  afterAll(async () => {
    client?.close();
    await game?.close();
  });

  /** A scrape of the server with a player joined and bound, so every series has a sample. */
  async function scrape(): Promise<string> {
    if (client === undefined) {
      client = await UdpTestClient.connect(game.server.httpPort, "Gauge");
      client.action(0, 0);
      await client.waitFor("a State packet", () => client!.lastState());
    }
    const response = await fetch(`${game.baseUrl}/metrics`);
    expect(response.headers.get("content-type")).toContain("text/plain; version=0.0.4");
    return response.text();
  }

  it.skipIf(skip !== null)("passes promtool check metrics, with a player joined and ticks timed", async () => {
    const text = await scrape();
    // The figures that were wrong before, in their conventional forms, with samples.
    expect(text).toContain("# TYPE caves_tick_duration_seconds histogram");
    expect(text).toContain("# TYPE caves_broadcast_duration_seconds histogram");
    expect(Number(/^caves_tick_duration_seconds_count (\d+)$/m.exec(text)?.[1])).toBeGreaterThan(0);
    expect(Number(/^caves_ticks_total (\d+)$/m.exec(text)?.[1])).toBeGreaterThan(0);
    expect(text).toMatch(/^caves_players_by_transport\{transport="udp"\} 1$/m);
    expect(text).toMatch(/^caves_event_loop_delay_p99_seconds \S+$/m);
    const checked = await promtool(["check", "metrics"], text);
    expect(checked.output).toBe("");
    expect(checked.code).toBe(0);
  });

  it("documents every metric it exports in docs/server.md § Metrics, with its type, and no other", async () => {
    const exported = exportedMetrics(await scrape());
    const documented = documentedMetrics();
    expect(exported.size).toBeGreaterThan(20);
    expect(Object.fromEntries(documented)).toEqual(Object.fromEntries(exported));
  });

  it("has a Grafana dashboard whose every query names only metrics the server exports", async () => {
    expect(
      promqlMetricNames('histogram_quantile(0.99, sum by (le) (rate(a_bucket{x="y"}[$__rate_interval]))) > on (i) b'),
    ).toEqual(["a_bucket", "b"]);
    const series = exportedSeries(await scrape());
    const queries = dashboardQueries();
    expect(queries.length).toBeGreaterThan(10);
    for (const { where, expr } of queries) {
      const names = promqlMetricNames(expr);
      expect(names.length, `${where}: ${expr}`).toBeGreaterThan(0);
      for (const name of names) expect(series.has(name), `${where}: ${name} is not exported`).toBe(true);
    }
  });

  it.skipIf(skip !== null)("has the dashboard's queries parse as PromQL (promtool check rules)", async () => {
    // Each query as a recording rule: promtool parses every expression of a rule file.
    const rules = dashboardQueries().map(({ expr }, index) => ({
      record: `dashboard:query${index}`,
      expr: asPrometheusGetsIt(expr, "1m"),
    }));
    const directory = mkdtempSync(join(tmpdir(), "caves-dashboard-"));
    try {
      const path = join(directory, "dashboard-rules.yml");
      // JSON is YAML: the file needs no YAML library.
      writeFileSync(path, JSON.stringify({ groups: [{ name: "dashboard", rules }] }));
      const checked = await promtool(["check", "rules", path]);
      expect(checked.output).toContain(`SUCCESS: ${rules.length} rules found`);
      expect(checked.code).toBe(0);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it.skipIf(skip !== null)(
    "has example alert rules that promtool checks, fire when they should, and name exported metrics",
    async () => {
      const config = await promtool(["check", "config", "ops/prometheus/prometheus.yml"]);
      expect(config.output).toContain("SUCCESS: 8 rules found");
      expect(config.code).toBe(0);
      const tested = await promtool(["test", "rules", "ops/prometheus/alerts.test.yml"]);
      expect(tested.output).toContain("SUCCESS");
      expect(tested.code).toBe(0);
      // The game server's own metrics the rules read (the cluster launcher's caves_cluster_* and node_exporter's
      // node_* come from other processes).
      const series = exportedSeries(await scrape());
      const rules = readFileSync(repositoryFile("ops/prometheus/alerts.yml"), "utf8");
      const expressions = [...rules.matchAll(/^ {8}expr: (?:\|\n((?: {10}.*\n)+)|(.*)\n)/gm)].map(
        ([, block, line]) => block ?? line,
      );
      expect(expressions).toHaveLength(8);
      const own = expressions.flatMap(promqlMetricNames).filter((name) => /^caves_(?!cluster_)/.test(name));
      expect(own.length).toBeGreaterThan(3);
      for (const name of own) expect(series.has(name), `${name} is not exported`).toBe(true);
    },
  );

  it.skipIf(skip !== null)("has promtool refuse the forms /metrics used to have (the check can fail)", async () => {
    const old = [
      "# HELP caves_tick Simulation ticks processed.",
      "# TYPE caves_tick counter",
      "caves_tick 5",
      "# HELP caves_tick_duration_ms Tick duration percentiles over recent ticks.",
      "# TYPE caves_tick_duration_ms gauge",
      'caves_tick_duration_ms{quantile="0.99"} 3',
      "",
    ].join("\n");
    const checked = await promtool(["check", "metrics"], old);
    expect(checked.code).not.toBe(0);
    expect(checked.output).toContain('caves_tick counter metrics should have "_total" suffix');
    expect(checked.output).toContain("caves_tick_duration_ms metric names should not contain abbreviated units");
    expect(checked.output).toContain('caves_tick_duration_ms non-summary metrics should not have "quantile" label');
  });
});
