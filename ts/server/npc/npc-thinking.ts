// How a creature decides its next step (docs/server.md § NPCs): wander near home, notice a player within
// its perception (night and weather shorten it: ts/world-time.ts) and leash, chase it along a cached A*
// path planned with the wasm A* over THE movement rule, open a door in its way (kinds with opensDoors),
// give up and walk home. Each decision costs budget units (think-budget.ts) that the think loop
// (npc-room.ts) charges to the think budget. Scripted behaviour, when a kind has a script, decides here
// beside these.
import { ACTION_DX, ACTION_DY, actionFromDelta } from "../../protocol/action.js";
import { ENTITY_FLAG_HOSTILE } from "../../protocol/entity.js";
import { type Weather, perceptionRadius } from "../../world-time.js";
import type { Pathing } from "../../wasm/sim.js";
import { nightPerceptionOf } from "../content/npc-kinds.js";
import { ENTITY_TYPE_PLAYER, type EntityStore, type StoredEntity } from "../entities/entities.js";
import type { Doors } from "../world/doors.js";
import { CHASE, chebyshev, IDLE, type Npc, RETURN } from "./npc.js";
import { scanCost, searchCost, THINK_COST } from "./think-budget.js";

/** Nodes one A* search may expand: paths stay within a leash (≤ 64 tiles), so this is generous. */
export const NPC_SEARCH_NODE_BUDGET = 4096;
/** After failing to reach a target (no path, budget), an NPC ignores players for this many entity ticks. */
const GIVE_UP_ENTITY_TICKS = 24;
/** Chance that an idle wanderer rests (decides not to step) at a given decision. */
const REST_CHANCE = 0.4;

/** The world's conditions a decision reads (the world clock sets them each entity tick). */
export interface Conditions {
  night: boolean;
  weather: Weather;
}

export interface NpcThinkingPorts {
  readonly entities: Pick<EntityStore, "inSquare" | "get" | "changed">;
  /** THE rule's allowed steps and the wasm A*. */
  readonly pathing: Pathing;
  /** The doors (doors.ts): a creature whose kind opensDoors opens a closed, unlocked one in its way. */
  readonly doors: Pick<Doors, "openByCreature">;
  readonly conditions: Readonly<Conditions>;
  /** The room's seeded random stream (shared with its spawns: one stream, one order of draws). */
  readonly random: () => number;
  readonly stats: { searches: number; searchNodes: number; doorsOpened: number };
}

export class NpcThinking {
  private readonly nearScratch: StoredEntity[] = [];

  constructor(private readonly ports: NpcThinkingPorts) {}

  /** The step the last think decided (0: stay). A field rather than a second return value: think runs thousands of times a tick. */
  decided = 0;

  /** Decides npc's next step into `decided`; returns the budget units it cost. */
  think(npc: Npc, entityTick: number): number {
    this.decided = 0;
    if (npc.state === CHASE) return this.chase(npc, entityTick);
    if (npc.state === RETURN) return this.walkHome(npc);
    let cost = THINK_COST;
    if (npc.kind.behaviour === "hostile" && entityTick >= npc.calmUntil) {
      cost += this.notice(npc);
      if (npc.state === CHASE) return cost + this.chase(npc, entityTick);
    }
    this.wander(npc);
    return cost;
  }

  /** A hostile looks for the nearest player within its perception (and its leash from home); returns the scan's cost. */
  private notice(npc: Npc): number {
    const { entity, kind } = npc;
    const near = this.nearScratch;
    const radius = perceptionRadius(
      kind.perception,
      nightPerceptionOf(kind),
      this.ports.conditions.night,
      this.ports.conditions.weather,
    );
    const count = this.ports.entities.inSquare(entity.x, entity.y, radius, near, false);
    let best: StoredEntity | null = null;
    let bestDistance = Infinity;
    for (let i = 0; i < count; i++) {
      const other = near[i];
      if (other.typeId !== ENTITY_TYPE_PLAYER || other.hp === 0) continue;
      if (chebyshev(other.x, other.y, npc.homeX, npc.homeY) > kind.leash) continue;
      const distance = chebyshev(other.x, other.y, entity.x, entity.y);
      if (distance < bestDistance) {
        best = other;
        bestDistance = distance;
      }
    }
    if (best !== null) {
      npc.state = CHASE;
      npc.targetId = best.id;
      npc.pathLength = 0;
    }
    return scanCost(count);
  }

  /** Chasing: stand when adjacent, follow the cached path, plan again only when the target left it. */
  private chase(npc: Npc, entityTick: number): number {
    const target = this.ports.entities.get(npc.targetId);
    const { entity, kind } = npc;
    if (target === undefined || target.hp === 0 || chebyshev(target.x, target.y, npc.homeX, npc.homeY) > kind.leash) {
      this.giveUp(npc, entityTick, false);
      return THINK_COST + this.walkHome(npc);
    }
    // Adjacent (diagonals included): a step into the target's tile, which the combat room turns into
    // an attack (bump) — if THE rule allows that step; a diagonal past a corner is walked around.
    const dx = target.x - entity.x;
    const dy = target.y - entity.y;
    if (Math.max(Math.abs(dx), Math.abs(dy)) <= 1) {
      const toward = actionFromDelta(dx, dy);
      // A kind without a weapon (attack 0) only stands beside its target.
      if (toward === 0 || kind.attack === 0) return THINK_COST;
      if (((this.ports.pathing.allowedSteps(entity.x, entity.y) >> toward) & 1) !== 0) {
        this.decided = toward;
        return THINK_COST;
      }
    }
    let cost = THINK_COST;
    if (!this.pathStillLeadsTo(npc, target.x, target.y)) {
      if (this.openDoorToward(npc, target.x, target.y)) return cost;
      cost = searchCost(this.plan(npc, target.x, target.y));
      if (npc.pathLength === 0) {
        this.giveUp(npc, entityTick, true);
        return cost;
      }
    }
    // The path ends on the target's tile; its last step (the attack) is taken from adjacency, above.
    if (npc.pathIndex < npc.pathLength - 1) this.decided = npc.path[npc.pathIndex++];
    return cost;
  }

  /** Walking home along a path; idle again on arrival (a provoked guard calms down). */
  private walkHome(npc: Npc): number {
    const { entity } = npc;
    if (entity.x === npc.homeX && entity.y === npc.homeY) {
      this.becomeIdle(npc);
      return 0;
    }
    let cost = 0;
    if (!this.pathStillLeadsTo(npc, npc.homeX, npc.homeY)) {
      if (this.openDoorToward(npc, npc.homeX, npc.homeY)) return THINK_COST;
      cost = searchCost(this.plan(npc, npc.homeX, npc.homeY));
      if (npc.pathLength === 0) {
        // Home cannot be reached from here (a door closed, the budget ran out): live here instead of trying forever.
        this.becomeIdle(npc);
        return cost;
      }
    }
    this.decided = npc.path[npc.pathIndex++];
    return cost;
  }

  /** Idle: rest, or step in a random allowed direction that stays within `wander` of home; walk back when outside it. */
  private wander(npc: Npc): void {
    const { entity, kind } = npc;
    const allowed = this.ports.pathing.allowedSteps(entity.x, entity.y) & ~1;
    if (allowed === 0) return;
    const away = chebyshev(entity.x, entity.y, npc.homeX, npc.homeY);
    if (away > kind.wander) {
      // Outside its range (pushed out, or back from a chase that failed): the allowed step that gets closest to home.
      let best = 0;
      let bestAway = away;
      for (let action = 1; action <= 8; action++) {
        if (((allowed >> action) & 1) === 0) continue;
        const next = chebyshev(entity.x + ACTION_DX[action], entity.y + ACTION_DY[action], npc.homeX, npc.homeY);
        if (next < bestAway) {
          best = action;
          bestAway = next;
        }
      }
      this.decided = best;
      return;
    }
    if (kind.wander === 0 || this.ports.random() < REST_CHANCE) return;
    // A random allowed step within range: pick uniformly among the candidates.
    let candidates = 0;
    let chosen = 0;
    for (let action = 1; action <= 8; action++) {
      if (((allowed >> action) & 1) === 0) continue;
      if (chebyshev(entity.x + ACTION_DX[action], entity.y + ACTION_DY[action], npc.homeX, npc.homeY) > kind.wander) {
        continue;
      }
      candidates++;
      if (this.ports.random() * candidates < 1) chosen = action;
    }
    this.decided = chosen;
  }

  /**
   * Whether the cached path still ends at (x, y). A target that moved onto the remaining path
   * cuts it short; one that stepped off its end by one tile extends it by that step when THE
   * rule allows it — neither needs a search. Anything else needs a new plan.
   */
  private pathStillLeadsTo(npc: Npc, x: number, y: number): boolean {
    if (npc.pathIndex >= npc.pathLength) return false;
    if (npc.goalX === x && npc.goalY === y) return true;
    // Walk the remaining path: is (x, y) on it?
    let cx = npc.entity.x;
    let cy = npc.entity.y;
    for (let i = npc.pathIndex; i < npc.pathLength; i++) {
      cx += ACTION_DX[npc.path[i]];
      cy += ACTION_DY[npc.path[i]];
      if (cx === x && cy === y) {
        npc.pathLength = i + 1;
        npc.goalX = x;
        npc.goalY = y;
        return true;
      }
    }
    const dx = x - npc.goalX;
    const dy = y - npc.goalY;
    if (Math.abs(dx) <= 1 && Math.abs(dy) <= 1 && npc.pathLength < npc.path.length) {
      const action = actionFromDelta(dx, dy);
      if (((this.ports.pathing.allowedSteps(npc.goalX, npc.goalY) >> action) & 1) !== 0) {
        npc.path[npc.pathLength++] = action;
        npc.goalX = x;
        npc.goalY = y;
        return true;
      }
    }
    return false;
  }

  /**
   * The doors rule, for kinds with opensDoors, tried when the NPC needs a new path to (x, y) (none
   * cached, or its step was refused — a door closed on it): the neighbour cells one step toward the
   * goal — the horizontal one, the vertical one, then the diagonal — are looked at in that order,
   * and the first that holds a closed, unlocked door is opened. That is the NPC's action (it does
   * not step); its next decision plans through the open doorway. A* never paths through a closed
   * door, so a creature opens only a door it stands beside. True when it opened one.
   */
  private openDoorToward(npc: Npc, x: number, y: number): boolean {
    if (npc.kind.opensDoors !== true) return false;
    const { entity } = npc;
    const sx = Math.sign(x - entity.x);
    const sy = Math.sign(y - entity.y);
    const doors = this.ports.doors;
    const opened =
      (sx !== 0 && doors.openByCreature(entity.x + sx, entity.y)) ||
      (sy !== 0 && doors.openByCreature(entity.x, entity.y + sy)) ||
      (sx !== 0 && sy !== 0 && doors.openByCreature(entity.x + sx, entity.y + sy));
    if (!opened) return false;
    npc.pathLength = 0;
    this.ports.stats.doorsOpened++;
    return true;
  }

  /** Plans a path from the NPC to (x, y) with the wasm A*; returns the nodes it expanded. pathLength 0: no path. */
  private plan(npc: Npc, x: number, y: number): number {
    const pathing = this.ports.pathing;
    const status = pathing.astarStatus(npc.entity.x, npc.entity.y, x, y, NPC_SEARCH_NODE_BUDGET, "bucket");
    const nodes = pathing.lastExpanded;
    this.ports.stats.searches++;
    this.ports.stats.searchNodes += nodes;
    npc.pathIndex = 0;
    npc.pathLength = status > 0 ? pathing.readPath(npc.path, status) : 0;
    // A path longer than the cache keeps its first NPC_PATH_STEPS steps and is planned again at their end.
    let gx = npc.entity.x;
    let gy = npc.entity.y;
    for (let i = 0; i < npc.pathLength; i++) {
      gx += ACTION_DX[npc.path[i]];
      gy += ACTION_DY[npc.path[i]];
    }
    npc.goalX = gx;
    npc.goalY = gy;
    return nodes;
  }

  private giveUp(npc: Npc, entityTick: number, unreachable: boolean): void {
    npc.state = RETURN;
    npc.targetId = 0;
    npc.pathLength = 0;
    if (unreachable) npc.calmUntil = entityTick + GIVE_UP_ENTITY_TICKS;
  }

  private becomeIdle(npc: Npc): void {
    npc.state = IDLE;
    npc.targetId = 0;
    npc.pathLength = 0;
    if (npc.kind.behaviour === "guard" && (npc.entity.flags & ENTITY_FLAG_HOSTILE) !== 0) {
      npc.entity.flags &= ~ENTITY_FLAG_HOSTILE;
      this.ports.entities.changed(npc.entity);
    }
  }
}
