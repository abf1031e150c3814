// ItemState (ts/client/core/items.ts) on a virtual clock with a recording
// link: request ids and re-sends, giving up, one answer per request, details
// out of order, the chest that opens only for the player who used it and
// closes on walking away, the query after a result newer than the bag, and
// the catalogue parser.
import { describe, expect, it } from "vitest";
import { parseItems, stackText, itemNumbers } from "../ts/client/core/item-catalogue.js";
import { ITEM_GIVE_UP_MS, ITEM_RESEND_MS, ItemState, type ItemEvent } from "../ts/client/core/items.js";
import {
  decodeEntityDetailBody,
  decodePacketPlain,
  encodeEntityDetail,
  type EntityDetailView,
  type Tlv,
} from "../ts/protocol/index.js";
import { ITEM_OPS } from "../ts/protocol/item-request.js";
import { ITEM_STATUSES } from "../ts/protocol/item-result.js";

const OWN = 7;
const CHEST = 40;

function rig() {
  const sent: ReturnType<typeof decodePacketPlain>[] = [];
  const place = {
    own: { x: 10, y: 10 } as { x: number; y: number } | null,
    chest: { x: 11, y: 10 } as { x: number; y: number } | undefined,
  };
  const items = new ItemState(
    { send: (datagram) => sent.push(decodePacketPlain(datagram)), token: () => 0x1234n, clientType: 0 },
    { ownEntityId: () => OWN, position: () => place.own, entity: (id) => (id === CHEST ? place.chest : undefined) },
  );
  const events: ItemEvent[] = [];
  items.listen((event) => events.push(event));
  const requests = () =>
    sent.flatMap((result) => (result.ok && result.packet.type === "item_request" ? [result.packet] : []));
  const queries = () =>
    sent.flatMap((result) => (result.ok && result.packet.type === "entity_query" ? [result.packet.entityId] : []));
  return { items, sent, place, events, requests, queries };
}

function detail(entityId: number, meta: Tlv[]): EntityDetailView {
  const out = new Uint8Array(1200);
  const size = encodeEntityDetail({ type: "entity_detail", clientType: 0, tick: 1, entityId, meta }, out);
  const result = decodeEntityDetailBody(out.slice(0, size));
  if (!result.ok) throw new Error(result.error.message);
  return result.packet;
}

function inventory(version: number, stacks: { slot: number; itemId: number; count: number }[]): Tlv {
  return { kind: "inventory", version, capacity: 20, stacks };
}

const status = (name: (typeof ITEM_STATUSES)[number]) => ITEM_STATUSES.indexOf(name);
const result = (requestId: number, name: (typeof ITEM_STATUSES)[number], version: number) => ({
  type: "item_result" as const,
  clientType: 0,
  requestId,
  status: status(name),
  version,
});

describe("item requests", () => {
  it("numbers requests 1, 2, 3, re-sends each with its id until answered, and hears one answer per request", () => {
    const { items, requests, events } = rig();
    expect(items.request("equip", { slot: 3 }, 0)).toBe(1);
    expect(items.request("drop", { slot: 4, count: 2 }, 10)).toBe(2);
    expect(requests().map((packet) => [packet.requestId, ITEM_OPS[packet.op], packet.slot, packet.count])).toEqual([
      [1, "equip", 3, 0],
      [2, "drop", 4, 2],
    ]);
    items.update(ITEM_RESEND_MS - 1);
    expect(requests()).toHaveLength(2);
    items.update(ITEM_RESEND_MS);
    expect(requests().map((packet) => packet.requestId)).toEqual([1, 2, 1]);
    items.update(ITEM_RESEND_MS + 10);
    expect(requests().map((packet) => packet.requestId)).toEqual([1, 2, 1, 2]);
    items.receiveResult(result(1, "ok", 2));
    items.receiveResult(result(1, "ok", 2)); // the answer to a re-sent copy
    items.update(2 * ITEM_RESEND_MS + 10);
    expect(requests().map((packet) => packet.requestId)).toEqual([1, 2, 1, 2, 2]);
    expect(events.filter((event) => event.kind === "result")).toHaveLength(1);
    expect(items.pending.map((request) => request.requestId)).toEqual([2]);
  });

  it("gives a request up after ITEM_GIVE_UP_MS, and asks for the bag then", () => {
    const { items, events, queries } = rig();
    items.receiveDetail(detail(OWN, [inventory(3, [])]), null);
    items.request("use", { slot: 0 }, 0);
    for (let now = 0; now < ITEM_GIVE_UP_MS; now += 50) items.update(now);
    expect(events.some((event) => event.kind === "gave-up")).toBe(false);
    items.update(ITEM_GIVE_UP_MS);
    expect(events.at(-1)).toMatchObject({ kind: "gave-up", by: "timeout", request: { requestId: 1, op: "use" } });
    expect(items.pending).toEqual([]);
    items.update(ITEM_GIVE_UP_MS + 1);
    expect(queries()).toContain(OWN);
  });

  it("refuses more than 16 in flight; a new session starts the ids at 1 and gives the old ones up", () => {
    const { items, events } = rig();
    for (let index = 0; index < 16; index++) expect(items.request("use", { slot: 0 }, 0)).toBe(index + 1);
    expect(items.request("use", { slot: 0 }, 0)).toBeNull();
    items.reset();
    expect(events.filter((event) => event.kind === "gave-up" && event.by === "session")).toHaveLength(16);
    expect(items.request("use", { slot: 0 }, 0)).toBe(1);
  });

  it("queries the own entity while the bag held is older than a result says, until a detail that new comes", () => {
    const { items, queries } = rig();
    items.receiveDetail(detail(OWN, [inventory(4, [])]), null);
    items.request("take", { container: CHEST, slot: 0 }, 0);
    items.receiveResult(result(1, "ok", 5));
    items.update(1);
    expect(queries()).toEqual([OWN]);
    items.update(301);
    expect(queries()).toEqual([OWN, OWN]);
    items.receiveDetail(detail(OWN, [inventory(5, [{ slot: 0, itemId: 2, count: 1 }])]), null);
    items.update(700);
    expect(queries()).toEqual([OWN, OWN]);
  });
});

describe("details", () => {
  it("keeps the highest version of the own bag, whatever order details come in", () => {
    const { items } = rig();
    items.receiveDetail(detail(OWN, [inventory(6, [{ slot: 2, itemId: 6, count: 3 }])]), null);
    items.receiveDetail(detail(OWN, [inventory(5, [])]), null);
    expect(items.inventory).toEqual({
      entityId: OWN,
      version: 6,
      capacity: 20,
      stacks: [{ slot: 2, itemId: 6, count: 3 }],
    });
  });

  it("opens a chest only for its user, follows its changes, and closes it when the player walks away", () => {
    const { items, events, place } = rig();
    // Pushed to a bystander next to a chest that changed: no window.
    items.receiveDetail(detail(CHEST, [{ kind: "name", value: "chest" }, inventory(2, [])]), null);
    expect(items.chest).toBeNull();
    items.receiveDetail(detail(CHEST, [inventory(2, [{ slot: 0, itemId: 2, count: 1 }])]), CHEST);
    expect(items.chest).toMatchObject({ entityId: CHEST, version: 2 });
    items.receiveDetail(detail(CHEST, [inventory(3, [])]), null);
    items.receiveDetail(detail(CHEST, [inventory(2, [{ slot: 0, itemId: 2, count: 1 }])]), null);
    expect(items.chest).toMatchObject({ version: 3, stacks: [] });
    expect(events.map((event) => event.kind)).toEqual(["chest-opened", "chest-changed"]);
    place.own = { x: 12, y: 11 }; // still within one tile
    items.update(0);
    expect(items.chest).not.toBeNull();
    place.own = { x: 13, y: 10 };
    items.update(1);
    expect(items.chest).toBeNull();
    expect(events.at(-1)).toEqual({ kind: "chest-closed", chestId: CHEST, by: "walked-away" });
  });

  it("re-asks the open chest after a change to it whose detail did not come", () => {
    const { items, queries } = rig();
    items.receiveDetail(detail(OWN, [inventory(1, [])]), null);
    items.receiveDetail(detail(CHEST, [inventory(2, [{ slot: 0, itemId: 2, count: 1 }])]), CHEST);
    items.request("take_all", { container: CHEST }, 0);
    items.receiveDetail(detail(OWN, [inventory(2, [{ slot: 0, itemId: 2, count: 1 }])]), null);
    items.receiveResult(result(1, "ok", 2));
    items.update(1);
    expect(queries()).toEqual([]);
    items.update(400);
    expect(queries()).toEqual([CHEST]);
    items.receiveDetail(detail(CHEST, [inventory(3, [])]), null);
    items.update(800);
    expect(queries()).toEqual([CHEST]);
  });

  it("stops asking for a bag a server without items never sends", () => {
    const { items, queries } = rig();
    items.update(0);
    items.receiveDetail(detail(OWN, [{ kind: "name", value: "Ada" }]), null);
    for (let now = 0; now < 5000; now += 100) items.update(now);
    expect(queries()).toEqual([]);
  });
});

describe("the catalogue from /api/world", () => {
  it("reads the items, and refuses a malformed one naming the field", () => {
    const items = parseItems([
      { id: 2, name: "dagger", kind: "weapon", stack: 1, sprite: "dagger", damage: 9, armor: 0, heal: 0 },
      { id: 6, name: "healing potion", kind: "consumable", stack: 10, sprite: "potion", damage: 0, armor: 0, heal: 30 },
    ]);
    if (typeof items === "string") throw new Error(items);
    expect(items.map((item) => item.name)).toEqual(["dagger", "healing potion"]);
    expect(itemNumbers(items[0])).toEqual(["damage 9"]);
    expect(itemNumbers(items[1])).toEqual(["heals 30", "stacks to 10"]);
    expect(stackText(new Map(items.map((item) => [item.id, item])), 6, 3)).toBe("3 × healing potion");
    expect(parseItems(undefined)).toEqual([]);
    expect(parseItems([{ id: 0 }])).toBe("items[0].id must be an integer 1..65535");
    expect(parseItems([{ id: 1, name: "x", kind: "wand", stack: 1, sprite: "" }])).toMatch(/items\[0\]\.kind/);
    expect(parseItems([{ id: 1, name: "x", kind: "key", stack: 1, sprite: "key", damage: -1 }])).toMatch(/damage/);
    // A torch's light (issue 15): read when given, 0 … 8.
    const torch = {
      id: 9,
      name: "torch",
      kind: "weapon" as const,
      stack: 1,
      sprite: "torch",
      damage: 7,
      armor: 0,
      heal: 0,
    };
    expect(parseItems([{ ...torch, light: 4 }])).toEqual([{ ...torch, light: 4 }]);
    expect(itemNumbers({ ...torch, light: 4 })).toEqual(["damage 7", "light 4"]);
    expect(parseItems([{ ...torch, light: 9 }])).toBe("items[0].light must be an integer 0..8");
    expect(parseItems([{ ...torch, light: "bright" }])).toBe("items[0].light must be an integer 0..8");
  });
});
