// Tick ↔ movement-window arithmetic (docs/protocol.md, ActionPacket, decision 4;
// docs/netcode.md). The one place that knows how ticks and windows relate, so
// the server's schedule, its step(), the client's scheduler and prediction and
// the benchmark's bots cannot round differently.
//
// Movement resolves every TICKS_PER_MOVE ticks: window w executes on tick
// w * TICKS_PER_MOVE, and an action addressed to target_tick t belongs to window
// ceil(t / TICKS_PER_MOVE) — so every tick of (4(w-1), 4w] addresses window w.
// Once the server has run tick T (T may be fractional on the client, which
// estimates the server's clock), every window w with 4w <= T has executed.
// Actions may address the first unexecuted window and ACTION_WINDOW_HORIZON more.
import { ACTION_WINDOW_HORIZON, TICKS_PER_MOVE } from "./constants.js";

/** target_tick 0 addresses no window: a keep-alive / chunk-cache ack that carries no movement intent. */
export const NO_TARGET_TICK = 0;

/** Windows an entity may hold actions for at once: the first unexecuted one and the horizon beyond it. */
export const ADDRESSABLE_WINDOWS = ACTION_WINDOW_HORIZON + 1;

/** The window a target tick addresses: ceil(t / TICKS_PER_MOVE); 0 for NO_TARGET_TICK. */
export function windowOfTick(targetTick: number): number {
  return Math.ceil(targetTick / TICKS_PER_MOVE);
}

/** The tick on which `window` executes, which is also the target_tick that addresses it exactly. */
export function tickOfWindow(window: number): number {
  return window * TICKS_PER_MOVE;
}

/** Whether running tick `tick` executes a window (the one windowOfTick(tick) names). */
export function executesWindow(tick: number): boolean {
  return tick % TICKS_PER_MOVE === 0;
}

/** The first window not yet executed once tick `tick` has run (fractional ticks allowed). */
export function nextWindowAfter(tick: number): number {
  return Math.floor(tick / TICKS_PER_MOVE) + 1;
}

/**
 * The newest window consumed (executed, or past for good) once tick `tick` has
 * run: what a State/EntityPacket of that tick already shows. -1 for a negative
 * tick, the "nothing acknowledged yet" of the client's ack cursor.
 */
export function lastWindowConsumedAt(tick: number): number {
  return tick < 0 ? -1 : Math.floor(tick / TICKS_PER_MOVE);
}

/** The farthest window an action may address while `nextWindow` is the first unexecuted one. */
export function farthestWindow(nextWindow: number): number {
  return nextWindow + ACTION_WINDOW_HORIZON;
}

/** How long one window lasts at `tickHz` ticks per second, in ms. */
export function windowPeriodMs(tickHz: number): number {
  return (TICKS_PER_MOVE * 1000) / tickHz;
}

/** Windows per second at `tickHz` ticks per second: how often an entity may step. */
export function windowsPerSecond(tickHz: number): number {
  return tickHz / TICKS_PER_MOVE;
}
