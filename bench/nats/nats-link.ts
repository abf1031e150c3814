// bench/link-transport.ts's nats row: one side of a NATS core pub/sub link. It lives in its own package
// (bench/nats, installed by that bench on first use) because the NATS client declares Node >= 22, and
// the main install must stay quiet on Node 20. Type-check with `npx tsc -p bench/nats` once installed.
import { connect } from "@nats-io/transport-node";

/** One side's connection, the same shape as bench/link-transport.ts's Link. */
export interface NatsLink {
  send(payload: Uint8Array): void;
  onMessage(handler: (payload: Uint8Array) => void): void;
  close(): Promise<void>;
}

/** Connects to the nats-server at `url`; the gateway and the region each publish on the other's subject. */
export async function natsLink(role: "gateway" | "region", url: string): Promise<NatsLink> {
  const nc = await connect({ servers: url });
  const inbox = role === "region" ? "link.region" : "link.gateway";
  const outbox = role === "region" ? "link.gateway" : "link.region";
  let handler: (payload: Uint8Array) => void = () => {};
  nc.subscribe(inbox, { callback: (_error, message) => handler(message.data) });
  await nc.flush();
  return {
    send: (payload) => nc.publish(outbox, payload),
    onMessage: (h) => (handler = h),
    close: async () => nc.close(),
  };
}
