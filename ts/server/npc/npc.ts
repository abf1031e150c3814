// One creature as the NPC room keeps it: its entity, kind, spawn and home, its energy on the action-point
// model (ts/action-points.ts) in closed form, where the wake schedule has filed it, what it is doing
// (idle, chasing, walking home) and the path it follows. The room's parts (wake-schedule.ts,
// npc-thinking.ts, spawn-keeper.ts, npc-crossing.ts) each read and write the fields of their job.
import { ACTION_COST, energyCap } from "../../action-points.js";
import type { NpcKind } from "../content/npc-kinds.js";
import type { NpcSpawnSpec } from "../content/npc-spawns.js";
import type { StoredEntity } from "../entities/entities.js";

/** Steps of a path an NPC keeps; a longer path is followed this far, then planned again. */
export const NPC_PATH_STEPS = 96;

/** What an NPC is doing. */
export const IDLE = 0;
export const CHASE = 1;
export const RETURN = 2;

/** A spawn of the map (or of a dungeon level) as the room keeps it alive. */
export interface SpawnState {
  readonly spec: NpcSpawnSpec;
  /** Entity ticks at which a replacement is due, oldest first. */
  readonly due: number[];
  /** Its NPCs alive now. */
  alive: number;
}

export interface Npc {
  readonly entity: StoredEntity;
  readonly kind: NpcKind;
  /**
   * The spawn that keeps it, when that spawn is this room's; null for a creature adopted from another
   * region (a cluster, adopt()): its spawn lives there, and its death is reported there (foreignDeath).
   */
  readonly spawn: SpawnState | null;
  /** Its spawn's map object id, wherever that spawn lives. */
  readonly spawnId: number;
  readonly homeX: number;
  readonly homeY: number;
  /** Energy as of entity tick energyTick; it grows by kind.speed per entity tick while awake, up to energyCap. */
  energy: number;
  energyTick: number;
  /** energyCap(speed), ts/action-points.ts: a shed NPC keeps its remainder, but never banks a second action. */
  readonly energyCap: number;
  /** The entity tick this NPC is filed under in the timing wheel; -1 while not filed (asleep, a guard at its post). */
  dueTick: number;
  indexKey: number;
  indexSlot: number;
  /** In the ready queue: its energy is full and it waits for budget. */
  ready: boolean;
  /** Decisions made in the current wake cycle (one second): tallied into NpcRoom.decidingTwice. */
  decisions: number;
  state: number;
  /** Entity id of the player being chased; 0 for none. */
  targetId: number;
  /** Entity tick before which this NPC does not notice players (after giving up). */
  calmUntil: number;
  /** The cached path: steps [pathIndex, pathLength) lead from the NPC to (goalX, goalY). */
  readonly path: Uint8Array;
  pathIndex: number;
  pathLength: number;
  goalX: number;
  goalY: number;
  /** Chebyshev distance to the nearest player at the last wake pass. */
  nearest: number;
  /** The wake pass that last found a player near: awake iff this is the current pass. */
  wakeStamp: number;
  alive: boolean;
}

/** A creature of `kind` standing as `entity`, idle and asleep with no energy as of `entityTick`. */
export function newNpc(
  entity: StoredEntity,
  kind: NpcKind,
  spawn: SpawnState | null,
  spawnId: number,
  homeX: number,
  homeY: number,
  entityTick: number,
): Npc {
  return {
    entity,
    kind,
    spawn,
    spawnId,
    homeX,
    homeY,
    energy: 0,
    energyTick: entityTick,
    energyCap: energyCap(kind.speed),
    dueTick: -1,
    indexKey: 0,
    indexSlot: -1,
    ready: false,
    decisions: 0,
    state: IDLE,
    targetId: 0,
    calmUntil: 0,
    // Only a creature that can chase walks paths; a wanderer never plans one and keeps none.
    path: kind.behaviour === "wander" ? NO_PATH : new Uint8Array(NPC_PATH_STEPS),
    pathIndex: 0,
    pathLength: 0,
    goalX: 0,
    goalY: 0,
    nearest: 0,
    wakeStamp: 0,
    alive: true,
  };
}

/** npc's energy at entity tick `tick`, from its closed form. */
export function energyAt(npc: Npc, tick: number): number {
  return Math.min(npc.energyCap, npc.energy + npc.kind.speed * (tick - npc.energyTick));
}

/** The first entity tick at which npc has a full ACTION_COST of energy. */
export function nextDue(npc: Npc): number {
  const missing = ACTION_COST - npc.energy;
  return npc.energyTick + (missing <= 0 ? 0 : Math.ceil(missing / npc.kind.speed));
}

/** Whether npc is a guard standing at its post: it decides nothing until provoked, and stays out of the wheel. */
export function atPost(npc: Npc): boolean {
  return npc.kind.behaviour === "guard" && npc.state === IDLE;
}

export function chebyshev(ax: number, ay: number, bx: number, by: number): number {
  return Math.max(Math.abs(ax - bx), Math.abs(ay - by));
}

/** The path of a creature that never plans one (wanderers): empty, shared. */
const NO_PATH = new Uint8Array(0);
