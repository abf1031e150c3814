// The one way a datagram leaves for a client. Every service sends through it,
// so "sent" means the same everywhere: nothing goes to an unbound session, and
// every datagram that goes out is counted once in the metrics. Per-client
// datagrams written on a hot path (State, Entity, Pong) are written into the
// outbound slab first, then sent as views of it (outbound-slab.ts).
import type { Metrics } from "./metrics.js";
import { OutboundSlab } from "./outbound-slab.js";
import type { Peer } from "./session.js";

export class Egress {
  /** Where per-client datagrams are written before `send`; see outbound-slab.ts. */
  readonly slab = new OutboundSlab();

  constructor(private readonly metrics: Metrics) {}

  /** Sends one datagram to the session's client (dropped while it is unbound), counted in the metrics. */
  send(session: { readonly peer: Peer | null }, datagram: Uint8Array): void {
    const peer = session.peer;
    if (peer === null) return;
    this.metrics.datagramsOut++;
    this.metrics.bytesOut += datagram.length;
    peer.send(datagram);
  }
}
