// Creatures crossing between regions of a cluster (ts/cluster/npc-link.ts, docs/scaling.md): one leaves
// this room as it stands (release) and arrives in another's as it stood (adopt), with its kind, home,
// energy and what it was doing — not dead, so its spawn, if it is this room's, still counts it while it
// is away (until it dies there: awayDied, or comes home through adopt).
import type { NpcKind } from "../content/npc-kinds.js";
import type { EntityFields, EntityStore } from "../entities/entities.js";
import { atPost, energyAt, type Npc, nextDue, type SpawnState } from "./npc.js";
import type { NpcRoster } from "./npc-roster.js";
import type { SpawnKeeper } from "./spawn-keeper.js";
import type { WakeSchedule } from "./wake-schedule.js";

/**
 * A creature crossing to another region's room: its entity's fields, its kind by name, its spawn (the
 * map object's id) and home, and what it was doing. Entity ticks are the world's (every region runs the
 * same tick), so a count of them carries over as it is.
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

export interface NpcCrossingPorts {
  readonly entities: Pick<EntityStore, "spawn">;
  readonly roster: NpcRoster;
  readonly spawns: Pick<SpawnKeeper, "byObjectId" | "lost">;
  readonly schedule: Pick<WakeSchedule, "now" | "file" | "keepAwake">;
  readonly stats: { releases: number; adoptions: number };
}

export class NpcCrossing {
  /** Creatures of this room's spawns away in other regions' rooms (release), by entity id: their spawns still count them. */
  private readonly away = new Map<number, SpawnState>();

  constructor(private readonly ports: NpcCrossingPorts) {}

  /**
   * A creature leaves this room for another region's: it is removed from the room and the store as it
   * stands. Returns what the other room needs to go on with it, or undefined for no such creature or one
   * lying dead (a corpse is not moved).
   */
  release(entityId: number): NpcTransfer | undefined {
    const { roster, schedule, stats } = this.ports;
    const npc = roster.get(entityId);
    if (npc === undefined || npc.entity.hp === 0) return undefined;
    const now = schedule.now;
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
      energy: energyAt(npc, now),
      state: npc.state,
      targetId: npc.targetId,
      calmFor: Math.max(0, npc.calmUntil - now),
    };
    roster.remove(npc);
    if (npc.spawn !== null) this.away.set(e.id, npc.spawn);
    stats.releases++;
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
    const { roster, schedule, spawns, stats } = this.ports;
    let spawn: SpawnState | null = this.away.get(transfer.id) ?? null;
    if (spawn !== null) this.away.delete(transfer.id);
    else {
      spawn = spawns.byObjectId(transfer.spawn) ?? null;
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
    const now = schedule.now;
    const npc = roster.add(entity, kind, spawn, transfer.spawn, transfer.homeX, transfer.homeY, now);
    npc.energy = Math.max(0, Math.min(npc.energyCap, transfer.energy));
    npc.energyTick = now;
    npc.state = transfer.state;
    npc.targetId = transfer.targetId;
    npc.calmUntil = now + transfer.calmFor;
    // It was awake where it came from (creatures move only while awake): it stays so until this room's
    // next wake pass says otherwise, and acts when its energy is full — a chase does not pause at a border.
    schedule.keepAwake(npc);
    if (!atPost(npc)) schedule.file(npc, nextDue(npc));
    stats.adoptions++;
    return npc;
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
    this.ports.spawns.lost(spawn);
    return true;
  }
}
