// Tick-addressed action scheduling (docs/protocol.md, ActionPacket; docs/netcode.md).
//
// Actions are placed on the server's tick timeline instead of being consumed in
// arrival order: window w = ceil(target_tick / TICKS_PER_MOVE) executes on tick
// w * TICKS_PER_MOVE (ts/window.ts owns that arithmetic). This replaced a FIFO
// queue that let two free-running clocks (client send timer, server move timer)
// race each other. The slot table is a fixed ring of ADDRESSABLE_WINDOWS (+1) entries
// per entity, so no client behaviour can grow server memory or move an entity
// more than once per window.
//
// Steps a cluster's handoff carried (the old region's scheduled ones, and the
// datagrams it sent back after letting the session go) reach the new region late
// through no fault of the client, in bunches, and behind the client's next steps.
// The late-step rule would put each in the next empty window, where the client's
// own step for that window then replaces it: a walk across a border ended steps
// short. So a carried step that missed its window is owed instead: it runs at the
// next window, in the order carried, and the client's steps behind it wait their
// turn in the same queue (docs/scaling.md § Handoff with hysteresis). The same holds for
// the steps of windows a region's clock jumps over to rejoin the world's timeline after a
// stall (oweSkipped): those windows never run, so their steps are owed.
//
// A carried step can also be early: the region it left runs the world's ticks too, but its timer may fire a
// tick or two before this region's (MAX_TICKS_BEHIND), and a handoff follows the window that carried the player
// past the margin — so the old region's farthest window can be one past this region's horizon for a few ms.
// Such a step was dropped as beyond the horizon (issue 41: a step lost at a handoff); the ring holds one
// window more, for carried steps only (a client's own still end at the horizon).
import { ACTION_NOOP } from "../../protocol/action.js";
import { ADDRESSABLE_WINDOWS, farthestWindow, NO_TARGET_TICK, windowOfTick } from "../../window.js";

/** Windows past this region's horizon a carried step may address (a handoff's old region ran a window ahead). */
export const CARRIED_BEYOND_HORIZON = 1;
const SLOT_COUNT = ADDRESSABLE_WINDOWS + CARRIED_BEYOND_HORIZON;
const EMPTY = -1;
/**
 * Most steps owed at once. Steps are owed by a stall's jump (each window it passes over, and behind them the
 * client's late steps of the stall, which take the next windows and then join the queue), by a handoff (its
 * late steps, and the rerouted datagrams'), and by a restore from a checkpoint (every step in it is late); and a
 * queue drains only in the windows the client sends no step of its own — while it walks on, it stays as long.
 * 8, one handoff's worth twice over, overflows when a handoff or a restore comes on top of a queue stalls have
 * filled (issue 41: a chaos run found a region's queue full at a jump, and lost 2 carried steps):
 * 32 windows, 5.3 s of walking.
 */
export const OWED_MAX = 8 * ADDRESSABLE_WINDOWS;

/** What happened to an offered action; the server counts these. */
export type ScheduleOutcome =
  | "scheduled" // placed in its own window (possibly replacing an earlier action there)
  | "replaced" // same as scheduled, but another action was already in that window
  | "late_moved" // its window had passed; it took the first empty upcoming window
  | "late_dropped" // its window had passed and every addressable window is taken
  | "late_owed" // carried by a handoff, its window had passed: it runs at the next window, after those owed before it
  | "owed_dropped" // carried by a handoff, late, and the owed queue is full
  | "late_noop" // a late NOOP: dropped, it would only block real steps
  | "beyond_horizon" // addresses a window too far ahead
  | "no_intent"; // target_tick 0: keep-alive / cache ack

/**
 * Per-entity action slots for the upcoming windows. `nextWindow` is the first
 * window that has not executed yet; slots hold windows nextWindow ..
 * farthestWindow(nextWindow) (+ CARRIED_BEYOND_HORIZON for a carried step).
 */
export class ActionSlots {
  private readonly windows = new Int32Array(SLOT_COUNT).fill(EMPTY);
  private readonly actions = new Uint8Array(SLOT_COUNT);
  /** Steps owed (a ring, oldest first): each window runs the oldest, and its own step joins the end. */
  private readonly owed = new Uint8Array(OWED_MAX);
  private owedHead = 0;
  private owedCount = 0;

  /**
   * Offers an action addressed to `targetTick`, given the first window that has
   * not executed yet; `carried`: a handoff carried it here (cluster), so late, it is owed.
   */
  offer(targetTick: number, action: number, nextWindow: number, carried = false): ScheduleOutcome {
    if (targetTick === NO_TARGET_TICK) return "no_intent";
    const window = windowOfTick(targetTick);
    const farthest = farthestWindow(nextWindow);
    if (window > farthest + (carried ? CARRIED_BEYOND_HORIZON : 0)) return "beyond_horizon";
    if (window >= nextWindow) {
      const slot = window % SLOT_COUNT;
      const replaced = this.windows[slot] === window;
      this.windows[slot] = window;
      this.actions[slot] = action;
      return replaced ? "replaced" : "scheduled";
    }
    // Late: it keeps its order, not its time, so bunched late arrivals do not
    // collapse onto one slot; a late NOOP would only poison upcoming windows.
    if (action === ACTION_NOOP) return "late_noop";
    if (carried) return this.owe(action) ? "late_owed" : "owed_dropped";
    for (let w = nextWindow; w <= farthest; w++) {
      const slot = w % SLOT_COUNT;
      if (this.windows[slot] !== w) {
        this.windows[slot] = w;
        this.actions[slot] = action;
        return "late_moved";
      }
    }
    return "late_dropped";
  }

  /**
   * Removes and returns the action to run at `window`, or -1 if none: the oldest owed step when there is
   * one (the window's own step, if a step, is owed after it), else the one scheduled for `window`.
   */
  take(window: number): number {
    const slot = window % SLOT_COUNT;
    let own = EMPTY;
    if (this.windows[slot] === window) {
      this.windows[slot] = EMPTY;
      own = this.actions[slot];
    }
    if (this.owedCount === 0) return own;
    const oldest = this.owed[this.owedHead];
    this.owedHead = (this.owedHead + 1) % OWED_MAX;
    this.owedCount--;
    // A NOOP only says "no step in this window": the owed step fills it.
    if (own !== EMPTY && own !== ACTION_NOOP) this.owe(own);
    return oldest;
  }

  /** Appends a step to the owed queue; false when it is full (the step is dropped). */
  owe(action: number): boolean {
    if (this.owedCount === OWED_MAX) return false;
    this.owed[(this.owedHead + this.owedCount) % OWED_MAX] = action;
    this.owedCount++;
    return true;
  }

  /**
   * Owes, in window order, the steps scheduled for windows `fromWindow` … `toWindow` − 1, which will never
   * run (the clock jumped past them); returns how many were owed, and how many lost (the owed queue full).
   */
  oweSkipped(fromWindow: number, toWindow: number): { owed: number; lost: number } {
    let owed = 0;
    let lost = 0;
    for (let window = fromWindow; window < toWindow && window < fromWindow + SLOT_COUNT; window++) {
      const slot = window % SLOT_COUNT;
      if (this.windows[slot] !== window) continue;
      this.windows[slot] = EMPTY;
      const action = this.actions[slot];
      if (action === ACTION_NOOP) continue;
      if (this.owe(action)) owed++;
      else lost++;
    }
    return { owed, lost };
  }

  /** The steps owed, oldest first: a handoff carries them on before the scheduled ones. */
  owedSteps(): number[] {
    const steps: number[] = [];
    for (let i = 0; i < this.owedCount; i++) steps.push(this.owed[(this.owedHead + i) % OWED_MAX]);
    return steps;
  }

  /** Drops every scheduled and owed action: a teleport voids the steps sent for where the entity was (warps.ts). */
  clear(): void {
    this.windows.fill(EMPTY);
    this.owedCount = 0;
  }

  /** The action scheduled for `window` without removing it, or -1. */
  peek(window: number): number {
    const slot = window % SLOT_COUNT;
    return this.windows[slot] === window ? this.actions[slot] : EMPTY;
  }
}
