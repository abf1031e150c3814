// The think budget (roadmap 08): how much NPC thinking one entity tick may do,
// and the order it is spent in. Each think returns its cost in budget units —
// 1 for a plain decision, more for a perception scan and for an A* (by nodes
// expanded) — and the loop stops handing out thinks when the budget is spent:
// natural load shedding. The NPCs nearest to players come first (the ready
// queue, ready-queue.ts), so what is shed is what the fewest players can see.

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
