// The steering policy: which step to send, into which window, and when to
// withdraw scheduled ones. A held movement key walks one step per window; a
// click-to-move goal follows the planner's route. A changed plan retracts the
// steps the server can still be told about in time; at most one new step is
// scheduled per update, into the first window a datagram sent now reaches
// (scheduler.ts). Validity is THE rule (sim.stepAllowed) from the predicted
// position, so the client never sends a step the server would refuse.
import { ACTION_MAX, ACTION_NOOP } from "../../protocol/action.js";
import type { ActionSender } from "./action-sender.js";
import type { ClientParts } from "./parts.js";
import type { GoalResult } from "./planner.js";
import type { TilePoint } from "./prediction.js";
import { tickOfWindow } from "../../window.js";
import { earliestWindow, leadMs, nextStepWindow } from "./scheduler.js";

export interface SetGoalOptions {
  /** Click-and-hold steering: an unreachable tile keeps the current route instead of releasing the goal. */
  steering?: boolean;
}

type SteeringParts = Pick<
  ClientParts,
  "options" | "now" | "tickHz" | "sim" | "connection" | "serverClock" | "rtt" | "prediction" | "planner" | "counters"
>;

export class Steering {
  private held = ACTION_NOOP;
  private planChanged = false;
  /**
   * A key press owes one step (a tap must always move, however short): the press's action until a
   * step of it is sent, then NOOP. `pressWindow` is the window that step went into: releasing the key
   * withdraws the held walk's later steps, never the press's own.
   */
  private owed = ACTION_NOOP;
  private pressWindow = -1;

  constructor(
    private readonly parts: SteeringParts,
    private readonly sender: ActionSender,
  ) {}

  get heldAction(): number {
    return this.held;
  }

  /**
   * A movement key went down with `action` (1..8): exactly one step of it is sent, even if the key
   * is up again before the next update — a tap of 30 ms moves one tile. Holding it walks on
   * (setHeldAction); the press's step counts as the hold's first. Cancels any click-to-move goal.
   */
  pressAction(action: number): void {
    if (!Number.isInteger(action) || action < 1 || action > ACTION_MAX) {
      throw new RangeError(`action must be 1..${ACTION_MAX}, got ${action}`);
    }
    this.owed = action;
    this.pressWindow = -1;
    this.parts.planner.release("cleared");
  }

  /** Held movement key: 1..8 walks one step per window while held, 0 stops. Cancels any click-to-move goal. */
  setHeldAction(action: number): void {
    if (!Number.isInteger(action) || action < 0 || action > ACTION_MAX) {
      throw new RangeError(`action must be 0..${ACTION_MAX}, got ${action}`);
    }
    if (action === this.held) return;
    this.held = action;
    this.planChanged = true;
    if (action !== ACTION_NOOP) this.parts.planner.release("cleared");
  }

  /** Click-to-move toward world tile (x, y), routed from the predicted position (GameClient.setGoal). */
  setGoal(x: number, y: number, options: SetGoalOptions = {}): GoalResult | "not-ready" {
    const { prediction, planner } = this.parts;
    if (!prediction.confirmed || this.parts.connection.state !== "playing") return "not-ready";
    // A new route starts where the server will be after the steps too late to withdraw: the
    // still-cancellable ones are retracted by the plan change, so planning past them would
    // hand the route a first tile the next update cannot step to.
    const from = prediction.predictedBefore(this.earliestWindowAt(this.parts.now()))!;
    const hadGoal = planner.goal !== null;
    const result = planner.setGoal({ x, y }, from, options.steering === true);
    if (result === "planned" || (hadGoal && planner.goal === null)) this.planChanged = true;
    return result;
  }

  /** Drops the goal and its route; scheduled steps that can still be cancelled are. */
  clearGoal(): void {
    const planner = this.parts.planner;
    if (!planner.goal) return;
    planner.release("cleared");
    this.planChanged = true;
  }

  /** A new session began (reconnect): no goal, and nothing scheduled is left to withdraw. */
  reset(): void {
    this.parts.planner.release("cleared");
    this.planChanged = false;
    this.owed = ACTION_NOOP;
    this.pressWindow = -1;
  }

  /** Retraction, then at most one new step into the first reachable window. */
  steer(nowMs: number): void {
    const { prediction, planner, counters } = this.parts;
    if (!prediction.confirmed) return;
    const earliest = this.earliestWindowAt(nowMs);

    // A changed plan withdraws every step the server can still be told about in time; the
    // rest ("zombies") will execute and stay pending, so the prediction just shifts.
    let retracted: number[] = [];
    if (this.planChanged) {
      this.planChanged = false;
      // The step a key press owed stays: a released tap still moves one tile.
      const from = this.pressWindow >= 0 ? Math.max(earliest, this.pressWindow + 1) : earliest;
      retracted = prediction.removeFrom(from).map((step) => step.window);
    }

    const window = nextStepWindow(
      earliest,
      prediction.lastWindow,
      prediction.pending.length,
      this.parts.options.maxPendingSteps,
    );
    if (window >= 0) {
      const from = prediction.predicted()!;
      const walking = this.held !== ACTION_NOOP ? this.held : this.owed;
      const action = walking !== ACTION_NOOP ? this.allowedOrNoop(from, walking) : planner.nextAction(from);
      if (this.owed !== ACTION_NOOP && (walking === this.owed || this.held !== ACTION_NOOP)) {
        // The press is paid by this step (or by a hold that changed direction), or void where
        // THE rule forbids it: a tap into a wall is no step, as a held key into a wall is none.
        if (action !== ACTION_NOOP) this.pressWindow = window;
        this.owed = ACTION_NOOP;
      }
      if (action !== ACTION_NOOP) {
        prediction.add(window, action);
        this.sender.send(tickOfWindow(window), action, nowMs);
        counters.stepsSent++;
        // The new step replaces the withdrawn one in that window; no NOOP needed there.
        retracted = retracted.filter((withdrawn) => withdrawn !== window);
      }
    }
    for (const withdrawn of retracted) {
      this.sender.send(tickOfWindow(withdrawn), ACTION_NOOP, nowMs);
      counters.retractions++;
    }

    const goal = planner.goal;
    const confirmed = prediction.confirmed;
    if (goal && prediction.pending.length === 0 && confirmed.x === goal.x && confirmed.y === goal.y) {
      planner.release("arrived");
    }
  }

  /** The first window a datagram sent at `nowMs` reaches in time (scheduler.ts). */
  private earliestWindowAt(nowMs: number): number {
    const { serverClock, rtt, options, tickHz } = this.parts;
    const serverTick = serverClock.tickAt(nowMs, rtt.smoothedMs);
    return earliestWindow(serverTick, leadMs(rtt, options.leadMarginMs), tickHz);
  }

  /** `action` if THE rule allows it from the predicted position (send-time validation), else NOOP. */
  private allowedOrNoop(from: TilePoint, action: number): number {
    return this.parts.sim.stepAllowed(from.x, from.y, action) ? action : ACTION_NOOP;
  }
}
