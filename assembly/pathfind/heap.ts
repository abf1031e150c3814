// astar_heap: the same search as astar (./bucket.ts) with a binary min-heap
// open list instead of buckets, kept to measure the two against each other
// (docs/wasm-abi.md has the numbers). Same contract and return codes; paths have
// the same (optimal) length but may differ in shape because ties break
// differently: key = f, then lower h (deeper node) first, then packed position.
//
// The heap is indexed (decrease-key, no stale entries): u64 entries
// f << 36 | h << 24 | y << 12 | x at gridQueue, and each open cell's heap index
// (u32) at gridQueue + cells * 8 — 12 bytes per cell, the queue area's size.
import { gridCells, gridMasks, gridNodes, gridQueue, gridWidth } from "../sim/grid";
import { actionDx, actionDy } from "../sim/step";
import {
  ASTAR_BUDGET_EXHAUSTED,
  ASTAR_NO_PATH,
  NODE_CLOSED,
  NODE_G_SHIFT,
  RELAX_CHEAPER,
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

let heapSize: usize = 0;
let heapEntries: usize = 0;
let heapPositions: usize = 0;
let heapWidth: i32 = 0;

// @ts-ignore: decorator
@inline
function heapKey(f: i32, h: i32, x: i32, y: i32): u64 {
  return ((<u64>f) << 36) | ((<u64>h) << 24) | ((<u64>y) << 12) | (<u64>x);
}

/** Grid cell index of a heap entry. */
// @ts-ignore: decorator
@inline
function entryCell(key: u64): i32 {
  return <i32>((key >> 12) & 0xfff) * heapWidth + <i32>(key & 0xfff);
}

// @ts-ignore: decorator
@inline
function placeEntry(index: usize, key: u64, cell: i32): void {
  store<u64>(heapEntries + (index << 3), key);
  store<u32>(heapPositions + ((<usize>cell) << 2), <u32>index);
}

/** Moves `key` (for `cell`) up from heap slot `index` to its place. */
function siftUp(index: usize, key: u64, cell: i32): void {
  while (index > 0) {
    const parent = (index - 1) >> 1;
    const parentKey = load<u64>(heapEntries + (parent << 3));
    if (parentKey <= key) break;
    placeEntry(index, parentKey, entryCell(parentKey));
    index = parent;
  }
  placeEntry(index, key, cell);
}

/** Removes and returns the smallest entry (heap must be non-empty). */
function popMin(): u64 {
  const top = load<u64>(heapEntries);
  const size = --heapSize;
  if (size == 0) return top;
  const key = load<u64>(heapEntries + (size << 3));
  let index: usize = 0;
  while (true) {
    let child = (index << 1) + 1;
    if (child >= size) break;
    let childKey = load<u64>(heapEntries + (child << 3));
    if (child + 1 < size) {
      const rightKey = load<u64>(heapEntries + ((child + 1) << 3));
      if (rightKey < childKey) {
        child++;
        childKey = rightKey;
      }
    }
    if (key <= childKey) break;
    placeEntry(index, childKey, entryCell(childKey));
    index = child;
  }
  placeEntry(index, key, entryCell(key));
  return top;
}

/** astar_heap: astar with a binary-heap open list; same arguments and return codes. */
export function astar_heap(start_x: i32, start_y: i32, goal_x: i32, goal_y: i32, node_budget: i32): i32 {
  const status = searchPrologue(start_x, start_y, goal_x, goal_y);
  if (status != SEARCH_PROCEED) return status;
  const generation = searchGeneration;
  const width = gridWidth;
  const nodes = gridNodes;
  heapWidth = width;
  heapEntries = gridQueue;
  heapPositions = gridQueue + (gridCells << 3);
  heapSize = 0;
  const goalCell = goalY * width + goalX;
  const startCell = startY * width + startX;
  const startH = heuristic(startX, startY);
  siftUp(heapSize++, heapKey(startH, startH, startX, startY), startCell);

  let expanded = 0;
  while (heapSize != 0) {
    if (expanded >= node_budget) {
      return finishSearch(expanded, ASTAR_BUDGET_EXHAUSTED);
    }
    expanded++;
    const key = popMin();
    const x = <i32>(key & 0xfff);
    const y = <i32>((key >> 12) & 0xfff);
    const cell = y * width + x;
    const record = nodes + ((<usize>cell) << 3);
    const info = load<u32>(record, 4);
    store<u32>(record, info | NODE_CLOSED, 4);
    const successorG = (info >> NODE_G_SHIFT) + 1;
    let steps = <u32>load<u8>(gridMasks + <usize>cell);
    while (steps != 0) {
      const action = actionAt(ctz(steps));
      steps &= steps - 1;
      const dx = actionDx(action);
      const dy = actionDy(action);
      const successor = cell + dy * width + dx;
      const reached = relaxSuccessor(nodes + ((<usize>successor) << 3), generation, successorG, action);
      if (reached == RELAX_SKIP) continue;
      if (successor == goalCell) {
        return finishSearch(expanded, writePath(goalCell, <i32>successorG));
      }
      const sx = x + dx;
      const sy = y + dy;
      const sh = heuristic(sx, sy);
      const successorKey = heapKey(<i32>successorG + sh, sh, sx, sy);
      // Reached before at a higher g means still open: decrease its key in place.
      const slot = reached == RELAX_CHEAPER ? <usize>load<u32>(heapPositions + ((<usize>successor) << 2)) : heapSize++;
      siftUp(slot, successorKey, successor);
    }
  }
  return finishSearch(expanded, ASTAR_NO_PATH);
}
