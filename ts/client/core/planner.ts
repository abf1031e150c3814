// Click-to-move (roadmap: "Click-to-move" and "Client-side unexpected-state
// handling"). The goal is persistent and outlives any one route: a route is a
// list of absolute tiles from wasm A* (8-connected, the same movement rule,
// unknown cells blocked), walked one step per window from the predicted
// position, and every step is re-validated against the rule when it is sent.
// When the route no longer connects — a step is blocked, or the prediction
// shifted off the route because a step was lost, rejected or executed late —
// the planner replans once from the predicted position toward the same goal.
// The goal is released on arrival, when it becomes unreachable, or by the
// caller (keyboard override, a new goal, a discrete click on an unreachable tile).
import { ACTION_DX, ACTION_DY, ACTION_MAX } from "../../protocol/action.js";
import type { WasmSim } from "../../wasm/sim.js";
import type { TilePoint } from "./prediction.js";

/** A* expands at most this many nodes per search; beyond that the goal counts as unreachable. */
export const ASTAR_NODE_BUDGET = 20_000;

export type GoalResult = "planned" | "unchanged" | "unreachable";
export type ReleaseReason = "arrived" | "unreachable" | "cleared";

/** The action code that moves from `from` to the neighbouring tile `to`, or 0 if `to` is not a neighbour. */
export function actionTowards(from: TilePoint, to: TilePoint): number {
  const dx = to.x - from.x;
  const dy = to.y - from.y;
  for (let action = 1; action <= ACTION_MAX; action++) {
    if (ACTION_DX[action] === dx && ACTION_DY[action] === dy) return action;
  }
  return 0;
}

export class Planner {
  private goalPoint: TilePoint | null = null;
  private tiles: TilePoint[] = [];
  /** Routes recomputed because the old one stopped connecting. */
  replans = 0;
  /** Why the last goal was released, or null if none was yet. */
  lastRelease: ReleaseReason | null = null;

  constructor(
    private readonly sim: WasmSim,
    readonly nodeBudget = ASTAR_NODE_BUDGET,
  ) {}

  get goal(): TilePoint | null {
    return this.goalPoint;
  }

  /** The tiles still to be walked (not yet sent), ending at the goal. */
  get route(): readonly TilePoint[] {
    return this.tiles;
  }

  /**
   * Aims at `goal` from `from`. The same goal tile again is "unchanged" (no
   * search: click-and-hold calls this every frame). An unreachable goal
   * releases the current one, unless `steering` (the button is held and the
   * cursor sweeps across a wall): then the current route is kept.
   */
  setGoal(goal: TilePoint, from: TilePoint, steering = false): GoalResult {
    const current = this.goalPoint;
    if (current && current.x === goal.x && current.y === goal.y) return "unchanged";
    const route = this.search(from, goal);
    if (!route) {
      if (!steering) this.release("unreachable");
      return "unreachable";
    }
    this.goalPoint = { x: goal.x, y: goal.y };
    this.tiles = route;
    return "planned";
  }

  release(reason: ReleaseReason): void {
    if (!this.goalPoint) return;
    this.goalPoint = null;
    this.tiles = [];
    this.lastRelease = reason;
  }

  /**
   * The action to send next from the predicted position `from`, or 0 when
   * there is nothing to send (no goal, standing on it, or it just became
   * unreachable and was released). Replans at most once per call.
   */
  nextAction(from: TilePoint): number {
    const goal = this.goalPoint;
    if (!goal) return 0;
    // A prediction that got ahead of the route (a late step executed after all) skips what it passed.
    const reached = this.tiles.findIndex((tile) => tile.x === from.x && tile.y === from.y);
    if (reached >= 0) this.tiles.splice(0, reached + 1);
    if (this.tiles.length === 0 && from.x === goal.x && from.y === goal.y) return 0;
    const action = this.tiles.length > 0 ? this.allowedTowards(from, this.tiles[0]) : 0;
    if (action !== 0) {
      this.tiles.shift();
      return action;
    }
    this.replans++;
    const route = this.search(from, goal);
    if (!route) {
      this.release("unreachable");
      return 0;
    }
    this.tiles = route;
    if (route.length === 0) return 0;
    const replanned = this.allowedTowards(from, route[0]);
    if (replanned === 0) {
      this.release("unreachable"); // cannot happen while A* and the rule agree; never loop on it
      return 0;
    }
    this.tiles.shift();
    return replanned;
  }

  private allowedTowards(from: TilePoint, to: TilePoint): number {
    const action = actionTowards(from, to);
    return action !== 0 && this.sim.stepAllowed(from.x, from.y, action) ? action : 0;
  }

  /** The route from `from` to `goal` as tiles (empty when already there), or null when unreachable. */
  private search(from: TilePoint, goal: TilePoint): TilePoint[] | null {
    const result = this.sim.astar(from.x, from.y, goal.x, goal.y, this.nodeBudget);
    if (result.status < 0) return null;
    const tiles: TilePoint[] = [];
    let x = from.x;
    let y = from.y;
    for (const action of result.path) {
      x += ACTION_DX[action];
      y += ACTION_DY[action];
      tiles.push({ x, y });
    }
    return tiles;
  }
}
