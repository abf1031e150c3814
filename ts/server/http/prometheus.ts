// /metrics in the Prometheus text exposition format.
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
  readonly entities: { readonly size: number };
  readonly tick: number;
  readonly eventLoopDelay: Pick<EventLoopDelay, "summary">;
  readonly npcs: Pick<NpcRoom, "size" | "awake" | "stats" | "lastTick">;
  readonly overloadState: OverloadState;
}

export function prometheusText(game: MetricsSource): string {
  const m = game.metrics;
  const lines: string[] = [];
  const metric = (name: string, type: "gauge" | "counter", help: string, samples: [string, number][]) => {
    lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
    for (const [labels, value] of samples) lines.push(`${name}${labels} ${value}`);
  };
  metric("caves_players", "gauge", "Sessions currently joined.", [["", game.sessions.size]]);
  const byTransport = countByTransport(game.sessions.values());
  metric(
    "caves_players_by_transport",
    "gauge",
    "Sessions by the transport of their link (unbound: joined, no datagram yet).",
    Object.entries(byTransport).map(([transport, n]) => [`{transport="${transport}"}`, n]),
  );
  metric("caves_entities", "gauge", "Entities in the world.", [["", game.entities.size]]);
  metric("caves_tick", "counter", "Simulation ticks processed.", [["", game.tick]]);
  metric("caves_tick_duration_ms", "gauge", "Tick duration percentiles over recent ticks.", [
    ['{quantile="0.5"}', m.tickMs.percentile(50)],
    ['{quantile="0.99"}', m.tickMs.percentile(99)],
  ]);
  metric("caves_broadcast_duration_ms", "gauge", "Broadcast duration percentiles over recent ticks.", [
    ['{quantile="0.5"}', m.broadcastMs.percentile(50)],
    ['{quantile="0.99"}', m.broadcastMs.percentile(99)],
  ]);
  const delay = game.eventLoopDelay.summary;
  metric("caves_event_loop_delay_ms", "gauge", "Event-loop delay over the last 5 s window.", [
    ['{quantile="0.5"}', delay.p50],
    ['{quantile="0.99"}', delay.p99],
  ]);
  // Overload (overload.ts): first the think budget is scaled down, then the tick stretches.
  const overload = game.overloadState;
  metric(
    "caves_tick_load",
    "gauge",
    "A tick's own work over the nominal tick period, smoothed over about half a second (1: a whole period).",
    [["", overload.tickLoad]],
  );
  metric(
    "caves_tick_lateness_periods",
    "gauge",
    "How late ticks start against their deadlines, in nominal tick periods, smoothed (overload control's signal).",
    [["", overload.lateness]],
  );
  metric("caves_npc_budget_scale", "gauge", "Share of the NPC think budget granted under load (1: all of it).", [
    ["", overload.npcBudgetScale],
  ]);
  metric(
    "caves_time_dilation",
    "gauge",
    "Share of real time the world runs at: 1 is full speed, 0.5 is every tick's period doubled (time dilation).",
    [["", overload.dilation]],
  );
  metric("caves_dilated_ticks_total", "counter", "Ticks run with a stretched period (time dilation).", [
    ["", overload.dilatedTicks],
  ]);
  metric("caves_datagrams_total", "counter", "Datagrams by direction.", [
    ['{direction="in"}', m.datagramsIn],
    ['{direction="out"}', m.datagramsOut],
  ]);
  metric("caves_bytes_total", "counter", "Datagram payload bytes by direction.", [
    ['{direction="in"}', m.bytesIn],
    ['{direction="out"}', m.bytesOut],
  ]);
  metric(
    "caves_dropped_datagrams_total",
    "counter",
    "Inbound datagrams dropped, by reason.",
    [...m.drops].map(([reason, n]) => [`{reason="${reason}"}`, n]),
  );
  metric(
    "caves_actions_total",
    "counter",
    "Offered and executed actions, by outcome.",
    [...m.actions].map(([outcome, n]) => [`{outcome="${outcome}"}`, n]),
  );
  const npcs = game.npcs;
  metric("caves_npcs", "gauge", "NPCs alive.", [["", npcs.size]]);
  metric("caves_npcs_awake", "gauge", "NPCs within the wake radius of a player at the last wake pass.", [
    ["", npcs.awake],
  ]);
  metric("caves_npc_thinks_total", "counter", "NPC decisions made.", [["", npcs.stats.thinks]]);
  metric("caves_npc_shed_total", "counter", "NPC decisions skipped because the think budget was spent.", [
    ["", npcs.stats.shed],
  ]);
  metric("caves_npc_budget_spent_total", "counter", "Think budget units spent.", [["", npcs.stats.budgetSpent]]);
  metric("caves_npc_budget_per_tick", "gauge", "Think budget units of the last entity tick.", [
    ["", npcs.lastTick.budget],
  ]);
  metric("caves_npc_searches_total", "counter", "A* searches planned by NPCs.", [["", npcs.stats.searches]]);
  metric("caves_npc_steps_total", "counter", "NPC steps taken.", [["", npcs.stats.steps]]);
  return lines.join("\n") + "\n";
}
