// The Grafana dashboard shipped in ops/grafana/ as its tests read it: its PromQL queries, and each as
// Prometheus gets it from Grafana once the dashboard's variables have values.
import { readFileSync } from "node:fs";
import { expect } from "vitest";

interface GrafanaDashboard {
  panels: { title: string; targets: { expr: string }[] }[];
  templating: { list: { name: string; type: string; definition?: string }[] };
}

/** The dashboard's PromQL, each with where it is: every panel's targets and every query variable's. */
export function dashboardQueries(): { where: string; expr: string }[] {
  const path = new URL("../../ops/grafana/forgotten-caves.json", import.meta.url);
  const dashboard = JSON.parse(readFileSync(path, "utf8")) as GrafanaDashboard;
  const queries = dashboard.panels.flatMap((panel) => panel.targets.map(({ expr }) => ({ where: panel.title, expr })));
  for (const variable of dashboard.templating.list.filter((v) => v.type === "query")) {
    // label_values(metric, label) is Grafana's, not PromQL: its metric is what it reads.
    const metric = /^label_values\((\w+),\s*\w+\)$/.exec(variable.definition ?? "")?.[1];
    expect(metric, `variable ${variable.name}`).toBeDefined();
    queries.push({ where: `variable ${variable.name}`, expr: metric! });
  }
  return queries;
}

/** A query as Prometheus gets it from Grafana: `$__rate_interval` as `rateInterval`, every instance chosen. */
export function asPrometheusGetsIt(expr: string, rateInterval: string): string {
  return expr.replaceAll("$__rate_interval", rateInterval).replaceAll("$instance", ".*");
}
