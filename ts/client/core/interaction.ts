// The interaction trigger (docs/protocol.md § 18, P-15). Signs and notice boards
// are static entities flagged is_interactable; an EntityQuery for one from a
// player standing within one tile of it (Chebyshev, the server's position) is
// "use it": the server answers with the EntityDetail and opens a dialog. The
// query is re-sent like a name query (protocol § 21: lost query or detail →
// again after 200–300 ms) until the detail or a dialog arrives; the server
// re-sends the open dialog for a repeated query instead of opening a second.
import { ENTITY_FLAG_INTERACTABLE } from "../../protocol/entity.js";
import { encodeEntityQuery } from "../../protocol/entity-query.js";
import type { ChannelLink } from "./channel-link.js";

export const INTERACT_RETRANSMIT_MS = 250;
export const INTERACT_MAX_TRIES = 4;
/** The server's reach: the player within this Chebyshev distance of the thing it uses. */
export const INTERACT_REACH_TILES = 1;

/** Why an interaction cannot be sent now. */
export type InteractRefusal =
  /** Not an entity in view, or not flagged is_interactable. */
  | "not-interactable"
  /** The player's acknowledged position is more than one tile away. */
  | "too-far"
  /** Steps are still in flight: where the server has the player is not known yet. */
  | "moving"
  /** A pile to pick up, but ITEM_REQUESTS_MAX item requests are in flight already. */
  | "busy";

export interface InteractTarget {
  readonly x: number;
  readonly y: number;
  readonly flags: number;
}

export function isInteractable(entity: { readonly flags: number }): boolean {
  return (entity.flags & ENTITY_FLAG_INTERACTABLE) !== 0;
}

export function chebyshev(a: { x: number; y: number }, b: { x: number; y: number }): number {
  return Math.max(Math.abs(a.x - b.x), Math.abs(a.y - b.y));
}

/**
 * Whether the server would take a query for `target` as an interaction now,
 * judged from the confirmed position (the server's, as of the acknowledged
 * tick) and the steps still pending; null when it would.
 */
export function interactRefusal(
  target: InteractTarget | undefined,
  confirmed: { x: number; y: number } | null,
  pendingSteps: number,
): InteractRefusal | null {
  if (!target || !isInteractable(target)) return "not-interactable";
  if (pendingSteps > 0) return "moving";
  if (!confirmed || chebyshev(confirmed, target) > INTERACT_REACH_TILES) return "too-far";
  return null;
}

export class InteractionQueries {
  private pending: { entityId: number; sentAtMs: number; tries: number } | null = null;
  private readonly out = new Uint8Array(18);
  readonly counters = { started: 0, resent: 0 };

  constructor(
    private readonly link: ChannelLink,
    readonly retransmitMs = INTERACT_RETRANSMIT_MS,
    readonly maxTries = INTERACT_MAX_TRIES,
  ) {}

  /** The entity being used and not yet answered, or null. */
  get pendingEntityId(): number | null {
    return this.pending?.entityId ?? null;
  }

  /** Uses `entityId` (the caller checked the reach): sends the query now and re-sends it until answered. */
  start(entityId: number, nowMs: number): void {
    this.pending = { entityId, sentAtMs: nowMs, tries: 1 };
    this.counters.started++;
    this.sendQuery(entityId);
  }

  update(nowMs: number): void {
    const pending = this.pending;
    if (!pending || nowMs - pending.sentAtMs < this.retransmitMs) return;
    if (pending.tries >= this.maxTries) {
      this.pending = null;
      return;
    }
    pending.sentAtMs = nowMs;
    pending.tries++;
    this.counters.resent++;
    this.sendQuery(pending.entityId);
  }

  /** An EntityDetail arrived for `entityId`: the query got through. */
  detailArrived(entityId: number): void {
    if (this.pending?.entityId === entityId) this.pending = null;
  }

  /** A dialog opened: the server acted on the query (its detail may have been lost). */
  dialogArrived(): void {
    this.pending = null;
  }

  reset(): void {
    this.pending = null;
  }

  private sendQuery(entityId: number): void {
    const size = encodeEntityQuery(
      { type: "entity_query", clientType: this.link.clientType, authToken: this.link.token(), entityId },
      this.out,
    );
    this.link.send(this.out.slice(0, size));
  }
}
