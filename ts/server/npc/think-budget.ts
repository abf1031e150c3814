// The think budget (roadmap 08): how much NPC thinking one entity tick may do,
// and the order it is spent in. Each think returns its cost in budget units —
// 1 for a plain decision, more for a perception scan and for an A* (by nodes
// expanded) — and the loop stops handing out thinks when the budget is spent:
// natural load shedding. The NPCs nearest to players come first, so what is
// shed is what the fewest players can see.

/** Budget units of one plain decision (a wander step, following a cached path). */
export const THINK_COST = 1;
/** An A* search costs one unit per this many nodes expanded, on top of the decision. */
export const NODES_PER_UNIT = 16;
/** A perception scan costs one unit per this many entities looked at. */
export const SCANNED_PER_UNIT = 32;
/**
 * Default BASE: budget = BASE / (clients + 1) units per entity tick. At 2000 clients that is
 * 1999 units per entity tick (about 24,000 decisions a second); at 10 clients it is unbounded
 * in practice. Measured cost of a unit: bench/REPORT.md § NPCs.
 */
export const DEFAULT_THINK_BUDGET_BASE = 4_000_000;

/** The units one entity tick may spend: BASE / (clients + 1), at least one decision. */
export function thinkBudget(base: number, clients: number): number {
  return Math.max(THINK_COST, Math.floor(base / (Math.max(0, clients) + 1)));
}

/** The cost of an A* search that expanded `nodes` nodes. */
export function searchCost(nodes: number): number {
  return THINK_COST + Math.ceil(nodes / NODES_PER_UNIT);
}

/** The cost of a perception scan that looked at `scanned` entities. */
export function scanCost(scanned: number): number {
  return Math.ceil(scanned / SCANNED_PER_UNIT);
}

/**
 * Orders `items` by `distance` (an integer 0..maxDistance) ascending into `out`, stable, in
 * O(n + maxDistance) — a counting sort, because the wake pass produces thousands of NPCs with
 * small integer distances twice a second. `counts` is the caller's reusable scratch (at least
 * maxDistance + 2 long); `out` only grows, and entries past `count` are stale.
 */
export function orderByDistance<T>(
  items: readonly T[],
  count: number,
  distance: (item: T) => number,
  maxDistance: number,
  out: T[],
  counts: Int32Array,
): void {
  counts.fill(0, 0, maxDistance + 2);
  for (let i = 0; i < count; i++) counts[distance(items[i]) + 1]++;
  for (let d = 1; d <= maxDistance + 1; d++) counts[d] += counts[d - 1];
  while (out.length < count) out.push(items[0]);
  for (let i = 0; i < count; i++) {
    const item = items[i];
    out[counts[distance(item)]++] = item;
  }
}
