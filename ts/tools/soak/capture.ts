// What an eavesdropper on the honest bots' path would hold: copies of the
// datagrams they send (a sample of them), handed to the attacker to replay
// byte for byte. A Transport wrapper, so the bots run unchanged.
import type { Transport } from "../../client/core/index.js";

/** Copy one datagram in this many: enough to replay every kind, few enough to cost nothing. */
const SAMPLE_EVERY = 8;
/** Copies waiting for take(); older ones are dropped first. */
const MAX_PENDING = 256;

export class PacketCapture {
  private pending: Uint8Array[] = [];
  private seen = 0;

  /** `transport`, with a copy of every SAMPLE_EVERY-th datagram it sends kept for take(). */
  wrap(transport: Transport): Transport {
    const copy = (datagram: Uint8Array) => {
      if (this.seen++ % SAMPLE_EVERY !== 0) return;
      if (this.pending.length >= MAX_PENDING) this.pending.shift();
      this.pending.push(datagram.slice()); // the client may reuse its buffer after send
    };
    return {
      name: transport.name,
      actionMac: transport.actionMac,
      send(datagram) {
        copy(datagram);
        transport.send(datagram);
      },
      onDatagram: (handler) => transport.onDatagram(handler),
      onClose: transport.onClose ? (handler) => transport.onClose!(handler) : undefined,
      close: () => transport.close(),
    };
  }

  /** The copies made since the last take(). */
  take(): Uint8Array[] {
    const taken = this.pending;
    this.pending = [];
    return taken;
  }
}
