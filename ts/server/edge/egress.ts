// The one way a datagram leaves for a client. Every service sends through it,
// so "sent" means the same everywhere: nothing goes to an unbound session, nor
// to an address that has not proven it receives (address-proof.ts) — such an
// address gets challenges only, within 3× the bytes it sent — and every
// datagram that goes out is counted once in the metrics. Per-client
// datagrams written on a hot path (State, Entity, Pong) are written into the
// outbound slab first, then sent as views of it (outbound-slab.ts).
import type { AddressProof } from "./address-proof.js";
import type { Metrics } from "../ops/metrics.js";
import { OutboundSlab } from "./outbound-slab.js";
import type { Peer } from "../edge/peer.js";

/** What Egress reads of a session: where it is bound and whether that address is proven. */
export interface EgressTarget {
  readonly peer: Peer | null;
  readonly proof: AddressProof;
}

export class Egress {
  /** Where per-client datagrams are written before `send`; see outbound-slab.ts. */
  readonly slab = new OutboundSlab();

  constructor(private readonly metrics: Metrics) {}

  /** Sends one datagram to the session's client (dropped while it is unbound or unproven), counted in the metrics. */
  send(session: EgressTarget, datagram: Uint8Array): void {
    const peer = session.peer;
    if (peer === null) return;
    if (!session.proof.proven) {
      this.metrics.heldUnproven++;
      return;
    }
    this.metrics.datagramsOut++;
    this.metrics.bytesOut += datagram.length;
    peer.send(datagram);
  }

  /**
   * Sends the `size` bytes written at `slab.bytes[slab.at]` (after `slab.reserve(size)`) as one datagram,
   * like `send(session, slab.take(size))`, but hands a transport that copies (Peer.sendFrom) the bytes where
   * they lie, without a view of its own per datagram — and then leaves the slab where it was: nothing holds
   * those bytes, so the next datagram is written over them. (Moving past them filled a 64 KiB slab every few
   * milliseconds at 5000 players, each a fresh ArrayBuffer: the external memory that drove V8 to a major
   * collection every 1.3 s, up to 21 ms each, in the ticks they fell in.) The caller reads nothing written
   * there after this call.
   */
  sendWritten(session: EgressTarget, size: number): void {
    const peer = session.peer;
    const slab = this.slab;
    if (peer === null || peer.sendFrom === undefined) {
      this.send(session, slab.take(size));
      return;
    }
    if (!session.proof.proven) {
      this.metrics.heldUnproven++;
      return;
    }
    this.metrics.datagramsOut++;
    this.metrics.bytesOut += size;
    peer.sendFrom(slab.bytes, slab.at, size);
  }

  /**
   * Sends a challenge to the session's unproven address, if it fits the
   * amplification limit (3× the bytes received from it); returns whether it went.
   */
  sendChallenge(session: EgressTarget, datagram: Uint8Array): boolean {
    const peer = session.peer;
    const proof = session.proof;
    if (peer === null || proof.proven || !proof.allows(datagram.length)) return false;
    proof.bytesOut += datagram.length;
    this.metrics.datagramsOut++;
    this.metrics.bytesOut += datagram.length;
    this.metrics.challengesSent++;
    this.metrics.bytesToUnproven += datagram.length;
    peer.send(datagram);
    return true;
  }
}
