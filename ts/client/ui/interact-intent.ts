// Using a sign or notice board from the browser (docs/protocol.md § 18): the
// server takes an EntityQuery as "use it" only from a player within one tile,
// at its own idea of the player's position. So the client walks first and asks
// second: a click on an interactable that is farther away sets a click-to-move
// goal on the nearest free tile beside it, and the query goes out once the
// server has confirmed the player there with no step in flight; one already
// within reach is used from where the player stands. The E key uses
// an interactable already within reach, waiting for steps in flight to land.
// Any other goal, or the player walking off, abandons the intent.
import type { EntityInfo } from "../core/entity-table.js";
import { chebyshev, INTERACT_REACH_TILES, type InteractRefusal, isInteractable } from "../core/interaction.js";
import type { GoalResult } from "../core/planner.js";

interface Tile {
  readonly x: number;
  readonly y: number;
}

/** The slice of GameClient an intent needs. */
export interface IntentClient {
  readonly entities: ReadonlyMap<number, EntityInfo>;
  readonly confirmed: Tile | null;
  readonly predicted: Tile | null;
  readonly pending: readonly unknown[];
  readonly goal: Tile | null;
  setGoal(x: number, y: number): GoalResult | "not-ready";
  clearGoal(): void;
  interact(entityId: number): InteractRefusal | null;
}

/** How an intent ended, or that it goes on ("walking", "waiting"). */
export type IntentOutcome =
  "used" | "walking" | "waiting" | "unreachable" | "too-far" | "gone" | "abandoned" | "timed-out";

/** An intent gives up after this long (a route round a long cave takes a few seconds). */
export const INTENT_TIMEOUT_MS = 30_000;

/** Interactables within reach of `at`, nearest first. */
export function interactablesNear(entities: ReadonlyMap<number, EntityInfo>, at: Tile | null): EntityInfo[] {
  if (!at) return [];
  return [...entities.values()]
    .filter((entity) => isInteractable(entity) && chebyshev(entity, at) <= INTERACT_REACH_TILES)
    .sort((a, b) => chebyshev(a, at) - chebyshev(b, at) || a.id - b.id);
}

export class InteractIntent {
  private target: { entityId: number; goal: Tile | null; startedMs: number } | null = null;

  /** The entity being walked to or waited for, or null. */
  get entityId(): number | null {
    return this.target?.entityId ?? null;
  }

  /** The player clicked interactable `entityId`: use it now if in reach, else walk beside it first. */
  click(entityId: number, client: IntentClient, nowMs: number): IntentOutcome {
    const entity = client.entities.get(entityId);
    if (!entity || !isInteractable(entity)) return this.end("gone");
    this.target = { entityId, goal: null, startedMs: nowMs };
    const from = client.predicted;
    if (from && chebyshev(from, entity) <= INTERACT_REACH_TILES) {
      // Used from where the player stands. The page's own click handling has just aimed a route at the
      // thing's tile, and a creature a script talks for does not block a step (its tile is walkable): kept,
      // that route would walk the player onto Old Tom before talking to him.
      client.clearGoal();
      return this.advance(client, nowMs);
    }
    const goal = this.walkBeside(entity, from, client);
    if (!goal) return this.end("unreachable");
    this.target.goal = goal;
    return "walking";
  }

  /** The E key: use the interactable within reach of the player, once its steps have landed. */
  useNearest(client: IntentClient, nowMs: number): IntentOutcome {
    const near = interactablesNear(client.entities, client.predicted);
    if (near.length === 0) return this.end("too-far");
    this.target = { entityId: near[0].id, goal: null, startedMs: nowMs };
    return this.advance(client, nowMs);
  }

  /** Called every frame: sends the interaction when the player stands beside the thing, or ends the intent. */
  frame(client: IntentClient, nowMs: number): IntentOutcome | null {
    return this.target ? this.advance(client, nowMs) : null;
  }

  cancel(): void {
    this.target = null;
  }

  private advance(client: IntentClient, nowMs: number): IntentOutcome {
    const target = this.target!;
    const entity = client.entities.get(target.entityId);
    if (!entity) return this.end("gone");
    if (nowMs - target.startedMs > INTENT_TIMEOUT_MS) return this.end("timed-out");
    const goal = client.goal;
    if (goal && target.goal && (goal.x !== target.goal.x || goal.y !== target.goal.y)) {
      return this.end("abandoned"); // the player chose somewhere else
    }
    if (client.pending.length > 0 || goal) return target.goal ? "walking" : "waiting";
    const refusal = client.interact(target.entityId);
    if (refusal === null) return this.end("used");
    // Standing still and still out of reach: the route ended short, or a key walked the player off.
    return this.end(refusal === "too-far" ? "too-far" : "gone");
  }

  /** Aims at the reachable tile beside `entity` nearest to the player; returns it, or null. */
  private walkBeside(entity: Tile, from: Tile | null, client: IntentClient): Tile | null {
    const beside: Tile[] = [];
    for (let dy = -1; dy <= 1; dy++) {
      for (let dx = -1; dx <= 1; dx++) if (dx !== 0 || dy !== 0) beside.push({ x: entity.x + dx, y: entity.y + dy });
    }
    if (from) beside.sort((a, b) => chebyshev(a, from) - chebyshev(b, from) || squared(a, from) - squared(b, from));
    for (const tile of beside) {
      const result = client.setGoal(tile.x, tile.y);
      if (result === "planned" || result === "unchanged") return tile;
    }
    return null;
  }

  private end(outcome: IntentOutcome): IntentOutcome {
    this.target = null;
    return outcome;
  }
}

function squared(a: Tile, b: Tile): number {
  return (a.x - b.x) ** 2 + (a.y - b.y) ** 2;
}
