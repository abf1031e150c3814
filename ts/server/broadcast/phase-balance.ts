// Which sessions are broadcast to on even ticks and which on odd ones.
//
// Each session gets a State every BROADCAST_EVERY_TICKS (2) ticks, half of
// them on each tick. Round-robin halves are equal in sessions, but the ticks
// they share are not equal in work: movement windows run on ticks 0 mod 4 (an
// even tick, whose broadcast also encodes every entry the window moved), the
// NPCs on odd ones (ENTITY_TICK_OFFSET). At 5000 players the even ticks took
// 18 ms on average against 10–13 for the others, and the tick p99 was theirs.
//
// The balancer levels the two parities' whole ticks, not their session counts:
// once a second it compares the mean tick of each parity over that second and,
// when they differ by more than MIN_GAP_MS and MIN_GAP_SHARE, moves sessions
// from the heavier parity to the lighter — a quarter of the gap's worth at
// the second's broadcast cost per session (so it converges instead of
// swinging), at most MAX_MOVE_SHARE of all sessions a second, and never so
// many that one parity holds more than MAX_PHASE_SHARE of them. A session
// that moves gets one State a tick early or late, once; nothing else about it
// changes (its deltas, re-sends and idle rate go by tick differences).
import { BROADCAST_EVERY_TICKS } from "../../constants.js";

/** Gaps smaller than this (ms) are noise: a test server's ticks, a quiet world. */
export const MIN_GAP_MS = 1;
/** ... or than this share of the lighter parity's mean tick. */
export const MIN_GAP_SHARE = 0.1;
/** At most this share of all sessions moves in one decision. */
export const MAX_MOVE_SHARE = 0.05;
/** No parity is given more than this share of the sessions. */
export const MAX_PHASE_SHARE = 0.75;

/** A decision: move `count` sessions from phase `from` to phase `to`. */
export interface PhaseMove {
  readonly from: number;
  readonly to: number;
  readonly count: number;
}

export class PhaseBalancer {
  private readonly tickMs = new Float64Array(BROADCAST_EVERY_TICKS);
  private readonly ticks = new Int32Array(BROADCAST_EVERY_TICKS);
  private broadcastMs = 0;
  private broadcasts = 0;
  /** Sessions moved since start. */
  moved = 0;

  /** After each tick of phase `phase`: its whole duration, its broadcast's, and how many sessions that reached. */
  observe(phase: number, tickMs: number, broadcastMs: number, broadcasts: number): void {
    this.tickMs[phase] += tickMs;
    this.ticks[phase]++;
    this.broadcastMs += broadcastMs;
    this.broadcasts += broadcasts;
  }

  /**
   * Once a second: the move that levels the phases' ticks, given how many sessions each phase holds now,
   * or null. Starts the next second's figures either way.
   */
  decide(sizes: readonly number[]): PhaseMove | null {
    const move = this.levelling(sizes);
    this.tickMs.fill(0);
    this.ticks.fill(0);
    this.broadcastMs = 0;
    this.broadcasts = 0;
    if (move !== null) this.moved += move.count;
    return move;
  }

  private levelling(sizes: readonly number[]): PhaseMove | null {
    if (BROADCAST_EVERY_TICKS !== 2 || this.ticks[0] === 0 || this.ticks[1] === 0 || this.broadcasts === 0) return null;
    const mean0 = this.tickMs[0] / this.ticks[0];
    const mean1 = this.tickMs[1] / this.ticks[1];
    const from = mean0 > mean1 ? 0 : 1;
    const to = 1 - from;
    const gap = Math.abs(mean0 - mean1);
    if (gap < MIN_GAP_MS || gap < MIN_GAP_SHARE * Math.min(mean0, mean1)) return null;
    const perSessionMs = this.broadcastMs / this.broadcasts;
    if (!(perSessionMs > 0)) return null;
    const total = sizes[0] + sizes[1];
    // Moving k sessions takes k × perSession from one parity and gives it to the other: the gap closes by 2k of
    // them. A quarter of that: a session costs its tick more than its broadcast (its re-sends, the allocation it
    // causes), and a second's 12 ticks a parity are noisy — at half, 5000 players swung ±100 sessions a second.
    let count = Math.floor(gap / (8 * perSessionMs));
    count = Math.min(count, Math.floor(MAX_MOVE_SHARE * total), sizes[from]);
    count = Math.min(count, Math.floor(MAX_PHASE_SHARE * total) - sizes[to]);
    return count > 0 ? { from, to, count } : null;
  }
}
