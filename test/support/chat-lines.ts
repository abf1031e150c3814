// Chat as a raw protocol test client sees it (docs/protocol.md § Chat): the lines it received, in
// order, acknowledged as a client does, and lines posted.
import { type ChatPacket, encodePacketToBytes } from "../../ts/protocol/index.js";
import type { UdpTestClient } from "./udp-client.js";

/** Chat lines a client received, one per sequence number, in order. */
export function lines(client: UdpTestClient): ChatPacket[] {
  const bySeq = new Map<number, ChatPacket>();
  for (const { packet } of client.received)
    if (packet?.type === "chat" && !bySeq.has(packet.seq)) bySeq.set(packet.seq, packet);
  return [...bySeq.values()].sort((a, b) => a.seq - b.seq);
}

/**
 * Acknowledges every line the client holds without a gap (the raw test client acknowledges nothing by itself,
 * and the server keeps at most 8 lines in flight to a client that does not: later lines would wait).
 */
export function acknowledgeLines(client: UdpTestClient): void {
  const held = new Set(lines(client).map((line) => line.seq));
  let upTo = 0;
  while (held.has(upTo + 1)) upTo++;
  if (upTo > 0)
    client.sendRaw(encodePacketToBytes({ type: "chat_ack", clientType: 0, authToken: client.token, seq: upTo }));
}

/** Waits for a line `find` picks among those `client` received, acknowledging what arrives meanwhile. */
export function hearLine(
  client: UdpTestClient,
  what: string,
  find: (line: ChatPacket) => boolean,
): Promise<ChatPacket> {
  return client.waitFor(
    what,
    () => {
      acknowledgeLines(client);
      return lines(client).find(find);
    },
    10_000,
  );
}

/** Posts line `text` with sequence number `seq`. */
export function post(client: UdpTestClient, seq: number, text: string): void {
  client.sendRaw(encodePacketToBytes({ type: "chat_post", clientType: 0, authToken: client.token, seq, text }));
}
