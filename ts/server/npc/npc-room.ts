// The NPC room: the map's creatures, living on the action-point model
// (ts/action-points.ts) under the think budget (think-budget.ts). It wires
// its parts, each in a file named for its job, and runs the think loop:
//  - npc.ts: one creature, its energy in closed form;
//  - npc-roster.ts: the creatures alive here, by id and by chunk;
//  - wake-schedule.ts: who is awake (near a player) and when each is due to
//    act (the timing wheel, the ready queue nearest first);
//  - npc-thinking.ts: how a creature decides its next step (wander, notice,
//    chase along a cached A* path, walk home, open a door);
//  - spawn-keeper.ts: spawns keep their counts, by day and by night;
//  - npc-crossing.ts: creatures crossing between a cluster's regions.
//
// Every entity tick (every 2nd simulation tick, 12 Hz): respawns; this tick's
// slice of the wake cycle; the NPCs due this tick think nearest first while
// the budget lasts, each paying for its decision in budget units — when the
// budget is gone the farther ones are shed: they stay queued, first in line at
// their distance, at no cost; then every decided step becomes a row of the
// wasm MOVES table, and one apply_moves call checks them all with THE movement
// rule — the same rule players' steps, the clients' prediction and A* use.
// Only tiles block: entities never block each other's steps (docs/netcode.md §
// What blocks what).
import { ACTION_COST } from "../../action-points.js";
import { ENTITY_FLAG_HOSTILE, ENTITY_FLAG_INTERACTABLE } from "../../protocol/entity.js";
import { mulberry32 } from "../../random.js";
import type { Weather } from "../../world-time.js";
import type { MoveTable, Pathing } from "../../wasm/sim.js";
import type { NpcKind } from "../content/npc-kinds.js";
import type { NpcSpawnSpec } from "../content/npc-spawns.js";
import type { EntityStore, StoredEntity } from "../entities/entities.js";
import type { Logger } from "../ops/log.js";
import type { Doors } from "../world/doors.js";
import { atPost, CHASE, energyAt, type Npc, nextDue } from "./npc.js";
import { NpcCrossing, type NpcTransfer } from "./npc-crossing.js";
import { NpcRoster } from "./npc-roster.js";
import { type Conditions, NpcThinking } from "./npc-thinking.js";
import { SpawnKeeper } from "./spawn-keeper.js";
import { THINK_COST, thinkBudget } from "./think-budget.js";
import { WAKE_RADIUS, WakeSchedule } from "./wake-schedule.js";

/** Width in tiles of the distance bands thinks and sheds are counted in (NpcStats.byDistance). */
export const DISTANCE_BAND_TILES = 8;
const DISTANCE_BANDS = Math.floor(WAKE_RADIUS / DISTANCE_BAND_TILES) + 1;

/** What the room uses: the entities it lives among, THE rule and A*, the move kernel, the log. */
export interface NpcPorts {
  readonly entities: Pick<EntityStore, "spawn" | "remove" | "move" | "inSquare" | "get" | "changed">;
  readonly pathing: Pathing;
  readonly moves: MoveTable;
  /**
   * What the creatures wake near: the entities of the players in play, and in a cluster's region the
   * ghosts of its neighbours' players (so a creature by a border is awake for a player across it).
   */
  readonly players: () => Iterable<{ readonly x: number; readonly y: number }>;
  /** The sessions in play: how many clients there are is the budget's divisor. */
  readonly sessions: { readonly size: number };
  /**
   * The overload governor (../ops/overload.ts): the share of the budget an overloaded server still grants
   * (1 at ease, down to a floor under load); absent: always 1.
   */
  readonly overload?: { readonly npcBudgetScale: number };
  /** The combat room (../combat/combat-room.ts): a hostile's step onto a player is a blow. */
  readonly combat: NpcCombat;
  /**
   * The content scripts (../scripting/script-room.ts): the think budget units their work since the last
   * entity tick cost, taken from this tick's budget, so creatures shed under scripted load like under any.
   */
  readonly scripts?: {
    units(): number;
    /** Whether a script gives creatures of this kind words: they are talked to (flagged interactable), not fought. */
    talks(kindName: string): boolean;
  };
  /** The doors (doors.ts): a creature whose kind opensDoors opens a closed, unlocked one in its way. */
  readonly doors: Pick<Doors, "openByCreature">;
  readonly log: Logger;
}

/** What a creature asks of the combat room (CombatRoom.bump). */
export interface NpcCombat {
  /**
   * A hostile's step to (x, y), which THE rule allowed: an attack when a foe stands there (the creature
   * stays). Returns whether it was one.
   */
  bump(attacker: StoredEntity, x: number, y: number): boolean;
}

export interface NpcOptions {
  /** BASE of budget = BASE / (clients + 1) units per entity tick. */
  thinkBudgetBase: number;
  /** Seed of the room's random stream (wandering, spawn cells): the same seed, the same creatures. */
  seed: number;
  /** Entity ticks per second, for turning respawn seconds into entity ticks. */
  entityTicksPerSecond: number;
}

/** What a creature asks of the combat room (CombatRoom.bump). */
export interface NpcCombat {
  /**
   * A hostile's step to (x, y), which THE rule allowed: an attack when a foe stands there (the creature
   * stays). Returns whether it was one.
   */
  bump(attacker: StoredEntity, x: number, y: number): boolean;
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
  private readonly roster: NpcRoster;
  private readonly schedule: WakeSchedule;
  private readonly thinking: NpcThinking;
  private readonly spawns: SpawnKeeper;
  private readonly crossing: NpcCrossing;
  /** A creature adopted from another region died here: that region's spawn must hear of it (a cluster sets this). */
  foreignDeath: ((npc: Npc) => void) | null = null;
  /** The world's conditions (setConditions): night, and the weather. */
  private readonly conditions: Conditions = { night: false, weather: "clear" };
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
    // One seeded stream for wandering and spawn cells, drawn in the order the tick runs them.
    const random = mulberry32(options.seed);
    const perSecond = Math.max(1, Math.round(options.entityTicksPerSecond));
    this.recentThinks = new Int32Array(perSecond);
    this.recentSpent = new Int32Array(perSecond);
    this.recentShed = new Int32Array(perSecond);
    const { entities, stats } = { entities: ports.entities, stats: this.stats };
    this.roster = new NpcRoster(entities);
    this.schedule = new WakeSchedule(this.roster, ports.players);
    const roster = this.roster;
    const schedule = this.schedule;
    this.thinking = new NpcThinking({
      entities,
      pathing: ports.pathing,
      doors: ports.doors,
      conditions: this.conditions,
      random,
      stats,
    });
    this.spawns = new SpawnKeeper(
      {
        entities,
        roster,
        schedule,
        random,
        entityTicksPerSecond: options.entityTicksPerSecond,
        stats,
        extraFlags: (kind) => this.talkFlag(kind),
      },
      specs,
    );
    this.crossing = new NpcCrossing({ entities, roster, spawns: this.spawns, schedule, stats });
  }

  /** NPCs alive. */
  get size(): number {
    return this.roster.size;
  }

  /** NPCs a player was near in the last complete wake cycle (or this one, if more). */
  get awake(): number {
    return this.schedule.awake;
  }

  /** NPCs that decided at least twice in the last complete wake cycle (one second). */
  get decidingTwice(): number {
    return this.schedule.decidingTwice;
  }

  /** The NPC standing as entity `id`, if any. */
  get(entityId: number): Npc | undefined {
    return this.roster.get(entityId);
  }

  values(): IterableIterator<Npc> {
    return this.roster.values();
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
    const npc = this.roster.get(entityId);
    const attacker = this.ports.entities.get(attackerId);
    if (npc === undefined || attacker === undefined) return false;
    npc.entity.flags |= ENTITY_FLAG_HOSTILE;
    this.ports.entities.changed(npc.entity);
    npc.state = CHASE;
    npc.targetId = attackerId;
    npc.pathLength = 0;
    // A guard at its post was out of the timing wheel; an awake one is filed now (a sleeping one when woken).
    const schedule = this.schedule;
    if (npc.dueTick < 0 && !npc.ready && schedule.isAwake(npc)) {
      npc.energy = Math.min(npc.energy, ACTION_COST);
      npc.energyTick = schedule.now;
      schedule.file(npc, nextDue(npc));
    }
    return true;
  }

  /** ENTITY_FLAG_INTERACTABLE for a kind the scripts give words (never a hostile's: it is fought), else 0. */
  private talkFlag(kind: NpcKind): number {
    return kind.behaviour !== "hostile" && this.ports.scripts?.talks(kind.name) === true ? ENTITY_FLAG_INTERACTABLE : 0;
  }

  /** The scripts changed (loaded, reloaded): every creature's talk flag follows its kind's. */
  refreshTalkFlags(): void {
    for (const npc of this.roster.values()) {
      const flags = (npc.entity.flags & ~ENTITY_FLAG_INTERACTABLE) | this.talkFlag(npc.kind);
      if (flags === npc.entity.flags) continue;
      npc.entity.flags = flags;
      this.ports.entities.changed(npc.entity);
    }
  }

  /**
   * Spawns added at run time (a dungeon level coming alive, ../dungeon/levels.ts): their NPCs appear now.
   * Returns the handles removeSpawns takes.
   */
  addSpawns(specs: readonly NpcSpawnSpec[]): readonly object[] {
    return this.spawns.add(specs);
  }

  /**
   * One creature of `kind` on (x, y), never replaced (a content script's `spawn`): its entity id, and the
   * handle `removeSpawns` takes to despawn it. The cell must be free (the caller checks).
   */
  summon(kind: NpcKind, x: number, y: number, name: string): { entityId: number; handle: object } {
    const { handle, npc } = this.spawns.summon(
      {
        objectId: 0,
        name,
        kind,
        x,
        y,
        width: 1,
        height: 1,
        count: 1,
        respawnSeconds: 0,
        cells: [{ x, y }],
      },
      name,
    );
    return { entityId: npc.entity.id, handle };
  }

  /** Removes spawns added by addSpawns and every NPC of theirs, none brought back (a level dropped). */
  removeSpawns(handles: readonly object[]): void {
    this.spawns.remove(handles);
  }

  /**
   * Removes a dead NPC; its spawn brings a new one after the respawn time. A creature adopted from
   * another region is reported to it (foreignDeath): its spawn is there.
   */
  kill(entityId: number): boolean {
    const npc = this.roster.get(entityId);
    if (npc === undefined) return false;
    this.roster.remove(npc);
    this.stats.deaths++;
    if (npc.spawn === null) this.foreignDeath?.(npc);
    else this.spawns.lost(npc.spawn);
    return true;
  }

  /** A creature of this room's spawns died away in another region: its spawn replaces it (npc-crossing.ts). */
  awayDied(entityId: number): boolean {
    return this.crossing.awayDied(entityId);
  }

  /** A creature leaves this room for another region's (npc-crossing.ts); undefined for none or a corpse. */
  release(entityId: number): NpcTransfer | undefined {
    return this.crossing.release(entityId);
  }

  /** A creature arrives from another region's room, as it stood there (npc-crossing.ts). */
  adopt(transfer: NpcTransfer, kind: NpcKind): Npc {
    return this.crossing.adopt(transfer, kind);
  }

  /**
   * The world's conditions (the world clock, each entity tick): at night a spawn keeps its kind's
   * nightSpawns times its count (spawn-keeper.ts) and perception takes the kind's night radius; the
   * weather shortens it (ts/world-time.ts).
   */
  setConditions(night: boolean, weather: Weather): void {
    this.conditions.weather = weather;
    this.conditions.night = night;
    this.spawns.setNight(night);
  }

  /** One entity tick: respawns, this tick's slice of the wake cycle, the due NPCs' thinking under the budget, moving. */
  entityTick(entityTick: number): void {
    const schedule = this.schedule;
    schedule.now = entityTick;
    this.spawns.respawnDue(entityTick);
    schedule.wake(entityTick);
    const scale = this.ports.overload?.npcBudgetScale ?? 1;
    let budget = Math.max(
      THINK_COST,
      Math.floor(thinkBudget(this.options.thinkBudgetBase, this.ports.sessions.size) * scale) -
        (this.ports.scripts?.units() ?? 0),
    );
    this.lastTickBudget = budget;
    schedule.takeDue(entityTick);
    let spent = 0;
    let thinks = 0;
    let rows = 0;
    const moves = this.ports.moves;
    const capacity = moves.moveCapacity;
    const byDistance = this.stats.byDistance;
    const ready = schedule.ready;
    const thinking = this.thinking;
    while (budget > 0) {
      const npc = ready.pop();
      if (npc === undefined) break;
      npc.ready = false;
      // A corpse (hp 0, combat/) decides nothing and is not filed again: the combat room removes it.
      if (!npc.alive || npc.entity.hp === 0) continue;
      if (!schedule.isAwake(npc)) {
        // Fell asleep while waiting: it keeps its energy and leaves until a wake pass finds a player near.
        npc.energy = energyAt(npc, entityTick);
        npc.energyTick = entityTick;
        continue;
      }
      byDistance[Math.floor(npc.nearest / DISTANCE_BAND_TILES)].thinks++;
      npc.decisions++;
      const cost = thinking.think(npc, entityTick);
      budget -= cost;
      spent += cost;
      thinks++;
      npc.energy = energyAt(npc, entityTick) - ACTION_COST;
      npc.energyTick = entityTick;
      // A guard back at its post decides nothing until provoked: it leaves the wheel.
      if (!atPost(npc)) schedule.file(npc, nextDue(npc));
      const action = thinking.decided;
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
        if ((npc.entity.flags & ENTITY_FLAG_HOSTILE) !== 0 && this.ports.combat.bump(npc.entity, x, y)) {
          this.stats.attacks++;
          continue;
        }
        this.ports.entities.move(npc.entity, x, y);
        this.roster.moved(npc);
        this.stats.steps++;
      } else {
        // The world changed under the path (a door, a tile update): plan again at the next decision.
        npc.pathLength = 0;
        this.stats.blocked++;
      }
    }
  }
}

function sum(values: Int32Array): number {
  let total = 0;
  for (let i = 0; i < values.length; i++) total += values[i];
  return total;
}
