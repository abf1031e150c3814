// The map's doors (map/map-doors.ts, docs/maps.md § Doors): each a static
// interactable entity (type_id 4, ENTITY_TYPE_DOOR) on its cell, with state the
// server alone decides — open, closed, or locked until a player holding its key
// uses it. Opening or closing is one tile change through TileUpdates.set: the
// cell's id becomes the door's open or closed tile, so THE movement rule (wasm),
// the clients' prediction and every A* see the change at once, and the clients
// learn it through the TileUpdatePacket and its version chain — no packet of its own.
//
// Use (docs/protocol.md § 18): an EntityQuery for the door from a player within
// one tile (Chebyshev) toggles it. The client re-sends an unanswered query, so a
// query from a player for a door within DOOR_REPEAT_TICKS of that player's last
// use of it is taken as that use's repeat, not as a second toggle — also when
// another player used the door in between. Refusals are
// told through chat.tell, like a sign speaks: a door never closes on a player or
// a creature standing in it ("Something is in the way."), and a locked door
// without its key stays shut ("The door is locked.").
//
// Creatures (npc/npc-room.ts) open a closed, unlocked door through `openByCreature`
// when their kind allows it; they never unlock and never close one.
//
// A content script (scripting/world-actions.ts) may open, close, lock or unlock a door through `set`:
// the same tile change, the same refusal to close on someone.
//
// The map's doors are kept across restarts (issue 41): `keptStates` is what the
// periodic save writes (persistence/door-store.ts, just before the characters,
// from the same tick) and `restore` puts it back at start, for each door the map
// still draws as it did (`drawnOf`). A dungeon level's doors (dungeon/levels.ts) are
// added when the level is put in the world and removed when it is dropped; their
// state goes with them, and the level's tiles come back from its seed with every
// door closed (never locked: nobody is shut in by a level's door).
import { ENTITY_TYPE_DOOR } from "../../entity-types.js";
import { ENTITY_FLAG_STATIC } from "../../protocol/entity.js";
import type { ChatService } from "../talk/chat.js";
import type { Clock } from "../ops/clock.js";
import type { Entity, EntityStore, StoredEntity } from "../entities/entities.js";
import { staticInteractable } from "./interactables.js";
import type { Logger } from "../ops/log.js";
import type { DoorSpec } from "../map/map-doors.js";
import type { DoorState } from "../persistence/door-store.js";
import type { Session } from "../sessions/session.js";
import type { TileUpdates } from "./tile-updates.js";

/**
 * A repeated query within this many ticks (1 s at 24 Hz) from the player who just used the door is
 * the same use: the client re-sends an unanswered query after 250 ms, at most 3 times
 * (ts/client/core/interaction.ts), so its repeats all fall inside.
 */
export const DOOR_REPEAT_TICKS = 24;
/** Uses a door remembers for telling repeats: two players taking turns within a second are told apart. */
const DOOR_RECENT_USES = 4;
export const DOOR_IN_THE_WAY = "Something is in the way.";
export const DOOR_LOCKED = "The door is locked.";

/**
 * Who holds which key. The items room answers it from the player's inventory; until items exist,
 * nobody holds anything (game-server.ts wires that answer).
 */
export interface DoorKeys {
  /** Whether `session`'s player holds the item named `key` (its catalogue name, e.g. "rusty key"). */
  holds(session: Session, key: string): boolean;
}

/** What the doors use: the entities they stand as (and check the doorway with), tile changes, chat, keys. */
export interface DoorPorts {
  readonly entities: Pick<EntityStore, "spawn" | "remove" | "inSquare">;
  readonly tiles: Pick<TileUpdates, "set">;
  readonly chat: Pick<ChatService, "tell">;
  readonly keys: DoorKeys;
  readonly clock: Pick<Clock, "tick">;
  readonly log: Logger;
}

/** Who uses a door: a player's entity here (or, across a border, its ghost: ts/cluster/door-link.ts). */
export type DoorUser = Pick<Entity, "id" | "x" | "y" | "hp" | "hpMax">;

/**
 * The doors of another process of a cluster: a door seen here as a ghost (a neighbour region's) is
 * used by asking its region (ts/cluster/door-link.ts), which answers the player through `tell`.
 */
export interface RemoteDoors {
  isRemote(entity: Entity): boolean;
  use(session: Session, door: Entity): void;
}

/** Whether `user` can use a door on (x, y): within one tile, and not lying dead (combat/). */
function canUse(user: DoorUser, x: number, y: number): boolean {
  if (Math.max(Math.abs(user.x - x), Math.abs(user.y - y)) > 1) return false;
  return !(user.hp === 0 && user.hpMax > 0);
}

/** One door and its state. */
export interface Door {
  readonly spec: DoorSpec;
  readonly entity: Entity;
  open: boolean;
  locked: boolean;
  /** A map's door, kept across restarts; false for a dungeon level's, forgotten with its level. */
  readonly kept: boolean;
  /** drawnOf(spec): what its kept state is saved with. */
  readonly drawn: string;
  /** The player entity that used it last, and the tick it did. */
  lastUserId: number;
  lastUseTick: number;
  /** The last DOOR_RECENT_USES uses (player entity id, tick), a ring: a repeat of any of them is no new use. */
  readonly recentUsers: Int32Array;
  readonly recentTicks: Float64Array;
  recentAt: number;
}

/** A cell's key in the by-cell map: maps hold at most 2^26 cells, so x < 2^26. */
function cellKey(x: number, y: number): number {
  return y * 0x4000000 + x;
}

export class Doors {
  private readonly byEntity = new Map<number, Door>();
  private readonly byCell = new Map<number, Door>();
  /** Reused by the doorway check: entities on the door's cell. */
  private readonly inDoorway: StoredEntity[] = [];
  readonly stats = { opened: 0, closed: 0, unlocked: 0, refusedInTheWay: 0, refusedLocked: 0, openedByCreatures: 0 };
  /** Where the doors of other processes are used (a cluster's neighbour regions); null in one process. */
  remote: RemoteDoors | null = null;

  constructor(
    private readonly ports: DoorPorts,
    specs: readonly DoorSpec[],
  ) {
    this.add(specs, true);
  }

  /**
   * Puts doors into the world: the map's at start (`kept`: their state is saved and restored), and
   * at run time a dungeon level's when it is installed. Each stands as its entity, in the state its
   * spec says. Returns their entity ids for `remove`.
   */
  add(specs: readonly DoorSpec[], kept = false): number[] {
    const ids: number[] = [];
    for (const spec of specs) {
      if (this.byCell.has(cellKey(spec.x, spec.y))) {
        // One door per cell: the map's reader refuses a second; a level never makes one.
        this.ports.log.error("a second door on a cell is ignored", { x: spec.x, y: spec.y });
        continue;
      }
      const entity = this.ports.entities.spawn(
        staticInteractable(ENTITY_TYPE_DOOR, spec.x, spec.y, doorName(spec.name, spec.locked)),
        // Nothing schedules a door's steps: the room (this one) is its only driver.
        "room",
      );
      const door: Door = {
        spec,
        entity,
        open: spec.open,
        locked: spec.locked,
        kept,
        drawn: drawnOf(spec),
        lastUserId: 0,
        lastUseTick: 0,
        recentUsers: new Int32Array(DOOR_RECENT_USES),
        recentTicks: new Float64Array(DOOR_RECENT_USES),
        recentAt: 0,
      };
      this.byEntity.set(entity.id, door);
      this.byCell.set(cellKey(spec.x, spec.y), door);
      ids.push(entity.id);
    }
    return ids;
  }

  /**
   * Takes doors added by `add` out of the world: their entities go, and their state with them. The
   * tiles are not touched — the level's cells are cleared with it (World.clearSlot).
   */
  remove(entityIds: readonly number[]): void {
    for (const id of entityIds) {
      const door = this.byEntity.get(id);
      if (door === undefined) continue;
      this.byEntity.delete(id);
      this.byCell.delete(cellKey(door.spec.x, door.spec.y));
      this.ports.entities.remove(door.entity);
    }
  }

  get size(): number {
    return this.byEntity.size;
  }

  /** The kept doors' states now (the map's doors): what the periodic save writes when it changed. */
  *keptStates(): Generator<DoorState> {
    for (const door of this.byEntity.values()) {
      if (!door.kept) continue;
      const { spec } = door;
      const asDrawn = door.open === spec.open && door.locked === spec.locked;
      yield { x: spec.x, y: spec.y, open: door.open, locked: door.locked, drawn: door.drawn, asDrawn };
    }
  }

  /**
   * At start, before anyone is in the world: each kept door of `states` is put back as it was saved,
   * when the map still draws that door as it did then (a door the host redrew keeps the map's state).
   * Returns how many were put back and how many the map overrules.
   */
  restore(states: readonly DoorState[]): { restored: number; overruled: number } {
    let restored = 0;
    let overruled = 0;
    for (const state of states) {
      const door = this.byCell.get(cellKey(state.x, state.y));
      if (door === undefined || !door.kept || door.drawn !== state.drawn) {
        overruled++;
        continue;
      }
      if (state.open !== door.open) {
        this.ports.tiles.set(door.spec.x, door.spec.y, state.open ? door.spec.openTile : door.spec.closedTile);
        door.open = state.open;
      }
      if (state.locked !== door.locked) {
        door.locked = state.locked;
        door.entity.name = doorName(door.spec.name, door.locked);
      }
      restored++;
    }
    return { restored, overruled };
  }

  /** Whether some door stands locked and closed now: only then can a door shut anyone in (enclosure.ts). */
  anyLocked(): boolean {
    for (const door of this.byEntity.values()) if (door.locked && !door.open) return true;
    return false;
  }

  /**
   * Whether a player holding the keys `holds` says it holds can pass the door on (x, y): an open door,
   * a closed one not locked, or a locked one it holds the key of. Undefined when no door is there.
   */
  passable(x: number, y: number, holds: (key: string) => boolean): boolean | undefined {
    const door = this.byCell.get(cellKey(x, y));
    if (door === undefined) return undefined;
    return door.open || !door.locked || (door.spec.key !== null && holds(door.spec.key));
  }

  /** The door on (x, y), if any. */
  at(x: number, y: number): Door | undefined {
    return this.byCell.get(cellKey(x, y));
  }

  /** The door standing as entity `entityId`, if any. */
  ofEntity(entityId: number): Door | undefined {
    return this.byEntity.get(entityId);
  }

  /**
   * An EntityQuery from `session` for `entity`: true when it was a use of a door (the player within
   * one tile), including a repeat of the last use that changes nothing. A door this process does not
   * hold — a neighbour region's, seen here as a ghost — is used there (`remote`).
   */
  onQuery(session: Session, entity: Entity): boolean {
    const door = this.byEntity.get(entity.id);
    if (door === undefined) {
      if (entity.typeId !== ENTITY_TYPE_DOOR || this.remote === null || !this.remote.isRemote(entity)) return false;
      if (!canUse(session.entity, entity.x, entity.y)) return false;
      this.remote.use(session, entity);
      return true;
    }
    const said = this.use(door, session.entity, (key) => this.ports.keys.holds(session, key));
    if (said === undefined) return false;
    if (said !== null) this.tell(session, door, said);
    return true;
  }

  /**
   * A use of the door standing as `entityId` by a player of another process, `user` (its ghost here),
   * who holds the door's key or not (its process knows its bag): what to tell that player, and as whom;
   * null when it was no use (no such door here, out of reach, dead).
   */
  useFrom(user: DoorUser, entityId: number, holdsKey: boolean): { text: string | null; speaker: string } | null {
    const door = this.byEntity.get(entityId);
    if (door === undefined) return null;
    const said = this.use(door, user, () => holdsKey);
    return said === undefined ? null : { text: said, speaker: door.entity.name };
  }

  /** The doors this process holds, as (x, y, tile shown now), for a neighbour region's copy of their cells. */
  *cells(): Generator<{ x: number; y: number; tile: number }> {
    for (const door of this.byEntity.values()) {
      const { x, y } = door.spec;
      yield { x, y, tile: door.open ? door.spec.openTile : door.spec.closedTile };
    }
  }

  /**
   * `user` uses `door`: undefined when it is no use (out of reach, dead), else what it is told (null:
   * nothing — it opened or closed). A repeat of a recent use by the same player changes nothing.
   */
  private use(door: Door, user: DoorUser, holds: (key: string) => boolean): string | null | undefined {
    if (!canUse(user, door.spec.x, door.spec.y)) return undefined;
    const tick = this.ports.clock.tick;
    if (isRepeat(door, user.id, tick)) return null;
    door.lastUserId = user.id;
    door.lastUseTick = tick;
    door.recentUsers[door.recentAt] = user.id;
    door.recentTicks[door.recentAt] = tick;
    door.recentAt = (door.recentAt + 1) % DOOR_RECENT_USES;
    if (door.open) return this.close(door) ? null : DOOR_IN_THE_WAY;
    let said: string | null = null;
    if (door.locked) {
      const key = door.spec.key!;
      if (!holds(key)) {
        this.stats.refusedLocked++;
        return DOOR_LOCKED;
      }
      // Unlocked for good (until a restart): the next player needs no key.
      door.locked = false;
      door.entity.name = doorName(door.spec.name, false);
      this.stats.unlocked++;
      said = `You unlock the door with the ${key}.`;
    }
    this.open(door);
    return said;
  }

  /**
   * A creature (npc/npc-room.ts) opens the door on (x, y): true when a closed, unlocked door was
   * there and is open now. Creatures never unlock a door and never close one.
   */
  openByCreature(x: number, y: number): boolean {
    const door = this.byCell.get(cellKey(x, y));
    if (door === undefined || door.open || door.locked) return false;
    this.open(door);
    this.stats.openedByCreatures++;
    return true;
  }

  /**
   * A content script sets the door on (x, y): "open" (unlocking it), "close", "lock" (closing it) or
   * "unlock". False when no door is there, or it cannot close because something stands in it.
   */
  set(x: number, y: number, state: "open" | "close" | "lock" | "unlock"): boolean {
    const door = this.byCell.get(cellKey(x, y));
    if (door === undefined) return false;
    if (state === "open" || state === "unlock") {
      if (door.locked) {
        door.locked = false;
        door.entity.name = doorName(door.spec.name, false);
        this.stats.unlocked++;
      }
      if (state === "open" && !door.open) this.open(door);
      return true;
    }
    if (door.open && !this.close(door)) return false;
    if (state === "lock" && !door.locked) {
      door.locked = true;
      door.entity.name = doorName(door.spec.name, true);
    }
    return true;
  }

  private open(door: Door): void {
    this.ports.tiles.set(door.spec.x, door.spec.y, door.spec.openTile);
    door.open = true;
    this.stats.opened++;
  }

  /** Closes `door` unless a player or a creature (anything not static, corpses too) stands in it. */
  private close(door: Door): boolean {
    const { x, y } = door.spec;
    const near = this.inDoorway;
    const count = this.ports.entities.inSquare(x, y, 0, near, false);
    for (let i = 0; i < count; i++) {
      if ((near[i].flags & ENTITY_FLAG_STATIC) !== 0) continue;
      this.stats.refusedInTheWay++;
      return false;
    }
    this.ports.tiles.set(x, y, door.spec.closedTile);
    door.open = false;
    this.stats.closed++;
    return true;
  }

  private tell(session: Session, door: Door, text: string): void {
    try {
      this.ports.chat.tell(session, text, door.entity.name);
    } catch (error) {
      // A door's name that chat refuses is a map problem, not a reason to stop the server.
      this.ports.log.error("door message failed", { entityId: door.entity.id, error: String(error) });
    }
  }
}

/** Whether player `userId` used `door` less than DOOR_REPEAT_TICKS before `tick`: a re-sent query of that use. */
function isRepeat(door: Door, userId: number, tick: number): boolean {
  for (let i = 0; i < DOOR_RECENT_USES; i++) {
    if (door.recentUsers[i] === userId && tick - door.recentTicks[i] < DOOR_REPEAT_TICKS) return true;
  }
  return false;
}

/**
 * The door as the map draws it — its tiles, its state at start and its key — which a kept state is saved
 * with: a state applies only to the door it was saved from, not to one the host has since redrawn.
 */
export function drawnOf(spec: DoorSpec): string {
  return JSON.stringify([spec.closedTile, spec.openTile, spec.open, spec.locked, spec.key]);
}

/** A door's entity name: the map object's name, else what it is. */
function doorName(name: string, locked: boolean): string {
  const trimmed = name.replace(/[\u0000-\u001f\u007f-\u009f]/gu, "").trim();
  return trimmed !== "" ? trimmed : locked ? "locked door" : "door";
}
