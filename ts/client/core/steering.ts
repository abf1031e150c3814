// The steering policy: which step to send, into which window, and when to
// withdraw scheduled ones. A held movement key walks one step per window; a
// click-to-move goal follows the planner's route. A changed plan retracts the
// steps the server can still be told about in time; at most one new step is
// scheduled per update, into the first window a datagram sent now reaches
// (scheduler.ts). Validity is THE rule (sim.stepAllowed) from the predicted
// position, so the client never sends a step the server would refuse.
// A step into a living creature's tile is an attack on the server (the bump,
// ts/combat-rules.ts): it is sent as the step it is, but predicted as no move.
// attack(entityId) follows a creature: the route leads to its tile (re-planned
// as it moves), so the last step is the bump, repeated each window until it dies.
import { isFoe } from "../../combat-rules.js";
import { ACTION_DX, ACTION_DY, ACTION_MAX, ACTION_NOOP } from "../../protocol/action.js";
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
  | "options"
  | "now"
  | "tickHz"
  | "sim"
  | "connection"
  | "serverClock"
  | "rtt"
  | "prediction"
  | "planner"
  | "counters"
  | "entityTable"
>;

/** Why attack() did not start: the entity is not a living creature in view, or the client is not playing yet. */
export type AttackRefusal = "not-a-foe" | "not-ready" | "unreachable";

export class Steering {
  private held = ACTION_NOOP;
  private planChanged = false;
  /** prediction.teleports when last looked at. */
  private teleportsSeen = 0;
  /**
   * A key press owes one step (a tap must always move, however short): the press's action until a
   * step of it is sent, then NOOP. `pressWindow` is the window that step went into: releasing the key
   * withdraws the held walk's later steps, never the press's own.
   */
  private owed = ACTION_NOOP;
  private pressWindow = -1;
  /** The creature being attacked (attack()); 0 for none. */
  private attacking = 0;

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
    this.attacking = 0;
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
    if (action !== ACTION_NOOP) {
      this.attacking = 0;
      this.parts.planner.release("cleared");
    }
  }

  /** The creature attack() is following, or 0. */
  get attackTarget(): number {
    return this.attacking;
  }

  /**
   * Click-to-attack: walks to the living creature `entityId` and bumps it each window until it
   * dies or leaves view (the route is re-planned as it moves). null when started, else why not.
   */
  attack(entityId: number): AttackRefusal | null {
    const target = this.parts.entityTable.entries.get(entityId);
    if (target === undefined || !isFoe(target.typeId, target.hp, target.flags, false)) return "not-a-foe";
    const result = this.goTo(target.x, target.y, { steering: true });
    if (result === "not-ready") return "not-ready";
    if (result !== "planned" && result !== "unchanged") return "unreachable";
    this.attacking = entityId;
    return null;
  }

  /** Click-to-move toward world tile (x, y), routed from the predicted position (GameClient.setGoal). */
  setGoal(x: number, y: number, options: SetGoalOptions = {}): GoalResult | "not-ready" {
    this.attacking = 0;
    return this.goTo(x, y, options);
  }

  private goTo(x: number, y: number, options: SetGoalOptions): GoalResult | "not-ready" {
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
    this.attacking = 0;
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
    this.attacking = 0;
  }

  /** Retraction, then at most one new step into the first reachable window. */
  steer(nowMs: number): void {
    const { prediction, planner, counters } = this.parts;
    if (!prediction.confirmed) return;
    // A teleport put the player elsewhere: the route (planned where it was) and its scheduled steps are void.
    if (prediction.teleports !== this.teleportsSeen) {
      this.teleportsSeen = prediction.teleports;
      this.clearGoal();
      this.planChanged = true;
    }
    if (this.attacking !== 0) this.followTarget();
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
        // A bump attacks and does not move: predicted as staying put, sent as the step it is.
        prediction.add(window, this.bumpsFoe(from, action) ? ACTION_NOOP : action);
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

  /** Keeps the attack's route on the creature's current tile; ends the attack once it is dead or gone. */
  private followTarget(): void {
    const target = this.parts.entityTable.entries.get(this.attacking);
    const planner = this.parts.planner;
    if (target === undefined || !isFoe(target.typeId, target.hp, target.flags, false)) {
      this.attacking = 0;
      if (planner.goal) {
        planner.release("cleared");
        this.planChanged = true;
      }
      return;
    }
    const goal = planner.goal;
    if (goal === null || goal.x !== target.x || goal.y !== target.y) this.goTo(target.x, target.y, { steering: true });
  }

  /** Whether `action` from `from` steps into a tile where a living creature stands (an attack). */
  private bumpsFoe(from: TilePoint, action: number): boolean {
    const x = from.x + ACTION_DX[action];
    const y = from.y + ACTION_DY[action];
    for (const entity of this.parts.entityTable.entries.values()) {
      if (entity.x === x && entity.y === y && isFoe(entity.typeId, entity.hp, entity.flags, false)) return true;
    }
    return false;
  }

  /** The first window a datagram sent at `nowMs` reaches in time (scheduler.ts). */
  private earliestWindowAt(nowMs: number): number {
    const { serverClock, rtt, options, tickHz, prediction } = this.parts;
    const serverTick = serverClock.tickAt(nowMs, rtt.smoothedMs);
    // Never a window the server has already said it consumed: the clock's estimate can lag behind the
    // acknowledgement when this process stalls (a loaded machine, a paused tab) or the world runs dilated,
    // and a step addressed there would be late at the server and out of order here.
    return Math.max(earliestWindow(serverTick, leadMs(rtt, options.leadMarginMs), tickHz), prediction.ackWindow + 1);
  }

  /** `action` if THE rule allows it from the predicted position (send-time validation), else NOOP. */
  private allowedOrNoop(from: TilePoint, action: number): number {
    return this.parts.sim.stepAllowed(from.x, from.y, action) ? action : ACTION_NOOP;
  }
}
