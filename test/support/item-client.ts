// Items as a protocol client sees them (docs/protocol.md § Items): ItemRequests sent until answered,
// the answers, and the bags and chests read from the EntityDetails the server sends.
import type { ItemOp } from "../../ts/protocol/item-request.js";
import { ITEM_STATUSES, type ItemResultPacket, type ItemStatus } from "../../ts/protocol/item-result.js";
import type { ItemStack } from "../../ts/protocol/tlv.js";
import type { ItemDef } from "../../ts/server/content/item-catalogue.js";
import type { UdpTestClient } from "./udp-client.js";

/** A catalogue entry with test defaults: a stack of one, no damage, armor or healing, its name as sprite. */
export const itemDef = (fields: Partial<ItemDef> & Pick<ItemDef, "id" | "name" | "kind">): ItemDef => ({
  stack: 1,
  sprite: fields.name,
  damage: 0,
  armor: 0,
  heal: 0,
  ...fields,
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function itemResults(client: UdpTestClient): ItemResultPacket[] {
  return client.received.flatMap((r) => (r.packet?.type === "item_result" ? [r.packet] : []));
}

/** The newest `inventory` TLV the client was sent for entity `id` (by version), or undefined. */
export function inventoryOf(client: UdpTestClient, id: number): { version: number; stacks: ItemStack[] } | undefined {
  let best: { version: number; stacks: ItemStack[] } | undefined;
  for (const r of client.received) {
    if (r.packet?.type !== "entity_detail" || r.packet.entityId !== id) continue;
    for (const tlv of r.packet.meta) {
      if (tlv.kind === "inventory" && (best === undefined || tlv.version > best.version)) best = tlv;
    }
  }
  return best;
}

/** Sends a request (re-sending every 150 ms) until its result comes; returns the status. */
export async function itemRequest(
  client: UdpTestClient,
  requestId: number,
  op: ItemOp,
  fields: Parameters<UdpTestClient["itemRequest"]>[2] = {},
): Promise<ItemStatus> {
  for (let tries = 0; tries < 20; tries++) {
    client.itemRequest(requestId, op, fields);
    const deadline = Date.now() + 150;
    while (Date.now() < deadline) {
      const result = itemResults(client).find((r) => r.requestId === requestId);
      if (result) return ITEM_STATUSES[result.status];
      await sleep(10);
    }
  }
  throw new Error(`no result for request ${requestId} (${op})`);
}

/** The bag as the server holds it for the client, through a query of its own entity. */
export async function bagOf(client: UdpTestClient): Promise<ItemStack[]> {
  const own = client.joined.entityId;
  const details = () =>
    client.received.filter(
      (r) =>
        r.packet?.type === "entity_detail" &&
        r.packet.entityId === own &&
        r.packet.meta.some((tlv) => tlv.kind === "inventory"),
    ).length;
  const before = details();
  client.query(own);
  await client.waitFor("own detail", () => details() > before);
  return inventoryOf(client, own)!.stacks;
}
