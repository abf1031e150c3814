// Never brought back into a cell it cannot leave (issue 41). The map's doors
// are kept across restarts (doors.ts), so a character saved behind a door finds
// it as it was; this is the safety net for when it is not — a kept state the
// map overrules, a crash inside the save interval, a content script that locked
// a door, a key given away inside a vault. A character put into the world on a
// map (a login) is shut in when every way from its cell to a spawn point passes
// a door it cannot open (locked, and its key not carried), or when its cell is
// a closed door. Then it is put on the first cell beyond the last such door on
// the shortest way out: outside the vault door, not back at the spawn.
//
// "A way" is THE movement rule's: free cells side by side (a diagonal step
// needs both orthogonal cells free, so sides suffice), through doors the
// player can open (unlocked, or its key carried) and warps with a destination
// (a teleport). The search goes out in rounds: round 0 is every cell reached
// without a door it cannot open, round n+1 what lies beyond one more such door.
// So the way found passes the fewest doors it cannot open, and the cell given
// is the one a player stepping out would reach first. Deterministic (neighbours
// in a fixed order, no clock, no randomness). A cell from which no spawn point
// can be reached even through every door is not shut in by a door: it is left
// as it is.
//
// Cost: a login on a map whose cell reaches a spawn point through no door at
// all (most cells of most maps) is one array read — the cells a spawn point
// reaches without any door, found once and again only when a tile other than a
// door's changes (a script's, a reloaded map). Any other cell, where some door
// is locked, is searched: each map cell at most once, over a copy of the maps'
// free cells (World.freeCells, remade after any tile change) in arrays made
// once and reused.
import type { Doors } from "./doors.js";
import type { Warps } from "./warps.js";
import type { World } from "./world.js";

export interface EnclosurePorts {
  readonly world: Pick<World, "spawns" | "mapWidth" | "mapHeight" | "freeCells" | "tileChanges">;
  readonly doors: Pick<Doors, "passable" | "at" | "anyLocked" | "cells">;
  readonly warps: Pick<Warps, "all">;
}

/** Where a character put into the world at a cell goes instead, and which door shut it in. */
export interface Release {
  x: number;
  y: number;
  /** The name of the last door on the way out it cannot open; null when it only stood in a closed door it can open. */
  door: string | null;
}

const NONE = -1;
/** Bits of a cell in the copy of the maps' cells. */
const FREE = 1;
const DOOR = 2;
const WARP = 4;
const SPAWN = 8;

export class Enclosure {
  /** Per map cell: FREE, DOOR, WARP, SPAWN bits, as of `cellsAt` (World.tileChanges); null before the first search. */
  private cells: Uint8Array | null = null;
  private cellsAt = NONE;
  /** Warp cells (with a destination on the maps) → the destination cell. */
  private readonly warpTo = new Map<number, number>();
  /** Per map cell: 1 when a spawn point is reached from it through no door (doors as walls, whatever their state). */
  private outside: Uint8Array | null = null;
  /** Per map cell: the round it was reached in (NONE: not reached), and the cell it was reached from. */
  private round: Int32Array | null = null;
  private from: Int32Array | null = null;
  /** The cells of the round under way, in the order reached. */
  private queue: Int32Array | null = null;
  /** Logins checked, cells searched (behind a door), characters let out; the search's time; the no-door cells found. */
  readonly stats = { checked: 0, searched: 0, released: 0, searchMs: 0, outsideBuilds: 0 };

  constructor(private readonly ports: EnclosurePorts) {}

  /** Whether a door stands on (x, y): a saved place there is taken, and `releaseFrom` moves it off a closed one. */
  isDoor(x: number, y: number): boolean {
    return this.ports.doors.at(x, y) !== undefined;
  }

  /**
   * Where a character put into the world at map cell (x, y), holding the keys `holds` says it holds,
   * must go: null when it can leave from there (or no rule of doors can help it), else the first cell
   * beyond the last door on the way out that it cannot open (or beyond the closed door it stands in).
   */
  releaseFrom(x: number, y: number, holds: (key: string) => boolean): Release | null {
    const { world, doors } = this.ports;
    const width = world.mapWidth;
    const height = world.mapHeight;
    if (x < 0 || y < 0 || x >= width || y >= height) return null;
    this.stats.checked++;
    const cells = this.refresh();
    const start = y * width + x;
    const onDoor = (cells[start] & (DOOR | FREE)) === DOOR;
    if (!onDoor && (this.outside![start] === 1 || !doors.anyLocked())) return null;
    const startMs = performance.now();
    this.stats.searched++;
    const count = width * height;
    if (this.round === null || this.round.length < count) {
      this.round = new Int32Array(count);
      this.from = new Int32Array(count);
      this.queue = new Int32Array(count);
    }
    const round = this.round;
    const from = this.from!;
    const queue = this.queue!;
    round.fill(NONE, 0, count);
    round[start] = 0;
    from[start] = NONE;
    queue[0] = start;
    let length = 1;
    let found = NONE;
    for (let now = 0; found === NONE && length > 0; now++) {
      /** Doors it cannot open met in this round, each with the cell that met it: where the next round starts. */
      const next: number[] = [];
      const reach = (cell: number, target: number): void => {
        if (round[target] !== NONE) return;
        const bits = cells[target];
        if ((bits & DOOR) !== 0) {
          const tx = target % width;
          if (doors.passable(tx, (target - tx) / width, holds) === false) {
            next.push(target, cell);
            return;
          }
        } else if ((bits & FREE) === 0) return;
        round[target] = now;
        from[target] = cell;
        queue[length++] = target;
      };
      for (let index = 0; index < length; index++) {
        const cell = queue[index];
        if ((cells[cell] & SPAWN) !== 0) {
          found = cell;
          break;
        }
        const cx = cell % width;
        if (cell >= width) reach(cell, cell - width);
        if (cx < width - 1) reach(cell, cell + 1);
        if (cell < count - width) reach(cell, cell + width);
        if (cx > 0) reach(cell, cell - 1);
        if ((cells[cell] & WARP) !== 0) reach(cell, this.warpTo.get(cell)!);
      }
      // The next round starts on the doors met, each once, from the first cell that met it.
      length = 0;
      for (let index = 0; found === NONE && index < next.length; index += 2) {
        const door = next[index];
        if (round[door] !== NONE) continue;
        round[door] = now + 1;
        from[door] = next[index + 1];
        queue[length++] = door;
      }
    }
    this.stats.searchMs += performance.now() - startMs;
    if (found === NONE || (round[found] === 0 && !onDoor)) return null;
    // Back from the spawn point to the last door on the way it cannot open (or to its start, a closed
    // door); the cell after it on the way out is where it goes.
    let after = found;
    let blocker = NONE;
    for (let cell = found; cell !== NONE && blocker === NONE; cell = from[cell]) {
      const previous = from[cell];
      if (previous === NONE ? onDoor : round[cell] > round[previous]) blocker = cell;
      else after = cell;
    }
    if (blocker === NONE || after === blocker) return null;
    this.stats.released++;
    const bx = blocker % width;
    const by = (blocker - bx) / width;
    // A closed door it stood in but can open did not shut it in: it only may not stand there.
    const shutBy = blocker === start && doors.passable(bx, by, holds) === true ? undefined : doors.at(bx, by);
    return { x: after % width, y: Math.floor(after / width), door: shutBy?.entity.name ?? null };
  }

  /**
   * The copy of the maps' cells as they are now (remade after any tile change), and the cells a spawn
   * point reaches through no door (found again only when a cell other than a door's changed).
   */
  private refresh(): Uint8Array {
    const { world, doors, warps } = this.ports;
    if (this.cells !== null && this.cellsAt === world.tileChanges) return this.cells;
    const width = world.mapWidth;
    const count = width * world.mapHeight;
    const before = this.cells;
    const cells = new Uint8Array(count);
    world.freeCells(cells, FREE);
    for (const { x, y } of doors.cells()) if (x < width && y < world.mapHeight) cells[y * width + x] |= DOOR;
    for (const { x, y } of world.spawns) cells[y * width + x] |= SPAWN;
    this.warpTo.clear();
    for (const warp of warps.all()) {
      const to = warp.to;
      if (to === null || to.x >= width || to.y >= world.mapHeight) continue;
      for (let y = warp.y; y < warp.y + warp.height; y++) {
        for (let x = warp.x; x < warp.x + warp.width; x++) {
          if (x >= width || y >= world.mapHeight) continue;
          cells[y * width + x] |= WARP;
          this.warpTo.set(y * width + x, to.y * width + to.x);
        }
      }
    }
    this.cells = cells;
    this.cellsAt = world.tileChanges;
    if (before === null || this.outside === null || changedBesideDoors(before, cells))
      this.outside = this.reachedThroughNoDoor();
    return cells;
  }

  /** The cells a spawn point reaches with every door a wall (whatever its state): from them, no door can shut anyone in. */
  private reachedThroughNoDoor(): Uint8Array {
    const { world } = this.ports;
    const cells = this.cells!;
    const width = world.mapWidth;
    const count = cells.length;
    this.stats.outsideBuilds++;
    const outside = new Uint8Array(count);
    const queue = new Int32Array(count);
    let length = 0;
    const reach = (cell: number): void => {
      if (outside[cell] === 1 || (cells[cell] & (FREE | DOOR)) !== FREE) return;
      outside[cell] = 1;
      queue[length++] = cell;
    };
    for (const spawn of world.spawns) reach(spawn.y * width + spawn.x);
    for (let index = 0; index < length; index++) {
      const cell = queue[index];
      const cx = cell % width;
      if (cell >= width) reach(cell - width);
      if (cx < width - 1) reach(cell + 1);
      if (cell < count - width) reach(cell + width);
      if (cx > 0) reach(cell - 1);
      if ((cells[cell] & WARP) !== 0) reach(this.warpTo.get(cell)!);
    }
    return outside;
  }
}

/** Whether a cell that is no door turned free or not between two copies of the maps' cells. */
function changedBesideDoors(before: Uint8Array, after: Uint8Array): boolean {
  for (let cell = 0; cell < after.length; cell++) {
    if ((after[cell] & DOOR) === 0 && ((before[cell] ^ after[cell]) & FREE) !== 0) return true;
  }
  return false;
}
