// /metrics in the Prometheus text exposition format, written by prom-client. Each server has its own
// registry (a test process runs many servers): its gauges and counters read the game's own figures when
// scraped, and the tick's duration histograms (ops/metrics.ts) are observed as each tick ends. Names follow
// Prometheus's conventions (base units, seconds and bytes, in the name; `_total` on counters; quantiles as
// histograms); test/metrics.test.ts checks the output with `promtool check metrics`, and docs/server.md
// § Metrics documents every one.
import { Counter, Gauge, Registry } from "prom-client";
import type { EventLoopDelay } from "../ops/event-loop-delay.js";
import type { Metrics } from "../ops/metrics.js";
import type { NpcRoom } from "../npc/npc-room.js";
import type { OverloadState } from "../ops/overload.js";
import type { Session } from "../sessions/session.js";
import { countByTransport } from "./transport-counts.js";

/** What /metrics reports on (the Game has all of it). */
export interface MetricsSource {
  readonly metrics: Metrics;
  readonly sessions: { readonly size: number; values(): Iterable<Pick<Session, "peer">> };
  /** Sessions with no body, watching (spectators/): counted apart from the players. */
  readonly spectators: { readonly size: number };
  readonly entities: { readonly size: number };
  readonly tick: number;
  readonly options: { readonly tickHz: number };
  /** Ticks the loop skipped after a stall (tick-loop.ts). */
  skippedTicks(): number;
  readonly eventLoopDelay: Pick<EventLoopDelay, "summary">;
  readonly npcs: Pick<NpcRoom, "size" | "awake" | "stats" | "lastTick">;
  readonly overloadState: OverloadState;
}

/** The process's memory, as /metrics reports it (and the console's history samples it: health-sampler.ts). */
export const processMemory = {
  residentBytes: (): number => process.memoryUsage.rss(),
  heapUsedBytes: (): number => process.memoryUsage().heapUsed,
};

/** A registry of the server's metrics, read from `game` at each scrape: `await registry.metrics()` is the body. */
export function metricsRegistry(game: MetricsSource): Registry {
  const registry = new Registry();
  const registers = [registry];
  const gauge = (name: string, help: string, read: () => number) =>
    new Gauge({
      name,
      help,
      registers,
      collect() {
        this.set(read());
      },
    });
  // A counter whose total the game keeps: prom-client counters only go up, so each scrape sets it afresh.
  const counter = (name: string, help: string, read: () => number) =>
    new Counter({
      name,
      help,
      registers,
      collect() {
        this.reset();
        this.inc(read());
      },
    });
  const labelledCounter = (name: string, help: string, label: string, read: () => Iterable<[string, number]>) =>
    new Counter({
      name,
      help,
      labelNames: [label],
      registers,
      collect() {
        this.reset();
        for (const [value, total] of read()) this.inc({ [label]: value }, total);
      },
    });
  const m = game.metrics;

  gauge("caves_players", "Sessions currently joined.", () => game.sessions.size);
  gauge(
    "caves_spectators",
    "Spectators watching (sessions with no body; not among the players).",
    () => game.spectators.size,
  );
  new Gauge({
    name: "caves_players_by_transport",
    help: "Sessions by the transport of their link (unbound: joined, no datagram yet).",
    labelNames: ["transport"],
    registers,
    collect() {
      this.reset();
      for (const [transport, n] of Object.entries(countByTransport(game.sessions.values()))) {
        this.set({ transport }, n);
      }
    },
  });
  gauge("caves_entities", "Entities in the world (players and creatures).", () => game.entities.size);

  // The tick: how many, how long, against which budget, and the ones lost.
  counter("caves_ticks_total", "Simulation ticks processed.", () => game.tick);
  gauge(
    "caves_tick_period_seconds",
    "The nominal tick period (1 / tick rate): a tick's budget.",
    () => 1 / game.options.tickHz,
  );
  registry.registerMetric(m.tickSeconds);
  registry.registerMetric(m.broadcastSeconds);
  counter(
    "caves_ticks_skipped_total",
    "Ticks skipped after the loop stalled for more than 4 tick periods (ticks lost).",
    () => game.skippedTicks(),
  );
  // Event-loop delay is measured by Node's own histogram in 5 s windows (ops/event-loop-delay.ts): the last
  // window's figures, as gauges named for their percentile (prom-client's own nodejs_eventloop_lag_* do so).
  const delaySeconds = (pick: "p50" | "p99" | "max") => () => game.eventLoopDelay.summary[pick] / 1000;
  gauge("caves_event_loop_delay_p50_seconds", "Median event-loop delay over the last 5 s window.", delaySeconds("p50"));
  gauge(
    "caves_event_loop_delay_p99_seconds",
    "99th percentile event-loop delay, last 5 s window.",
    delaySeconds("p99"),
  );
  gauge("caves_event_loop_delay_max_seconds", "Longest event-loop delay in the last 5 s window.", delaySeconds("max"));

  // Overload (overload.ts): first the think budget is scaled down, then the tick stretches.
  const overload = () => game.overloadState;
  gauge(
    "caves_tick_load",
    "A tick's own work over the nominal tick period, smoothed over about half a second (1: a whole period).",
    () => overload().tickLoad,
  );
  gauge(
    "caves_tick_lateness_periods",
    "How late ticks start against their deadlines, in nominal tick periods, smoothed (overload control's signal).",
    () => overload().lateness,
  );
  gauge(
    "caves_npc_budget_scale",
    "Share of the NPC think budget granted under load (1: all of it).",
    () => overload().npcBudgetScale,
  );
  gauge(
    "caves_time_dilation",
    "Share of real time the world runs at: 1 is full speed, 0.5 is every tick's period doubled (time dilation).",
    () => overload().dilation,
  );
  counter(
    "caves_dilated_ticks_total",
    "Ticks run with a stretched period (time dilation).",
    () => overload().dilatedTicks,
  );

  // Traffic.
  labelledCounter("caves_datagrams_total", "Datagrams by direction.", "direction", () => [
    ["in", m.datagramsIn],
    ["out", m.datagramsOut],
  ]);
  labelledCounter("caves_bytes_total", "Datagram payload bytes by direction.", "direction", () => [
    ["in", m.bytesIn],
    ["out", m.bytesOut],
  ]);
  labelledCounter("caves_dropped_datagrams_total", "Inbound datagrams dropped, by reason.", "reason", () => m.drops);
  labelledCounter("caves_actions_total", "Offered and executed actions, by outcome.", "outcome", () => m.actions);

  // Creatures.
  const npcs = game.npcs;
  gauge("caves_npcs", "NPCs alive.", () => npcs.size);
  gauge("caves_npcs_awake", "NPCs within the wake radius of a player at the last wake pass.", () => npcs.awake);
  counter("caves_npc_thinks_total", "NPC decisions made.", () => npcs.stats.thinks);
  counter("caves_npc_shed_total", "NPC decisions skipped because the think budget was spent.", () => npcs.stats.shed);
  counter("caves_npc_budget_spent_total", "Think budget units spent.", () => npcs.stats.budgetSpent);
  gauge("caves_npc_budget_per_tick", "Think budget units of the last entity tick.", () => npcs.lastTick.budget);
  counter("caves_npc_searches_total", "A* searches planned by NPCs.", () => npcs.stats.searches);
  counter("caves_npc_steps_total", "NPC steps taken.", () => npcs.stats.steps);

  // The process (the standard names every client library exports, so stock dashboards find them).
  gauge("process_resident_memory_bytes", "Resident memory size in bytes.", processMemory.residentBytes);
  gauge("nodejs_heap_size_used_bytes", "V8 heap in use, in bytes.", processMemory.heapUsedBytes);
  counter("process_cpu_seconds_total", "User and system CPU time spent, in seconds.", () => {
    const usage = process.cpuUsage();
    return (usage.user + usage.system) / 1e6;
  });
  return registry;
}
