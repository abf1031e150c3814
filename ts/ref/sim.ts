// JS reference of the sim kernels (assembly/sim/): the tile grid, THE movement
// rule, per-window moves and prediction replay. Plain TypeScript over typed
// arrays; the test oracle and benchmark baseline for the wasm module. The
// action table is ts/protocol/action.ts's, which the loader holds to the wasm
// module's at instantiation.
import { CHUNK_SIZE, CHUNK_TILE_COUNT, TILE_FLAG_COLLIDES, TILE_BORDER, TILE_UNKNOWN } from "../constants.js";
import { ACTION_DX, ACTION_DY, ACTION_MAX } from "../protocol/action.js";
import { isFreeTile } from "../tile-flags.js";
import { RefPathfinder, type PathResult } from "./pathfind.js";

/** Largest grid edge in cells (as in the wasm module). */
export const GRID_MAX_EDGE = 4096;

/** A pending prediction step: the movement window it was scheduled into and its action code. */
export interface PendingStep {
  window: number;
  action: number;
}

/** One row of a movement window (a wasm MOVES row): the caller's entity tag, the position and the step to try. */
export interface MoveRow {
  entity: number;
  x: number;
  y: number;
  action: number;
  /** Set by applyMoves: whether the row moved. */
  moved: boolean;
}

export interface ReplayResult {
  x: number;
  y: number;
  /** Steps that moved the prediction (rejected steps and NOOPs do not). */
  moved: number;
}

/** A rectangle of u16 tile ids in world coordinates, plus the per-tile-id flags table. */
export class RefGrid {
  width: number;
  height: number;
  originX: number;
  originY: number;
  tiles: Uint16Array;
  readonly flags = new Uint8Array(65536);
  private pathfinder: RefPathfinder | null = null;

  /** A grid of width × height TILE_UNKNOWN cells whose top-left cell is world (originX, originY). */
  constructor(width: number, height: number, originX = 0, originY = 0) {
    if (!RefGrid.validSize(width, height)) throw new RangeError(`grid size ${width}x${height} out of range`);
    this.width = width;
    this.height = height;
    this.originX = originX;
    this.originY = originY;
    this.tiles = new Uint16Array(width * height).fill(TILE_UNKNOWN);
    this.flagsReset();
  }

  static validSize(width: number, height: number): boolean {
    return (
      Number.isInteger(width) &&
      Number.isInteger(height) &&
      width >= 1 &&
      height >= 1 &&
      width <= GRID_MAX_EDGE &&
      height <= GRID_MAX_EDGE
    );
  }

  /** Re-sizes and clears the grid like grid_init; false (grid unchanged) when the size is out of range. */
  init(width: number, height: number, originX: number, originY: number): boolean {
    if (!RefGrid.validSize(width, height)) return false;
    this.width = width;
    this.height = height;
    this.originX = originX;
    this.originY = originY;
    this.tiles = new Uint16Array(width * height).fill(TILE_UNKNOWN);
    this.pathfinder = null;
    return true;
  }

  /** Zeroes the flags, then marks TILE_UNKNOWN and TILE_BORDER as colliding. */
  flagsReset(): void {
    this.flags.fill(0);
    this.flags[TILE_UNKNOWN] = TILE_FLAG_COLLIDES;
    this.flags[TILE_BORDER] = TILE_FLAG_COLLIDES;
  }

  /** Copies a 32 × 32 chunk (row-major) to world chunk (chunkX, chunkY), clipped to the grid. */
  putChunk(chunkX: number, chunkY: number, chunkTiles: Uint16Array): void {
    if (chunkTiles.length < CHUNK_TILE_COUNT) throw new RangeError("a chunk has 1024 tiles");
    this.forChunkRows(chunkX, chunkY, (dst, srcStart, span) =>
      this.tiles.set(chunkTiles.subarray(srcStart, srcStart + span), dst),
    );
  }

  /** Sets every grid cell of world chunk (chunkX, chunkY) to `tile`. */
  fillChunk(chunkX: number, chunkY: number, tile: number): void {
    this.forChunkRows(chunkX, chunkY, (dst, _srcStart, span) => this.tiles.fill(tile & 0xffff, dst, dst + span));
  }

  private forChunkRows(chunkX: number, chunkY: number, row: (dst: number, srcStart: number, span: number) => void) {
    const left = chunkX * CHUNK_SIZE - this.originX;
    const top = chunkY * CHUNK_SIZE - this.originY;
    const x0 = Math.max(0, left);
    const x1 = Math.min(this.width, left + CHUNK_SIZE);
    const y0 = Math.max(0, top);
    const y1 = Math.min(this.height, top + CHUNK_SIZE);
    for (let y = y0; y < y1 && x0 < x1; y++) row(y * this.width + x0, (y - top) * CHUNK_SIZE + (x0 - left), x1 - x0);
  }

  /** Sets world tile (x, y); ignored outside the grid. */
  setTile(x: number, y: number, tile: number): void {
    const lx = x - this.originX;
    const ly = y - this.originY;
    if (lx < 0 || ly < 0 || lx >= this.width || ly >= this.height) return;
    this.tiles[ly * this.width + lx] = tile & 0xffff;
  }

  /** The tile id at world (x, y); TILE_UNKNOWN outside the grid. */
  getTile(x: number, y: number): number {
    const lx = x - this.originX;
    const ly = y - this.originY;
    if (lx < 0 || ly < 0 || lx >= this.width || ly >= this.height) return TILE_UNKNOWN;
    return this.tiles[ly * this.width + lx];
  }

  /** Whether world (x, y) may be stood on: inside the grid, not a reserved id, no COLLIDES flag. */
  isFree(x: number, y: number): boolean {
    return isFreeTile(this.flags, this.getTile(x, y));
  }

  /**
   * THE movement rule: the target tile must be free; a diagonal also needs both
   * orthogonal neighbours free (no corner cutting). NOOP always, codes > 8 never.
   */
  stepAllowed(x: number, y: number, action: number): boolean {
    if (action === 0) return true;
    if (!Number.isInteger(action) || action < 0 || action > ACTION_MAX) return false;
    const dx = ACTION_DX[action];
    const dy = ACTION_DY[action];
    if (!this.isFree(x + dx, y + dy)) return false;
    if (dx !== 0 && dy !== 0) return this.isFree(x + dx, y) && this.isFree(x, y + dy);
    return true;
  }

  /**
   * The per-window move kernel (apply_moves): each row whose action is 1..8 and
   * allowed from its (x, y) takes the step; every row's `moved` says whether it
   * did. Rows are independent (entities do not block each other). Returns how
   * many rows moved.
   */
  applyMoves(rows: MoveRow[]): number {
    let moved = 0;
    for (const row of rows) {
      row.moved = row.action !== 0 && this.stepAllowed(row.x, row.y, row.action);
      if (!row.moved) continue;
      row.x += ACTION_DX[row.action];
      row.y += ACTION_DY[row.action];
      moved++;
    }
    return moved;
  }

  /**
   * Predicted position: from the confirmed (x, y), skip steps with window <=
   * ackWindow (already reflected in it) and apply the rest in order through the
   * rule, exactly as the server will.
   */
  replay(x: number, y: number, ackWindow: number, steps: readonly PendingStep[]): ReplayResult {
    let moved = 0;
    for (const step of steps) {
      if (step.window <= ackWindow || step.action === 0) continue;
      if (!this.stepAllowed(x, y, step.action)) continue;
      x += ACTION_DX[step.action];
      y += ACTION_DY[step.action];
      moved++;
    }
    return { x, y, moved };
  }

  /** A step-optimal path (bucket-queue A*, same contract and tie-breaking as wasm astar). */
  astar(startX: number, startY: number, goalX: number, goalY: number, nodeBudget: number): PathResult {
    if (this.pathfinder === null || !this.pathfinder.fits(this)) this.pathfinder = new RefPathfinder(this);
    return this.pathfinder.astar(startX, startY, goalX, goalY, nodeBudget);
  }
}
