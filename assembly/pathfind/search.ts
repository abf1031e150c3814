// What both A* variants share: argument checks, per-search generation stamps
// over the node records in the grid region, the Chebyshev heuristic and writing
// the found path out: whole into the grid region's queue area (free once the
// search has ended; astar_path gives its address), and its first PATH_MAX
// steps into PATH_OUT.
//
// Node record (8 bytes per cell at gridNodes + cell * 8):
//   +0 u32 stamp   the search generation that last touched the cell; any other
//                  value means "unseen in this search", so nothing is cleared
//   +4 u32 info    g << 5 | CLOSED (bit 4) | action that reached the cell (bits 0..3)
import { PATH_MAX, PATH_OUT } from "../layout";
import {
  gridCells,
  gridEpoch,
  gridHeight,
  gridNodes,
  gridOriginX,
  gridOriginY,
  gridQueue,
  gridWidth,
} from "../sim/grid";
import { actionDx, actionDy, freeCellLocal } from "../sim/step";
import { maskEnsure } from "./step-mask";

export const NODE_CLOSED: u32 = 16;
export const NODE_ACTION_MASK: u32 = 15;
export const NODE_G_SHIFT: u32 = 5;

export const ASTAR_NO_PATH: i32 = -1;
export const ASTAR_BUDGET_EXHAUSTED: i32 = -2;
export const ASTAR_BAD_ENDPOINTS: i32 = -4;
/** searchPrologue's "go on and search" answer. */
export const SEARCH_PROCEED: i32 = 1;
/** relaxSuccessor's answers. */
export const RELAX_SKIP: i32 = 0;
export const RELAX_FIRST: i32 = 1;
export const RELAX_CHEAPER: i32 = 2;

// Grid-local endpoints of the current search, set by searchPrologue.
export let startX: i32 = 0;
export let startY: i32 = 0;
export let goalX: i32 = 0;
export let goalY: i32 = 0;
/** The current search's stamp, set by searchPrologue. */
export let searchGeneration: u32 = 0;
/** Nodes expanded by the last search (diagnostics and benchmarks). */
let lastExpanded: i32 = 0;
/** Steps of the last path found, whole at gridQueue; 0 when the last search found none. */
let lastPathLength: i32 = 0;
/** gridEpoch when that path was written: a grid_init since then voids it. */
let lastPathEpoch: u32 = 0;

let generation: u32 = 0;
let generationEpoch: u32 = 0;

/** A fresh stamp for a new search; node records with any other stamp read as unseen. */
function nextGeneration(): u32 {
  if (generationEpoch != gridEpoch) {
    // grid_init zeroed the records; stamps restart at 1.
    generationEpoch = gridEpoch;
    generation = 0;
  }
  generation++;
  if (generation == 0) {
    // 2^32 searches on one grid: clear once instead of misreading ancient stamps as current.
    memory.fill(gridNodes, 0, gridCells * 8);
    generation = 1;
  }
  return generation;
}

/** Chebyshev length of the offset (dx, dy): the exact step count on an empty grid. */
// @ts-ignore: decorator
@inline
export function chebyshev(dx: i32, dy: i32): i32 {
  const ax = abs(dx);
  const ay = abs(dy);
  return ax > ay ? ax : ay;
}

/** Chebyshev distance from grid-local (x, y) to the goal: the search's heuristic. */
// @ts-ignore: decorator
@inline
export function heuristic(x: i32, y: i32): i32 {
  return chebyshev(x - goalX, y - goalY);
}

/**
 * Checks the endpoints (world coordinates) and stores them grid-local.
 * Returns SEARCH_PROCEED, 0 when start == goal (empty path), or
 * ASTAR_BAD_ENDPOINTS when an endpoint is outside the grid or the goal cell is
 * not free (it could never be entered). On SEARCH_PROCEED a new
 * searchGeneration has begun and the start cell is recorded at g = 0.
 */
export function searchPrologue(start_x: i32, start_y: i32, goal_x: i32, goal_y: i32): i32 {
  lastExpanded = 0;
  lastPathLength = 0;
  const sx = <i64>start_x - <i64>gridOriginX;
  const sy = <i64>start_y - <i64>gridOriginY;
  const gx = <i64>goal_x - <i64>gridOriginX;
  const gy = <i64>goal_y - <i64>gridOriginY;
  const w = <i64>gridWidth;
  const h = <i64>gridHeight;
  if (sx < 0 || sy < 0 || sx >= w || sy >= h || gx < 0 || gy < 0 || gx >= w || gy >= h) return ASTAR_BAD_ENDPOINTS;
  startX = <i32>sx;
  startY = <i32>sy;
  goalX = <i32>gx;
  goalY = <i32>gy;
  if (sx == gx && sy == gy) return 0;
  if (freeCellLocal(goalX, goalY) == 0) return ASTAR_BAD_ENDPOINTS;
  maskEnsure();
  searchGeneration = nextGeneration();
  const startRecord = gridNodes + ((<usize>(startY * gridWidth + startX)) << 3);
  store<u32>(startRecord, searchGeneration);
  store<u32>(startRecord, 0, 4);
  return SEARCH_PROCEED;
}

/**
 * Records that the cell at node record `record` is reached with cost g by
 * `action`, unless this search already reached it as cheaply (which includes
 * every closed cell: its g is optimal). Returns RELAX_SKIP, RELAX_FIRST (first
 * reached in this search) or RELAX_CHEAPER (reached before at a higher g).
 */
// @ts-ignore: decorator
@inline
export function relaxSuccessor(record: usize, generation: u32, g: u32, action: i32): i32 {
  // Stamp and info in one load and one store (little-endian: stamp is the low word).
  const both = load<u64>(record);
  let answer = RELAX_FIRST;
  if (<u32>both == generation) {
    if ((<u32>(both >> 32)) >> NODE_G_SHIFT <= g) return RELAX_SKIP;
    answer = RELAX_CHEAPER;
  }
  store<u64>(record, ((<u64>((g << NODE_G_SHIFT) | (<u32>action))) << 32) | (<u64>generation));
  return answer;
}

/**
 * Writes the path ending at grid-local goal cell `goalCell` (g = pathLength),
 * first step first, by following the recorded actions back to the start: whole
 * at gridQueue (the open list is done with; a path has fewer steps than the
 * grid has cells, and the queue area holds 12 bytes per cell), and its first
 * PATH_MAX steps in PATH_OUT. Returns pathLength: no length is refused.
 */
export function writePath(goalCell: i32, pathLength: i32): i32 {
  let cell = goalCell;
  for (let i = pathLength - 1; i >= 0; i--) {
    const action = <i32>(load<u32>(gridNodes + ((<usize>cell) << 3), 4) & NODE_ACTION_MASK);
    store<u8>(gridQueue + <usize>i, <u8>action);
    cell -= actionDy(action) * gridWidth + actionDx(action);
  }
  memory.copy(PATH_OUT, gridQueue, <usize>min(pathLength, PATH_MAX));
  lastPathLength = pathLength;
  lastPathEpoch = gridEpoch;
  return pathLength;
}

/** Ends a search: records how many nodes it expanded and passes its result through. */
// @ts-ignore: decorator
@inline
export function finishSearch(expanded: i32, result: i32): i32 {
  lastExpanded = expanded;
  return result;
}

/** astar_expanded: nodes expanded by the last astar / astar_heap call. */
export function astar_expanded(): i32 {
  return lastExpanded;
}

/**
 * astar_path: address of the whole path of the last astar / astar_heap call
 * that returned n >= 1 (n action bytes, first step first), or 0 when the last
 * call found none. Valid until the next astar, astar_heap or grid_init call.
 */
export function astar_path(): usize {
  return lastPathLength > 0 && lastPathEpoch == gridEpoch ? gridQueue : 0;
}
