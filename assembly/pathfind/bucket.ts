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
import { actionDx, actionDy } from "../sim/step";
import {
  ASTAR_BUDGET_EXHAUSTED,
  ASTAR_NO_PATH,
  NODE_CLOSED,
  NODE_G_SHIFT,
  RELAX_SKIP,
  SEARCH_PROCEED,
  goalX,
  goalY,
  heuristic,
  finishSearch,
  relaxSuccessor,
  searchGeneration,
  searchPrologue,
  startX,
  startY,
  writePath,
} from "./search";
import { actionAt } from "./step-mask";

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
    const h = heuristic(x, y);
    // Successor order: diagonals (NE, SE, SW, NW) before orthogonals, so LIFO
    // pops an orthogonal successor first among equals and paths run straight.
    let steps = <u32>load<u8>(masks + <usize>cell);
    while (steps != 0) {
      const action = actionAt(ctz(steps));
      steps &= steps - 1;
      const dx = actionDx(action);
      const dy = actionDy(action);
      const successor = cell + dy * width + dx;
      if (relaxSuccessor(nodes + ((<usize>successor) << 3), generation, successorG, action) == RELAX_SKIP) continue;
      if (successor == goalCell) {
        return finishSearch(expanded, writePath(goalCell, <i32>successorG));
      }
      const sx = x + dx;
      const sy = y + dy;
      const rise = heuristic(sx, sy) - h; // f(successor) - f(current) - 1
      const entry = packCell(sx, sy);
      if (rise < 0) {
        store<u32>(currentBase + currentFill, entry);
        currentFill += 4;
      } else if (rise == 0) {
        store<u32>(nextBase + nextFill, entry);
        nextFill += 4;
      } else {
        store<u32>(afterBase + afterFill, entry);
        afterFill += 4;
      }
    }
  }
  return ASTAR_NO_PATH;
}
