// One movement window on the server. Every entity whose action slot for the
// window holds a step becomes a row of the wasm MOVES table; the move kernel
// (apply_moves) checks the rows with THE rule and writes the new positions back
// in one call; then each moved entity is moved in the store, so its spatial
// index follows, and each step is counted executed or blocked. Entities do not
// block each other (only tiles do), so batching changes nothing but the number
// of boundary crossings: one per batch of up to MOVES_MAX (4096) movers instead
// of one per mover. More movers than rows are applied in several batches.
// A step the rule allowed into a tile holding a foe is an attack instead
// (the combat room's bump, combat/combat-room.ts): the mover stays, and the
// outcome is counted "attack". A dead player's actions are taken and ignored.
import type { MoveTable } from "../../wasm/sim.js";
import type { EntityStore, StoredEntity } from "./entities.js";

/** Where a window's step outcomes are counted (Metrics.action). */
export interface MoveOutcomes {
  action(outcome: "executed" | "blocked" | "attack" | "dead", count?: number): void;
}

/** The combat room's side of a window: who cannot act, and which allowed steps are attacks. */
export interface WindowCombat {
  isDown(entity: StoredEntity): boolean;
  bump(attacker: StoredEntity, x: number, y: number): boolean;
}

/**
 * Row → entity of the batch being applied. Reused by every call, so a window
 * allocates nothing: executeWindowMoves is synchronous and never re-entered.
 * Rows are cleared once applied so no removed entity is kept alive here.
 */
const batch: (StoredEntity | null)[] = [];

/** Executes at most one action per entity for `window`, each through the wasm rule. */
export function executeWindowMoves(
  window: number,
  entities: EntityStore,
  moves: MoveTable,
  outcomes: MoveOutcomes,
  combat: WindowCombat,
): void {
  const capacity = moves.moveCapacity;
  let rows = 0;
  // Only the entities driven by action slots: NPCs move in their own room and are never visited here.
  for (const entity of entities.actors()) {
    const action = entity.slots.take(window);
    if (action <= 0) continue;
    if (combat.isDown(entity)) {
      outcomes.action("dead");
      continue;
    }
    moves.setMove(rows, entity.id, entity.x, entity.y, action);
    if (rows < batch.length) batch[rows] = entity;
    else batch.push(entity);
    rows++;
    // Moving entities in the store while iterating is safe: it re-buckets them, the iteration is by id.
    if (rows === capacity) {
      applyBatch(rows, entities, moves, outcomes, combat);
      rows = 0;
    }
  }
  if (rows > 0) applyBatch(rows, entities, moves, outcomes, combat);
}

/** One apply_moves call over rows 0 .. rows - 1, then the results into the store and the counts. */
function applyBatch(
  rows: number,
  entities: EntityStore,
  moves: MoveTable,
  outcomes: MoveOutcomes,
  combat: WindowCombat,
): void {
  moves.applyMoves(rows);
  // Counted per batch, not per mover: a window of 5000 moves made 5000 Map updates.
  let attacks = 0;
  let executed = 0;
  for (let row = 0; row < rows; row++) {
    const entity = batch[row]!;
    batch[row] = null;
    if (moves.moved(row)) {
      const x = moves.moveX(row);
      const y = moves.moveY(row);
      if (combat.bump(entity, x, y)) {
        attacks++;
        continue;
      }
      entities.move(entity, x, y);
      executed++;
    }
  }
  if (attacks > 0) outcomes.action("attack", attacks);
  if (executed > 0) outcomes.action("executed", executed);
  if (rows > attacks + executed) outcomes.action("blocked", rows - attacks - executed);
}
