// /metrics of a real server on loopback, checked by Prometheus's own `promtool check metrics` (its
// conventions: base units in names, `_total` on counters, quantiles only on summaries), with a player
// joined over UDP so the labelled and histogram series have samples. Without promtool the suite is
// reported skipped, with the reason.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Logger } from "../ts/server/ops/log.js";
import { type RunningServer, startServer } from "../ts/server/server.js";
import { promtool, promtoolSkipReason } from "./support/promtool.js";
import { writeTestMap, type TestMap } from "./support/test-map.js";
import { UdpTestClient } from "./support/udp-client.js";

const skip = promtoolSkipReason();
if (skip !== null) process.stderr.write(`test/metrics.test.ts skipped: ${skip}\n`);

describe.skipIf(skip !== null)("/metrics by Prometheus's conventions", () => {
  let map: TestMap;
  let server: RunningServer;
  let client: UdpTestClient | undefined;

  beforeAll(async () => {
    map = writeTestMap();
    server = await startServer({
      host: "127.0.0.1",
      httpPort: 0,
      udpPort: 0,
      mapPath: map.path,
      logger: new Logger("silent"),
    });
  });

  afterAll(async () => {
    client?.close();
    await server?.close();
    map?.dispose();
  });

  it("passes promtool check metrics, with a player joined and ticks timed", async () => {
    client = await UdpTestClient.connect(server.httpPort, "Gauge");
    client.action(0, 0);
    await client.waitFor("a State packet", () => client!.lastState());
    const response = await fetch(`http://127.0.0.1:${server.httpPort}/metrics`);
    expect(response.headers.get("content-type")).toContain("text/plain; version=0.0.4");
    const text = await response.text();
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

  it("has promtool refuse the forms /metrics used to have (the check can fail)", async () => {
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
