// Bots read no chat, but they acknowledge it as any client must: the server
// sends chat reliably (every "X joined" to every session) and re-sends each
// line on a backing-off timer until a cumulative ChatAck covers it. A crowd of
// bots that never acknowledged would measure the server's retransmit queues,
// not play. Layered on the core through its onOtherPacket hook and
// sendDatagram, as the core intends features on top of it to be.
import type { GameClient, GuestSession } from "../client/core/index.js";
import { CHAT_ACK_BYTES, encodeChatAck } from "../protocol/chat-ack.js";
import type { ChatPacket } from "../protocol/chat.js";

export class ChatAcks {
  /** Every line up to this one is received (or was dropped by the server and will never come). */
  private cumulative = 0;
  private readonly above = new Set<number>();
  private session: GuestSession | null = null;
  received = 0;

  /** The cumulative number to acknowledge after `line` arrived. */
  receive(line: Pick<ChatPacket, "seq" | "oldestSeq">): number {
    this.received++;
    // Lines below oldestSeq are gone from the server's queue: waiting for them would stall the ack forever.
    if (line.oldestSeq - 1 > this.cumulative) {
      this.cumulative = line.oldestSeq - 1;
      for (const seq of this.above) if (seq <= this.cumulative) this.above.delete(seq);
    }
    if (line.seq > this.cumulative) this.above.add(line.seq);
    while (this.above.delete(this.cumulative + 1)) this.cumulative++;
    return this.cumulative;
  }

  /** Acknowledges on the client's current link; every arrival (duplicates too) re-acks, so a lost ack heals. */
  acknowledge(client: GameClient, line: Pick<ChatPacket, "seq" | "oldestSeq">): void {
    if (client.session !== this.session) {
      this.session = client.session; // a new session (the client reconnected) numbers its lines from 1 again
      this.reset();
    }
    const seq = this.receive(line);
    // A fresh buffer each time: a transport may still hold the last one (the UDP send is asynchronous).
    const datagram = new Uint8Array(CHAT_ACK_BYTES);
    encodeChatAck({ type: "chat_ack", clientType: 0, authToken: client.session.token, seq }, datagram);
    client.sendDatagram(datagram);
  }

  reset(): void {
    this.cumulative = 0;
    this.above.clear();
  }
}
