// The debug overlay's lines (F3). Tests and tools read it, so four lines have
// a fixed form: `transport NAME`, `pos X,Y` (the server-confirmed tile),
// `floats N: TEXT …` (damage numbers floated so far, and those floating now) and
// `links moved N rejoined M` (links moved to another gateway, rejoins).
import { TICK_HZ } from "../../constants.js";
import type { ClientStats } from "../core/stats.js";

function rate(perSecond: number): string {
  return perSecond >= 10 ? perSecond.toFixed(0) : perSecond.toFixed(1);
}

function bytesRate(bytesPerSecond: number): string {
  return bytesPerSecond >= 1024 ? `${(bytesPerSecond / 1024).toFixed(1)} KiB/s` : `${Math.round(bytesPerSecond)} B/s`;
}

function point(value: { x: number; y: number } | null): string {
  return value ? `${value.x},${value.y}` : "-";
}

/** " at 17.0 Hz" while the server runs slower than its nominal rate (time dilation), else nothing. */
function dilation(stats: Pick<ClientStats, "serverTickHz">, nominalHz = TICK_HZ): string {
  return stats.serverTickHz < nominalHz * 0.99 ? ` at ${stats.serverTickHz.toFixed(1)} Hz` : "";
}

export interface DebugExtras {
  /** Entities in view, the own one included. */
  entitiesInView: number;
  /** Frames drawn per second. */
  framesPerSecond: number;
  /** Damage numbers and misses: how many floated since the start, and the texts floating now. */
  floats?: { readonly total: number; readonly live: readonly string[] };
}

export function debugLines(stats: ClientStats, extras: DebugExtras): string[] {
  return [
    `transport ${stats.transport}`,
    `state ${stats.state}`,
    `rtt ${Number.isFinite(stats.rttMs) ? Math.round(stats.rttMs) : "-"} ms`,
    `tick ${Number.isFinite(stats.serverTick) ? Math.floor(stats.serverTick) : "-"} (ack ${stats.ackTick})${dilation(stats)}`,
    `pos ${point(stats.confirmed)}`,
    `pred ${point(stats.predicted)}`,
    `pending ${stats.pendingSteps}`,
    `entities ${extras.entitiesInView}`,
    `chunks ${stats.chunksCached}`,
    `in ${rate(stats.datagramsInPerSecond)} dg/s ${bytesRate(stats.bytesInPerSecond)}`,
    `out ${rate(stats.datagramsOutPerSecond)} dg/s ${bytesRate(stats.bytesOutPerSecond)}`,
    // On deltas the pings' round trips, and beside them the States the protocol says were sent and never came.
    stats.lossFrom === "pings"
      ? `loss ${stats.lossPercent.toFixed(1)}% (pings; states ${stats.stateLossPercent.toFixed(1)}%)`
      : `loss ${stats.lossPercent.toFixed(1)}% (states)`,
    `fps ${Math.round(extras.framesPerSecond)}`,
    // A cluster's gateway lost: the link went on through another gateway (same session), or the client rejoined.
    `links moved ${stats.gatewayMoves} rejoined ${stats.reconnects}`,
    ...(extras.floats ? [`floats ${extras.floats.total}: ${extras.floats.live.join(" ") || "-"}`] : []),
  ];
}
