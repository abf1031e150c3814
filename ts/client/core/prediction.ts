// Prediction as predict → ack → replay (roadmap: "Prediction rebuilt as
// predict → ack → replay").
//
// The client remembers only what it asked for: pending steps, (window, action)
// pairs. The acknowledgement cursor from the entity table says the server's
// state at tick T is known, so every window <= lastWindowConsumedAt(T) (ts/window.ts) is consumed —
// executed, rejected or lost, it no longer matters which — and its step drops
// out. The predicted position is never stored: it is the confirmed position
// with the remaining steps replayed through THE movement rule in wasm, exactly
// as the server will apply them. A surprise (a lost or rejected step, a late
// step the server moved to another window) therefore shifts the prediction
// instead of invalidating it, and the prediction can never stand in a wall.
import type { PendingStep, WasmSim } from "../../wasm/sim.js";

export type { PendingStep };

export interface TilePoint {
  readonly x: number;
  readonly y: number;
}

export class Prediction {
  private readonly steps: PendingStep[] = [];
  private confirmedPoint: TilePoint | null = null;
  private ackedWindow = -1;
  /** Acks whose confirmed position differed from the one predicted for that window. */
  corrections = 0;
  /**
   * Acks farther from the last confirmed position than walking allows: a teleport (a warp, stairs, a respawn).
   * The steering drops its goal on one (steering.ts); the view snaps by itself (interpolation.ts, camera.ts).
   */
  teleports = 0;

  constructor(private readonly sim: WasmSim) {}

  /** The server's position of the own entity at the acknowledged tick; null before the first ack. */
  get confirmed(): TilePoint | null {
    return this.confirmedPoint;
  }

  /** The newest window known consumed. */
  get ackWindow(): number {
    return this.ackedWindow;
  }

  /** Steps sent whose windows are not yet acknowledged, oldest first. */
  get pending(): readonly PendingStep[] {
    return this.steps;
  }

  /** The newest window addressed by a pending step, or -1. */
  get lastWindow(): number {
    return this.steps.length === 0 ? -1 : this.steps[this.steps.length - 1].window;
  }

  /** Records a step sent for `window` (which must be later than every pending one). */
  add(window: number, action: number): void {
    if (window <= this.lastWindow || window <= this.ackedWindow) {
      throw new RangeError(`step for window ${window} after ${Math.max(this.lastWindow, this.ackedWindow)}`);
    }
    this.steps.push({ window, action });
  }

  /**
   * The cursor reached `ackWindow` with the own entity at (x, y): consumed steps
   * drop out. A correction is counted when (x, y) is not where replaying the
   * consumed steps on the previous confirmed position said it would be.
   */
  acknowledge(ackWindow: number, x: number, y: number): void {
    const previous = this.confirmedPoint;
    if (previous && ackWindow < this.ackedWindow) return;
    let consumed = 0;
    while (consumed < this.steps.length && this.steps[consumed].window <= ackWindow) consumed++;
    if (previous) {
      const expected = this.sim.replay(previous.x, previous.y, this.ackedWindow, this.steps.slice(0, consumed));
      if (expected.x !== x || expected.y !== y) this.corrections++;
      // A player walks at most one tile per window: farther from the last confirmed position than the windows
      // since allow is a teleport. (Distance from the prediction is not: lost steps put the server several
      // tiles from it on an ordinary walk, and dropping the route then would stall the walk.)
      const moved = Math.max(Math.abs(previous.x - x), Math.abs(previous.y - y));
      if (moved > Math.max(1, ackWindow - this.ackedWindow)) this.teleports++;
    }
    this.steps.splice(0, consumed);
    this.confirmedPoint = { x, y };
    this.ackedWindow = ackWindow;
  }

  /** Confirmed position plus every pending step, through the rule; null before the first ack. */
  predicted(): TilePoint | null {
    const confirmed = this.confirmedPoint;
    if (!confirmed) return null;
    if (this.steps.length === 0) return confirmed;
    const result = this.sim.replay(confirmed.x, confirmed.y, this.ackedWindow, this.steps);
    return { x: result.x, y: result.y };
  }

  /**
   * Where the server will stand once the steps of windows before `window` have
   * executed: the prediction without the steps a changed plan would retract.
   */
  predictedBefore(window: number): TilePoint | null {
    const confirmed = this.confirmedPoint;
    if (!confirmed) return null;
    let count = 0;
    while (count < this.steps.length && this.steps[count].window < window) count++;
    if (count === 0) return confirmed;
    const result = this.sim.replay(confirmed.x, confirmed.y, this.ackedWindow, this.steps.slice(0, count));
    return { x: result.x, y: result.y };
  }

  /** The predicted tile after each pending step (the in-flight path, for drawing). */
  inFlightTiles(): TilePoint[] {
    const confirmed = this.confirmedPoint;
    const tiles: TilePoint[] = [];
    if (!confirmed) return tiles;
    for (let count = 1; count <= this.steps.length; count++) {
      const result = this.sim.replay(confirmed.x, confirmed.y, this.ackedWindow, this.steps.slice(0, count));
      tiles.push({ x: result.x, y: result.y });
    }
    return tiles;
  }

  /** Removes and returns every pending step with window >= `window` (retraction). */
  removeFrom(window: number): PendingStep[] {
    let keep = this.steps.length;
    while (keep > 0 && this.steps[keep - 1].window >= window) keep--;
    return this.steps.splice(keep);
  }

  reset(): void {
    this.steps.length = 0;
    this.confirmedPoint = null;
    this.ackedWindow = -1;
  }
}
