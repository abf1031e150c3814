// Items on the client (issue 14; docs/client.md § Items): the own bag and
// equipment, the open chest, and the ItemRequests that change them.
//
// The server is the only one who changes an inventory, so nothing here is
// predicted: the client asks, the server answers, and the contents arrive in
// EntityDetails (the `inventory` TLV) — the own one pushed after every change,
// a chest's to everyone beside it. Details can arrive out of order, so the
// highest `version` seen wins.
//
// Requests (ItemRequestPacket, type 21) carry an id, 1, 2, 3 … per session; a
// request is re-sent with the same id every ITEM_RESEND_MS until its
// ItemResult (type 22) arrives — the server executes an id once and answers
// every copy the same — and given up after ITEM_GIVE_UP_MS. A result whose
// version is newer than the bag held means the pushed detail was lost (or is
// late): the own entity is queried until a detail that new arrives.
//
// A chest opens when the player uses it (the interaction's query comes back
// with the chest's `inventory`) and closes when the player walks more than one
// tile away; a detail for a chest nobody opened (pushed to everyone beside a
// chest that changed) is kept only if that chest is the one open.
import { encodeEntityQuery } from "../../protocol/entity-query.js";
import type { EntityDetailView } from "../../protocol/entity-detail.js";
import { encodeItemRequest, ITEM_OPS, ITEM_REQUEST_BYTES, type ItemOp } from "../../protocol/item-request.js";
import { ITEM_STATUSES, type ItemResultPacket, type ItemStatus } from "../../protocol/item-result.js";
import { decodeTlvs, findTlv, type ItemStack, SLOT_ARMOR, SLOT_WEAPON, TLV_INVENTORY } from "../../protocol/tlv.js";
import type { ChannelLink } from "./channel-link.js";
import { chebyshev, INTERACT_REACH_TILES } from "./interaction.js";

export { SLOT_ARMOR, SLOT_WEAPON, type ItemStack } from "../../protocol/tlv.js";
export type { ItemOp } from "../../protocol/item-request.js";
export type { ItemStatus } from "../../protocol/item-result.js";

/** The brief: re-send a request every ~250 ms until its result arrives. */
export const ITEM_RESEND_MS = 250;
/** …and give up after ~5 s (the link is as good as dead by then). */
export const ITEM_GIVE_UP_MS = 5000;
/** A detail asked for and not come is asked again after this long (protocol § 21: 200–300 ms). */
export const ITEM_QUERY_RESEND_MS = 300;
/** Queries for one wanted version before giving up until the next want. */
export const ITEM_QUERY_MAX_TRIES = 10;
/** Requests in flight at once; one more is refused, so a stuck link cannot grow the queue. */
export const ITEM_REQUESTS_MAX = 16;
const OP_CODE = Object.fromEntries(ITEM_OPS.map((name, code) => [name, code])) as Record<ItemOp, number>;

/** A container's contents as the last detail said: the bag (capacity slots, plus SLOT_WEAPON / SLOT_ARMOR) or a chest. */
export interface Container {
  readonly entityId: number;
  readonly version: number;
  readonly capacity: number;
  /** In rising slot order. */
  readonly stacks: readonly ItemStack[];
}

/** The stack in `slot` of `container`, or undefined. */
export function stackIn(container: Container | null, slot: number): ItemStack | undefined {
  return container?.stacks.find((stack) => stack.slot === slot);
}

/** A request as sent. */
export interface ItemRequestInfo {
  readonly requestId: number;
  readonly op: ItemOp;
  readonly container: number;
  readonly slot: number;
  readonly toSlot: number;
  readonly count: number;
}

export type ItemEvent =
  /** The server answered a request (status "ok" or why not). */
  | { kind: "result"; request: ItemRequestInfo; status: ItemStatus }
  /** No answer in ITEM_GIVE_UP_MS, or the session ended first: whether it happened is unknown until the bag shows. */
  | { kind: "gave-up"; request: ItemRequestInfo; by: "timeout" | "session" }
  | { kind: "inventory"; inventory: Container }
  | { kind: "chest-opened"; chest: Container }
  | { kind: "chest-changed"; chest: Container }
  | { kind: "chest-closed"; chestId: number; by: "walked-away" | "gone" | "player" | "session" };

/** Where the player and the chest are: what closing a chest on walking away reads. */
export interface ItemSight {
  ownEntityId(): number;
  /** The player's predicted tile (it walks away at once), or null. */
  position(): { x: number; y: number } | null;
  entity(entityId: number): { x: number; y: number } | undefined;
}

interface Pending extends ItemRequestInfo {
  readonly datagram: Uint8Array;
  readonly firstSentMs: number;
  lastSentMs: number;
}

interface Wanted {
  entityId: number;
  /** Asked until a detail of at least this version arrives. */
  version: number;
  lastSentMs: number;
  tries: number;
}

export class ItemState {
  private bag: Container | null = null;
  private open: Container | null = null;
  private nextRequestId = 1;
  private readonly pendingRequests = new Map<number, Pending>();
  private ownWanted: Wanted | null = null;
  /** The bag is asked for once at the start of a session; an older server that never sends one is not asked forever. */
  private askedAtStart = false;
  private chestWanted: Wanted | null = null;
  private readonly listeners = new Set<(event: ItemEvent) => void>();
  private readonly queryOut = new Uint8Array(18);
  readonly counters = { requests: 0, resends: 0, results: 0, gaveUp: 0, queries: 0, details: 0 };

  constructor(
    private readonly link: ChannelLink,
    private readonly sight: ItemSight,
    readonly resendMs = ITEM_RESEND_MS,
    readonly giveUpMs = ITEM_GIVE_UP_MS,
  ) {}

  /** The own bag and equipment as the newest detail said; null until the first arrives. */
  get inventory(): Container | null {
    return this.bag;
  }

  /** The chest the player has open, or null. */
  get chest(): Container | null {
    return this.open;
  }

  /** Requests sent and not yet answered, oldest first. */
  get pending(): ItemRequestInfo[] {
    return [...this.pendingRequests.values()];
  }

  listen(listener: (event: ItemEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Sends request `op` now (and re-sends it until answered); returns its id, or null when
   * ITEM_REQUESTS_MAX are in flight. Throws EncodeError for fields out of range.
   */
  request(
    op: ItemOp,
    fields: { container?: number; slot?: number; toSlot?: number; count?: number },
    nowMs: number,
  ): number | null {
    if (this.pendingRequests.size >= ITEM_REQUESTS_MAX) return null;
    const info: ItemRequestInfo = {
      requestId: this.nextRequestId,
      op,
      container: fields.container ?? 0,
      slot: fields.slot ?? 0,
      toSlot: fields.toSlot ?? 0,
      count: fields.count ?? 0,
    };
    const datagram = new Uint8Array(ITEM_REQUEST_BYTES);
    encodeItemRequest(
      {
        type: "item_request",
        clientType: this.link.clientType,
        authToken: this.link.token(),
        ...info,
        op: OP_CODE[op],
      },
      datagram,
    );
    this.nextRequestId++;
    this.pendingRequests.set(info.requestId, { ...info, datagram, firstSentMs: nowMs, lastSentMs: nowMs });
    this.counters.requests++;
    this.link.send(datagram);
    return info.requestId;
  }

  /** Asks for the own bag now (and until a detail arrives): at the start of play, or when it is in doubt. */
  refresh(nowMs: number): void {
    this.ownWanted = { entityId: this.sight.ownEntityId(), version: 0, lastSentMs: -Infinity, tries: 0 };
    this.update(nowMs);
  }

  /** The player closed the chest window. */
  closeChest(): void {
    if (this.open) this.closeOpen("player");
  }

  /**
   * An EntityDetail arrived. `usedEntityId` is the entity the interaction trigger is waiting for
   * (a chest the player just used opens with this detail), or null.
   */
  receiveDetail(view: EntityDetailView, usedEntityId: number | null): void {
    const at = findTlv(view.bytes, view.metaStart, view.metaEnd, TLV_INVENTORY);
    if (at < 0) {
      // The own detail without a bag (its name, asked at the start): a server without items. Not asked again.
      if (view.entityId === this.sight.ownEntityId() && this.ownWanted?.version === 0) this.ownWanted = null;
      return;
    }
    const tlv = decodeTlvs(view.bytes, at - 2, at + view.bytes[at - 1])[0];
    if (tlv?.kind !== "inventory") return;
    this.counters.details++;
    const container: Container = {
      entityId: view.entityId,
      version: tlv.version,
      capacity: tlv.capacity,
      stacks: tlv.stacks,
    };
    if (view.entityId === this.sight.ownEntityId()) {
      if (this.bag && this.bag.entityId === view.entityId && tlv.version < this.bag.version) return;
      this.bag = container;
      if (this.ownWanted && tlv.version >= this.ownWanted.version) this.ownWanted = null;
      this.emit({ kind: "inventory", inventory: container });
      return;
    }
    const open = this.open;
    if (open && open.entityId === view.entityId) {
      if (tlv.version < open.version) return;
      if (this.chestWanted && tlv.version >= this.chestWanted.version) this.chestWanted = null;
      if (tlv.version === open.version) return;
      this.open = container;
      this.emit({ kind: "chest-changed", chest: container });
      return;
    }
    if (usedEntityId !== view.entityId) return; // pushed to a bystander: not opened by this player
    this.open = container;
    this.chestWanted = null;
    this.emit({ kind: "chest-opened", chest: container });
  }

  receiveResult(packet: ItemResultPacket): void {
    const request = this.pendingRequests.get(packet.requestId);
    if (!request) return; // a copy of an answer already taken, or from a past session
    this.pendingRequests.delete(packet.requestId);
    this.counters.results++;
    const status = ITEM_STATUSES[packet.status];
    if ((this.bag?.version ?? 0) < packet.version) this.want("own", this.sight.ownEntityId(), packet.version);
    // The chest's pushed detail may be lost too: ask for it if it has not changed by the next look.
    const open = this.open;
    const touchedChest = request.op === "take" || request.op === "take_all" || request.op === "put";
    if (status === "ok" && open && touchedChest && request.container === open.entityId) {
      // Asked a moment later: the pushed detail usually comes with the result.
      this.want("chest", open.entityId, open.version + 1, true);
    }
    this.emit({ kind: "result", request: infoOf(request), status });
  }

  update(nowMs: number): void {
    for (const request of this.pendingRequests.values()) {
      if (nowMs - request.firstSentMs >= this.giveUpMs) {
        this.pendingRequests.delete(request.requestId);
        this.counters.gaveUp++;
        // What happened is unknown: the bag says.
        this.want("own", this.sight.ownEntityId(), (this.bag?.version ?? 0) + 1);
        this.emit({ kind: "gave-up", request: infoOf(request), by: "timeout" });
      } else if (nowMs - request.lastSentMs >= this.resendMs) {
        request.lastSentMs = nowMs;
        this.counters.resends++;
        this.link.send(request.datagram);
      }
    }
    if (!this.askedAtStart) {
      // The name directory asks for the own entity at the start too, and its detail carries the bag: this
      // query follows only if that one did not bring it.
      this.askedAtStart = true;
      if (!this.bag) this.want("own", this.sight.ownEntityId(), 0, true);
    }
    this.ownWanted = this.query(this.ownWanted, nowMs);
    this.chestWanted = this.query(this.chestWanted, nowMs);
    const open = this.open;
    if (open) {
      const chest = this.sight.entity(open.entityId);
      const at = this.sight.position();
      if (!chest) this.closeOpen("gone");
      else if (at && chebyshev(at, chest) > INTERACT_REACH_TILES) this.closeOpen("walked-away");
    }
  }

  /** A new session began (reconnect): ids start at 1 again, unanswered requests are given up, the chest closes. */
  reset(): void {
    const given = [...this.pendingRequests.values()];
    this.pendingRequests.clear();
    this.nextRequestId = 1;
    this.askedAtStart = false;
    this.ownWanted = null;
    this.chestWanted = null;
    this.bag = null;
    if (this.open) this.closeOpen("session");
    for (const request of given) this.emit({ kind: "gave-up", request: infoOf(request), by: "session" });
  }

  /** Wants a detail of `entityId` at `version` or newer; `later`: the first query waits one ITEM_QUERY_RESEND_MS. */
  private want(which: "own" | "chest", entityId: number, version: number, later = false): void {
    const wanted: Wanted = { entityId, version, lastSentMs: -Infinity, tries: later ? -1 : 0 };
    if (which === "own") {
      if (!this.ownWanted || this.ownWanted.version < version) this.ownWanted = wanted;
    } else if (!this.chestWanted || this.chestWanted.version < version) {
      this.chestWanted = wanted;
    }
  }

  /** Sends the query for `wanted` when it is due; returns what is still wanted. */
  private query(wanted: Wanted | null, nowMs: number): Wanted | null {
    if (!wanted) return null;
    if (nowMs - wanted.lastSentMs < ITEM_QUERY_RESEND_MS) return wanted;
    if (wanted.tries >= ITEM_QUERY_MAX_TRIES) return null;
    wanted.tries++;
    wanted.lastSentMs = nowMs;
    if (wanted.tries === 0) return wanted; // the first look only starts the clock
    this.counters.queries++;
    const size = encodeEntityQuery(
      {
        type: "entity_query",
        clientType: this.link.clientType,
        authToken: this.link.token(),
        entityId: wanted.entityId,
      },
      this.queryOut,
    );
    this.link.send(this.queryOut.slice(0, size));
    return wanted;
  }

  private closeOpen(by: "walked-away" | "gone" | "player" | "session"): void {
    const chestId = this.open!.entityId;
    this.open = null;
    this.chestWanted = null;
    this.emit({ kind: "chest-closed", chestId, by });
  }

  private emit(event: ItemEvent): void {
    for (const listener of this.listeners) listener(event);
  }
}

function infoOf(request: Pending): ItemRequestInfo {
  const { requestId, op, container, slot, toSlot, count } = request;
  return { requestId, op, container, slot, toSlot, count };
}

/** Whether `slot` is one of the equipment slots. */
export function isEquipmentSlot(slot: number): boolean {
  return slot === SLOT_WEAPON || slot === SLOT_ARMOR;
}
