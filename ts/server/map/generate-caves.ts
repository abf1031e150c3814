// Generator of the bundled map, "Forgotten Caves": cellular-automaton caves
// with a few flagstone halls, long winding corridors between them, water
// pools crossed by bridges, and a solid rock rim. Deterministic for a seed:
// scripts/make-map.ts writes its output to maps/, and a test regenerates it
// to prove the committed files are exactly what this code makes.
//
// The generator works on a grid of terrain kinds first (rock, floor, hall,
// water, ...), makes every walkable cell reachable from the spawn hall, and
// only then picks tile ids (wall and floor variants), which never changes
// what is walkable.
import { mulberry32 } from "../../random.js";

/** Tile ids of the bundled map (shared with its tile data and the client's tileset). */
export const CAVE_TILE = {
  floor: 1,
  gravel: 2,
  moss: 3,
  flagstone: 4,
  rockWall: 5,
  darkRockWall: 6,
  crystalWall: 7,
  pillar: 8,
  water: 9,
  deepWater: 10,
  rubble: 11,
  mushrooms: 12,
  torchWall: 13,
  sign: 14,
  noticeBoard: 15,
  bridge: 16,
  door: 17,
  openDoor: 18,
  stairsDown: 19,
  stairsUp: 20,
} as const;

/** Tile data of the bundled map, in id order (also written to caves.tiles.json). */
export const CAVE_TILE_DATA: {
  id: number;
  name: string;
  collides: boolean;
  opaque: boolean;
  opensTo?: number;
  light?: number;
}[] = [
  { id: 1, name: "floor", collides: false, opaque: false },
  { id: 2, name: "gravel", collides: false, opaque: false },
  { id: 3, name: "moss", collides: false, opaque: false },
  { id: 4, name: "flagstone", collides: false, opaque: false },
  { id: 5, name: "rock wall", collides: true, opaque: true },
  { id: 6, name: "dark rock wall", collides: true, opaque: true },
  { id: 7, name: "crystal wall", collides: true, opaque: true },
  { id: 8, name: "pillar", collides: true, opaque: true },
  { id: 9, name: "water", collides: true, opaque: false },
  { id: 10, name: "deep water", collides: true, opaque: false },
  { id: 11, name: "rubble", collides: false, opaque: false },
  { id: 12, name: "mushrooms", collides: false, opaque: false },
  { id: 13, name: "torch wall", collides: true, opaque: true, light: 5 },
  { id: 14, name: "sign", collides: true, opaque: false },
  { id: 15, name: "notice board", collides: true, opaque: false },
  { id: 16, name: "bridge", collides: false, opaque: false },
  // A closed (or locked) door and the same door open (docs/maps.md § Doors).
  { id: 17, name: "door", collides: true, opaque: true, opensTo: 18 },
  { id: 18, name: "open door", collides: false, opaque: false },
  // Stairs (issue 15, docs/dungeons.md): floor one walks onto; the warps layer's stairs objects make them lead somewhere.
  { id: 19, name: "stairs down", collides: false, opaque: false },
  { id: 20, name: "stairs up", collides: false, opaque: false },
];

/** The item that opens the bundled map's locked door (the items catalogue names it; a chest holds it). */
export const CAVE_VAULT_KEY = "rusty key";

export const DEFAULT_CAVE_SEED = 0x5eed_cafe;
export const DEFAULT_CAVE_WIDTH = 224;
export const DEFAULT_CAVE_HEIGHT = 224;

export interface CaveOptions {
  seed?: number;
  width?: number;
  height?: number;
}

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface GeneratedCaves {
  seed: number;
  width: number;
  height: number;
  /** Tile ids, row-major. */
  tiles: Uint16Array;
  halls: Rect[];
  /** The hall the spawn points are in: a safe zone (no PvP) in the map. */
  greatHall: Rect;
  spawns: { x: number; y: number }[];
  sign: { x: number; y: number; text: string };
  noticeBoard: { x: number; y: number };
  /** Where creatures live (npc_spawn objects; their kinds are in caves-npcs.ts). */
  npcSpawns: CaveNpcSpawn[];
  /**
   * The people of the great hall (issue 38): a merchant and an old man with work, whom the content
   * scripts (maps/caves.content/) give words. npc_spawn objects like the others, numbered after every
   * other object so the chests keep their ids (a chest's contents are stored by its id).
   */
  people: CaveNpcSpawn[];
  /** The doors (door objects in "interactables"): in corridor throats far from the great hall; the first is the locked vault door. */
  doors: CaveDoor[];
  /** Stairs down to the dungeon levels (stairs objects in "warps"; docs/dungeons.md): one in the great hall, one in the farthest hall. */
  stairs: { x: number; y: number }[];
  /** How many pools and connecting tunnels were made (for the summary). */
  poolCount: number;
  tunnelCount: number;
}

/** A door of the bundled map: its cell holds CAVE_TILE.door (closed, locked) or CAVE_TILE.openDoor. */
export interface CaveDoor {
  name: string;
  x: number;
  y: number;
  open: boolean;
  /** The item that unlocks it, for the locked door; null for the others. */
  key: string | null;
  /** For the locked door: how many walkable cells lie behind it (the vault). */
  vaultCells?: number;
}

/** An npc_spawn area: `count` creatures of `kind` live on the free cells of the rectangle. */
export interface CaveNpcSpawn extends Rect {
  name: string;
  kind: string;
  count: number;
}

// Terrain kinds, before tile ids are chosen.
const ROCK = 0;
const FLOOR = 1;
const HALL = 2;
const PILLAR = 3;
const WATER = 4;
const DEEP = 5;
const BRIDGE = 6;
const SIGN = 7;
const BOARD = 8;

/** Cells this close to the edge stay rock: the solid rim. */
const RIM = 3;
const SIGN_TEXT =
  "The Forgotten Caves. The great hall is the heart of the caves; every tunnel leads back here. " +
  "Mind the deep water and cross by the bridges.";

/** Smooth value noise in [0, 1) with features about `cellSize` tiles across. */
function makeNoise(
  rng: () => number,
  width: number,
  height: number,
  cellSize: number,
): (x: number, y: number) => number {
  const columns = Math.ceil(width / cellSize) + 2;
  const rows = Math.ceil(height / cellSize) + 2;
  const lattice = new Float64Array(columns * rows);
  for (let i = 0; i < lattice.length; i++) lattice[i] = rng();
  const smooth = (t: number): number => t * t * (3 - 2 * t);
  return (x, y) => {
    const gx = x / cellSize;
    const gy = y / cellSize;
    const x0 = Math.floor(gx);
    const y0 = Math.floor(gy);
    const tx = smooth(gx - x0);
    const ty = smooth(gy - y0);
    const at = (ix: number, iy: number): number => lattice[iy * columns + ix];
    const top = at(x0, y0) * (1 - tx) + at(x0 + 1, y0) * tx;
    const bottom = at(x0, y0 + 1) * (1 - tx) + at(x0 + 1, y0 + 1) * tx;
    return top * (1 - ty) + bottom * ty;
  };
}

class CaveBuilder {
  readonly kinds: Uint8Array;
  /** 1 where a corridor was carved: a pool that covers it becomes bridge, not water. */
  readonly corridor: Uint8Array;
  /** Hall index + 1 for hall cells and their frame, else 0. */
  readonly hallOf: Uint8Array;
  readonly halls: Rect[] = [];

  constructor(
    readonly width: number,
    readonly height: number,
    readonly rng: () => number,
  ) {
    this.kinds = new Uint8Array(width * height);
    this.corridor = new Uint8Array(width * height);
    this.hallOf = new Uint8Array(width * height);
  }

  inInterior(x: number, y: number): boolean {
    return x >= RIM && y >= RIM && x < this.width - RIM && y < this.height - RIM;
  }

  randomInt(min: number, maxInclusive: number): number {
    return min + Math.floor(this.rng() * (maxInclusive - min + 1));
  }

  /** Cellular automaton: noisy fill, then five rounds of the 4-5 rule (rock if ≥ 5 of the 3×3 are rock). */
  growCaves(): void {
    const { width, height, rng } = this;
    const density = makeNoise(rng, width, height, 28);
    let rock = new Uint8Array(width * height);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const fill = 0.43 + 0.16 * density(x, y);
        rock[y * width + x] = !this.inInterior(x, y) || rng() < fill ? 1 : 0;
      }
    }
    for (let round = 0; round < 5; round++) {
      const next = new Uint8Array(width * height);
      for (let y = 0; y < height; y++) {
        for (let x = 0; x < width; x++) {
          if (!this.inInterior(x, y)) {
            next[y * width + x] = 1;
            continue;
          }
          let count = 0;
          for (let dy = -1; dy <= 1; dy++) for (let dx = -1; dx <= 1; dx++) count += rock[(y + dy) * width + x + dx];
          next[y * width + x] = count >= 5 ? 1 : 0;
        }
      }
      rock = next;
    }
    for (let i = 0; i < rock.length; i++) this.kinds[i] = rock[i] ? ROCK : FLOOR;
  }

  /** A rectangular hall of flagstones inside a one-cell rock frame. */
  carveHall(hall: Rect): void {
    const index = this.halls.push(hall);
    for (let y = hall.y - 1; y <= hall.y + hall.height; y++) {
      for (let x = hall.x - 1; x <= hall.x + hall.width; x++) {
        const cell = y * this.width + x;
        const inside = x >= hall.x && y >= hall.y && x < hall.x + hall.width && y < hall.y + hall.height;
        this.kinds[cell] = inside ? HALL : ROCK;
        this.hallOf[cell] = index;
      }
    }
  }

  /** Places `count` more halls at random where they keep clear of each other and of the rim. */
  placeHalls(count: number): void {
    for (let attempt = 0; attempt < 400 && count > 0; attempt++) {
      const hall = {
        width: this.randomInt(16, 26),
        height: this.randomInt(11, 17),
        x: 0,
        y: 0,
      };
      hall.x = this.randomInt(RIM + 6, this.width - RIM - 7 - hall.width);
      hall.y = this.randomInt(RIM + 6, this.height - RIM - 7 - hall.height);
      const clear = this.halls.every(
        (other) =>
          hall.x > other.x + other.width + 12 ||
          other.x > hall.x + hall.width + 12 ||
          hall.y > other.y + other.height + 12 ||
          other.y > hall.y + hall.height + 12,
      );
      if (!clear) continue;
      this.carveHall(hall);
      count--;
    }
  }

  /** Pillars on a grid inside a hall, `spacing` apart, keeping `margin` cells from the frame, outside `keepClear`. */
  raisePillars(hall: Rect, spacing: number, margin: number, keepClear?: Rect): void {
    for (let y = hall.y + margin; y < hall.y + hall.height - margin; y += spacing) {
      for (let x = hall.x + margin; x < hall.x + hall.width - margin; x += spacing) {
        if (
          keepClear &&
          x >= keepClear.x &&
          y >= keepClear.y &&
          x < keepClear.x + keepClear.width &&
          y < keepClear.y + keepClear.height
        ) {
          continue;
        }
        this.kinds[y * this.width + x] = PILLAR;
      }
    }
  }

  /** Opens a cell as corridor floor (halls stay halls). */
  openCorridorCell(x: number, y: number): void {
    if (!this.inInterior(x, y)) return;
    const cell = y * this.width + x;
    const kind = this.kinds[cell];
    if (kind === HALL || kind === PILLAR || kind === SIGN || kind === BOARD) return;
    this.kinds[cell] = FLOOR;
    this.corridor[cell] = 1;
  }

  /**
   * A winding corridor from a to b: a biased random walk that keeps some momentum, so it
   * meanders but arrives. Mostly one cell wide, sometimes two.
   */
  carveWindingCorridor(fromX: number, fromY: number, toX: number, toY: number): void {
    let x = fromX;
    let y = fromY;
    let directionX = 0;
    let directionY = 0;
    let wide = this.rng() < 0.3;
    const maxSteps = 12 * (Math.abs(toX - fromX) + Math.abs(toY - fromY)) + 200;
    for (let step = 0; step < maxSteps && (x !== toX || y !== toY); step++) {
      const roll = this.rng();
      if (roll < 0.5 || (directionX === 0 && directionY === 0)) {
        const remainingX = toX - x;
        const remainingY = toY - y;
        const alongX = this.rng() * (Math.abs(remainingX) + Math.abs(remainingY)) < Math.abs(remainingX);
        directionX = alongX ? Math.sign(remainingX) : 0;
        directionY = alongX ? 0 : Math.sign(remainingY);
      } else if (roll > 0.85) {
        const turn = this.randomInt(0, 3);
        directionX = [1, -1, 0, 0][turn];
        directionY = [0, 0, 1, -1][turn];
      }
      const nextX = x + directionX;
      const nextY = y + directionY;
      if (nextX < RIM + 1 || nextY < RIM + 1 || nextX >= this.width - RIM - 1 || nextY >= this.height - RIM - 1) {
        directionX = 0;
        directionY = 0;
        continue;
      }
      x = nextX;
      y = nextY;
      if (this.rng() < 0.02) wide = !wide;
      this.openCorridorCell(x, y);
      if (wide) {
        this.openCorridorCell(x + 1, y);
        this.openCorridorCell(x, y + 1);
        this.openCorridorCell(x + 1, y + 1);
      }
    }
  }

  /**
   * A roughly round pool of water, deep in the middle. Corridor cells it covers become
   * bridge, so the corridors through it stay open.
   */
  fillPool(centreX: number, centreY: number, radius: number, shape: (x: number, y: number) => number): void {
    const reach = Math.ceil(radius * 1.3);
    for (let y = centreY - reach; y <= centreY + reach; y++) {
      for (let x = centreX - reach; x <= centreX + reach; x++) {
        if (!this.inInterior(x, y)) continue;
        const cell = y * this.width + x;
        const kind = this.kinds[cell];
        if (kind !== FLOOR && kind !== HALL) continue;
        // sqrt is correctly rounded everywhere (hypot need not be), so the map is the same on every engine.
        const distance = Math.sqrt((x - centreX) ** 2 + (y - centreY) ** 2) / (0.75 + 0.5 * shape(x, y));
        if (distance > radius) continue;
        if (this.corridor[cell]) this.kinds[cell] = BRIDGE;
        else this.kinds[cell] = distance < radius * 0.55 ? DEEP : WATER;
      }
    }
  }

  /** A straight bridge through a pool's centre, horizontal or vertical, from shore to shore. */
  bridgePool(centreX: number, centreY: number, horizontal: boolean): void {
    for (const direction of [-1, 1]) {
      for (let step = 0; step < 40; step++) {
        const x = centreX + (horizontal ? direction * step : 0);
        const y = centreY + (horizontal ? 0 : direction * step);
        if (!this.inInterior(x, y)) break;
        const cell = y * this.width + x;
        const kind = this.kinds[cell];
        if (kind === WATER || kind === DEEP) this.kinds[cell] = BRIDGE;
        else if (kind !== BRIDGE) break;
      }
    }
  }

  /** A pool that only covered corridor cells leaves bridges over dry rock; those are plain floor. */
  dryUpStrandedBridges(): void {
    const { width, kinds } = this;
    for (let cell = 0; cell < kinds.length; cell++) {
      if (kinds[cell] !== BRIDGE) continue;
      let wet = false;
      for (let dy = -1; dy <= 1 && !wet; dy++) {
        for (let dx = -1; dx <= 1 && !wet; dx++) {
          const kind = kinds[cell + dy * width + dx];
          wet = kind === WATER || kind === DEEP;
        }
      }
      if (!wet) kinds[cell] = FLOOR;
    }
  }

  isWalkable(cell: number): boolean {
    const kind = this.kinds[cell];
    return kind === FLOOR || kind === HALL || kind === BRIDGE;
  }

  /** Labels 4-connected walkable regions (diagonal steps need both orthogonal cells free, so 4-connectivity is reachability). */
  walkableRegions(): { labels: Int32Array; sizes: number[] } {
    const { width, height } = this;
    const labels = new Int32Array(width * height).fill(-1);
    const sizes: number[] = [];
    const queue = new Int32Array(width * height);
    for (let start = 0; start < labels.length; start++) {
      if (labels[start] !== -1 || !this.isWalkable(start)) continue;
      const label = sizes.length;
      let head = 0;
      let tail = 0;
      queue[tail++] = start;
      labels[start] = label;
      while (head < tail) {
        const cell = queue[head++];
        const x = cell % width;
        for (const next of [cell - width, cell + width, x > 0 ? cell - 1 : -1, x < width - 1 ? cell + 1 : -1]) {
          if (next < 0 || next >= labels.length || labels[next] !== -1 || !this.isWalkable(next)) continue;
          labels[next] = label;
          queue[tail++] = next;
        }
      }
      sizes.push(tail);
    }
    return { labels, sizes };
  }

  /**
   * Makes every walkable cell reachable from `home`: tiny pockets are filled with rock, every
   * other region gets a tunnel to the nearest cell already connected (a breadth-first search
   * through rock and water that never cuts pillars, signs or the rim). Water on a tunnel's path
   * becomes bridge. Returns the number of tunnels.
   */
  connectEverything(homeX: number, homeY: number): number {
    const { width } = this;
    let tunnels = 0;
    for (;;) {
      const { labels, sizes } = this.walkableRegions();
      const home = labels[homeY * width + homeX];
      let target = -1;
      for (let label = 0; label < sizes.length; label++) if (label !== home && target === -1) target = label;
      if (target === -1) return tunnels;
      if (sizes[target] < 8) {
        for (let cell = 0; cell < labels.length; cell++) if (labels[cell] === target) this.kinds[cell] = ROCK;
        continue;
      }
      this.tunnelFrom(labels, target, home);
      tunnels++;
    }
  }

  private tunnelFrom(labels: Int32Array, from: number, to: number): void {
    const { width, height, kinds } = this;
    const previous = new Int32Array(width * height).fill(-2);
    const queue = new Int32Array(width * height);
    let head = 0;
    let tail = 0;
    for (let cell = 0; cell < labels.length; cell++) {
      if (labels[cell] === from) {
        previous[cell] = -1;
        queue[tail++] = cell;
      }
    }
    while (head < tail) {
      const cell = queue[head++];
      if (labels[cell] === to) {
        for (let step = previous[cell]; step >= 0 && labels[step] !== from; step = previous[step]) {
          kinds[step] = kinds[step] === WATER || kinds[step] === DEEP ? BRIDGE : FLOOR;
          this.corridor[step] = 1;
        }
        return;
      }
      const x = cell % width;
      const y = Math.floor(cell / width);
      // Shuffle the neighbour order so tunnels are not all L-shaped the same way.
      const offset = Math.floor(this.rng() * 4);
      for (let k = 0; k < 4; k++) {
        const direction = (k + offset) % 4;
        const nextX = x + [1, 0, -1, 0][direction];
        const nextY = y + [0, 1, 0, -1][direction];
        if (!this.inInterior(nextX, nextY)) continue;
        const next = nextY * width + nextX;
        if (previous[next] !== -2) continue;
        const kind = kinds[next];
        if (kind === PILLAR || kind === SIGN || kind === BOARD) continue;
        previous[next] = cell;
        queue[tail++] = next;
      }
    }
    throw new Error("cave generator: a region cannot be connected");
  }
}

/**
 * A stand-in for atan2 that orders directions the same way (0..4 around the circle) using
 * only division, which IEEE 754 rounds exactly; atan2 may differ in the last bit between engines.
 */
function diamondAngle(dx: number, dy: number): number {
  if (dy >= 0) return dx >= 0 ? dy / (dx + dy || 1) : 1 - dx / (-dx + dy);
  return dx < 0 ? 2 - dy / (-dx - dy) : 3 + dx / (dx - dy);
}

/** Generates the bundled map. Same options, same bytes. */
export function generateCaves(options: CaveOptions = {}): GeneratedCaves {
  const seed = options.seed ?? DEFAULT_CAVE_SEED;
  const width = options.width ?? DEFAULT_CAVE_WIDTH;
  const height = options.height ?? DEFAULT_CAVE_HEIGHT;
  if (width < 96 || height < 96) throw new Error("cave generator: the map must be at least 96×96");
  const rng = mulberry32(seed);
  const builder = new CaveBuilder(width, height, rng);
  builder.growCaves();

  // The great hall in the middle: spawn area, sign and notice board, two rows of pillars.
  const centreX = Math.floor(width / 2);
  const centreY = Math.floor(height / 2);
  const greatHall = { x: centreX - 16, y: centreY - 10, width: 32, height: 20 };
  builder.carveHall(greatHall);
  builder.raisePillars(greatHall, 5, 3, { x: greatHall.x, y: centreY - 6, width: greatHall.width, height: 12 });
  builder.placeHalls(5);

  // Winding corridors: a ring through all halls, spokes from the great hall, and a few long
  // wanderings into the far corners.
  const hallCentres = builder.halls.map((hall) => ({
    x: hall.x + Math.floor(hall.width / 2),
    y: hall.y + Math.floor(hall.height / 2),
  }));
  const ring = hallCentres
    .slice(1)
    .sort((a, b) => diamondAngle(a.x - centreX, a.y - centreY) - diamondAngle(b.x - centreX, b.y - centreY));
  for (let i = 0; i < ring.length; i++) {
    const next = ring[(i + 1) % ring.length];
    builder.carveWindingCorridor(ring[i].x, ring[i].y, next.x, next.y);
    if (i % 2 === 0) builder.carveWindingCorridor(centreX, centreY, ring[i].x, ring[i].y);
  }
  const corners = [
    { x: RIM + 8, y: RIM + 8 },
    { x: width - RIM - 9, y: RIM + 8 },
    { x: RIM + 8, y: height - RIM - 9 },
    { x: width - RIM - 9, y: height - RIM - 9 },
  ];
  for (const corner of corners) {
    const start = hallCentres[builder.randomInt(0, hallCentres.length - 1)];
    builder.carveWindingCorridor(start.x, start.y, corner.x, corner.y);
  }

  // Pools in the caves (away from halls), one flooded hall; bridges across the big ones.
  const shape = makeNoise(rng, width, height, 6);
  let poolCount = 0;
  for (let attempt = 0; attempt < 500 && poolCount < 10; attempt++) {
    const x = builder.randomInt(RIM + 10, width - RIM - 11);
    const y = builder.randomInt(RIM + 10, height - RIM - 11);
    if (builder.kinds[y * width + x] !== FLOOR || builder.corridor[y * width + x]) continue;
    const nearHall = builder.halls.some(
      (hall) => x > hall.x - 12 && x < hall.x + hall.width + 12 && y > hall.y - 12 && y < hall.y + hall.height + 12,
    );
    if (nearHall) continue;
    const radius = builder.randomInt(5, 10);
    builder.fillPool(x, y, radius, shape);
    if (radius >= 6) builder.bridgePool(x, y, rng() < 0.5);
    poolCount++;
  }
  const floodedHall = builder.halls[builder.halls.length - 1];
  const floodedX = floodedHall.x + Math.floor(floodedHall.width / 2);
  const floodedY = floodedHall.y + Math.floor(floodedHall.height / 2);
  builder.fillPool(floodedX, floodedY, Math.min(floodedHall.width, floodedHall.height) / 2 - 2, shape);
  builder.bridgePool(floodedX, floodedY, true);
  builder.bridgePool(floodedX, floodedY, false);
  poolCount++;
  builder.dryUpStrandedBridges();
  for (const hall of builder.halls.slice(1, -1)) if (rng() < 0.6) builder.raisePillars(hall, 4, 2);

  // The spawn area: six points in the middle of the great hall, sign and board north of them.
  const spawns = [-5, -3, -1, 1, 3, 5].map((dx, i) => ({ x: centreX + dx, y: centreY + (i % 2) }));
  const sign = { x: centreX - 3, y: centreY - 4, text: SIGN_TEXT };
  const noticeBoard = { x: centreX + 3, y: centreY - 4 };
  builder.kinds[sign.y * width + sign.x] = SIGN;
  builder.kinds[noticeBoard.y * width + noticeBoard.x] = BOARD;

  const tunnelCount = builder.connectEverything(spawns[0].x, spawns[0].y);
  const tiles = chooseTiles(builder, mulberry32(seed ^ 0x7f4a7c15));
  const npcSpawns = placeNpcSpawns(greatHall, builder.halls, (x, y) => {
    const cell = y * width + x;
    return x >= 0 && y >= 0 && x < width && y < height && builder.corridor[cell] === 1 && builder.kinds[cell] === FLOOR;
  });
  // Doors last, from their own random stream, so every other cell stays what it was without them.
  const doors = placeDoors(builder, tiles, centreX, centreY, npcSpawns, mulberry32(seed ^ 0x0d00_2bad));
  const stairs = placeStairs(tiles, width, height, greatHall, builder.halls, [...spawns, sign, noticeBoard, ...doors]);
  // Drawn as stairs (the tile under each stairs object), so a player sees where they are.
  for (const { x, y } of stairs) tiles[y * width + x] = CAVE_TILE.stairsDown;
  return {
    seed,
    width,
    height,
    tiles,
    halls: builder.halls,
    greatHall,
    spawns,
    sign,
    noticeBoard,
    npcSpawns,
    people: placePeople(greatHall),
    doors,
    stairs,
    poolCount,
    tunnelCount,
  };
}

/**
 * Stairs down, from the finished tiles alone (no random numbers, so nothing else moves): the free cell
 * nearest a point four rows south of the spawn points, and the free cell nearest the centre of the hall
 * farthest from the great hall. Never on a spawn point, the sign, the board or a door.
 */
function placeStairs(
  tiles: Uint16Array,
  width: number,
  height: number,
  greatHall: Rect,
  halls: readonly Rect[],
  taken: readonly { x: number; y: number }[],
): { x: number; y: number }[] {
  const collides = new Set(CAVE_TILE_DATA.filter((tile) => tile.collides).map((tile) => tile.id));
  const free = (x: number, y: number) =>
    x > 0 &&
    y > 0 &&
    x < width - 1 &&
    y < height - 1 &&
    !collides.has(tiles[y * width + x]) &&
    !taken.some((cell) => cell.x === x && cell.y === y);
  const nearest = (x: number, y: number) => {
    for (let ring = 0; ring < Math.max(width, height); ring++) {
      for (let dy = -ring; dy <= ring; dy++) {
        for (let dx = -ring; dx <= ring; dx++) {
          if (Math.max(Math.abs(dx), Math.abs(dy)) === ring && free(x + dx, y + dy)) return { x: x + dx, y: y + dy };
        }
      }
    }
    throw new Error("no free cell for stairs");
  };
  const centre = (hall: Rect) => ({ x: hall.x + (hall.width >> 1), y: hall.y + (hall.height >> 1) });
  const hallCentre = centre(greatHall);
  let farthest = halls[0];
  for (const hall of halls) {
    const c = centre(hall);
    const f = centre(farthest);
    if (
      Math.abs(c.x - hallCentre.x) + Math.abs(c.y - hallCentre.y) >
      Math.abs(f.x - hallCentre.x) + Math.abs(f.y - hallCentre.y)
    ) {
      farthest = hall;
    }
  }
  const far = centre(farthest);
  return [nearest(hallCentre.x, hallCentre.y + 4), nearest(far.x, far.y)];
}

/** The merchant north of the spawn points, Old Tom south of them (no random numbers: the tiles stay as they were). */
function placePeople(greatHall: Rect): CaveNpcSpawn[] {
  const centreX = greatHall.x + Math.floor(greatHall.width / 2);
  return [
    {
      name: "merchant's stall",
      kind: "Mira the merchant",
      count: 1,
      x: centreX + 2,
      y: greatHall.y + 2,
      width: 3,
      height: 1,
    },
    {
      name: "Old Tom's bench",
      kind: "Old Tom",
      count: 1,
      x: centreX - 4,
      y: greatHall.y + greatHall.height - 4,
      width: 3,
      height: 1,
    },
  ];
}

/**
 * The creatures' homes, from the halls alone (no random numbers, so the tiles stay as they were):
 * rats and beetles in the corners of the great hall, in view of the spawn points, so a new player
 * sees the world move at once; two guards by the hall's south wall; hostiles in the other halls,
 * none in the great hall. Loading keeps only the free cells of each area.
 */
function placeNpcSpawns(
  greatHall: Rect,
  halls: readonly Rect[],
  isCorridorFloor: (x: number, y: number) => boolean,
): CaveNpcSpawn[] {
  // Within 15 tiles (the view radius) of all six spawn points (centre ± 5).
  const centreX = greatHall.x + Math.floor(greatHall.width / 2);
  const spawns: CaveNpcSpawn[] = [
    { name: "great hall rats", kind: "cave rat", count: 3, x: centreX - 10, y: greatHall.y + 1, width: 7, height: 5 },
    {
      name: "great hall beetles",
      kind: "glow beetle",
      count: 3,
      x: centreX + 4,
      y: greatHall.y + greatHall.height - 6,
      width: 7,
      height: 5,
    },
  ];
  // Two guards by the south wall, either side of the centre.
  const guardY = greatHall.y + greatHall.height - 2;
  for (const [index, dx] of [-8, 8].entries()) {
    spawns.push({
      name: `hall guard ${index + 1}`,
      kind: "hall guard",
      count: 1,
      x: centreX + dx - 1,
      y: guardY,
      width: 3,
      height: 1,
    });
  }
  // Spiders in the tunnels a short walk out of the great hall: in each of the eight compass
  // directions, the first corridor floor 34..44 tiles from the centre (beyond view of the spawn
  // points plus a spider's leash), so leaving the hall soon meets something that follows you.
  const centreY = greatHall.y + Math.floor(greatHall.height / 2);
  for (const [dx, dy] of [
    [0, -1],
    [1, -1],
    [1, 0],
    [1, 1],
    [0, 1],
    [-1, 1],
    [-1, 0],
    [-1, -1],
  ]) {
    for (let distance = 34; distance <= 44; distance++) {
      const x = centreX + dx * distance;
      const y = centreY + dy * distance;
      if (!isCorridorFloor(x, y)) continue;
      spawns.push({
        name: `tunnel spiders ${spawns.length}`,
        kind: "cave spider",
        count: 2,
        x: x - 1,
        y: y - 1,
        width: 3,
        height: 3,
      });
      break;
    }
  }
  // The other halls, but not the flooded last one: hostiles by turns, with a few rats among them.
  const hostiles = ["cave spider", "skeleton"];
  halls.slice(1, -1).forEach((hall, index) => {
    spawns.push({ name: `hall ${index + 2} ${hostiles[index % 2]}s`, kind: hostiles[index % 2], count: 4, ...hall });
    spawns.push({ name: `hall ${index + 2} rats`, kind: "cave rat", count: 2, ...hall });
  });
  return spawns;
}

/** Doors stay this far (Chebyshev) from the map centre: beyond the great hall and its tunnel spiders. */
const DOOR_MIN_CENTRE_DISTANCE = 48;
/** Doors stay this far apart. */
const DOOR_SPACING = 24;
/** The vault behind the locked door: a dead end of this many walkable cells. */
const VAULT_MIN_CELLS = 20;
const VAULT_MAX_CELLS = 400;
/** Unlocked doors besides the vault's: this many closed ones, then one left open. */
const CLOSED_DOORS = 3;

/**
 * The doors: one locked door in front of a vault — a dead end of VAULT_MIN..MAX_CELLS corridor
 * and cave cells without halls or creatures, behind a corridor throat — then CLOSED_DOORS closed
 * doors and one open door in other throats, each DOOR_SPACING apart and far from the great hall.
 * A throat is a corridor floor cell walled in on two opposite sides and all four corners, so the
 * door has wall to either side. Writes the door tiles into `tiles`; walkable kinds are unchanged
 * (a door is a way through).
 */
function placeDoors(
  builder: CaveBuilder,
  tiles: Uint16Array,
  centreX: number,
  centreY: number,
  npcSpawns: readonly CaveNpcSpawn[],
  rng: () => number,
): CaveDoor[] {
  const { width, height, kinds, corridor } = builder;
  const rock = (x: number, y: number) => kinds[y * width + x] === ROCK;
  const walkable = (x: number, y: number) => builder.isWalkable(y * width + x);
  const nearSpawnArea = (x: number, y: number) =>
    npcSpawns.some((a) => x >= a.x - 3 && y >= a.y - 3 && x < a.x + a.width + 3 && y < a.y + a.height + 3);
  const candidates: { x: number; y: number; alongX: boolean }[] = [];
  for (let y = RIM + 1; y < height - RIM - 1; y++) {
    for (let x = RIM + 1; x < width - RIM - 1; x++) {
      const cell = y * width + x;
      if (kinds[cell] !== FLOOR || corridor[cell] !== 1) continue;
      if (Math.max(Math.abs(x - centreX), Math.abs(y - centreY)) < DOOR_MIN_CENTRE_DISTANCE) continue;
      if (!(rock(x - 1, y - 1) && rock(x + 1, y - 1) && rock(x - 1, y + 1) && rock(x + 1, y + 1))) continue;
      const alongX = walkable(x - 1, y) && walkable(x + 1, y) && rock(x, y - 1) && rock(x, y + 1);
      const alongY = walkable(x, y - 1) && walkable(x, y + 1) && rock(x - 1, y) && rock(x + 1, y);
      if ((!alongX && !alongY) || nearSpawnArea(x, y)) continue;
      candidates.push({ x, y, alongX });
    }
  }
  // The walkable cells reachable from (x, y) without crossing the door cell, up to VAULT_MAX_CELLS + 1
  // (more: not a vault); -1 when the region holds a hall cell or a creature's home.
  const seen = new Int32Array(width * height);
  let stamp = 0;
  const pocket = (fromX: number, fromY: number, doorCell: number): number => {
    stamp++;
    seen[doorCell] = stamp;
    const queue = [fromY * width + fromX];
    seen[queue[0]] = stamp;
    for (let head = 0; head < queue.length; head++) {
      const cell = queue[head];
      const x = cell % width;
      const y = Math.floor(cell / width);
      if (kinds[cell] === HALL || nearSpawnArea(x, y)) return -1;
      if (queue.length > VAULT_MAX_CELLS) return VAULT_MAX_CELLS + 1;
      for (const next of [cell - 1, cell + 1, cell - width, cell + width]) {
        if (seen[next] !== stamp && builder.isWalkable(next)) {
          seen[next] = stamp;
          queue.push(next);
        }
      }
    }
    return queue.length;
  };
  const doors: CaveDoor[] = [];
  const farFromDoors = (x: number, y: number) =>
    doors.every((door) => Math.max(Math.abs(door.x - x), Math.abs(door.y - y)) >= DOOR_SPACING);
  // The vault: the throat in front of the largest pocket (the first such throat in scan order on ties).
  let vault: { x: number; y: number; cells: number } | null = null;
  for (const { x, y, alongX } of candidates) {
    const sides = alongX ? [x - 1, y, x + 1, y] : [x, y - 1, x, y + 1];
    for (let side = 0; side < 4; side += 2) {
      const cells = pocket(sides[side], sides[side + 1], y * width + x);
      if (cells >= VAULT_MIN_CELLS && cells <= VAULT_MAX_CELLS && (vault === null || cells > vault.cells)) {
        vault = { x, y, cells };
      }
    }
  }
  if (vault !== null) {
    doors.push({
      name: "vault door",
      x: vault.x,
      y: vault.y,
      open: false,
      key: CAVE_VAULT_KEY,
      vaultCells: vault.cells,
    });
  }
  for (let picked = 0; picked <= CLOSED_DOORS && candidates.length > 0;) {
    const { x, y } = candidates.splice(Math.floor(rng() * candidates.length), 1)[0];
    if (!farFromDoors(x, y)) continue;
    doors.push({ name: "", x, y, open: picked === CLOSED_DOORS, key: null });
    picked++;
  }
  for (const door of doors) tiles[door.y * width + door.x] = door.open ? CAVE_TILE.openDoor : CAVE_TILE.door;
  return doors;
}

/** Picks the tile id of every cell; walkable kinds only ever get walkable tiles and vice versa. */
function chooseTiles(builder: CaveBuilder, rng: () => number): Uint16Array {
  const { width, height, kinds, hallOf } = builder;
  const tiles = new Uint16Array(width * height);
  const gravelNoise = makeNoise(rng, width, height, 9);
  const mossNoise = makeNoise(rng, width, height, 13);
  const darkNoise = makeNoise(rng, width, height, 20);
  const nearWater = distanceWithin(builder, (kind) => kind === WATER || kind === DEEP, 2);
  const nearWalkable = distanceWithin(builder, (kind) => kind === FLOOR || kind === HALL || kind === BRIDGE, 3);
  const hallStyle = builder.halls.map((_, index) => (index === 0 ? 0 : Math.floor(rng() * 3)));

  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const cell = y * width + x;
      tiles[cell] = floorOrWallTile(kinds[cell]);
      if (kinds[cell] === FLOOR) {
        let tile: number = CAVE_TILE.floor;
        if (gravelNoise(x, y) > 0.64) tile = CAVE_TILE.gravel;
        if (nearWater[cell] <= 2 || mossNoise(x, y) > 0.7) tile = rng() < 0.1 ? CAVE_TILE.mushrooms : CAVE_TILE.moss;
        if (nearWalkableWall(builder, x, y) && rng() < 0.05) tile = CAVE_TILE.rubble;
        tiles[cell] = tile;
      } else if (kinds[cell] === HALL) {
        const style = hallStyle[hallOf[cell] - 1];
        let tile: number = CAVE_TILE.flagstone;
        if (style === 1 && rng() < 0.12) tile = CAVE_TILE.rubble; // a half-collapsed hall
        if (style === 2 && mossNoise(x, y) > 0.55) tile = CAVE_TILE.moss; // an overgrown one
        tiles[cell] = tile;
      } else if (kinds[cell] === ROCK) {
        const depth = nearWalkable[cell];
        tiles[cell] = depth >= 3 || darkNoise(x, y) > 0.66 ? CAVE_TILE.darkRockWall : CAVE_TILE.rockWall;
      }
    }
  }
  placeCrystals(builder, tiles, nearWalkable, rng);
  placeTorches(builder, tiles, nearWalkable, rng);
  return tiles;
}

function floorOrWallTile(kind: number): number {
  switch (kind) {
    case PILLAR:
      return CAVE_TILE.pillar;
    case WATER:
      return CAVE_TILE.water;
    case DEEP:
      return CAVE_TILE.deepWater;
    case BRIDGE:
      return CAVE_TILE.bridge;
    case SIGN:
      return CAVE_TILE.sign;
    case BOARD:
      return CAVE_TILE.noticeBoard;
    default:
      return CAVE_TILE.floor;
  }
}

/** Chebyshev distance (capped at limit + 1) from each cell to the nearest cell of a kind. */
function distanceWithin(builder: CaveBuilder, isSource: (kind: number) => boolean, limit: number): Uint8Array {
  const { width, height, kinds } = builder;
  const distance = new Uint8Array(width * height).fill(limit + 1);
  let frontier: number[] = [];
  for (let cell = 0; cell < kinds.length; cell++) {
    if (isSource(kinds[cell])) {
      distance[cell] = 0;
      frontier.push(cell);
    }
  }
  for (let step = 1; step <= limit; step++) {
    const next: number[] = [];
    for (const cell of frontier) {
      const x = cell % width;
      const y = Math.floor(cell / width);
      for (let dy = -1; dy <= 1; dy++) {
        for (let dx = -1; dx <= 1; dx++) {
          const nx = x + dx;
          const ny = y + dy;
          if (nx < 0 || ny < 0 || nx >= width || ny >= height) continue;
          const neighbour = ny * width + nx;
          if (distance[neighbour] > step) {
            distance[neighbour] = step;
            next.push(neighbour);
          }
        }
      }
    }
    frontier = next;
  }
  return distance;
}

function nearWalkableWall(builder: CaveBuilder, x: number, y: number): boolean {
  const { width, kinds } = builder;
  return [
    kinds[y * width + x - 1],
    kinds[y * width + x + 1],
    kinds[(y - 1) * width + x],
    kinds[(y + 1) * width + x],
  ].includes(ROCK);
}

/** Crystal veins: clusters on cave walls that face open floor (never in halls). */
function placeCrystals(builder: CaveBuilder, tiles: Uint16Array, nearWalkable: Uint8Array, rng: () => number): void {
  const { width, height, kinds, hallOf } = builder;
  const faces: number[] = [];
  for (let cell = 0; cell < kinds.length; cell++) {
    if (kinds[cell] === ROCK && nearWalkable[cell] === 1 && hallOf[cell] === 0) faces.push(cell);
  }
  for (let cluster = 0; cluster < 45; cluster++) {
    const seed = faces[Math.floor(rng() * faces.length)];
    const seedX = seed % width;
    const seedY = Math.floor(seed / width);
    for (let dy = -2; dy <= 2; dy++) {
      for (let dx = -2; dx <= 2; dx++) {
        const x = seedX + dx;
        const y = seedY + dy;
        if (x < 0 || y < 0 || x >= width || y >= height) continue;
        const cell = y * width + x;
        if (kinds[cell] === ROCK && nearWalkable[cell] === 1 && hallOf[cell] === 0 && rng() < 0.65) {
          tiles[cell] = CAVE_TILE.crystalWall;
        }
      }
    }
  }
}

/** Torches: every fourth frame cell around each hall, and a sparse scatter along cave and corridor walls. */
function placeTorches(builder: CaveBuilder, tiles: Uint16Array, nearWalkable: Uint8Array, rng: () => number): void {
  const { width, kinds } = builder;
  const torches: { x: number; y: number }[] = [];
  const place = (x: number, y: number): void => {
    tiles[y * width + x] = CAVE_TILE.torchWall;
    torches.push({ x, y });
  };
  for (const hall of builder.halls) {
    for (let x = hall.x + 2; x < hall.x + hall.width - 1; x += 4) {
      for (const y of [hall.y - 1, hall.y + hall.height]) if (kinds[y * width + x] === ROCK) place(x, y);
    }
    for (let y = hall.y + 2; y < hall.y + hall.height - 1; y += 4) {
      for (const x of [hall.x - 1, hall.x + hall.width]) if (kinds[y * width + x] === ROCK) place(x, y);
    }
  }
  for (let cell = 0; cell < kinds.length; cell++) {
    if (kinds[cell] !== ROCK || nearWalkable[cell] !== 1 || tiles[cell] !== CAVE_TILE.rockWall) continue;
    if (rng() >= 0.05) continue;
    const x = cell % width;
    const y = Math.floor(cell / width);
    if (torches.some((torch) => Math.max(Math.abs(torch.x - x), Math.abs(torch.y - y)) < 10)) continue;
    place(x, y);
  }
}
