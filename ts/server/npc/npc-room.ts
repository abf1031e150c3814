// The NPC room: the map's creatures, living on the action-point model
// (ts/action-points.ts) under the think budget (think-budget.ts).
//
// Every entity tick (every 2nd simulation tick, 12 Hz):
//  1. Wake. Once a second — spread over the second's entity ticks, a slice of
//     the players each — the room finds the NPCs within WAKE_RADIUS of a
//     player (through its own creatures-only index, npc-index.ts) and notes
//     each one's distance to the nearest player. The rest sleep: they gain no
//     energy, think nothing and cost nothing — creatures far from everyone go
//     idle, as the big tile-MMO servers do.
//  2. Think. An awake NPC's energy grows by `speed` per entity tick, in closed
//     form, so nothing visits it until the tick its energy reaches ACTION_COST:
//     a timing wheel holds each awake NPC under the entity tick it is due.
//     The NPCs due this tick join the ready queue (ready-queue.ts) and think
//     nearest first while the budget lasts: each decides its next step (wander,
//     notice, chase along a cached A* path, walk home) and pays for the
//     decision in budget units. When the budget is gone the farther ones are
//     shed: they stay queued, first in line at their distance, at no cost.
//  3. Move. Every decided step becomes a row of the wasm MOVES table, and one
//     apply_moves call checks them all with THE movement rule — the same rule
//     players' steps, the clients' prediction and A* use. Only tiles block:
//     entities never block each other's steps (docs/netcode.md § What blocks what).
//
// Respawning: a spawn keeps its count of NPCs alive; one that dies (kill, the
// combat room's door) is replaced after its respawn time on a free cell of the area.
import { ACTION_COST, energyCap } from "../../action-points.js";
import { CHUNK_SIZE } from "../../constants.js";
// dx, dy of action codes 0..8: the protocol's table, checked against the wasm rule at instantiation.
import { ACTION_DX, ACTION_DY, actionFromDelta } from "../../protocol/action.js";
import { ENTITY_FLAG_HOSTILE } from "../../protocol/entity.js";
import { mulberry32 } from "../../random.js";
import { type Weather, perceptionRadius } from "../../world-time.js";
import type { MoveTable, Pathing } from "../../wasm/sim.js";
import { ENTITY_TYPE_PLAYER, type EntityFields, type EntityStore, type StoredEntity } from "../entities/entities.js";
import type { Doors } from "../world/doors.js";
import type { Logger } from "../ops/log.js";
import { VIEW_RADIUS } from "../world/view.js";
import { type NpcKind, nightPerceptionOf, nightSpawnsOf } from "../content/npc-kinds.js";
import { NpcIndex } from "./npc-index.js";
import type { NpcSpawnSpec } from "../content/npc-spawns.js";
import { ReadyQueue } from "./ready-queue.js";
import { scanCost, searchCost, THINK_COST, thinkBudget } from "./think-budget.js";

/** NPCs farther than this (Chebyshev) from every player sleep. Beyond the view square, so nothing in view is frozen. */
export const WAKE_RADIUS = VIEW_RADIUS + 9;
/**
 * One wake cycle looks near every player once, spread over this many entity ticks (1 s at 12 Hz):
 * each entity tick takes its slice of the players, so no tick carries the whole pass. An NPC is
 * awake while a player was near it in this cycle or the last. WAKE_RADIUS exceeds the view by 9
 * tiles, more than a player walks in the 2 s that can take, so nothing in view is ever asleep.
 */
export const WAKE_CYCLE_ENTITY_TICKS = 12;
/** Nodes one A* search may expand: paths stay within a leash (≤ 64 tiles), so this is generous. */
export const NPC_SEARCH_NODE_BUDGET = 4096;
/** Steps of a path an NPC keeps; a longer path is followed this far, then planned again. */
export const NPC_PATH_STEPS = 96;
/** After failing to reach a target (no path, budget), an NPC ignores players for this many entity ticks. */
const GIVE_UP_ENTITY_TICKS = 24;
/** Width in tiles of the distance bands thinks and sheds are counted in (NpcStats.byDistance). */
export const DISTANCE_BAND_TILES = 8;
const DISTANCE_BANDS = Math.floor(WAKE_RADIUS / DISTANCE_BAND_TILES) + 1;
/** Entity ticks the timing wheel spans: more than the longest wait for an action (ACTION_COST / SPEED_MIN = 100). */
const WHEEL_TICKS = 128;
/** Chance that an idle wanderer rests (decides not to step) at a given decision. */
const REST_CHANCE = 0.4;

const IDLE = 0;
const CHASE = 1;
const RETURN = 2;

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

/**
 * A creature crossing to another region's room (a cluster: ts/cluster/npc-link.ts): its entity's
 * fields, its kind by name, its spawn (the map object's id) and home, and what it was doing. Entity
 * ticks are the world's (every region runs the same tick), so a count of them carries over as it is.
 */
export interface NpcTransfer extends Omit<EntityFields, "meta"> {
  id: number;
  kind: string;
  spawn: number;
  homeX: number;
  homeY: number;
  /** Its energy at the release (ACTION_COST buys a step). */
  energy: number;
  /** IDLE, CHASE or RETURN. */
  state: number;
  /** The player it chases (state CHASE), 0 for none. */
  targetId: number;
  /** Entity ticks it still ignores players for (after giving up a chase). */
  calmFor: number;
}

/** The states an NpcTransfer may carry: idle, chase, return. */
export const NPC_STATES = 3;

interface SpawnState {
  readonly spec: NpcSpawnSpec;
  /** Entity ticks at which a replacement is due, oldest first. */
  readonly due: number[];
  /** Its NPCs alive now. */
  alive: number;
}

/** What the room uses: the entities it lives among, THE rule and A*, the move kernel, the log. */
export interface NpcPorts {
  readonly entities: Pick<EntityStore, "spawn" | "remove" | "move" | "inSquare" | "get" | "changed">;
  readonly pathing: Pathing;
  readonly moves: MoveTable;
  /** The entities of the players in play (their sessions' entities). */
  readonly players: () => Iterable<{ readonly x: number; readonly y: number }>;
  /** How many clients are in play: the budget's divisor. */
  readonly clientCount: () => number;
  /**
   * The share of the budget an overloaded server still grants (overload.ts: 1 at ease, down to a
   * floor under load); absent: always 1.
   */
  readonly budgetScale?: () => number;
  /**
   * The combat room's bump (combat/combat-room.ts): a hostile's allowed step into a tile holding a
   * player is an attack, and the creature stays. Returns whether it was one.
   */
  readonly bump: (attacker: StoredEntity, x: number, y: number) => boolean;
  /** The doors (doors.ts): a creature whose kind opensDoors opens a closed, unlocked one in its way. */
  readonly doors: Pick<Doors, "openByCreature">;
  readonly log: Logger;
}

export interface NpcOptions {
  /** BASE of budget = BASE / (clients + 1) units per entity tick. */
  thinkBudgetBase: number;
  /** Seed of the room's random stream (wandering, spawn cells): the same seed, the same creatures. */
  seed: number;
  /** Entity ticks per second, for turning respawn seconds into entity ticks. */
  entityTicksPerSecond: number;
}

/** Counters for /api/status and /metrics. */
export interface NpcStats {
  thinks: number;
  shed: number;
  budgetSpent: number;
  searches: number;
  searchNodes: number;
  steps: number;
  blocked: number;
  /** Steps that were attacks on a player instead (the combat room's bump). */
  attacks: number;
  /** Doors opened (kinds with opensDoors): each one a creature's action instead of a step. */
  doorsOpened: number;
  deaths: number;
  respawns: number;
  /** Creatures handed to another region's room (a cluster), and taken from one. */
  releases: number;
  adoptions: number;
  /**
   * Thinks and sheds by the NPC's distance to its nearest player, in bands of DISTANCE_BAND_TILES
   * (band 0: 0..7 tiles, …): which NPCs still act when the budget sheds.
   */
  byDistance: { fromTiles: number; thinks: number; shed: number }[];
}

export class NpcRoom {
  private readonly byEntity = new Map<number, Npc>();
  private readonly index = new NpcIndex<Npc>();
  /** The timing wheel: wheel[t % WHEEL_TICKS][0 .. wheelCounts[…]) are the NPCs filed under entity tick t (stale entries skipped). */
  private readonly wheel: (Npc | null)[][] = Array.from({ length: WHEEL_TICKS }, () => []);
  private readonly wheelCounts = new Int32Array(WHEEL_TICKS);
  /** NPCs whose energy is full, waiting for budget: nearest first (ready-queue.ts). */
  private readonly ready = new ReadyQueue<Npc>(WAKE_RADIUS);
  private readonly spawns: SpawnState[] = [];
  /** Creatures of this room's spawns away in other regions' rooms (release), by entity id: their spawns still count them. */
  private readonly away = new Map<number, SpawnState>();
  /** A creature adopted from another region died here: that region's spawn must hear of it (a cluster sets this). */
  foreignDeath: ((npc: Npc) => void) | null = null;
  private readonly random: () => number;
  /** The wake cycle being run; an NPC stamped with it or the one before is awake. */
  private wakeCycle = 1;
  /** The players of this cycle (taken at its start) and how many of them have been looked near. */
  private wakePlayers: { readonly x: number; readonly y: number }[] = [];
  private wakeDone = 0;
  /** NPCs found near a player so far in this cycle. */
  private cycleAwake = 0;
  /** The entity tick being run, or the last one run. */
  private entityTickNow = 0;
  /** The world's conditions (setConditions): night, and the weather. */
  private night = false;
  private weather: Weather = "clear";
  private awakeCount = 0;
  /** NPCs that decided at least twice in the last complete wake cycle (one second). */
  decidingTwice = 0;
  private readonly nearScratch: StoredEntity[] = [];
  /** MOVES row → NPC of the entity tick being applied. */
  private readonly movers: (Npc | null)[] = [];
  /** Per entity tick of the last second: thinks, units spent, NPCs shed (rings of entityTicksPerSecond). */
  private readonly recentThinks: Int32Array;
  private readonly recentSpent: Int32Array;
  private readonly recentShed: Int32Array;
  private recentAt = 0;
  private lastTickBudget = 0;
  private lastTickSpent = 0;
  private lastTickShed = 0;
  private lastTickThinks = 0;
  readonly stats: NpcStats = {
    thinks: 0,
    shed: 0,
    budgetSpent: 0,
    searches: 0,
    searchNodes: 0,
    steps: 0,
    blocked: 0,
    attacks: 0,
    doorsOpened: 0,
    deaths: 0,
    respawns: 0,
    releases: 0,
    adoptions: 0,
    byDistance: Array.from({ length: DISTANCE_BANDS }, (_, band) => ({
      fromTiles: band * DISTANCE_BAND_TILES,
      thinks: 0,
      shed: 0,
    })),
  };

  constructor(
    private readonly ports: NpcPorts,
    specs: readonly NpcSpawnSpec[],
    private readonly options: NpcOptions,
  ) {
    this.random = mulberry32(options.seed);
    const perSecond = Math.max(1, Math.round(options.entityTicksPerSecond));
    this.recentThinks = new Int32Array(perSecond);
    this.recentSpent = new Int32Array(perSecond);
    this.recentShed = new Int32Array(perSecond);
    for (const spec of specs) {
      const spawn: SpawnState = { spec, due: [], alive: 0 };
      this.spawns.push(spawn);
      for (let i = 0; i < spec.count; i++) this.spawnOne(spawn);
    }
  }

  /** NPCs alive. */
  get size(): number {
    return this.byEntity.size;
  }

  /** NPCs a player was near in the last complete wake cycle (or this one, if more). */
  get awake(): number {
    return Math.max(this.awakeCount, this.cycleAwake);
  }

  /** The NPC standing as entity `id`, if any. */
  get(entityId: number): Npc | undefined {
    return this.byEntity.get(entityId);
  }

  values(): IterableIterator<Npc> {
    return this.byEntity.values();
  }

  /** Thinks, budget units spent and NPCs shed over the last second of entity ticks. */
  get lastSecond(): { thinks: number; spent: number; shed: number } {
    return { thinks: sum(this.recentThinks), spent: sum(this.recentSpent), shed: sum(this.recentShed) };
  }

  /** What the last entity tick did with its budget. */
  get lastTick(): { budget: number; spent: number; thinks: number; shed: number } {
    return {
      budget: this.lastTickBudget,
      spent: this.lastTickSpent,
      thinks: this.lastTickThinks,
      shed: this.lastTickShed,
    };
  }

  /**
   * Attacked: a guard (or any NPC) turns on `attackerId` — hostile flag set, chasing within
   * its leash. The combat room calls this; a guard is otherwise never hostile.
   */
  provoke(entityId: number, attackerId: number): boolean {
    const npc = this.byEntity.get(entityId);
    const attacker = this.ports.entities.get(attackerId);
    if (npc === undefined || attacker === undefined) return false;
    npc.entity.flags |= ENTITY_FLAG_HOSTILE;
    this.ports.entities.changed(npc.entity);
    npc.state = CHASE;
    npc.targetId = attackerId;
    npc.pathLength = 0;
    // A guard at its post was out of the timing wheel; an awake one is filed now (a sleeping one when woken).
    if (npc.dueTick < 0 && !npc.ready && this.isAwake(npc)) {
      npc.energy = Math.min(npc.energy, ACTION_COST);
      npc.energyTick = this.entityTickNow;
      this.file(npc, this.nextDue(npc));
    }
    return true;
  }

  /**
   * Spawns added at run time (a dungeon level coming alive, ../dungeon/levels.ts): their NPCs appear now.
   * Returns the handles removeSpawns takes.
   */
  addSpawns(specs: readonly NpcSpawnSpec[]): readonly object[] {
    const added: SpawnState[] = [];
    for (const spec of specs) {
      const spawn: SpawnState = { spec, due: [], alive: 0 };
      this.spawns.push(spawn);
      added.push(spawn);
      for (let i = 0; i < spec.count; i++) this.spawnOne(spawn);
    }
    return added;
  }

  /** Removes spawns added by addSpawns and every NPC of theirs, none brought back (a level dropped). */
  removeSpawns(handles: readonly object[]): void {
    const gone = new Set(handles);
    for (let i = this.spawns.length - 1; i >= 0; i--) if (gone.has(this.spawns[i])) this.spawns.splice(i, 1);
    for (const npc of [...this.byEntity.values()]) {
      if (npc.spawn === null || !gone.has(npc.spawn)) continue;
      this.unlist(npc);
      npc.spawn.alive--;
    }
  }

  /**
   * Removes a dead NPC; its spawn brings a new one after the respawn time. A creature adopted from
   * another region is reported to it (foreignDeath): its spawn is there.
   */
  kill(entityId: number): boolean {
    const npc = this.byEntity.get(entityId);
    if (npc === undefined) return false;
    this.unlist(npc);
    this.stats.deaths++;
    if (npc.spawn === null) this.foreignDeath?.(npc);
    else this.lost(npc.spawn);
    return true;
  }

  /**
   * A creature of this room's spawns, away in another region (release), died there: its spawn brings
   * a new one after the respawn time. False (nothing done) for an id not away from here (reported
   * twice, or back home already).
   */
  awayDied(entityId: number): boolean {
    const spawn = this.away.get(entityId);
    if (spawn === undefined) return false;
    this.away.delete(entityId);
    this.lost(spawn);
    return true;
  }

  /**
   * A creature leaves this room for another region's (a cluster: ts/cluster/npc-link.ts): it is removed
   * from the room and the store as it stands — not dead: its spawn, if it is this room's, still counts
   * it (away, until awayDied or it comes back through adopt). Returns what the other room needs to go
   * on with it, or undefined for no such creature or one lying dead (a corpse is not moved).
   */
  release(entityId: number): NpcTransfer | undefined {
    const npc = this.byEntity.get(entityId);
    if (npc === undefined || npc.entity.hp === 0) return undefined;
    const now = this.entityTickNow;
    const e = npc.entity;
    const transfer: NpcTransfer = {
      id: e.id,
      typeId: e.typeId,
      x: e.x,
      y: e.y,
      hp: e.hp,
      hpMax: e.hpMax,
      elo: e.elo,
      flags: e.flags,
      name: e.name,
      kind: npc.kind.name,
      spawn: npc.spawnId,
      homeX: npc.homeX,
      homeY: npc.homeY,
      energy: this.energyAt(npc, now),
      state: npc.state,
      targetId: npc.targetId,
      calmFor: Math.max(0, npc.calmUntil - now),
    };
    this.unlist(npc);
    if (npc.spawn !== null) this.away.set(e.id, npc.spawn);
    this.stats.releases++;
    return transfer;
  }

  /**
   * A creature arrives from another region's room (release there): it stands here as it stood there,
   * with its kind, home, energy and what it was doing (a chase goes on; its path is planned again). One
   * of this room's spawns takes it back (coming home, or a creature of a spawn here from before this
   * room's restart, which the spawn then keeps as one more until one dies); any other is foreign. The
   * caller makes sure the id is free here (the store keeps one entity per id).
   */
  adopt(transfer: NpcTransfer, kind: NpcKind): Npc {
    let spawn: SpawnState | null = this.away.get(transfer.id) ?? null;
    if (spawn !== null) this.away.delete(transfer.id);
    else {
      spawn = this.spawns.find((s) => s.spec.objectId === transfer.spawn) ?? null;
      if (spawn !== null) spawn.alive++;
    }
    const entity = this.ports.entities.spawn(
      {
        typeId: transfer.typeId,
        x: transfer.x,
        y: transfer.y,
        hp: transfer.hp,
        hpMax: transfer.hpMax,
        elo: transfer.elo,
        flags: transfer.flags,
        name: transfer.name,
        meta: [],
      },
      "room",
      transfer.id,
    );
    const now = this.entityTickNow;
    const npc = this.newNpc(entity, kind, spawn, transfer.spawn, transfer.homeX, transfer.homeY);
    npc.energy = Math.max(0, Math.min(npc.energyCap, transfer.energy));
    npc.energyTick = now;
    npc.state = transfer.state;
    npc.targetId = transfer.targetId;
    npc.calmUntil = now + transfer.calmFor;
    // It was awake where it came from (creatures move only while awake): it stays so until this room's
    // next wake pass says otherwise, and acts when its energy is full — a chase does not pause at a border.
    npc.wakeStamp = this.wakeCycle;
    if (!(kind.behaviour === "guard" && npc.state === IDLE)) this.file(npc, this.nextDue(npc));
    this.stats.adoptions++;
    return npc;
  }

  /** Takes npc out of the room and the store; stale wheel and queue entries skip it (alive false). */
  private unlist(npc: Npc): void {
    npc.alive = false;
    npc.dueTick = -1;
    this.byEntity.delete(npc.entity.id);
    this.index.remove(npc);
    this.ports.entities.remove(npc.entity);
  }

  /** One of spawn's creatures is gone for good: replaced after the respawn time while the spawn is below what it keeps. */
  private lost(spawn: SpawnState): void {
    spawn.alive--;
    // Replaced only while the spawn is below what it keeps now: a night's extra ones are not, by day.
    if (spawn.alive + spawn.due.length < this.keeps(spawn)) {
      spawn.due.push(
        this.entityTickNow + Math.max(1, Math.round(spawn.spec.respawnSeconds * this.options.entityTicksPerSecond)),
      );
    }
  }

  /**
   * The world's conditions (the world clock, each entity tick): at night a spawn keeps its kind's
   * nightSpawns times its count — the extra ones come one by one, a respawn time apart — and
   * perception takes the kind's night radius; the weather shortens it (ts/world-time.ts).
   */
  setConditions(night: boolean, weather: Weather): void {
    this.weather = weather;
    if (night === this.night) return;
    this.night = night;
    if (!night) return;
    const entityTick = this.entityTickNow;
    const step = (spawn: SpawnState) =>
      Math.max(1, Math.round(spawn.spec.respawnSeconds * this.options.entityTicksPerSecond));
    for (const spawn of this.spawns) {
      const missing = this.keeps(spawn) - spawn.alive - spawn.due.length;
      for (let i = 1; i <= missing; i++) spawn.due.push(entityTick + i * step(spawn));
    }
  }

  /** How many NPCs `spawn` keeps now. */
  private keeps(spawn: SpawnState): number {
    const count = spawn.spec.count;
    return this.night ? Math.ceil(count * nightSpawnsOf(spawn.spec.kind)) : count;
  }

  /** One entity tick: respawns, this tick's slice of the wake cycle, the due NPCs' thinking under the budget, moving. */
  entityTick(entityTick: number): void {
    this.entityTickNow = entityTick;
    this.respawnDue(entityTick);
    this.wake(entityTick);
    const scale = this.ports.budgetScale?.() ?? 1;
    let budget = Math.max(
      THINK_COST,
      Math.floor(thinkBudget(this.options.thinkBudgetBase, this.ports.clientCount()) * scale),
    );
    this.lastTickBudget = budget;
    this.takeDue(entityTick);
    let spent = 0;
    let thinks = 0;
    let rows = 0;
    const moves = this.ports.moves;
    const capacity = moves.moveCapacity;
    const byDistance = this.stats.byDistance;
    const ready = this.ready;
    while (budget > 0) {
      const npc = ready.pop();
      if (npc === undefined) break;
      npc.ready = false;
      // A corpse (hp 0, combat/) decides nothing and is not filed again: the combat room removes it.
      if (!npc.alive || npc.entity.hp === 0) continue;
      if (!this.isAwake(npc)) {
        // Fell asleep while waiting: it keeps its energy and leaves until a wake pass finds a player near.
        npc.energy = this.energyAt(npc, entityTick);
        npc.energyTick = entityTick;
        continue;
      }
      byDistance[Math.floor(npc.nearest / DISTANCE_BAND_TILES)].thinks++;
      npc.decisions++;
      const cost = this.think(npc, entityTick);
      budget -= cost;
      spent += cost;
      thinks++;
      npc.energy = this.energyAt(npc, entityTick) - ACTION_COST;
      npc.energyTick = entityTick;
      // A guard back at its post decides nothing until provoked: it leaves the wheel.
      if (!(npc.kind.behaviour === "guard" && npc.state === IDLE)) this.file(npc, this.nextDue(npc));
      const action = this.decided;
      if (action === 0) continue;
      const entity = npc.entity;
      moves.setMove(rows, entity.id, entity.x, entity.y, action);
      if (rows < this.movers.length) this.movers[rows] = npc;
      else this.movers.push(npc);
      rows++;
      if (rows === capacity) {
        this.applyMoves(rows);
        rows = 0;
      }
    }
    // Whoever is still ready was shed this tick: it waits, first in line at its distance.
    const shed = ready.size;
    for (let d = 0; d <= WAKE_RADIUS; d++) {
      const waiting = ready.countAt(d);
      if (waiting > 0) byDistance[Math.floor(d / DISTANCE_BAND_TILES)].shed += waiting;
    }
    if (rows > 0) this.applyMoves(rows);
    this.lastTickSpent = spent;
    this.lastTickThinks = thinks;
    this.lastTickShed = shed;
    const at = this.recentAt;
    this.recentThinks[at] = thinks;
    this.recentSpent[at] = spent;
    this.recentShed[at] = shed;
    this.recentAt = (at + 1) % this.recentThinks.length;
    this.stats.thinks += thinks;
    this.stats.shed += shed;
    this.stats.budgetSpent += spent;
  }

  /**
   * Moves the NPCs filed under `entityTick` into the ready queue at their distance to the nearest
   * player. Entries that are stale (re-filed since, dead) are skipped; NPCs that fell asleep keep
   * their energy and leave the wheel until a wake pass finds a player near them again.
   */
  private takeDue(entityTick: number): void {
    const slot = entityTick % WHEEL_TICKS;
    const bucket = this.wheel[slot];
    const filed = this.wheelCounts[slot];
    this.wheelCounts[slot] = 0;
    for (let i = 0; i < filed; i++) {
      const npc = bucket[i]!;
      bucket[i] = null; // an emptied slot keeps no removed NPC reachable
      if (!npc.alive || npc.dueTick !== entityTick) continue;
      npc.dueTick = -1;
      if (!this.isAwake(npc)) {
        npc.energy = this.energyAt(npc, entityTick);
        npc.energyTick = entityTick;
        continue;
      }
      npc.ready = true;
      this.ready.push(npc, npc.nearest);
    }
  }

  /** Files `npc` under entity tick `tick` (at least the next one) in the timing wheel. */
  private file(npc: Npc, tick: number): void {
    const at = Math.max(tick, this.entityTickNow + 1);
    npc.dueTick = at;
    const slot = at % WHEEL_TICKS;
    const count = this.wheelCounts[slot];
    const bucket = this.wheel[slot];
    if (count < bucket.length) bucket[count] = npc;
    else bucket.push(npc);
    this.wheelCounts[slot] = count + 1;
  }

  /** npc's energy at entity tick `tick`, from its closed form. */
  private energyAt(npc: Npc, tick: number): number {
    return Math.min(npc.energyCap, npc.energy + npc.kind.speed * (tick - npc.energyTick));
  }

  /** The first entity tick at which npc has a full ACTION_COST of energy. */
  private nextDue(npc: Npc): number {
    const missing = ACTION_COST - npc.energy;
    return npc.energyTick + (missing <= 0 ? 0 : Math.ceil(missing / npc.kind.speed));
  }

  /** The step the last think decided (0: stay). A field rather than a second return value: think runs thousands of times a tick. */
  private decided = 0;

  /** Decides npc's next step into `decided`; returns the budget units it cost. */
  private think(npc: Npc, entityTick: number): number {
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
    const radius = perceptionRadius(kind.perception, nightPerceptionOf(kind), this.night, this.weather);
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
    if (kind.wander === 0 || this.random() < REST_CHANCE) return;
    // A random allowed step within range: pick uniformly among the candidates.
    let candidates = 0;
    let chosen = 0;
    for (let action = 1; action <= 8; action++) {
      if (((allowed >> action) & 1) === 0) continue;
      if (chebyshev(entity.x + ACTION_DX[action], entity.y + ACTION_DY[action], npc.homeX, npc.homeY) > kind.wander) {
        continue;
      }
      candidates++;
      if (this.random() * candidates < 1) chosen = action;
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
    this.stats.doorsOpened++;
    return true;
  }

  /** Plans a path from the NPC to (x, y) with the wasm A*; returns the nodes it expanded. pathLength 0: no path. */
  private plan(npc: Npc, x: number, y: number): number {
    const pathing = this.ports.pathing;
    const status = pathing.astarStatus(npc.entity.x, npc.entity.y, x, y, NPC_SEARCH_NODE_BUDGET, "bucket");
    const nodes = pathing.lastExpanded;
    this.stats.searches++;
    this.stats.searchNodes += nodes;
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

  /** One apply_moves call over the tick's decided steps, then the store and the paths follow its answers. */
  private applyMoves(rows: number): void {
    const moves = this.ports.moves;
    moves.applyMoves(rows);
    for (let row = 0; row < rows; row++) {
      const npc = this.movers[row]!;
      this.movers[row] = null;
      if (moves.moved(row)) {
        const x = moves.moveX(row);
        const y = moves.moveY(row);
        // Only a hostile attacks: its step onto a player is a blow, and it stays where it is.
        if ((npc.entity.flags & ENTITY_FLAG_HOSTILE) !== 0 && this.ports.bump(npc.entity, x, y)) {
          this.stats.attacks++;
          continue;
        }
        this.ports.entities.move(npc.entity, x, y);
        this.index.moved(npc);
        this.stats.steps++;
      } else {
        // The world changed under the path (a door, a tile update): plan again at the next decision.
        npc.pathLength = 0;
        this.stats.blocked++;
      }
    }
  }

  /**
   * At the end of a wake cycle (one second): how many NPCs decided at least twice in it — the
   * issue's measure of a live world — and a fresh count for the next. One pass over the NPCs a second.
   */
  private tallyDecisions(): void {
    let twice = 0;
    for (const npc of this.byEntity.values()) {
      if (npc.decisions >= 2) twice++;
      npc.decisions = 0;
    }
    this.decidingTwice = twice;
  }

  /** Whether a player was near `npc` in this wake cycle or the last. */
  private isAwake(npc: Npc): boolean {
    return npc.wakeStamp >= this.wakeCycle - 1;
  }

  /**
   * This entity tick's slice of the wake cycle: for every NPC within WAKE_RADIUS of the slice's
   * players, its distance to the nearest of them; the newly woken are filed in the timing wheel.
   * Sleeping NPCs are never touched: only the creatures in the chunks around players are looked at.
   */
  private wake(entityTick: number): void {
    const phase = entityTick % WAKE_CYCLE_ENTITY_TICKS;
    if (phase === 0) {
      this.tallyDecisions();
      this.awakeCount = this.cycleAwake;
      this.cycleAwake = 0;
      this.wakeCycle++;
      this.wakePlayers = this.byEntity.size === 0 ? [] : [...this.ports.players()];
      this.wakeDone = 0;
    }
    const players = this.wakePlayers;
    const end = Math.ceil((players.length * (phase + 1)) / WAKE_CYCLE_ENTITY_TICKS);
    const cycle = this.wakeCycle;
    const index = this.index;
    for (; this.wakeDone < end; this.wakeDone++) {
      const player = players[this.wakeDone];
      const px = player.x;
      const py = player.y;
      const cx0 = Math.floor((px - WAKE_RADIUS) / CHUNK_SIZE);
      const cx1 = Math.floor((px + WAKE_RADIUS) / CHUNK_SIZE);
      const cy0 = Math.floor((py - WAKE_RADIUS) / CHUNK_SIZE);
      const cy1 = Math.floor((py + WAKE_RADIUS) / CHUNK_SIZE);
      for (let cy = cy0; cy <= cy1; cy++) {
        for (let cx = cx0; cx <= cx1; cx++) {
          const bucket = index.chunk(cx, cy);
          if (bucket === undefined) continue;
          for (let i = 0; i < bucket.length; i++) {
            const npc = bucket[i];
            const entity = npc.entity;
            const distance = Math.max(Math.abs(entity.x - px), Math.abs(entity.y - py));
            if (distance > WAKE_RADIUS) continue;
            if (npc.wakeStamp !== cycle) {
              npc.wakeStamp = cycle;
              npc.nearest = distance;
              this.cycleAwake++;
              // Newly woken (asleep, it gained nothing): filed under the tick its energy is full.
              // A guard at its post has nothing to decide and stays out of the wheel.
              if (npc.dueTick < 0 && !npc.ready && !(npc.kind.behaviour === "guard" && npc.state === IDLE)) {
                npc.energyTick = entityTick;
                this.file(npc, this.nextDue(npc));
              }
            } else if (distance < npc.nearest) {
              npc.nearest = distance;
            }
          }
        }
      }
    }
  }

  private respawnDue(entityTick: number): void {
    for (const spawn of this.spawns) {
      while (spawn.due.length > 0 && spawn.due[0] <= entityTick) {
        spawn.due.shift();
        // A night's extra one still due at dawn is not brought.
        if (spawn.alive >= this.keeps(spawn)) continue;
        this.spawnOne(spawn);
        this.stats.respawns++;
      }
    }
  }

  private spawnOne(spawn: SpawnState): Npc {
    const { spec } = spawn;
    spawn.alive++;
    const cell = spec.cells[Math.floor(this.random() * spec.cells.length)];
    const kind = spec.kind;
    const entity = this.ports.entities.spawn(
      {
        typeId: kind.typeId,
        x: cell.x,
        y: cell.y,
        hp: kind.hp,
        hpMax: kind.hp,
        elo: kind.elo,
        flags: kind.behaviour === "hostile" ? ENTITY_FLAG_HOSTILE : 0,
        name: kind.name,
        meta: [],
      },
      "room",
    );
    const npc = this.newNpc(entity, kind, spawn, spec.objectId, cell.x, cell.y);
    // A random start spreads a spawn's NPCs over the entity ticks instead of moving them in lockstep.
    npc.energy = Math.floor(this.random() * ACTION_COST);
    return npc;
  }

  /** A creature of `kind` standing as `entity`, idle and asleep with no energy, listed in the room. */
  private newNpc(
    entity: StoredEntity,
    kind: NpcKind,
    spawn: SpawnState | null,
    spawnId: number,
    homeX: number,
    homeY: number,
  ): Npc {
    const npc: Npc = {
      entity,
      kind,
      spawn,
      spawnId,
      homeX,
      homeY,
      energy: 0,
      energyTick: this.entityTickNow,
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
    this.byEntity.set(entity.id, npc);
    this.index.add(npc);
    return npc;
  }
}

/** The path of a creature that never plans one (wanderers): empty, shared. */
const NO_PATH = new Uint8Array(0);

function sum(values: Int32Array): number {
  let total = 0;
  for (let i = 0; i < values.length; i++) total += values[i];
  return total;
}

function chebyshev(ax: number, ay: number, bx: number, by: number): number {
  return Math.max(Math.abs(ax - bx), Math.abs(ay - by));
}
