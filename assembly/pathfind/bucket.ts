// astar: A* over the grid with a bucket queue — the default search.
// Follows the brief's "wasm: A*" section and the roadmap's click-to-move:
// 8-connected, every step costs 1, Chebyshev heuristic (admissible and
// consistent, so the first path found is step-optimal), every expansion reads
// the movement rule's answer from the step mask (./step-mask.ts: one byte per
// cell computed by allowedStepsLocal), unknown and outside cells blocked.
//
// Why three buckets suffice: a step changes g by +1 and the Chebyshev h by -1,
// 0 or +1, so a successor's f is f, f+1 or f+2 of the node being expanded. The
// open list is three stacks (f, f+1, f+2) that rotate when the current one
// empties. Within a bucket the order is LIFO: the newest node — usually the
// one just moved towards the goal — is expanded first, which makes the search
// run straight at the goal on open ground with no tie-break arithmetic (and,
// with the successor order below, along straight lines).
// Stale entries (a cell re-pushed at a lower f) are skipped by the CLOSED bit.
// A cell enters each bucket at most once (its f only decreases), so a stack of
// one u32 per grid cell never overflows.
//
// The goal is accepted when generated, not when popped: its neighbour n has
// h(n) = 1, so g(goal) = g(n) + 1 = f(n), the smallest f still open — optimal.
import { gridCells, gridMasks, gridNodes, gridQueue, gridWidth } from "../sim/grid";
import {
  ASTAR_BUDGET_EXHAUSTED,
  ASTAR_NO_PATH,
  NODE_CLOSED,
  NODE_G_SHIFT,
  RELAX_SKIP,
  SEARCH_PROCEED,
  goalX,
  goalY,
  chebyshev,
  finishSearch,
  relaxSuccessor,
  searchGeneration,
  searchPrologue,
  startX,
  startY,
  writePath,
} from "./search";
import { actionAt, bitDx, bitDy } from "./step-mask";

/** Cell-index offset of the step at each successor-order bit (i32 × 8), for the grid width in deltaWidth. */
const SUCCESSOR_DELTAS: usize = memory.data(32, 16);
let deltaWidth: i32 = 0;

/** Fills SUCCESSOR_DELTAS for grid width `width` (once per width, not per search). */
function ensureDeltas(width: i32): void {
  if (deltaWidth == width) return;
  for (let bit: u32 = 0; bit < 8; bit++) {
    store<i32>(SUCCESSOR_DELTAS + ((<usize>bit) << 2), bitDy(bit) * width + bitDx(bit));
  }
  deltaWidth = width;
}

/** Open-list entry: grid-local x in bits 0..11, y in bits 12..23. */
// @ts-ignore: decorator
@inline
function packCell(x: i32, y: i32): u32 {
  return ((<u32>y) << 12) | (<u32>x);
}

/**
 * astar: a step-optimal path from world (start_x, start_y) to (goal_x, goal_y)
 * expanding at most node_budget nodes. Returns the path length (actions in
 * PATH_OUT — its first PATH_MAX steps — and whole at astar_path(), first step
 * first; 0 when start == goal), -1 no path, -2 budget exhausted, -4 endpoint
 * outside the grid or goal blocked.
 */
export function astar(start_x: i32, start_y: i32, goal_x: i32, goal_y: i32, node_budget: i32): i32 {
  const status = searchPrologue(start_x, start_y, goal_x, goal_y);
  if (status != SEARCH_PROCEED) return status;
  const generation = searchGeneration;
  const width = gridWidth;
  const nodes = gridNodes;
  const masks = gridMasks;
  const bucketBytes = gridCells << 2;
  const goalCell = goalY * width + goalX;

  // Stacks for f, f + 1 and f + 2: base address and fill in bytes.
  let currentBase = gridQueue;
  let currentFill: usize = 4;
  let nextBase = currentBase + bucketBytes;
  let nextFill: usize = 0;
  let afterBase = nextBase + bucketBytes;
  let afterFill: usize = 0;
  store<u32>(currentBase, packCell(startX, startY));

  const gx = goalX;
  const gy = goalY;
  ensureDeltas(width);
  let expanded = 0;
  while (true) {
    if (currentFill == 0) {
      if (nextFill == 0 && afterFill == 0) {
        return finishSearch(expanded, ASTAR_NO_PATH);
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
    currentFill -= 4;
    const packed = load<u32>(currentBase + currentFill);
    const x = <i32>(packed & 0xfff);
    const y = <i32>(packed >> 12);
    const cell = y * width + x;
    const record = nodes + ((<usize>cell) << 3);
    const info = load<u32>(record, 4);
    if (info & NODE_CLOSED) continue;
    if (expanded >= node_budget) {
      return finishSearch(expanded, ASTAR_BUDGET_EXHAUSTED);
    }
    expanded++;
    store<u32>(record, info | NODE_CLOSED, 4);
    const successorG = (info >> NODE_G_SHIFT) + 1;
    const h = chebyshev(x - gx, y - gy);
    // Successor order: diagonals (NE, SE, SW, NW) before orthogonals, so LIFO
    // pops an orthogonal successor first among equals and paths run straight.
    let steps = <u32>load<u8>(masks + <usize>cell);
    while (steps != 0) {
      const bit = ctz(steps);
      steps &= steps - 1;
      // Most successors in open ground were reached already: the skip test comes before any geometry.
      const successor = cell + load<i32>(SUCCESSOR_DELTAS + ((<usize>bit) << 2));
      const reached = relaxSuccessor(nodes + ((<usize>successor) << 3), generation, successorG, actionAt(bit));
      if (reached == RELAX_SKIP) continue;
      if (successor == goalCell) {
        return finishSearch(expanded, writePath(goalCell, <i32>successorG));
      }
      const sx = x + bitDx(bit);
      const sy = y + bitDy(bit);
      const rise = chebyshev(sx - gx, sy - gy) - h; // f(successor) - f(current) - 1: -1, 0 or 1
      // Branch-free push: which bucket follows the geometry, so a branch on it mispredicts often.
      const below = rise < 0;
      const level = rise == 0;
      const slot = select<usize>(
        currentBase + currentFill,
        select<usize>(nextBase + nextFill, afterBase + afterFill, level),
        below,
      );
      store<u32>(slot, packCell(sx, sy));
      currentFill += (<usize>below) << 2;
      nextFill += (<usize>level) << 2;
      afterFill += (<usize>(rise > 0)) << 2;
    }
  }
  return ASTAR_NO_PATH;
}
