// Tick-addressed action scheduling (docs/protocol.md, ActionPacket; docs/netcode.md).
//
// Actions are placed on the server's tick timeline instead of being consumed in
// arrival order: window w = ceil(target_tick / TICKS_PER_MOVE) executes on tick
// w * TICKS_PER_MOVE (ts/window.ts owns that arithmetic). This replaced a FIFO
// queue that let two free-running clocks (client send timer, server move timer)
// race each other. The slot table is a fixed ring of ADDRESSABLE_WINDOWS entries
// per entity, so no client behaviour can grow server memory or move an entity
// more than once per window.
import { ACTION_NOOP } from "../../protocol/action.js";
import { ADDRESSABLE_WINDOWS, farthestWindow, NO_TARGET_TICK, windowOfTick } from "../../window.js";

const SLOT_COUNT = ADDRESSABLE_WINDOWS;
const EMPTY = -1;

/** What happened to an offered action; the server counts these. */
export type ScheduleOutcome =
  | "scheduled" // placed in its own window (possibly replacing an earlier action there)
  | "replaced" // same as scheduled, but another action was already in that window
  | "late_moved" // its window had passed; it took the first empty upcoming window
  | "late_dropped" // its window had passed and every addressable window is taken
  | "late_noop" // a late NOOP: dropped, it would only block real steps
  | "beyond_horizon" // addresses a window too far ahead
  | "no_intent"; // target_tick 0: keep-alive / cache ack

/**
 * Per-entity action slots for the upcoming windows. `nextWindow` is the first
 * window that has not executed yet; slots hold windows nextWindow ..
 * farthestWindow(nextWindow).
 */
export class ActionSlots {
  private readonly windows = new Int32Array(SLOT_COUNT).fill(EMPTY);
  private readonly actions = new Uint8Array(SLOT_COUNT);

  /**
   * Offers an action addressed to `targetTick`, given the first window that has
   * not executed yet.
   */
  offer(targetTick: number, action: number, nextWindow: number): ScheduleOutcome {
    if (targetTick === NO_TARGET_TICK) return "no_intent";
    const window = windowOfTick(targetTick);
    const farthest = farthestWindow(nextWindow);
    if (window > farthest) return "beyond_horizon";
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

  /** Removes and returns the action scheduled for `window`, or -1 if none. */
  take(window: number): number {
    const slot = window % SLOT_COUNT;
    if (this.windows[slot] !== window) return EMPTY;
    this.windows[slot] = EMPTY;
    return this.actions[slot];
  }

  /** Drops every scheduled action: a teleport voids the steps sent for where the entity was (warps.ts). */
  clear(): void {
    this.windows.fill(EMPTY);
  }

  /** The action scheduled for `window` without removing it, or -1. */
  peek(window: number): number {
    const slot = window % SLOT_COUNT;
    return this.windows[slot] === window ? this.actions[slot] : EMPTY;
  }
}
