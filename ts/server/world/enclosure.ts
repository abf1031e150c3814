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
// as it is. The search runs only at a login, only where some door is locked or
// the cell is a door, and visits each map cell at most once, in arrays
// allocated once and reused.
import type { Doors } from "./doors.js";
import type { Warps } from "./warps.js";
import type { World } from "./world.js";

export interface EnclosurePorts {
  readonly world: Pick<World, "walkable" | "spawns" | "mapWidth" | "mapHeight">;
  readonly doors: Pick<Doors, "passable" | "at" | "anyLocked">;
  readonly warps: Pick<Warps, "at">;
}

/** Where a character put into the world at a cell goes instead, and which door shut it in. */
export interface Release {
  x: number;
  y: number;
  /** The name of the last door on the way out it cannot open; null when it only stood in a closed door it can open. */
  door: string | null;
}

const NONE = -1;

export class Enclosure {
  /** Per map cell: the round it was reached in (NONE: not reached), and the cell it was reached from. */
  private round: Int32Array | null = null;
  private from: Int32Array | null = null;
  /** The cells of the round under way, in the order reached. */
  private queue: Int32Array | null = null;
  readonly stats = { checked: 0, released: 0, searchMs: 0 };

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
    const { world, doors, warps } = this.ports;
    const width = world.mapWidth;
    const height = world.mapHeight;
    if (x < 0 || y < 0 || x >= width || y >= height) return null;
    const onDoor = doors.at(x, y) !== undefined && !world.walkable(x, y);
    if (!onDoor && !doors.anyLocked()) return null;
    const startMs = performance.now();
    this.stats.checked++;
    const cells = width * height;
    if (this.round === null || this.round.length < cells) {
      this.round = new Int32Array(cells);
      this.from = new Int32Array(cells);
      this.queue = new Int32Array(cells);
    }
    const round = this.round;
    const from = this.from!;
    const queue = this.queue!;
    round.fill(NONE, 0, cells);
    const goals = new Set<number>();
    for (const spawn of world.spawns) goals.add(spawn.y * width + spawn.x);
    const start = y * width + x;
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
        const tx = target % width;
        const ty = (target - tx) / width;
        const door = doors.passable(tx, ty, holds);
        if (door === false) next.push(target, cell);
        else if (door === true || world.walkable(tx, ty)) {
          round[target] = now;
          from[target] = cell;
          queue[length++] = target;
        }
      };
      for (let index = 0; index < length; index++) {
        const cell = queue[index];
        if (goals.has(cell)) {
          found = cell;
          break;
        }
        const cx = cell % width;
        const cy = (cell - cx) / width;
        if (cy > 0) reach(cell, cell - width);
        if (cx < width - 1) reach(cell, cell + 1);
        if (cy < height - 1) reach(cell, cell + width);
        if (cx > 0) reach(cell, cell - 1);
        const to = warps.at(cx, cy)?.to;
        if (to && to.x < width && to.y < height) reach(cell, to.y * width + to.x);
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
}
