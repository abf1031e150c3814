// Procedural dungeon levels (issue 15, docs/dungeons.md): rooms and corridors
// by binary space partition, with some rooms grown as caves by a cellular
// automaton (more of them the deeper the level), loops added so the level is
// no pure tree, stairs up at the entry and down in the room farthest from it,
// and chests and creature spawns placed by depth (deeper is harder and
// richer). The output is the bundled map's tile format — the same tile ids,
// so the client's art draws it — and writes as a Tiled map (dungeon-tmj.ts).
//
// Deterministic: the same seed, depth and size give the same bytes (one
// seeded stream, no Math.random, no floating-point functions whose last bit
// may differ between engines). Every walkable cell is reachable from the entry
// through orthogonal steps, which THE movement rule always allows between
// walkable cells; the tests check it with the wasm rule itself.
import { mulberry32 } from "../../random.js";
import { CAVE_TILE } from "../map/generate-caves.js";

export interface DungeonOptions {
  seed: number;
  /** 1 = the first level below the surface; deeper levels have more caves, creatures and treasure. */
  depth: number;
  width?: number;
  height?: number;
}

export interface Room {
  x: number;
  y: number;
  width: number;
  height: number;
  /** Grown by the cellular automaton (a cave) rather than cut square. */
  cave: boolean;
}

export interface DungeonChest {
  x: number;
  y: number;
  /** Contents as a map's chest `items` property writes them ("dagger, healing potion:2"). */
  items: string;
}

export interface DungeonSpawn {
  kind: string;
  count: number;
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface GeneratedDungeon {
  seed: number;
  depth: number;
  width: number;
  height: number;
  /** Tile ids (the bundled map's), row-major. */
  tiles: Uint16Array;
  rooms: Room[];
  /** Stairs up: where players arrive (the level's spawn point). */
  entry: { x: number; y: number };
  /** Stairs down: in the room farthest (by walking distance) from the entry. */
  exit: { x: number; y: number };
  chests: DungeonChest[];
  spawns: DungeonSpawn[];
  /** Closed doors (CAVE_TILE.door on the cell) at room entrances, in scan order. */
  doors: { x: number; y: number }[];
  /** Corridors added beyond the spanning tree: each closes a loop. */
  loops: number;
}

export const DUNGEON_DEFAULT_SIZE = 128;
export const DUNGEON_MIN_SIZE = 48;
export const DUNGEON_MAX_SIZE = 512;
export const DUNGEON_MAX_DEPTH = 99;
/** BSP leaves are never split below this edge; rooms keep a wall ring inside their leaf. */
const LEAF_MIN = 14;
const RIM = 1;

const ROCK = 0;
const ROOM = 1;
const CAVE = 2;
const CORRIDOR = 3;

export class DungeonError extends Error {}

export function generateDungeon(options: DungeonOptions): GeneratedDungeon {
  const { seed, depth } = options;
  const width = options.width ?? DUNGEON_DEFAULT_SIZE;
  const height = options.height ?? DUNGEON_DEFAULT_SIZE;
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) throw new DungeonError("seed must be a u32");
  if (!Number.isInteger(depth) || depth < 1 || depth > DUNGEON_MAX_DEPTH) {
    throw new DungeonError(`depth must be 1..${DUNGEON_MAX_DEPTH}`);
  }
  for (const [name, size] of [
    ["width", width],
    ["height", height],
  ] as const) {
    if (!Number.isInteger(size) || size < DUNGEON_MIN_SIZE || size > DUNGEON_MAX_SIZE) {
      throw new DungeonError(`${name} must be ${DUNGEON_MIN_SIZE}..${DUNGEON_MAX_SIZE}`);
    }
  }
  const rng = mulberry32((seed ^ Math.imul(depth, 0x9e3779b1)) >>> 0);
  const int = (min: number, max: number): number => min + Math.floor(rng() * (max - min + 1));
  const kinds = new Uint8Array(width * height);

  // 1. Partition, a room per leaf; deeper levels grow more of them as caves.
  const leaves: { x: number; y: number; width: number; height: number }[] = [];
  const split = (x: number, y: number, w: number, h: number, level: number): void => {
    const canSplitX = w >= LEAF_MIN * 2;
    const canSplitY = h >= LEAF_MIN * 2;
    if ((!canSplitX && !canSplitY) || (level > 2 && rng() < 0.25)) {
      leaves.push({ x, y, width: w, height: h });
      return;
    }
    const alongX = canSplitX && (!canSplitY || (w > h ? rng() < 0.8 : rng() < 0.2));
    if (alongX) {
      const cut = int(LEAF_MIN, w - LEAF_MIN);
      split(x, y, cut, h, level + 1);
      split(x + cut, y, w - cut, h, level + 1);
    } else {
      const cut = int(LEAF_MIN, h - LEAF_MIN);
      split(x, y, w, cut, level + 1);
      split(x, y + cut, w, h - cut, level + 1);
    }
  };
  split(RIM, RIM, width - 2 * RIM, height - 2 * RIM, 0);
  const caveShare = Math.min(0.7, 0.1 + 0.1 * (depth - 1));
  const rooms: Room[] = leaves.map((leaf) => {
    const roomWidth = int(Math.max(5, Math.floor(leaf.width / 2)), leaf.width - 3);
    const roomHeight = int(Math.max(5, Math.floor(leaf.height / 2)), leaf.height - 3);
    return {
      x: leaf.x + int(1, leaf.width - roomWidth - 2),
      y: leaf.y + int(1, leaf.height - roomHeight - 2),
      width: roomWidth,
      height: roomHeight,
      cave: rng() < caveShare,
    };
  });
  for (const room of rooms) {
    if (room.cave) growCave(kinds, width, room, rng);
    else
      for (let y = room.y; y < room.y + room.height; y++)
        kinds.fill(ROOM, y * width + room.x, y * width + room.x + room.width);
  }

  // 2. A spanning tree of corridors (each room to the nearest already joined), then loops.
  const centre = (room: Room) => ({ x: room.x + (room.width >> 1), y: room.y + (room.height >> 1) });
  const distance = (a: Room, b: Room) => {
    const p = centre(a);
    const q = centre(b);
    return Math.abs(p.x - q.x) + Math.abs(p.y - q.y);
  };
  const joined = [0];
  const edges = new Set<string>();
  const edgeKey = (a: number, b: number) => (a < b ? `${a}-${b}` : `${b}-${a}`);
  while (joined.length < rooms.length) {
    let best: [number, number] = [-1, -1];
    let bestDistance = Infinity;
    for (let other = 0; other < rooms.length; other++) {
      if (joined.includes(other)) continue;
      for (const inTree of joined) {
        const d = distance(rooms[other], rooms[inTree]);
        if (d < bestDistance) {
          bestDistance = d;
          best = [inTree, other];
        }
      }
    }
    carveCorridor(kinds, width, centre(rooms[best[0]]), centre(rooms[best[1]]), rng);
    edges.add(edgeKey(best[0], best[1]));
    joined.push(best[1]);
  }
  let loops = 0;
  const wantedLoops = Math.max(1, Math.floor(rooms.length / 4));
  for (let attempt = 0; attempt < rooms.length * 4 && loops < wantedLoops; attempt++) {
    const a = int(0, rooms.length - 1);
    // A near neighbour not yet directly joined: a short loop, not a corridor across the level.
    const candidates = rooms
      .map((room, index) => ({ index, d: distance(room, rooms[a]) }))
      .filter(({ index }) => index !== a && !edges.has(edgeKey(a, index)))
      .sort((p, q) => p.d - q.d || p.index - q.index);
    if (candidates.length === 0) continue;
    const b = candidates[Math.min(candidates.length - 1, int(0, 1))].index;
    carveCorridor(kinds, width, centre(rooms[a]), centre(rooms[b]), rng);
    edges.add(edgeKey(a, b));
    loops++;
  }

  // 3. Everything walkable reachable from the entry (cave rooms may leave pockets).
  const entryRoom = rooms[0];
  const entry = walkableNear(kinds, width, height, centre(entryRoom));
  connectAll(kinds, width, height, entry, rng);

  // 4. Stairs down: the farthest room by walking distance.
  const steps = walkDistances(kinds, width, height, entry);
  let exitRoom = 0;
  let exitSteps = -1;
  rooms.forEach((room, index) => {
    const spot = walkableNear(kinds, width, height, centre(room));
    const d = steps[spot.y * width + spot.x];
    if (d > exitSteps) {
      exitSteps = d;
      exitRoom = index;
    }
  });
  const exit = walkableNear(kinds, width, height, centre(rooms[exitRoom]));

  // 5. Chests and creatures by depth; none in the entry room.
  const taken = new Set<number>([entry.y * width + entry.x, exit.y * width + exit.x]);
  const others = rooms.map((_, index) => index).filter((index) => index !== 0);
  const chests: DungeonChest[] = [];
  const chestCount = Math.min(others.length, 1 + Math.floor(depth / 2));
  for (let n = 0; n < chestCount; n++) {
    const room = rooms[others[(n * 7 + int(0, others.length - 1)) % others.length]];
    const spot = freeCellIn(kinds, width, room, taken, rng);
    if (spot === null) continue;
    taken.add(spot.y * width + spot.x);
    chests.push({ ...spot, items: chestContents(depth, int) });
  }
  const spawns: DungeonSpawn[] = [];
  for (const index of others) {
    // Half the rooms are empty on the first level, fewer deeper down.
    if (rng() < Math.max(0.2, 0.55 - 0.05 * depth)) continue;
    const room = rooms[index];
    const kind = depth >= 2 && rng() < Math.min(0.8, 0.25 * depth) ? "skeleton" : "cave spider";
    const count = Math.min(6, 1 + Math.floor(depth / 3) + int(0, 1));
    spawns.push({ kind, count, x: room.x, y: room.y, width: room.width, height: room.height });
  }

  const tiles = chooseTiles(kinds, width, height, depth, rng);
  // Doors from a stream of their own, so adding them moved no other cell of any level.
  const doors = placeDoors(kinds, width, height, depth, [entry, exit], taken, seed);
  for (const door of doors) tiles[door.y * width + door.x] = CAVE_TILE.door;
  // The stairs drawn as stairs (after every random draw, so nothing else in the level moves).
  tiles[entry.y * width + entry.x] = CAVE_TILE.stairsUp;
  tiles[exit.y * width + exit.x] = CAVE_TILE.stairsDown;
  return {
    seed,
    depth,
    width,
    height,
    tiles,
    rooms,
    entry,
    exit,
    chests,
    spawns,
    doors,
    loops,
  };
}

/** Stairs keep this much room (Chebyshev) from any door: a closed door never stands in front of them. */
const DOOR_STAIRS_DISTANCE = 3;

/** The share of room entrances that get a door: 40 % at depth 1, +10 % a level, at most 90 %. */
export function doorShare(depth: number): number {
  return Math.min(0.9, 0.3 + 0.1 * depth);
}

/**
 * Doors at room entrances: a corridor cell with a square room's floor on one side, something
 * walkable on the opposite side and rock on the other two (the gap in the room's wall where a
 * corridor meets it, so the door has wall to either side). Each entrance gets a door with
 * doorShare(depth), never within DOOR_STAIRS_DISTANCE of the stairs nor on a chest. Cave rooms
 * have no wall to set a door in. The cell's kind stays walkable: a door is a way through, so the
 * level's reachability (counted with doors open) is unchanged.
 */
function placeDoors(
  kinds: Uint8Array,
  width: number,
  height: number,
  depth: number,
  stairs: readonly { x: number; y: number }[],
  taken: ReadonlySet<number>,
  seed: number,
): { x: number; y: number }[] {
  const rng = mulberry32((seed ^ Math.imul(depth, 0x85ebca6b) ^ 0xd00d_2bad) >>> 0);
  const share = doorShare(depth);
  const doors: { x: number; y: number }[] = [];
  for (let y = RIM + 1; y < height - RIM - 1; y++) {
    for (let x = RIM + 1; x < width - RIM - 1; x++) {
      const cell = y * width + x;
      if (kinds[cell] !== CORRIDOR || !isEntrance(kinds, width, cell)) continue;
      // One draw per entrance, in scan order: the same level gets the same doors.
      if (rng() >= share) continue;
      if (taken.has(cell)) continue;
      if (stairs.some((at) => Math.max(Math.abs(at.x - x), Math.abs(at.y - y)) < DOOR_STAIRS_DISTANCE)) continue;
      doors.push({ x, y });
    }
  }
  return doors;
}

/** Whether corridor `cell` is a gap in a square room's wall: room on one side, walkable opposite, rock across. */
function isEntrance(kinds: Uint8Array, width: number, cell: number): boolean {
  return gapAlong(kinds, cell, 1, width) || gapAlong(kinds, cell, width, 1);
}

/** The gap test along one axis: `ahead` is the step through the gap, `side` the step across it. */
function gapAlong(kinds: Uint8Array, cell: number, ahead: number, side: number): boolean {
  if (kinds[cell + side] !== ROCK || kinds[cell - side] !== ROCK) return false;
  const a = kinds[cell + ahead];
  const b = kinds[cell - ahead];
  return (a === ROOM && walkable(b) && b !== ROOM) || (b === ROOM && walkable(a) && a !== ROOM);
}

/** A cave inside the room's box: random fill, four smoothing rounds of the 4-5 rule. */
function growCave(kinds: Uint8Array, width: number, room: Room, rng: () => number): void {
  const w = room.width;
  const h = room.height;
  let cells = new Uint8Array(w * h);
  for (let i = 0; i < cells.length; i++) cells[i] = rng() < 0.58 ? 1 : 0;
  for (let round = 0; round < 4; round++) {
    const next = new Uint8Array(w * h);
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        let open = 0;
        for (let dy = -1; dy <= 1; dy++) {
          for (let dx = -1; dx <= 1; dx++) {
            const nx = x + dx;
            const ny = y + dy;
            if (nx >= 0 && ny >= 0 && nx < w && ny < h && cells[ny * w + nx] === 1) open++;
          }
        }
        next[y * w + x] = open >= 5 ? 1 : 0;
      }
    }
    cells = next;
  }
  // The centre is always open, so the corridors that aim at it arrive in the cave.
  cells[(h >> 1) * w + (w >> 1)] = 1;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) if (cells[y * w + x] === 1) kinds[(room.y + y) * width + room.x + x] = CAVE;
  }
}

/** An L-shaped corridor between two points, the corner chosen by the stream. */
function carveCorridor(
  kinds: Uint8Array,
  width: number,
  from: { x: number; y: number },
  to: { x: number; y: number },
  rng: () => number,
): void {
  const horizontalFirst = rng() < 0.5;
  const corner = horizontalFirst ? { x: to.x, y: from.y } : { x: from.x, y: to.y };
  const dig = (x: number, y: number) => {
    if (kinds[y * width + x] === ROCK) kinds[y * width + x] = CORRIDOR;
  };
  const line = (a: { x: number; y: number }, b: { x: number; y: number }) => {
    const dx = Math.sign(b.x - a.x);
    const dy = Math.sign(b.y - a.y);
    for (let x = a.x, y = a.y; ; x += dx, y += dy) {
      dig(x, y);
      if (x === b.x && y === b.y) break;
    }
  };
  line(from, corner);
  line(corner, to);
}

const walkable = (kind: number) => kind !== ROCK;

/** The walkable cell nearest `spot` (a cave room's centre is open, a square room's too). */
function walkableNear(kinds: Uint8Array, width: number, height: number, spot: { x: number; y: number }) {
  for (let ring = 0; ring < Math.max(width, height); ring++) {
    for (let dy = -ring; dy <= ring; dy++) {
      for (let dx = -ring; dx <= ring; dx++) {
        if (Math.max(Math.abs(dx), Math.abs(dy)) !== ring) continue;
        const x = spot.x + dx;
        const y = spot.y + dy;
        if (x > 0 && y > 0 && x < width - 1 && y < height - 1 && walkable(kinds[y * width + x])) return { x, y };
      }
    }
  }
  throw new DungeonError("no walkable cell");
}

/** Orthogonal walking distance from `from` to every cell (−1: not reached). */
function walkDistances(kinds: Uint8Array, width: number, height: number, from: { x: number; y: number }): Int32Array {
  const distances = new Int32Array(width * height).fill(-1);
  const queue = new Int32Array(width * height);
  let head = 0;
  let tail = 0;
  queue[tail++] = from.y * width + from.x;
  distances[queue[0]] = 0;
  while (head < tail) {
    const cell = queue[head++];
    for (const next of [cell + 1, cell - 1, cell + width, cell - width]) {
      if (next < 0 || next >= kinds.length || distances[next] >= 0 || !walkable(kinds[next])) continue;
      distances[next] = distances[cell] + 1;
      queue[tail++] = next;
    }
  }
  void height;
  return distances;
}

/**
 * Joins every walkable region to the entry's: small pockets (< 6 cells) become rock, others get a
 * tunnel through rock to the nearest reached cell (breadth-first, never through the rim).
 */
function connectAll(
  kinds: Uint8Array,
  width: number,
  height: number,
  entry: { x: number; y: number },
  rng: () => number,
): void {
  for (;;) {
    const reached = walkDistances(kinds, width, height, entry);
    let orphan = -1;
    for (let cell = 0; cell < kinds.length && orphan < 0; cell++) {
      if (walkable(kinds[cell]) && reached[cell] < 0) orphan = cell;
    }
    if (orphan < 0) return;
    const region = walkDistances(kinds, width, height, { x: orphan % width, y: Math.floor(orphan / width) });
    let size = 0;
    for (let cell = 0; cell < kinds.length; cell++) if (region[cell] >= 0) size++;
    if (size < 6) {
      for (let cell = 0; cell < kinds.length; cell++) if (region[cell] >= 0) kinds[cell] = ROCK;
      continue;
    }
    // Breadth-first from the whole region through anything but the rim, to the first reached cell.
    const previous = new Int32Array(width * height).fill(-2);
    const queue = new Int32Array(width * height);
    let head = 0;
    let tail = 0;
    for (let cell = 0; cell < kinds.length; cell++) {
      if (region[cell] >= 0) {
        previous[cell] = -1;
        queue[tail++] = cell;
      }
    }
    let found = -1;
    while (head < tail && found < 0) {
      const cell = queue[head++];
      const offset = Math.floor(rng() * 4);
      for (let k = 0; k < 4; k++) {
        const direction = (k + offset) % 4;
        const next = cell + [1, width, -1, -width][direction];
        const x = next % width;
        const y = Math.floor(next / width);
        if (x < RIM || y < RIM || x >= width - RIM || y >= height - RIM || previous[next] !== -2) continue;
        previous[next] = cell;
        if (reached[next] >= 0) {
          found = next;
          break;
        }
        queue[tail++] = next;
      }
    }
    if (found < 0) throw new DungeonError("a region cannot be connected");
    for (let step = previous[found]; step >= 0 && region[step] < 0; step = previous[step]) kinds[step] = CORRIDOR;
  }
}

function freeCellIn(
  kinds: Uint8Array,
  width: number,
  room: Room,
  taken: ReadonlySet<number>,
  rng: () => number,
): { x: number; y: number } | null {
  for (let attempt = 0; attempt < 40; attempt++) {
    const x = room.x + Math.floor(rng() * room.width);
    const y = room.y + Math.floor(rng() * room.height);
    const cell = y * width + x;
    if (walkable(kinds[cell]) && !taken.has(cell)) return { x, y };
  }
  return null;
}

/** Richer with depth: potions and coins first, then weapons and armor (the bundled catalogue's names). */
function chestContents(depth: number, int: (min: number, max: number) => number): string {
  const items = [`gold coin:${int(5, 10) * depth}`, `healing potion:${int(1, 2)}`];
  if (depth >= 2) items.push(int(0, 1) === 0 ? "dagger" : "leather armor");
  if (depth >= 3) items.push(int(0, 1) === 0 ? "short sword" : "chain mail");
  if (depth >= 4) items.push(`glow crystal:${int(1, Math.min(20, depth))}`);
  return items.join(", ");
}

/** Tile ids: flagstone rooms, gravel and moss caves, floor corridors, walls darker and torch-lit with depth. */
function chooseTiles(kinds: Uint8Array, width: number, height: number, depth: number, rng: () => number): Uint16Array {
  const tiles = new Uint16Array(width * height);
  const wall = depth >= 3 ? CAVE_TILE.darkRockWall : CAVE_TILE.rockWall;
  for (let cell = 0; cell < kinds.length; cell++) {
    switch (kinds[cell]) {
      case ROOM:
        tiles[cell] = CAVE_TILE.flagstone;
        break;
      case CAVE:
        tiles[cell] = rng() < 0.5 ? CAVE_TILE.gravel : rng() < 0.5 ? CAVE_TILE.moss : CAVE_TILE.floor;
        break;
      case CORRIDOR:
        tiles[cell] = rng() < 0.9 ? CAVE_TILE.floor : CAVE_TILE.rubble;
        break;
      default: {
        // A wall next to a room's floor sometimes holds a torch.
        const x = cell % width;
        const y = Math.floor(cell / width);
        const besideRoom = y + 1 < height && kinds[cell + width] === ROOM && x > 0 && x < width - 1 && rng() < 0.08;
        tiles[cell] = besideRoom ? CAVE_TILE.torchWall : wall;
      }
    }
  }
  return tiles;
}
