// JS reference of the A* kernel (assembly/pathfind/bucket.ts): the same
// algorithm — 8-connected, unit steps, Chebyshev heuristic, three rotating
// LIFO buckets for f, f+1, f+2, goal accepted on generation, generation stamps
// instead of clearing — and the same successor order, so it returns the same
// path as wasm astar. Written for speed as the benchmark baseline.
import { ACTION_DX as DX, ACTION_DY as DY } from "../protocol/action.js";
import { isFreeTile } from "../tile-flags.js";
import type { RefGrid } from "./sim.js";

/**
 * Steps of a path the wasm PATH_OUT region holds (the first PATH_MAX of a longer
 * one; the whole path is at astar_path). Not a limit on path length.
 */
export const PATH_MAX = 4096;

export const ASTAR_NO_PATH = -1;
export const ASTAR_BUDGET_EXHAUSTED = -2;
// -3 (path longer than PATH_MAX) is no longer returned: paths of any length are delivered.
export const ASTAR_BAD_ENDPOINTS = -4;

export interface PathResult {
  /** Path length >= 0, or a negative ASTAR_* code. */
  status: number;
  /** One action code per step, first step first (empty unless status > 0). */
  path: Uint8Array;
}

/** Diagonals first, then orthogonals: LIFO pops an orthogonal first among equals (straight paths); as in wasm. */
const SUCCESSOR_ORDER = [5, 6, 7, 8, 1, 2, 3, 4];
const CLOSED = 16;
const ACTION_MASK = 15;
const G_SHIFT = 5;

/** 1 if tile id `tile` may be stood on. */
function freeTile(flags: Uint8Array, tile: number): number {
  return isFreeTile(flags, tile) ? 1 : 0;
}

/** Bit a set iff action a is allowed from grid-local (x, y): the movement rule as a bit mask. */
function allowedSteps(tiles: Uint16Array, flags: Uint8Array, width: number, height: number, x: number, y: number) {
  let free: number;
  if (x >= 1 && y >= 1 && x < width - 1 && y < height - 1) {
    const c = y * width + x;
    free =
      (freeTile(flags, tiles[c - width]) << 1) |
      (freeTile(flags, tiles[c + 1]) << 2) |
      (freeTile(flags, tiles[c + width]) << 3) |
      (freeTile(flags, tiles[c - 1]) << 4) |
      (freeTile(flags, tiles[c - width + 1]) << 5) |
      (freeTile(flags, tiles[c + width + 1]) << 6) |
      (freeTile(flags, tiles[c + width - 1]) << 7) |
      (freeTile(flags, tiles[c - width - 1]) << 8);
  } else {
    free = 0;
    for (let a = 1; a <= 8; a++) {
      const nx = x + DX[a];
      const ny = y + DY[a];
      if (nx >= 0 && ny >= 0 && nx < width && ny < height) free |= freeTile(flags, tiles[ny * width + nx]) << a;
    }
  }
  const n = (free >> 1) & 1;
  const e = (free >> 2) & 1;
  const s = (free >> 3) & 1;
  const w = (free >> 4) & 1;
  const corners = ((n & e) << 5) | ((s & e) << 6) | ((s & w) << 7) | ((n & w) << 8);
  return 1 | (free & 0x1e) | (free & corners);
}

/** Search state sized to one grid: reused across searches, never cleared (generation stamps). */
export class RefPathfinder {
  private readonly grid: RefGrid;
  private readonly cells: number;
  private readonly stamp: Uint32Array;
  private readonly info: Uint32Array;
  private readonly queue: Int32Array;
  private generation = 0;
  /** Nodes expanded by the last search. */
  expanded = 0;

  constructor(grid: RefGrid) {
    this.grid = grid;
    this.cells = grid.width * grid.height;
    this.stamp = new Uint32Array(this.cells);
    this.info = new Uint32Array(this.cells);
    this.queue = new Int32Array(3 * this.cells);
  }

  /** Whether this state still matches the grid's current size. */
  fits(grid: RefGrid): boolean {
    return grid === this.grid && grid.width * grid.height === this.cells;
  }

  /** See wasm astar: path length or ASTAR_* code; world coordinates. */
  astar(startX: number, startY: number, goalX: number, goalY: number, nodeBudget: number): PathResult {
    const grid = this.grid;
    const width = grid.width;
    const height = grid.height;
    const tiles = grid.tiles;
    const flags = grid.flags;
    const sx = startX - grid.originX;
    const sy = startY - grid.originY;
    const gx = goalX - grid.originX;
    const gy = goalY - grid.originY;
    this.expanded = 0;
    const inside = (x: number, y: number) => x >= 0 && y >= 0 && x < width && y < height;
    if (!inside(sx, sy) || !inside(gx, gy)) return { status: ASTAR_BAD_ENDPOINTS, path: new Uint8Array(0) };
    if (sx === gx && sy === gy) return { status: 0, path: new Uint8Array(0) };
    if (!freeTile(flags, tiles[gy * width + gx])) return { status: ASTAR_BAD_ENDPOINTS, path: new Uint8Array(0) };

    if (++this.generation > 0xffffffff) {
      this.stamp.fill(0);
      this.generation = 1;
    }
    const generation = this.generation;
    const stamp = this.stamp;
    const info = this.info;
    const queue = this.queue;
    const cells = this.cells;
    const goalCell = gy * width + gx;
    const startCell = sy * width + sx;
    stamp[startCell] = generation;
    info[startCell] = 0;
    // Buckets for f, f + 1, f + 2 as offsets into `queue` and fill counts.
    let currentBase = 0;
    let currentFill = 1;
    let nextBase = cells;
    let nextFill = 0;
    let afterBase = 2 * cells;
    let afterFill = 0;
    queue[0] = (sy << 12) | sx;
    let expanded = 0;
    for (;;) {
      if (currentFill === 0) {
        if (nextFill === 0 && afterFill === 0) {
          this.expanded = expanded;
          return { status: ASTAR_NO_PATH, path: new Uint8Array(0) };
        }
        const emptied = currentBase;
        currentBase = nextBase;
        currentFill = nextFill;
        nextBase = afterBase;
        nextFill = afterFill;
        afterBase = emptied;
        afterFill = 0;
        continue;
      }
      const packed = queue[currentBase + --currentFill];
      const x = packed & 0xfff;
      const y = packed >> 12;
      const cell = y * width + x;
      const cellInfo = info[cell];
      if (cellInfo & CLOSED) continue;
      if (expanded >= nodeBudget) {
        this.expanded = expanded;
        return { status: ASTAR_BUDGET_EXHAUSTED, path: new Uint8Array(0) };
      }
      expanded++;
      info[cell] = cellInfo | CLOSED;
      const successorG = (cellInfo >>> G_SHIFT) + 1;
      const h = Math.max(Math.abs(x - gx), Math.abs(y - gy));
      const steps = allowedSteps(tiles, flags, width, height, x, y);
      for (let i = 0; i < 8; i++) {
        const action = SUCCESSOR_ORDER[i];
        if ((steps & (1 << action)) === 0) continue;
        const nx = x + DX[action];
        const ny = y + DY[action];
        const successor = ny * width + nx;
        if (stamp[successor] === generation) {
          if (info[successor] >>> G_SHIFT <= successorG) continue;
        } else {
          stamp[successor] = generation;
        }
        info[successor] = (successorG << G_SHIFT) | action;
        if (successor === goalCell) {
          this.expanded = expanded;
          return this.pathTo(goalCell, successorG);
        }
        const rise = Math.max(Math.abs(nx - gx), Math.abs(ny - gy)) - h;
        const entry = (ny << 12) | nx;
        if (rise < 0) queue[currentBase + currentFill++] = entry;
        else if (rise === 0) queue[nextBase + nextFill++] = entry;
        else queue[afterBase + afterFill++] = entry;
      }
    }
  }

  private pathTo(goalCell: number, length: number): PathResult {
    const path = new Uint8Array(length);
    const width = this.grid.width;
    let cell = goalCell;
    for (let i = length - 1; i >= 0; i--) {
      const action = this.info[cell] & ACTION_MASK;
      path[i] = action;
      cell -= DY[action] * width + DX[action];
    }
    return { status: length, path };
  }
}
