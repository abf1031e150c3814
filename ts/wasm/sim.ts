// Typed access to the core module's sim and pathfind kernels (docs/wasm-abi.md):
// the grid, THE movement rule, per-window moves, prediction replay and A*. Data
// crosses the boundary once per unit of work: a chunk, a flags table, a batch of
// moves, a list of pending steps, a path.
import { TILE_BORDER, TILE_FLAG_COLLIDES, TILE_UNKNOWN } from "../constants.js";
import { isFreeTile } from "../tile-flags.js";
import { CoreError, type Core } from "./core.js";

type GridInitFn = (width: number, height: number, originX: number, originY: number) => number;
type NumberFn = () => number;
type ChunkFn = (chunkX: number, chunkY: number) => void;
type FillChunkFn = (chunkX: number, chunkY: number, tile: number) => void;
type SetTileFn = (x: number, y: number, tile: number) => void;
type XYFn = (x: number, y: number) => number;
type StepFn = (x: number, y: number, action: number) => number;
type ActionFn = (action: number) => number;
type ReplayFn = (x: number, y: number, ackWindow: number, count: number) => number;
type CountFn = (count: number) => number;
type AstarFn = (startX: number, startY: number, goalX: number, goalY: number, nodeBudget: number) => number;

/** A pending prediction step: movement window (u32) and action code. */
export interface PendingStep {
  window: number;
  action: number;
}

export interface ReplayResult {
  x: number;
  y: number;
  moved: number;
}

export interface PathResult {
  /** Path length >= 0 (any length), or -1 no path, -2 budget exhausted, -4 bad endpoints. */
  status: number;
  /** One action code per step, first step first; a copy (empty unless status > 0). */
  path: Uint8Array;
}

/** Which open list A* uses: "bucket" (default, faster) or "heap" (kept for measurement). */
export type AstarQueue = "bucket" | "heap";

const CHUNK_TILE_COUNT = 1024;
const PENDING_ENTRY_BYTES = 8;
/** MOVES rows (assembly/sim/moves.ts): i32 entity at +0, i32 x at +4, i32 y at +8, u8 action at +12, u8 moved at +13. */
const MOVE_ROW_BYTES = 16;
const MOVE_ROW_WORDS = MOVE_ROW_BYTES >>> 2;
const MOVE_MOVED_MASK = 0xff00;

/** The move kernel's part of WasmSim: what a caller applying a movement window needs. */
export type MoveTable = Pick<WasmSim, "moveCapacity" | "setMove" | "applyMoves" | "moveX" | "moveY" | "moved">;

/** What a planner needs: THE rule's allowed steps and the wasm A* (its path left in the module, read with readPath). */
export type Pathing = Pick<WasmSim, "allowedSteps" | "astarStatus" | "readPath" | "lastExpanded">;

export class WasmSim {
  private readonly gridInitRaw: GridInitFn;
  private readonly gridTilesRaw: NumberFn;
  private readonly gridWidthRaw: NumberFn;
  private readonly gridHeightRaw: NumberFn;
  private readonly gridOriginXRaw: NumberFn;
  private readonly gridOriginYRaw: NumberFn;
  private readonly putChunkRaw: ChunkFn;
  /** Sets every cell of world chunk (chunkX, chunkY) to `tile`, clipped to the grid. */
  readonly fillChunk: FillChunkFn;
  /** Sets world tile (x, y); ignored outside the grid. */
  readonly setTile: SetTileFn;
  /** Tile id at world (x, y); TILE_UNKNOWN outside the grid. */
  readonly getTile: XYFn;
  private readonly flagsResetRaw: () => void;
  private readonly stepAllowedRaw: StepFn;
  /** Bit a set iff action a is allowed from world (x, y); bit 0 (NOOP) always set. */
  readonly allowedSteps: XYFn;
  readonly actionDx: ActionFn;
  readonly actionDy: ActionFn;
  private readonly replayRaw: ReplayFn;
  private readonly applyMovesRaw: CountFn;
  /** Rows of the MOVES table: the most moves one applyMoves call takes. */
  readonly moveCapacity: number;
  private movesView = new Int32Array(0);
  private readonly astarBucket: AstarFn;
  private readonly astarHeapRaw: AstarFn;
  private readonly astarExpanded: NumberFn;
  private readonly astarPathRaw: NumberFn;
  private readonly gridChangedRaw: () => void;

  constructor(private readonly core: Core) {
    this.gridInitRaw = core.fn<GridInitFn>("grid_init");
    this.gridTilesRaw = core.fn<NumberFn>("grid_tiles");
    this.gridWidthRaw = core.fn<NumberFn>("grid_width");
    this.gridHeightRaw = core.fn<NumberFn>("grid_height");
    this.gridOriginXRaw = core.fn<NumberFn>("grid_origin_x");
    this.gridOriginYRaw = core.fn<NumberFn>("grid_origin_y");
    this.putChunkRaw = core.fn<ChunkFn>("grid_put_chunk");
    this.fillChunk = core.fn<FillChunkFn>("grid_fill_chunk");
    this.setTile = core.fn<SetTileFn>("grid_set_tile");
    this.getTile = core.fn<XYFn>("grid_get_tile");
    this.flagsResetRaw = core.fn<() => void>("flags_reset");
    this.stepAllowedRaw = core.fn<StepFn>("step_allowed");
    this.allowedSteps = core.fn<XYFn>("allowed_steps");
    this.actionDx = core.fn<ActionFn>("action_dx");
    this.actionDy = core.fn<ActionFn>("action_dy");
    this.replayRaw = core.fn<ReplayFn>("replay");
    this.applyMovesRaw = core.fn<CountFn>("apply_moves");
    this.moveCapacity = core.layout.MOVES_MAX;
    this.astarBucket = core.fn<AstarFn>("astar");
    this.astarHeapRaw = core.fn<AstarFn>("astar_heap");
    this.astarExpanded = core.fn<NumberFn>("astar_expanded");
    this.astarPathRaw = core.fn<NumberFn>("astar_path");
    this.gridChangedRaw = core.fn<() => void>("grid_changed");
  }

  /** Sizes the grid (all TILE_UNKNOWN); false if an edge is outside 1..4096 or memory cannot grow. */
  initGrid(width: number, height: number, originX: number, originY: number): boolean {
    return this.gridInitRaw(width, height, originX, originY) === 1;
  }

  get width(): number {
    return this.gridWidthRaw();
  }
  get height(): number {
    return this.gridHeightRaw();
  }
  get originX(): number {
    return this.gridOriginXRaw();
  }
  get originY(): number {
    return this.gridOriginYRaw();
  }

  /**
   * The grid's tiles, row-major (a live view: re-read after initGrid, which may grow memory).
   * After writing through it, call gridChanged() before the next search.
   */
  get tiles(): Uint16Array {
    const start = this.gridTilesRaw() >>> 1;
    return this.core.u16.subarray(start, start + this.gridWidthRaw() * this.gridHeightRaw());
  }

  /**
   * Tells the module that `tiles` (or TILE_FLAGS) was written directly: A*'s step
   * mask is rebuilt from the rule before the next search. putChunk, fillChunk,
   * setTile, setFlags and resetFlags need no call.
   */
  gridChanged(): void {
    this.gridChangedRaw();
  }

  /** Copies a chunk's 1024 tile ids (row-major) into the grid at world chunk (chunkX, chunkY), clipped. */
  putChunk(chunkX: number, chunkY: number, chunkTiles: Uint16Array): void {
    if (chunkTiles.length !== CHUNK_TILE_COUNT) throw new CoreError(`a chunk has 1024 tiles, got ${chunkTiles.length}`);
    this.core.u16.set(chunkTiles, this.core.layout.CHUNK_TILES >>> 1);
    this.putChunkRaw(chunkX, chunkY);
  }

  /**
   * Replaces TILE_FLAGS: a full 65536-entry table, or tile id → flags for the
   * ids that have any. TILE_UNKNOWN and TILE_BORDER stay colliding either way.
   */
  setFlags(flags: Uint8Array | ReadonlyMap<number, number>): void {
    const base = this.core.layout.TILE_FLAGS;
    if (flags instanceof Uint8Array) {
      if (flags.length !== 65536) throw new CoreError(`a flags table has 65536 entries, got ${flags.length}`);
      this.core.u8.set(flags, base);
      const u8 = this.core.u8;
      u8[base + TILE_UNKNOWN] |= TILE_FLAG_COLLIDES;
      u8[base + TILE_BORDER] |= TILE_FLAG_COLLIDES;
      this.gridChangedRaw();
      return;
    }
    this.flagsResetRaw();
    const u8 = this.core.u8;
    for (const [tile, bits] of flags) {
      if (!Number.isInteger(tile) || tile < 0 || tile > 0xffff) throw new CoreError(`bad tile id ${tile}`);
      if (tile === TILE_UNKNOWN || tile === TILE_BORDER) continue;
      u8[base + tile] = bits;
    }
    this.gridChangedRaw();
  }

  /** Zeroes TILE_FLAGS, then marks TILE_UNKNOWN and TILE_BORDER as colliding. */
  resetFlags(): void {
    this.flagsResetRaw();
  }

  /**
   * Whether world (x, y) may be stood on: its tile is known (on the grid, not a
   * reserved id) and TILE_FLAGS gives it no COLLIDES bit — the tile test of THE
   * rule, read from the module's own grid and flags.
   */
  isFree(x: number, y: number): boolean {
    return isFreeTile(this.core.u8, this.getTile(x, y), this.core.layout.TILE_FLAGS);
  }

  /** Whether a cell showing tile id `tile` may be stood on: isFree's test of the id alone, without a call into wasm. */
  isFreeTileId(tile: number): boolean {
    return isFreeTile(this.core.u8, tile, this.core.layout.TILE_FLAGS);
  }

  /** THE movement rule: may `action` be taken from world (x, y)? */
  stepAllowed(x: number, y: number, action: number): boolean {
    return this.stepAllowedRaw(x, y, action) !== 0;
  }

  /**
   * Writes row `row` (0 .. moveCapacity - 1) of the MOVES table: `entity` is the
   * caller's tag for the row (the kernel never reads it), (x, y) the position,
   * `action` the step to try. Codes that do not fit a byte are stored as 255, so
   * they stay invalid.
   */
  setMove(row: number, entity: number, x: number, y: number, action: number): void {
    if (!(row >= 0 && row < this.moveCapacity)) {
      throw new CoreError(`move row ${row} outside 0..${this.moveCapacity - 1}`);
    }
    const words = this.moveWords();
    const word = row * MOVE_ROW_WORDS;
    words[word] = entity;
    words[word + 1] = x;
    words[word + 2] = y;
    // The action byte, with moved and the padding cleared; anything but an integer 0..255 is 255.
    words[word + 3] = action === (action & 0xff) ? action : 255;
  }

  /**
   * One batch of a movement window: applies rows 0 .. count - 1 of the MOVES
   * table through THE rule in one call (apply_moves), writing each moved row's
   * new position back; returns how many rows moved. Rows are independent:
   * entities do not block each other.
   */
  applyMoves(count: number): number {
    if (!(count >= 0 && count <= this.moveCapacity)) throw new CoreError(`at most ${this.moveCapacity} moves per call`);
    return this.applyMovesRaw(count);
  }

  // The readers below are for rows 0 .. moveCapacity - 1 and do not check: they run once per mover per window.

  /** The entity tag of MOVES row `row`. */
  moveEntity(row: number): number {
    return this.moveWords()[row * MOVE_ROW_WORDS];
  }
  /** The x of MOVES row `row`: after applyMoves, the new x if it moved. */
  moveX(row: number): number {
    return this.moveWords()[row * MOVE_ROW_WORDS + 1];
  }
  /** The y of MOVES row `row`: after applyMoves, the new y if it moved. */
  moveY(row: number): number {
    return this.moveWords()[row * MOVE_ROW_WORDS + 2];
  }
  /** Whether MOVES row `row` moved in the last applyMoves call. */
  moved(row: number): boolean {
    // The moved byte is the second byte of the row's fourth i32 word (little-endian).
    return (this.moveWords()[row * MOVE_ROW_WORDS + 3] & MOVE_MOVED_MASK) !== 0;
  }

  /**
   * The MOVES region as i32 words, four per row. Kept rather than taken from
   * Core's views on every access (this runs per mover): memory.grow detaches the
   * old buffer, which empties the view, and only then is it re-created.
   */
  private moveWords(): Int32Array {
    if (this.movesView.length === 0) {
      this.movesView = new Int32Array(
        this.core.memory.buffer,
        this.core.layout.MOVES,
        this.moveCapacity * MOVE_ROW_WORDS,
      );
    }
    return this.movesView;
  }

  /**
   * Predicted position from the confirmed (x, y): steps with window <= ackWindow
   * are skipped, the rest applied in order through the rule. At most PENDING_MAX steps.
   */
  replay(x: number, y: number, ackWindow: number, steps: readonly PendingStep[]): ReplayResult {
    const layout = this.core.layout;
    if (steps.length > layout.PENDING_MAX) throw new CoreError(`at most ${layout.PENDING_MAX} pending steps`);
    const u32 = this.core.u32;
    const u8 = this.core.u8;
    for (let i = 0; i < steps.length; i++) {
      const entry = layout.PENDING + i * PENDING_ENTRY_BYTES;
      u32[entry >>> 2] = steps[i].window;
      // Codes that do not fit a byte are invalid anyway; 255 keeps them invalid.
      const action = steps[i].action;
      u8[entry + 4] = Number.isInteger(action) && action >= 0 && action <= 255 ? action : 255;
    }
    const moved = this.replayRaw(x, y, ackWindow >>> 0, steps.length);
    const i32 = this.core.i32;
    return { x: i32[layout.RESULT >>> 2], y: i32[(layout.RESULT >>> 2) + 1], moved };
  }

  /** A step-optimal path from start to goal (world coordinates), of any length; the path is copied out. */
  astar(
    startX: number,
    startY: number,
    goalX: number,
    goalY: number,
    nodeBudget: number,
    queue: AstarQueue = "bucket",
  ): PathResult {
    const search = queue === "heap" ? this.astarHeapRaw : this.astarBucket;
    const status = search(startX, startY, goalX, goalY, nodeBudget);
    if (status <= 0) return { status, path: new Uint8Array(0) };
    const start = this.astarPathRaw();
    return { status, path: this.core.u8.slice(start, start + status) };
  }

  /** The raw search, leaving the path in the module (no copy; read it with readPath): for hot loops and benchmarks. */
  astarStatus(startX: number, startY: number, goalX: number, goalY: number, nodeBudget: number, queue: AstarQueue) {
    return (queue === "heap" ? this.astarHeapRaw : this.astarBucket)(startX, startY, goalX, goalY, nodeBudget);
  }

  /**
   * Copies the first `count` steps of the last successful search (its whole
   * path, astar_path) into `out` (from index 0), at most out.length; returns how
   * many were copied (0 when the last search found no path).
   */
  readPath(out: Uint8Array, count: number): number {
    const start = this.astarPathRaw();
    if (start === 0) return 0;
    const n = Math.max(0, Math.min(count, out.length));
    out.set(this.core.u8.subarray(start, start + n));
    return n;
  }

  /** Nodes expanded by the last astar call. */
  get lastExpanded(): number {
    return this.astarExpanded();
  }
}
