// What a content script may change in the world itself (docs/content.md § Changing the world): bring a
// creature and take it away, change a tile, open, close, lock or unlock a door, say a line to everyone.
// Each goes through the room that owns it — the NPC room's spawns, TileUpdates (the one tile-change path
// every client, THE movement rule and every A* see), the doors, the chat — never around it.
//
// Creatures a file spawned are its own: it may despawn those and no other, and at most MAX_SPAWNED_PER_FILE
// of them stand at once. They are never replaced when they die, and stay through a reload of the file (a
// reloaded script finds them by id or leaves them). Tile and door changes last until the server restarts,
// as a player's use of a door does.
import type { NpcKind } from "../content/npc-kinds.js";
import type { LuaSandbox, LuaValue } from "./lua-sandbox.js";
import { text, wholeNumber } from "./lua-values.js";

/** Creatures one file may have standing at once. */
export const MAX_SPAWNED_PER_FILE = 256;
/** The longest name a spawned creature is given, and a line said to everyone. */
export const MAX_SPAWN_NAME = 32;
export const MAX_ANNOUNCE_CHARS = 200;
export const DOOR_STATES = ["open", "close", "lock", "unlock"] as const;
type DoorState = (typeof DOOR_STATES)[number];

export interface WorldActionPorts {
  readonly kinds: readonly NpcKind[];
  readonly npcs: {
    summon(kind: NpcKind, x: number, y: number, name: string): { entityId: number; handle: object };
    removeSpawns(handles: readonly object[]): void;
    get(entityId: number): unknown;
  };
  /** Whether (x, y) is a cell a creature may stand on now. */
  readonly walkable: (x: number, y: number) => boolean;
  readonly tiles: {
    /** The tile on (x, y); the world's border tile outside every chunk. */
    at(x: number, y: number): number;
    /** Whether the map knows tile `tileId` (its tile data names it). */
    known(tileId: number): boolean;
    /** Whether tile `tileId` blocks movement. */
    collides(tileId: number): boolean;
    set(x: number, y: number, tileId: number): boolean;
  };
  /** Whether anything that is not static (a player, a creature, a corpse) stands on (x, y). */
  readonly occupied: (x: number, y: number) => boolean;
  readonly doors: {
    at(x: number, y: number): unknown;
    set(x: number, y: number, state: DoorState): boolean;
  };
  readonly announce: (text: string, speaker: string) => void;
}

export class WorldActions {
  /** Each file's creatures, by entity id: the handle that despawns it. */
  private readonly spawned = new Map<string, Map<number, object>>();
  private readonly kindsByName: Map<string, NpcKind>;
  readonly stats = { spawned: 0, despawned: 0, tilesSet: 0, doorsSet: 0, announced: 0 };

  constructor(private readonly ports: WorldActionPorts) {
    this.kindsByName = new Map(ports.kinds.map((kind) => [kind.name, kind]));
  }

  /** The content API's world actions, bound to the state of file `file`. */
  bind(sandbox: LuaSandbox, file: string): void {
    sandbox.expose("spawn", ([kindName, x, y, name]) => this.spawn(file, kindName, x, y, name));
    sandbox.expose("despawn", ([id]) => this.despawn(file, id));
    sandbox.expose("tile.get", ([x, y]) =>
      this.ports.tiles.at(wholeNumber(x, 0, 0xffff, "tile.get: x"), wholeNumber(y, 0, 0xffff, "tile.get: y")),
    );
    sandbox.expose("tile.set", ([x, y, tileId]) => this.setTile(x, y, tileId));
    sandbox.expose("door", ([x, y, state]) => {
      const cellX = wholeNumber(x, 0, 0xffff, "door: x");
      const cellY = wholeNumber(y, 0, 0xffff, "door: y");
      if (typeof state !== "string" || !(DOOR_STATES as readonly string[]).includes(state)) {
        throw new Error(`door: the state is one of ${DOOR_STATES.map((each) => `"${each}"`).join(", ")}`);
      }
      if (this.ports.doors.at(cellX, cellY) === undefined) throw new Error(`door: no door on (${cellX}, ${cellY})`);
      const done = this.ports.doors.set(cellX, cellY, state as DoorState);
      if (done) this.stats.doorsSet++;
      return done;
    });
    sandbox.expose("announce", ([line, speaker]) => {
      this.ports.announce(
        text(line, MAX_ANNOUNCE_CHARS),
        typeof speaker === "string" ? speaker.slice(0, MAX_SPAWN_NAME) : "",
      );
      this.stats.announced++;
    });
  }

  /** How many creatures file `file` has standing. */
  standing(file: string): number {
    const mine = this.spawned.get(file);
    if (mine === undefined) return 0;
    this.forgetGone(mine);
    return mine.size;
  }

  private spawn(
    file: string,
    kindName: LuaValue | undefined,
    x: LuaValue | undefined,
    y: LuaValue | undefined,
    name: LuaValue | undefined,
  ): number {
    if (typeof kindName !== "string") throw new Error("spawn: the first argument is a creature kind's name");
    const kind = this.kindsByName.get(kindName);
    if (kind === undefined) throw new Error(`spawn: no creature kind named "${kindName}"`);
    const cellX = wholeNumber(x, 0, 0xffff, "spawn: x");
    const cellY = wholeNumber(y, 0, 0xffff, "spawn: y");
    if (!this.ports.walkable(cellX, cellY)) throw new Error(`spawn: (${cellX}, ${cellY}) is not a free tile`);
    let mine = this.spawned.get(file);
    if (mine === undefined) this.spawned.set(file, (mine = new Map()));
    if (mine.size >= MAX_SPAWNED_PER_FILE) this.forgetGone(mine);
    if (mine.size >= MAX_SPAWNED_PER_FILE) {
      throw new Error(`spawn: ${MAX_SPAWNED_PER_FILE} creatures of this file stand already (despawn some)`);
    }
    const shown = name === undefined || name === null ? kind.name : text(name, MAX_SPAWN_NAME);
    const { entityId, handle } = this.ports.npcs.summon(kind, cellX, cellY, shown);
    mine.set(entityId, handle);
    this.stats.spawned++;
    return entityId;
  }

  private despawn(file: string, id: LuaValue | undefined): boolean {
    const entityId =
      typeof id === "object" && id !== null && !Array.isArray(id) && "id" in id ? (id as { id: LuaValue }).id : id;
    if (typeof entityId !== "number" || !Number.isInteger(entityId)) {
      throw new Error("despawn: a creature this file spawned (its table or its id)");
    }
    const mine = this.spawned.get(file);
    const handle = mine?.get(entityId);
    if (handle === undefined) return false;
    mine!.delete(entityId);
    if (this.ports.npcs.get(entityId) === undefined) return false; // died since
    this.ports.npcs.removeSpawns([handle]);
    this.stats.despawned++;
    return true;
  }

  private setTile(x: LuaValue | undefined, y: LuaValue | undefined, tileId: LuaValue | undefined): boolean {
    const cellX = wholeNumber(x, 0, 0xffff, "tile.set: x");
    const cellY = wholeNumber(y, 0, 0xffff, "tile.set: y");
    const id = wholeNumber(tileId, 0, 0xfffe, "tile.set: the tile id");
    if (!this.ports.tiles.known(id)) throw new Error(`tile.set: the map has no tile ${id}`);
    if (this.ports.doors.at(cellX, cellY) !== undefined) {
      throw new Error(`tile.set: (${cellX}, ${cellY}) is a door's cell (use door(x, y, "open"), …)`);
    }
    // A wall never closes over someone: they would stand inside it.
    if (this.ports.tiles.collides(id) && this.ports.occupied(cellX, cellY)) return false;
    const done = this.ports.tiles.set(cellX, cellY, id);
    if (done) this.stats.tilesSet++;
    return done;
  }

  /** Lets go of the creatures that died since (their spawn is done: they are never replaced). */
  private forgetGone(mine: Map<number, object>): void {
    for (const entityId of [...mine.keys()]) if (this.ports.npcs.get(entityId) === undefined) mine.delete(entityId);
  }
}
