// Spawns (docs/maps.md § NPC spawns): each spawn area of the map — or of a dungeon level while it is in
// the world — keeps its count of creatures alive. One that dies (the combat room's kill) is replaced after
// its respawn time on a random free cell of the area; at night a spawn keeps its kind's nightSpawns times
// its count, the extra ones coming one by one, a respawn time apart, and not replaced by day. A spawn
// made `once` (a content script's creature) is one creature, never replaced.
import { ACTION_COST } from "../../action-points.js";
import { ENTITY_FLAG_HOSTILE } from "../../protocol/entity.js";
import { nightSpawnsOf } from "../content/npc-kinds.js";
import type { NpcKind } from "../content/npc-kinds.js";
import type { NpcSpawnSpec } from "../content/npc-spawns.js";
import type { EntityStore } from "../entities/entities.js";
import type { Npc, SpawnState } from "./npc.js";
import type { NpcRoster } from "./npc-roster.js";
import type { WakeSchedule } from "./wake-schedule.js";

export interface SpawnKeeperPorts {
  readonly entities: Pick<EntityStore, "spawn">;
  readonly roster: NpcRoster;
  /** The entity tick now (WakeSchedule.now). */
  readonly schedule: Pick<WakeSchedule, "now">;
  /** The room's seeded random stream (shared with its thinking: one stream, one order of draws). */
  readonly random: () => number;
  /** Entity ticks per second, for turning respawn seconds into entity ticks. */
  readonly entityTicksPerSecond: number;
  readonly stats: { respawns: number };
  /** Flags a new creature of `kind` gets beside its behaviour's (a creature the scripts give words is interactable). */
  readonly extraFlags: (kind: NpcKind) => number;
}

export class SpawnKeeper {
  private readonly spawns: SpawnState[] = [];
  private night = false;

  constructor(
    private readonly ports: SpawnKeeperPorts,
    specs: readonly NpcSpawnSpec[],
  ) {
    this.add(specs);
  }

  /** Spawns added (the map's at start, a dungeon level's as it comes alive): their NPCs appear now. */
  add(specs: readonly NpcSpawnSpec[]): SpawnState[] {
    const added: SpawnState[] = [];
    for (const spec of specs) {
      const spawn: SpawnState = { spec, due: [], alive: 0 };
      this.spawns.push(spawn);
      added.push(spawn);
      for (let i = 0; i < spec.count; i++) this.spawnOne(spawn);
    }
    return added;
  }

  /** Removes spawns added by `add` and every NPC of theirs, none brought back (a level dropped). */
  remove(handles: readonly object[]): void {
    const gone = new Set(handles);
    for (let i = this.spawns.length - 1; i >= 0; i--) if (gone.has(this.spawns[i])) this.spawns.splice(i, 1);
    for (const npc of [...this.ports.roster.values()]) {
      if (npc.spawn === null || !gone.has(npc.spawn)) continue;
      this.ports.roster.remove(npc);
      npc.spawn.alive--;
    }
  }

  /** A spawn of one creature that is never replaced (`spec.once`), named `name`: its handle and the creature. */
  summon(spec: NpcSpawnSpec, name: string): { handle: object; npc: Npc } {
    const spawn: SpawnState = { spec: { ...spec, count: 1, once: true }, due: [], alive: 0 };
    this.spawns.push(spawn);
    const npc = this.spawnOne(spawn);
    npc.entity.name = name; // before any broadcast: it appears with it
    return { handle: spawn, npc };
  }

  /** The spawn of map object `objectId`, if it is this room's. */
  byObjectId(objectId: number): SpawnState | undefined {
    return this.spawns.find((s) => s.spec.objectId === objectId);
  }

  /** One of spawn's creatures is gone for good: replaced after the respawn time while the spawn is below what it keeps. */
  lost(spawn: SpawnState): void {
    spawn.alive--;
    if (spawn.spec.once === true) {
      const index = this.spawns.indexOf(spawn);
      if (index >= 0) this.spawns.splice(index, 1);
      return;
    }
    // Replaced only while the spawn is below what it keeps now: a night's extra ones are not, by day.
    if (spawn.alive + spawn.due.length < this.keeps(spawn)) {
      spawn.due.push(this.ports.schedule.now + this.respawnTicks(spawn));
    }
  }

  /** Night falls or day breaks: at nightfall each spawn's extra creatures are due, one a respawn time apart. */
  setNight(night: boolean): void {
    if (night === this.night) return;
    this.night = night;
    if (!night) return;
    const entityTick = this.ports.schedule.now;
    for (const spawn of this.spawns) {
      const missing = this.keeps(spawn) - spawn.alive - spawn.due.length;
      for (let i = 1; i <= missing; i++) spawn.due.push(entityTick + i * this.respawnTicks(spawn));
    }
  }

  /** The replacements due by `entityTick` appear (a night's extra one still due at dawn is not brought). */
  respawnDue(entityTick: number): void {
    for (const spawn of this.spawns) {
      while (spawn.due.length > 0 && spawn.due[0] <= entityTick) {
        spawn.due.shift();
        if (spawn.alive >= this.keeps(spawn)) continue;
        this.spawnOne(spawn);
        this.ports.stats.respawns++;
      }
    }
  }

  /** How many NPCs `spawn` keeps now. */
  private keeps(spawn: SpawnState): number {
    const count = spawn.spec.count;
    if (spawn.spec.once === true) return count;
    return this.night ? Math.ceil(count * nightSpawnsOf(spawn.spec.kind)) : count;
  }

  private respawnTicks(spawn: SpawnState): number {
    return Math.max(1, Math.round(spawn.spec.respawnSeconds * this.ports.entityTicksPerSecond));
  }

  private spawnOne(spawn: SpawnState): Npc {
    const { spec } = spawn;
    const { random } = this.ports;
    spawn.alive++;
    const cell = spec.cells[Math.floor(random() * spec.cells.length)];
    const kind = spec.kind;
    const entity = this.ports.entities.spawn(
      {
        typeId: kind.typeId,
        x: cell.x,
        y: cell.y,
        hp: kind.hp,
        hpMax: kind.hp,
        elo: kind.elo,
        flags: (kind.behaviour === "hostile" ? ENTITY_FLAG_HOSTILE : 0) | this.ports.extraFlags(kind),
        name: kind.name,
        meta: [],
      },
      "room",
    );
    const npc = this.ports.roster.add(entity, kind, spawn, spec.objectId, cell.x, cell.y, this.ports.schedule.now);
    // A random start spreads a spawn's NPCs over the entity ticks instead of moving them in lockstep.
    npc.energy = Math.floor(random() * ACTION_COST);
    return npc;
  }
}
