// The warps room (issue 16, docs/maps.md § Warps): a player who steps onto a
// warp's cells is moved to its destination — a teleport, which the clients
// see as a jump of more than one tile and snap to (prediction replays from the
// new confirmed tile, interpolation and the camera jump: docs/netcode.md §
// Teleports). Stairs are handed to the dungeon levels (dungeon/levels.ts).
//
// Only stepping on sends: a player who arrives on a warp cell (the stairs up
// at a level's entry, a two-way door pair) stays until it steps off and on
// again, so no arrival bounces back. Checked once per movement window over the
// players, one Map lookup each; nothing is allocated per player or per tick.
import { GRID_MAX_EDGE_TILES, type WorldWarp } from "./areas.js";
import type { EntityStore, StoredEntity } from "../entities/entities.js";
import type { Session } from "../sessions/session.js";

export interface WarpPorts {
  entities: Pick<EntityStore, "move">;
  /** The dungeon levels (../dungeon/levels.ts) decide where stairs lead (and may make the player wait for a level). */
  levels: WarpLevels;
}

/** What a step onto stairs asks of the dungeon levels (DungeonLevels.onStairs). */
export interface WarpLevels {
  onStairs(session: Session, warp: WorldWarp): void;
}

export interface WarpStats {
  /** Warps followed (teleports made), stairs included once they delivered. */
  teleports: number;
  /** Steps onto stairs handed to the levels. */
  stairs: number;
}

const cellKey = (x: number, y: number): number => y * GRID_MAX_EDGE_TILES + x;

export class Warps {
  private readonly byCell = new Map<number, WorldWarp>();
  /** Entity id → the warp cell it stands on and has been sent from (or arrived on); absent when on none. */
  private readonly standing = new Map<number, number>();
  readonly stats: WarpStats = { teleports: 0, stairs: 0 };

  constructor(
    private readonly ports: WarpPorts,
    warps: readonly WorldWarp[],
  ) {
    this.add(warps);
  }

  get size(): number {
    return this.byCell.size;
  }

  /** Every warp in the world now (the map's, and the stairs of each level in it), each once. */
  all(): WorldWarp[] {
    return [...new Set(this.byCell.values())];
  }

  /** The warp whose cells hold (x, y), if any. */
  at(x: number, y: number): WorldWarp | undefined {
    return this.byCell.get(cellKey(x, y));
  }

  /** Adds warps (a level's stairs when it comes alive); a cell already held keeps its first warp. */
  add(warps: readonly WorldWarp[]): void {
    for (const warp of warps) {
      for (let y = warp.y; y < warp.y + warp.height; y++) {
        for (let x = warp.x; x < warp.x + warp.width; x++) {
          const key = cellKey(x, y);
          if (!this.byCell.has(key)) this.byCell.set(key, warp);
        }
      }
    }
  }

  /** Removes warps added before (a level dropped). */
  remove(warps: readonly WorldWarp[]): void {
    for (const warp of warps) {
      for (let y = warp.y; y < warp.y + warp.height; y++) {
        for (let x = warp.x; x < warp.x + warp.width; x++) {
          const key = cellKey(x, y);
          if (this.byCell.get(key) === warp) this.byCell.delete(key);
        }
      }
    }
  }

  /** After a movement window: every player that stepped onto a warp cell is sent on. */
  afterMoves(sessions: Iterable<Session>): void {
    for (const session of sessions) {
      const entity = session.entity;
      const key = cellKey(entity.x, entity.y);
      const warp = this.byCell.get(key);
      if (warp === undefined) {
        if (this.standing.size > 0) this.standing.delete(entity.id);
        continue;
      }
      if (this.standing.get(entity.id) === key) continue;
      this.standing.set(entity.id, key);
      if (warp.stairs !== null) {
        this.stats.stairs++;
        this.ports.levels.onStairs(session, warp);
      } else if (warp.to !== null) this.teleport(entity, warp.to.x, warp.to.y);
    }
  }

  /**
   * A player put into the world at its tile (a join: a saved place may be the stairs a level was
   * reached by): standing on a warp there counts as having arrived on it, so it does not send at once.
   */
  arrive(entity: StoredEntity): void {
    const key = cellKey(entity.x, entity.y);
    if (this.byCell.has(key)) this.standing.set(entity.id, key);
  }

  /**
   * Moves `entity` to world tile (x, y) at once; arriving on a warp cell does not send it on. The steps it
   * had scheduled were meant for where it was and are dropped (the client drops its route too: steering.ts).
   */
  teleport(entity: StoredEntity, x: number, y: number): void {
    this.ports.entities.move(entity, x, y);
    entity.slots.clear();
    const key = cellKey(x, y);
    if (this.byCell.has(key)) this.standing.set(entity.id, key);
    else this.standing.delete(entity.id);
    this.stats.teleports++;
  }

  /** Forgets the entities that left the world (once a second: the few that stood on a warp). */
  sweep(inPlay: (entityId: number) => boolean): void {
    for (const entityId of this.standing.keys()) if (!inPlay(entityId)) this.standing.delete(entityId);
  }
}
