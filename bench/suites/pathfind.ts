// Pathfinding suite: wasm A* (WasmSim) vs the project's JS reference A*, the
// npm packages PathFinding.js, easystarjs and rot-js, and the same algorithm
// in C (bench/native/astar.c at -O3 and at -O3 -march=native), on identical
// deterministic grids. Correctness first (valid under
// the movement rule, step-optimal against BFS), then paths per second.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import EasyStar from "easystarjs";
import PF from "pathfinding";
import * as ROT from "rot-js";
import { TILE_BORDER, TILE_FLAG_COLLIDES, TILE_UNKNOWN } from "../../ts/constants.js";
import { RefGrid } from "../../ts/ref/sim.js";
import { loadMap, tileFlagsTable } from "../../ts/server/map/load-map.js";
import { loadCore } from "../../ts/wasm/node.js";
import { WasmSim } from "../../ts/wasm/sim.js";
import { caveWalls, mulberry32, perfectMazeOpen } from "../lib/data.js";
import {
  type RunOptions,
  type Spread,
  fmt,
  fmtRatio,
  loadNow,
  log,
  runTasks,
  spreadOf,
  runHeader,
} from "../lib/harness.js";
import type { SuiteResult, Table, Target } from "../lib/results.js";

const FLOOR = 1;
const WALL = 5;
const UNLIMITED = 0x7fffffff;
/** PATH_OUT's size: paths used to be capped here (issue 20 removed the cap; the backtracker maze goes past it). */
const PATH_MAX = 4096;
/** Issue 20's target: wasm A* at least this share of the C bucket A*'s paths/s on every grid. */
const C_SHARE_TARGET = 0.85;
/** The C builds of bench/native/astar.c: the flags today's C row used, and the issue's -march=native. */
const NATIVE_BUILDS = [
  { name: "C -O3 bucket-queue A* (bench/native/astar.c)", flags: ["-O3"] },
  { name: "C -O3 -march=native bucket-queue A* (bench/native/astar.c)", flags: ["-O3", "-march=native"] },
] as const;
const DX = [0, 0, 1, 0, -1, 1, 1, -1, -1];
const DY = [0, -1, 0, 1, 0, -1, 1, 1, -1];
const C_RANGE = "2,150–24,000 paths/s";

export interface TestGrid {
  name: string;
  width: number;
  height: number;
  tiles: Uint16Array;
  flags: Uint8Array;
  /** 1 where a cell may be stood on. */
  free: Uint8Array;
}

function makeGrid(name: string, width: number, height: number, wall: (x: number, y: number) => boolean): TestGrid {
  const tiles = new Uint16Array(width * height);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) tiles[y * width + x] = wall(x, y) ? WALL : FLOOR;
  const flags = new Uint8Array(65536);
  flags[WALL] = TILE_FLAG_COLLIDES;
  return withFree(name, width, height, tiles, flags);
}

function withFree(name: string, width: number, height: number, tiles: Uint16Array, flags: Uint8Array): TestGrid {
  flags[TILE_UNKNOWN] |= TILE_FLAG_COLLIDES;
  flags[TILE_BORDER] |= TILE_FLAG_COLLIDES;
  const free = Uint8Array.from(tiles, (id) => ((flags[id] & TILE_FLAG_COLLIDES) === 0 ? 1 : 0));
  return { name, width, height, tiles, flags, free };
}

export function randomWalls(size: number, density: number, seed: number): TestGrid {
  const random = mulberry32(seed);
  const walls = Uint8Array.from({ length: size * size }, () => (random() < density ? 1 : 0));
  return makeGrid(
    `${size}×${size} random ${Math.round(density * 100)}%`,
    size,
    size,
    (x, y) => walls[y * size + x] === 1,
  );
}

/** A perfect maze (bench/lib/data.ts: Kruskal's short dead ends, or the backtracker's long corridors). */
export function perfectMaze(size: number, seed: number, kind: "kruskal" | "backtracker"): TestGrid {
  const open = perfectMazeOpen(size, mulberry32(seed), kind);
  const name = kind === "kruskal" ? "perfect maze" : "backtracker maze";
  return makeGrid(`${size}×${size} ${name}`, size, size, (x, y) => open[y * size + x] === 0);
}

/** Cellular-automaton caves: 45 % noise, four rounds of the 5-of-9 rule. */
export function caves(size: number, seed: number): TestGrid {
  const wall = caveWalls(size, mulberry32(seed), 0.45, 4);
  return makeGrid(`${size}×${size} cellular caves`, size, size, (x, y) => wall[y * size + x] === 1);
}

export function defaultMap(): TestGrid {
  const map = loadMap(new URL("../../maps/caves.tmj", import.meta.url).pathname);
  return withFree(
    `default map (${map.width}×${map.height})`,
    map.width,
    map.height,
    map.tiles,
    tileFlagsTable(map.tileData),
  );
}

/** THE movement rule on the test grid: the target free; a diagonal also needs both orthogonal neighbours. */
function stepAllowed(grid: TestGrid, x: number, y: number, action: number): boolean {
  const at = (cx: number, cy: number) =>
    cx >= 0 && cy >= 0 && cx < grid.width && cy < grid.height && grid.free[cy * grid.width + cx] === 1;
  const dx = DX[action];
  const dy = DY[action];
  if (!at(x + dx, y + dy)) return false;
  return dx === 0 || dy === 0 || (at(x + dx, y) && at(x, y + dy));
}

/** BFS distances from `start` under the rule (-1 unreachable). */
function bfs(grid: TestGrid, start: number, distance: Int32Array, queue: Int32Array): void {
  distance.fill(-1);
  distance[start] = 0;
  let head = 0;
  let tail = 0;
  queue[tail++] = start;
  while (head < tail) {
    const cell = queue[head++];
    const x = cell % grid.width;
    const y = (cell - x) / grid.width;
    for (let action = 1; action <= 8; action++) {
      if (!stepAllowed(grid, x, y, action)) continue;
      const next = cell + DY[action] * grid.width + DX[action];
      if (distance[next] !== -1) continue;
      distance[next] = distance[cell] + 1;
      queue[tail++] = next;
    }
  }
}

function largestRegion(grid: TestGrid): number[] {
  const cells = grid.width * grid.height;
  const distance = new Int32Array(cells);
  const queue = new Int32Array(cells);
  const seen = new Uint8Array(cells);
  let best: number[] = [];
  for (let cell = 0; cell < cells; cell++) {
    if (seen[cell] || !grid.free[cell]) continue;
    bfs(grid, cell, distance, queue);
    const region: number[] = [];
    for (let i = 0; i < cells; i++) {
      if (distance[i] >= 0) {
        seen[i] = 1;
        region.push(i);
      }
    }
    if (region.length > best.length) best = region;
  }
  return best;
}

export interface Pair {
  sx: number;
  sy: number;
  gx: number;
  gy: number;
  optimal: number;
}

/** `count` pairs from the largest region, each with its BFS step count (any length: A* has no cap). */
export function makePairs(grid: TestGrid, count: number, seed: number): Pair[] {
  const region = largestRegion(grid);
  const random = mulberry32(seed);
  const cells = grid.width * grid.height;
  const distance = new Int32Array(cells);
  const queue = new Int32Array(cells);
  const pairs: Pair[] = [];
  while (pairs.length < count) {
    const a = region[Math.floor(random() * region.length)];
    const b = region[Math.floor(random() * region.length)];
    if (a === b) continue;
    bfs(grid, a, distance, queue);
    const w = grid.width;
    pairs.push({ sx: a % w, sy: Math.floor(a / w), gx: b % w, gy: Math.floor(b / w), optimal: distance[b] });
  }
  return pairs;
}

/** Steps of a path given as cells (start first) if every step obeys the rule and it ends at the goal, else -1. */
function validSteps(grid: TestGrid, pair: Pair, cells: ArrayLike<number>[]): number {
  if (cells.length === 0) return -1;
  if (cells[0][0] !== pair.sx || cells[0][1] !== pair.sy) return -1;
  for (let i = 1; i < cells.length; i++) {
    const dx = cells[i][0] - cells[i - 1][0];
    const dy = cells[i][1] - cells[i - 1][1];
    const action = DX.findIndex((value, a) => a > 0 && value === dx && DY[a] === dy);
    if (action < 1 || !stepAllowed(grid, cells[i - 1][0], cells[i - 1][1], action)) return -1;
  }
  const last = cells[cells.length - 1];
  return last[0] === pair.gx && last[1] === pair.gy ? cells.length - 1 : -1;
}

function actionsToCells(pair: Pair, actions: Uint8Array): number[][] {
  const cells = [[pair.sx, pair.sy]];
  let x = pair.sx;
  let y = pair.sy;
  for (const action of actions) {
    x += DX[action];
    y += DY[action];
    cells.push([x, y]);
  }
  return cells;
}

/** rot-js's A* asks only "is (x, y) passable?"; our rule needs the step's origin for diagonals, so filter neighbours. */
class RotAstarNoCornerCutting extends ROT.Path.AStar {
  constructor(
    toX: number,
    toY: number,
    private readonly passable: (x: number, y: number) => boolean,
  ) {
    super(toX, toY, passable, { topology: 8 });
  }
  override _getNeighbors(cx: number, cy: number): number[][] {
    const result: number[][] = [];
    for (const [dx, dy] of [
      [0, -1],
      [1, 0],
      [0, 1],
      [-1, 0],
      [1, -1],
      [1, 1],
      [-1, 1],
      [-1, -1],
    ]) {
      if (!this.passable(cx + dx, cy + dy)) continue;
      if (dx !== 0 && dy !== 0 && !(this.passable(cx + dx, cy) && this.passable(cx, cy + dy))) continue;
      result.push([cx + dx, cy + dy]);
    }
    return result;
  }
}

interface Library {
  name: string;
  /** Finds a path; returns its cells start first, or [] when none. */
  find: (pair: Pair) => number[][];
  /** The timed sweep over all pairs (may skip building cell lists). */
  sweep: () => void;
  /** The slow ones get fewer samples. */
  slow?: boolean;
}

export function buildNativeAstar(dir: string, flags: readonly string[]): string | null {
  const binary = join(dir, `astar${flags.join("")}`);
  const source = new URL("../native/astar.c", import.meta.url).pathname;
  const result = spawnSync("gcc", [...flags, "-o", binary, source], { encoding: "utf8" });
  if (result.status !== 0) {
    log(
      `pathfind: C A* (${flags.join(" ")}) not built (${result.error?.message ?? result.stderr.trim()}): row skipped`,
    );
    return null;
  }
  return binary;
}

export function runNative(binary: string, dir: string, grid: TestGrid, pairs: Pair[], rounds: number) {
  const cells = grid.width * grid.height;
  const padded = (cells + 3) & ~3;
  const buffer = Buffer.alloc(8 + padded + 4 + pairs.length * 16);
  buffer.writeInt32LE(grid.width, 0);
  buffer.writeInt32LE(grid.height, 4);
  buffer.set(grid.free, 8);
  buffer.writeInt32LE(pairs.length, 8 + padded);
  pairs.forEach((pair, i) => {
    const at = 12 + padded + i * 16;
    buffer.writeInt32LE(pair.sx, at);
    buffer.writeInt32LE(pair.sy, at + 4);
    buffer.writeInt32LE(pair.gx, at + 8);
    buffer.writeInt32LE(pair.gy, at + 12);
  });
  const file = join(dir, "grid.bin");
  writeFileSync(file, buffer);
  const output = execFileSync(binary, [file, String(rounds)], { encoding: "utf8", maxBuffer: 1 << 24 });
  return JSON.parse(output) as { roundsMs: number[]; lengths: number[] };
}

export async function runPathfind(options: RunOptions): Promise<SuiteResult> {
  const loadStart = loadNow();
  const pairCount = options.quick ? 40 : 200;
  const core = await loadCore();
  const sim = new WasmSim(core);
  const grids = [
    randomWalls(256, 0.2, 20),
    randomWalls(256, 0.35, 35),
    perfectMaze(256, 7, "kruskal"),
    // Shortest paths past PATH_MAX (4096): the length cap issue 20 removed.
    perfectMaze(256, 11, "backtracker"),
    caves(192, 192),
    defaultMap(),
  ];
  const dir = mkdtempSync(join(tmpdir(), "fc-pathfind-"));
  const natives = NATIVE_BUILDS.flatMap((build) => {
    const binary = buildNativeAstar(dir, build.flags);
    return binary ? [{ ...build, binary }] : [];
  });

  const correctness: (string | number)[][] = [];
  const speed: (string | number)[][] = [];
  const targets: Target[] = [];
  const raw: Record<string, unknown> = {};
  const chartCategories: string[] = [];
  const chartSeries = new Map<string, number[]>();
  const perGrid: { grid: string; pathsPerSecond: Record<string, number> }[] = [];

  for (const [gridIndex, grid] of grids.entries()) {
    const pairs = makePairs(grid, pairCount, 4711 + gridIndex);
    const meanOptimal = pairs.reduce((sum, pair) => sum + pair.optimal, 0) / pairs.length;
    const longest = pairs.reduce((most, pair) => Math.max(most, pair.optimal), 0);
    const overCap = pairs.filter((pair) => pair.optimal > PATH_MAX).length;
    log(
      `pathfind: ${grid.name}: ${pairs.length} pairs, mean optimal path ${meanOptimal.toFixed(1)} steps, ` +
        `longest ${longest}, ${overCap} longer than ${PATH_MAX}`,
    );
    // rot-js keeps its open list as a sorted array (linear insertion): on the maze's 10,000-step
    // searches one sweep takes minutes, so it sits that grid out.
    const rotTooSlow = meanOptimal > PATH_MAX;

    if (!sim.initGrid(grid.width, grid.height, 0, 0)) throw new Error("grid_init failed");
    sim.tiles.set(grid.tiles);
    sim.setFlags(grid.flags);
    const ref = new RefGrid(grid.width, grid.height, 0, 0);
    ref.tiles.set(grid.tiles);
    ref.flags.set(grid.flags);
    const matrix = Array.from({ length: grid.height }, (_, y) =>
      Array.from({ length: grid.width }, (_, x) => (grid.free[y * grid.width + x] ? 0 : 1)),
    );
    const pfGrid = new PF.Grid(grid.width, grid.height, matrix);
    const pfAstar = new PF.AStarFinder({ diagonalMovement: PF.DiagonalMovement.OnlyWhenNoObstacles });
    const pfJump = new PF.JumpPointFinder({ diagonalMovement: PF.DiagonalMovement.OnlyWhenNoObstacles });
    const easystar = new EasyStar.js();
    easystar.setGrid(matrix);
    easystar.setAcceptableTiles([0]);
    easystar.enableDiagonals();
    easystar.disableCornerCutting();
    easystar.enableSync();
    easystar.setIterationsPerCalculation(Number.MAX_SAFE_INTEGER);
    const passable = (x: number, y: number) =>
      x >= 0 && y >= 0 && x < grid.width && y < grid.height && grid.free[y * grid.width + x] === 1;
    const easyFind = (pair: Pair): number[][] => {
      let found: { x: number; y: number }[] | null = null;
      easystar.findPath(pair.sx, pair.sy, pair.gx, pair.gy, (path) => {
        found = path;
      });
      easystar.calculate();
      return (found ?? ([] as { x: number; y: number }[])).map((p) => [p.x, p.y]);
    };
    const rotFind = (pair: Pair): number[][] => {
      const cells: number[][] = [];
      new RotAstarNoCornerCutting(pair.gx, pair.gy, passable).compute(pair.sx, pair.sy, (x, y) => cells.push([x, y]));
      return cells;
    };
    let sink = 0;
    const allLibraries: Library[] = [
      {
        name: "wasm A* (bucket queue)",
        find: (p) => {
          const result = sim.astar(p.sx, p.sy, p.gx, p.gy, UNLIMITED);
          return result.status >= 0 ? actionsToCells(p, result.path) : [];
        },
        sweep: () => {
          for (const p of pairs) sink += sim.astarStatus(p.sx, p.sy, p.gx, p.gy, UNLIMITED, "bucket");
        },
      },
      {
        name: "JS reference A*",
        find: (p) => {
          const result = ref.astar(p.sx, p.sy, p.gx, p.gy, UNLIMITED);
          return result.status >= 0 ? actionsToCells(p, result.path) : [];
        },
        sweep: () => {
          for (const p of pairs) sink += ref.astar(p.sx, p.sy, p.gx, p.gy, UNLIMITED).status;
        },
      },
      {
        name: "PathFinding.js A* (clone + search)",
        find: (p) => pfAstar.findPath(p.sx, p.sy, p.gx, p.gy, pfGrid.clone()),
        sweep: () => {
          for (const p of pairs) sink += pfAstar.findPath(p.sx, p.sy, p.gx, p.gy, pfGrid.clone()).length;
        },
      },
      {
        name: "PathFinding.js grid.clone() alone",
        find: () => [],
        sweep: () => {
          for (let i = 0; i < pairs.length; i++) sink += pfGrid.clone() ? 1 : 0;
        },
      },
      {
        name: "PathFinding.js JPS (clone + search)",
        find: (p) => pfJump.findPath(p.sx, p.sy, p.gx, p.gy, pfGrid.clone()),
        sweep: () => {
          for (const p of pairs) sink += pfJump.findPath(p.sx, p.sy, p.gx, p.gy, pfGrid.clone()).length;
        },
      },
      {
        name: "easystarjs (sync, unlimited iterations)",
        find: easyFind,
        sweep: () => {
          for (const p of pairs) sink += easyFind(p).length;
        },
      },
      {
        name: "rot-js A* (no corner cutting)",
        find: rotFind,
        sweep: () => {
          for (const p of pairs) sink += rotFind(p).length;
        },
        slow: true,
      },
    ];
    const libraries = allLibraries.filter((library) => !(rotTooSlow && library.name.startsWith("rot-js")));

    // Correctness against BFS.
    for (const library of libraries) {
      if (library.name.includes("clone() alone")) continue;
      let valid = 0;
      let optimal = 0;
      let extraSteps = 0;
      for (const pair of pairs) {
        const steps = validSteps(grid, pair, library.find(pair));
        if (steps < 0) continue;
        valid++;
        if (steps === pair.optimal) optimal++;
        extraSteps += steps - pair.optimal;
      }
      correctness.push([
        grid.name,
        library.name,
        `${valid} / ${pairs.length}`,
        `${optimal} / ${pairs.length}`,
        valid ? fmt(extraSteps / valid, 3) : "—",
      ]);
      if (library.name.startsWith("wasm")) {
        targets.push({
          target: `wasm A* step-optimal on every pair (${grid.name})`,
          measured: `${optimal} / ${pairs.length} optimal, ${valid} valid`,
          met: optimal === pairs.length,
        });
      }
    }

    // Speed: process CPU time per sweep over all pairs.
    const timed = new Map<string, Spread>();
    const fast = libraries.filter((library) => !library.slow);
    const fastResult = await runTasks(
      fast.map((library) => ({ name: library.name, fn: library.sweep })),
      {
        timeMs: options.quick ? 400 : 2000,
        warmupMs: options.quick ? 100 : 300,
        iterations: options.quick ? 3 : 8,
        warmupIterations: 1,
        cpuTime: true,
      },
    );
    for (const [name, spread] of fastResult) timed.set(name, spread);
    for (const library of libraries.filter((l) => l.slow)) {
      const slowResult = await runTasks([{ name: library.name, fn: library.sweep }], {
        timeMs: 1,
        warmupMs: 1,
        iterations: options.quick ? 2 : 3,
        warmupIterations: 1,
        cpuTime: true,
      });
      for (const [name, spread] of slowResult) timed.set(name, spread);
    }
    const nativeSpreads: { name: string; spread: Spread }[] = [];
    for (const build of natives) {
      const result = runNative(build.binary, dir, grid, pairs, options.quick ? 5 : 25);
      const mismatched = result.lengths.filter((length, i) => length !== pairs[i].optimal).length;
      correctness.push([
        grid.name,
        build.name,
        `${pairs.length - mismatched} / ${pairs.length} lengths`,
        `${pairs.length - mismatched} / ${pairs.length}`,
        "0",
      ]);
      const spread = spreadOf(result.roundsMs);
      nativeSpreads.push({ name: build.name, spread });
      timed.set(build.name, spread);
    }
    const gridLoad = loadNow();
    if (sink === 0.5) log("unreachable");

    const pathsPerSecond = (spread: Spread) => (pairs.length * 1000) / spread.median;
    const wasm = timed.get(libraries[0].name)!;
    const wasmRate = pathsPerSecond(wasm);
    const clone = timed.get("PathFinding.js grid.clone() alone")!;
    const rates: Record<string, number> = {};
    for (const [name, spread] of timed) {
      const rate = pathsPerSecond(spread);
      rates[name] = rate;
      speed.push([
        grid.name,
        name,
        fmt(rate),
        `${fmt((pairs.length * 1000) / spread.p75)}–${fmt((pairs.length * 1000) / spread.p25)}`,
        fmt(spread.median / pairs.length, 3),
        name.startsWith("wasm") ? "1×" : fmtRatio(wasmRate / rate),
        fmt(gridLoad, 2),
      ]);
    }
    const pfTotal = timed.get("PathFinding.js A* (clone + search)")!;
    // The search alone is the difference of two separately timed medians; when
    // it is within their spread (clone dominates), it is noise, not a figure.
    const pfSearchOnly = pfTotal.median - clone.median;
    const spread = Math.max(pfTotal.p75 - pfTotal.p25, clone.p75 - clone.p25);
    const searchOnlyMeaningful = pfSearchOnly > spread;
    rates["PathFinding.js A* search alone (clone subtracted)"] = searchOnlyMeaningful
      ? (pairs.length * 1000) / pfSearchOnly
      : Number.NaN;
    speed.push([
      grid.name,
      "PathFinding.js A* search alone (clone subtracted)",
      searchOnlyMeaningful ? fmt((pairs.length * 1000) / pfSearchOnly) : "— (within the clone's spread)",
      "—",
      searchOnlyMeaningful ? fmt(pfSearchOnly / pairs.length, 3) : "—",
      searchOnlyMeaningful ? fmtRatio(wasmRate / ((pairs.length * 1000) / pfSearchOnly)) : "—",
      fmt(gridLoad, 2),
    ]);
    perGrid.push({ grid: grid.name, pathsPerSecond: rates });
    chartCategories.push(grid.name);
    for (const [name, rate] of Object.entries(rates)) {
      if (name.includes("alone")) continue;
      if (!chartSeries.has(name)) chartSeries.set(name, []);
      chartSeries.get(name)!.push(rate);
    }

    const pfRate = rates["PathFinding.js A* (clone + search)"];
    const easyRate = rates["easystarjs (sync, unlimited iterations)"];
    const refRate = rates["JS reference A*"];
    targets.push(
      {
        target: `wasm ≥ 20× PathFinding.js A* paths/s (${grid.name})`,
        measured: `${fmtRatio(wasmRate / pfRate)} (wasm ${fmt(wasmRate)}/s, PF.js ${fmt(pfRate)}/s incl. clone; ${searchOnlyMeaningful ? `${fmtRatio(wasmRate / rates["PathFinding.js A* search alone (clone subtracted)"])} vs search alone` : "its search alone is within the clone's timing spread"})`,
        met: wasmRate / pfRate >= 20,
        ...(wasmRate / pfRate >= 20
          ? {}
          : {
              note:
                `short by ${fmt((1 - wasmRate / pfRate / 20) * 100, 2)} % of the 20× target; grid.clone() is ` +
                `${fmt((clone.median / pfTotal.median) * 100, 2)} % of PF.js's time here. ` +
                (rates[NATIVE_BUILDS[0].name] !== undefined
                  ? `The C bucket A* (gcc -O3) runs ${fmt(rates[NATIVE_BUILDS[0].name])}/s here (${fmtRatio(rates[NATIVE_BUILDS[0].name] / pfRate)} PF.js), so the gap is the algorithm's node expansions, not wasm code generation; ` +
                    "the ratio also moves between runs with PF.js's garbage collection."
                  : "No C run in this suite to separate algorithm from code generation."),
            }),
      },
      {
        target: `wasm ≥ 2× easystarjs paths/s (${grid.name})`,
        measured: `${fmtRatio(wasmRate / easyRate)} (easystarjs ${fmt(easyRate)}/s)`,
        met: wasmRate / easyRate >= 2,
      },
      {
        target: `wasm ≥ 1.5× the JS reference A* (${grid.name})`,
        measured: `${fmtRatio(wasmRate / refRate)} (JS reference ${fmt(refRate)}/s)`,
        met: wasmRate / refRate >= 1.5,
      },
    );
    for (const { name, spread: cSpread } of nativeSpreads) {
      const cRate = pathsPerSecond(cSpread);
      targets.push({
        target: `wasm A* ≥ ${C_SHARE_TARGET}× the ${name.replace(" bucket-queue A* (bench/native/astar.c)", "")} bucket A* (${grid.name}; brief's C figures ${C_RANGE})`,
        measured: `${fmtRatio(wasmRate / cRate)} (wasm ${fmt(wasmRate)}/s, C ${fmt(cRate)}/s in the same run, load ${fmt(gridLoad, 2)} on ${cpus().length} shared cores)`,
        met: wasmRate / cRate >= C_SHARE_TARGET,
      });
    }
    raw[grid.name] = {
      pairs: pairs.length,
      meanOptimal,
      longest,
      overCap,
      load: gridLoad,
      timedMs: Object.fromEntries(timed),
    };
  }
  rmSync(dir, { recursive: true, force: true });

  const tables: Table[] = [
    {
      title: "Correctness: paths valid under the movement rule and step-optimal (BFS under the same rule)",
      columns: ["grid", "search", "valid", "step-optimal", "mean extra steps"],
      rows: correctness,
      note:
        "Configuration: PathFinding.js AStarFinder and JumpPointFinder with DiagonalMovement.OnlyWhenNoObstacles (no " +
        "corner cutting) and their default octile heuristic; easystarjs with enableDiagonals, disableCornerCutting, " +
        "enableSync and setIterationsPerCalculation(MAX_SAFE_INTEGER), so one calculate() call finishes the search " +
        "synchronously (its normal mode spreads a search over calculate() calls and delivers the path in a setTimeout); " +
        "rot-js ROT.Path.AStar with topology 8, whose passability callback cannot see where a step comes from, so a " +
        "subclass filters diagonal neighbours by the rule. PathFinding.js and easystarjs cost a diagonal √2 (1.4) and so " +
        "minimise Euclidean-ish length, not steps: under our rule every step costs 1, which is why they are sometimes " +
        "valid but not step-optimal. rot-js costs every step 1, like us.",
    },
    {
      title: "Speed: paths per second (median of sweeps over all pairs, process CPU time)",
      columns: ["grid", "search", "paths/s", "p25–p75 range", "ms per path", "wasm is ×", "load (1 min)"],
      rows: speed,
      note:
        "PathFinding.js mutates its grid during a search, so a user must clone it per search: the first PathFinding.js " +
        "row is what a user pays; grid.clone() alone and the search with the clone's median subtracted are shown " +
        "separately. The C rows are bench/native/astar.c — the project's bucket-queue A* (as it was before the step " +
        "mask) ported to C, built with gcc -O3 and with gcc -O3 -march=native — run in their own processes on the same " +
        "grid and pairs right after the JS and wasm sweeps (one unreported warm-up sweep, then CPU time per sweep). The " +
        "load column is the 1-minute load average when the grid's rows were done: other engineers share this machine's " +
        "cores, so absolute figures move between runs; the ratios within a grid are measured back to back. rot-js runs " +
        "only a few sweeps (its open list is a sorted array with linear insertion and string-keyed maps), and none on " +
        "the backtracker maze.",
    },
  ];

  return {
    suite: "pathfind",
    title: "Pathfinding: wasm A* vs JS reference, PathFinding.js, easystarjs, rot-js and C",
    ...runHeader(options.quick, loadStart),
    timing: `process CPU time (process.cpuUsage) per sweep of ${pairCount} start/goal pairs, tinybench; C: CLOCK_PROCESS_CPUTIME_ID`,
    tables,
    charts: [
      {
        file: "pathfind-paths.svg",
        title: "A*: paths per second (log scale, higher is better)",
        kind: "bar",
        categories: chartCategories,
        series: [...chartSeries].map(([name, values]) => ({ name: name.replace(/ \(.*\)$/, ""), values })),
        yLabel: "paths/s",
        logScale: true,
      },
    ],
    targets,
    notes: [
      `Pairs: ${pairCount} per grid, drawn with a seeded generator from the largest region connected under the rule, of any length (A* has no cap since issue 20; the backtracker maze's pairs mostly run past PATH_MAX = ${PATH_MAX}).`,
      "The brief's C figures (2,150–24,000 paths/s for a C -O3 bucket-queue A*) were measured elsewhere; the C row here is measured in the same run on this machine.",
    ],
    raw: { perGrid, details: raw },
  };
}
