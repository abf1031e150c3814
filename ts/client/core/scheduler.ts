// Tick-addressed scheduling (roadmap: "Tick-addressed action scheduling" and
// "Bad-link hardening"; protocol decision 4).
//
// A step is addressed to a movement window w, which the server executes on
// tick 4w; target_tick = 4w. The client aims every step at the first window
// it can still reach: the estimated server tick now, plus the time the
// datagram needs to get there (RTT / 2) and a safety margin that grows with
// the RTT's variation. Under systematic latency "late" would otherwise be the
// normal case, and a late step is moved by the server to the next free window,
// where the following step then replaces it.
//
// One step per window by construction: a new step is only ever scheduled into
// a window after the newest pending one, and only once that window is the
// first reachable one — so the client commits as late as possible and a change
// of plan can still cancel the newest step. A cancellation (NOOP to the
// window) needs exactly the same lead as the step itself, so "cancellable"
// means "window >= earliestWindow".
import { farthestWindow, nextWindowAfter } from "../../window.js";
import type { RttEstimator } from "./rtt.js";

/** Fixed part of the margin: covers the host's update period (~16 ms) and server timer jitter. */
export const LEAD_MARGIN_MS = 25;

/** Pending steps allowed: prediction is bounded, and on a slow link this many are legitimately unconfirmed. */
export const MAX_PENDING_STEPS = 8;

/** How long before its window executes a datagram sent now should be expected to arrive, in ms. */
export function leadMs(rtt: RttEstimator, marginMs = LEAD_MARGIN_MS): number {
  return rtt.smoothedMs / 2 + 2 * rtt.varianceMs + marginMs;
}

/**
 * The first window a datagram sent now reaches in time: its execution tick 4w
 * must lie after the server tick at arrival, serverTick + lead (continuous).
 * Steps are addressed with tickOfWindow (ts/window.ts).
 */
export function earliestWindow(serverTick: number, lead: number, tickHz: number): number {
  const arrivalTick = serverTick + (lead * tickHz) / 1000;
  // Never past the server's horizon as it stands now: such a step is always dropped, while one
  // that arrives late is only moved to the next free window. An inflated lead (a stalled host
  // makes the RTT variance jump) must not turn every step into a dropped one.
  return Math.min(nextWindowAfter(arrivalTick), farthestWindow(nextWindowAfter(serverTick)));
}

/**
 * The window to schedule the next step into, or -1 when none is due: the
 * earliest reachable window, once it lies beyond the newest pending step and
 * fewer than `maxPending` steps are in flight.
 */
export function nextStepWindow(earliest: number, lastPendingWindow: number, pendingCount: number, maxPending: number) {
  if (pendingCount >= maxPending || earliest <= lastPendingWindow) return -1;
  return earliest;
}
