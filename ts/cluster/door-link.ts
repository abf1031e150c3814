// Doors across a border (docs/scaling.md § Doors across regions): each door is held by the region whose
// ground it stands on, like a chest — its state (open, closed, locked) lives there alone. A neighbour sees
// it as a ghost, and sees its cell as the owner last said: every GHOSTS round the owner also sends
// (FRAME_DOOR_TILES) the tile each of its doors near that neighbour's ground shows now, and the neighbour
// sets the cells that differ through its own TileUpdates — so its movement rule, its clients' prediction
// and their A* see the door as the owner does, within a broadcast, and a restarted region catches up by
// itself. A player here using a ghost door is sent to the owner (FRAME_DOOR_USE: the player, the door, and
// whether the player's bag here holds the door's key); the owner decides with the one rule of doors.ts
// against the player's ghost there (reach, repeats, the doorway check) and answers what the player is
// told (FRAME_DOOR_ANSWER), which this region tells it.
import type { Doors } from "../server/world/doors.js";
import type { Entity } from "../server/entities/entities.js";
import type { DoorSpec } from "../server/map/map-doors.js";
import type { Session } from "../server/sessions/session.js";
import type { GhostTable } from "./ghosts.js";
import { type ClusterLayout, distanceToRegion, GHOST_RADIUS_TILES } from "./layout.js";
import { FRAME_DOOR_ANSWER, FRAME_DOOR_USE, FrameError, type FrameSink } from "./link-frames.js";

/** Cells of doors a neighbour sends per round at most (a frame of ~40 bytes each): beyond, a bad frame. */
const MAX_DOOR_CELLS = 65_536;

export interface DoorLinkPorts {
  readonly doors: Doors;
  readonly ghosts: GhostTable;
  readonly layout: ClusterLayout;
  /** This region's number. */
  readonly region: number;
  /** Every door of the map (this region's and its neighbours'), for a ghost door's key and its two tiles. */
  readonly specs: readonly DoorSpec[];
  /** This region's link to neighbour `region`, if it is up. */
  linkTo(region: number): FrameSink | undefined;
  /** Whether `session`'s player holds the item named `key` (its bag is here). */
  holds(session: Session, key: string): boolean;
  /** The tile (x, y) shows here, and a change of it (TileUpdates.set, told to the clients in view). */
  tileAt(x: number, y: number): number;
  setTile(x: number, y: number, tile: number): boolean;
  /** The session playing entity `id` here, if any. */
  sessionOf(id: number): Session | undefined;
  tell(session: Session, text: string, speaker: string): void;
}

export class DoorLink {
  readonly stats = { sent: 0, unsent: 0, used: 0, refused: 0, answered: 0, answersDropped: 0, cellsSet: 0 };
  private readonly byCell = new Map<string, DoorSpec>();

  constructor(private readonly ports: DoorLinkPorts) {
    for (const spec of ports.specs) this.byCell.set(`${spec.x},${spec.y}`, spec);
    ports.doors.remote = {
      isRemote: (entity) => ports.ghosts.isGhost(entity.id),
      use: (session, door) => this.use(session, door),
    };
  }

  /** A player here uses a ghost door: the owner decides. */
  private use(session: Session, door: Entity): void {
    const owner = this.ports.ghosts.ownerOf(door.id);
    const link = owner === null ? undefined : this.ports.linkTo(owner);
    if (link === undefined) {
      this.stats.unsent++;
      return;
    }
    const key = this.byCell.get(`${door.x},${door.y}`)?.key ?? null;
    this.stats.sent++;
    link.sendJson(FRAME_DOOR_USE, 0, {
      user: session.entity.id,
      door: door.id,
      holds: key !== null && this.ports.holds(session, key),
    });
  }

  /** A FRAME_DOOR_USE from neighbour `from`: decided here if its player is that neighbour's ghost here. */
  onUse(from: number, payload: unknown): void {
    const { user, door, holds } = (payload ?? {}) as { user?: unknown; door?: unknown; holds?: unknown };
    if (!Number.isInteger(user) || !Number.isInteger(door) || typeof holds !== "boolean") {
      throw new FrameError("door use: bad fields");
    }
    const { ghosts, doors } = this.ports;
    const ghost = ghosts.ownerOf(user as number) === from ? ghosts.get(user as number) : undefined;
    const outcome = ghost === undefined ? null : doors.useFrom(ghost, door as number, holds);
    if (outcome === null) {
      this.stats.refused++;
      return;
    }
    this.stats.used++;
    if (outcome.text === null) return;
    this.ports.linkTo(from)?.sendJson(FRAME_DOOR_ANSWER, 0, { user, text: outcome.text, speaker: outcome.speaker });
  }

  /** A FRAME_DOOR_ANSWER: what the owner tells this region's player. */
  onAnswer(payload: unknown): void {
    const { user, text, speaker } = (payload ?? {}) as { user?: unknown; text?: unknown; speaker?: unknown };
    if (!Number.isInteger(user) || typeof text !== "string" || typeof speaker !== "string") {
      throw new FrameError("door answer: bad fields");
    }
    const session = this.ports.sessionOf(user as number);
    if (session === undefined) {
      this.stats.answersDropped++;
      return;
    }
    this.stats.answered++;
    this.ports.tell(session, text, speaker);
  }

  /** What this region sends neighbour `n` each round: its doors near n's ground, as [x, y, tile]. */
  cellsFor(n: number): [number, number, number][] {
    const out: [number, number, number][] = [];
    for (const { x, y, tile } of this.ports.doors.cells()) {
      if (distanceToRegion(this.ports.layout, n, x, y) <= GHOST_RADIUS_TILES) out.push([x, y, tile]);
    }
    return out;
  }

  /**
   * A FRAME_DOOR_TILES from neighbour `from`: its doors' cells as they are there. Each cell must be a door
   * of the map on `from`'s ground showing one of that door's two tiles; the ones that differ here are set.
   */
  onCells(from: number, payload: unknown): void {
    if (!Array.isArray(payload) || payload.length > MAX_DOOR_CELLS) throw new FrameError("door tiles: not a list");
    for (const cell of payload as unknown[]) {
      if (!Array.isArray(cell) || cell.length !== 3 || !cell.every((n) => Number.isInteger(n))) {
        throw new FrameError("door tiles: bad cell");
      }
      const [x, y, tile] = cell as [number, number, number];
      const spec = this.byCell.get(`${x},${y}`);
      if (spec === undefined || (tile !== spec.openTile && tile !== spec.closedTile)) {
        throw new FrameError("door tiles: not a door's tile");
      }
      if (distanceToRegion(this.ports.layout, from, x, y) !== 0) throw new FrameError("door tiles: not its door");
      if (this.ports.tileAt(x, y) === tile) continue;
      if (this.ports.setTile(x, y, tile)) this.stats.cellsSet++;
    }
  }
}
