// The health of the cluster's parts (supervisor.ts) as the gateways serve it: in /api/cluster's answer
// and as Prometheus samples appended to /metrics. The launcher holds the parts and sends their health
// to each gateway over its IPC channel, so it is served even while Redis, PostgreSQL or region 0 is down.
import type { PartHealth } from "./supervisor.js";

/** The Prometheus text of the parts' health (base units: seconds; counters end in _total). */
export function healthMetricsText(parts: readonly PartHealth[]): string {
  const lines: string[] = [];
  const metric = (name: string, type: "gauge" | "counter", help: string, value: (part: PartHealth) => number) => {
    lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
    for (const part of parts) lines.push(`${name}{part="${part.name}",kind="${part.kind}"} ${value(part)}`);
  };
  metric(
    "caves_cluster_part_up",
    "gauge",
    "1 while the part's process is up, 0 while it is restarting or down.",
    (p) => (p.state === "up" ? 1 : 0),
  );
  metric(
    "caves_cluster_part_state_since_timestamp_seconds",
    "gauge",
    "When the part entered its state (up, restarting, down), in seconds since 1970.",
    (p) => p.sinceMs / 1000,
  );
  metric(
    "caves_cluster_part_restarts_total",
    "counter",
    "Times the part ended and was started again.",
    (p) => p.restarts,
  );
  metric(
    "caves_cluster_part_failed_starts_total",
    "counter",
    "Restarts of the part that failed (each tried again, with backoff).",
    (p) => p.failedStarts,
  );
  return `${lines.join("\n")}\n`;
}

/** Whether `value` is a list of parts' health as the launcher sends it (a gateway trusts its parent, but checks the shape). */
export function isHealthList(value: unknown): value is PartHealth[] {
  return (
    Array.isArray(value) &&
    value.every(
      (part: unknown) =>
        typeof part === "object" &&
        part !== null &&
        typeof (part as PartHealth).name === "string" &&
        /^[\w -]{1,40}$/.test((part as PartHealth).name) &&
        typeof (part as PartHealth).kind === "string" &&
        /^\w{1,16}$/.test((part as PartHealth).kind) &&
        typeof (part as PartHealth).state === "string" &&
        Number.isFinite((part as PartHealth).sinceMs) &&
        Number.isInteger((part as PartHealth).restarts) &&
        Number.isInteger((part as PartHealth).failedStarts),
    )
  );
}
