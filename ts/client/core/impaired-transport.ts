// A transport seen through netsim (docs/netsim.md): both directions delayed,
// jittered, dropped and duplicated by the one seeded impairment core. For
// tests and bots that want a bad link without a proxy process; the browser can
// use it too (netsim's core is platform-neutral).
import { type Clock, createImpairedDuplex, type DuplexProfile, type ImpairedDuplex } from "../../netsim/index.js";
import type { DatagramHandler, Transport } from "./transport.js";

export interface ImpairedTransport extends Transport {
  /** The two links, for their counters and to change the profile mid-run. */
  readonly duplex: ImpairedDuplex;
}

export function impairTransport(
  inner: Transport,
  profile: DuplexProfile,
  seed: number,
  clock?: Clock,
): ImpairedTransport {
  let handler: DatagramHandler = () => {};
  const duplex = createImpairedDuplex(
    profile,
    seed,
    (datagram) => inner.send(datagram),
    (datagram) => handler(datagram),
    clock ? { clock } : {},
  );
  inner.onDatagram((datagram) => duplex.down.send(datagram));
  return {
    name: inner.name,
    actionMac: inner.actionMac,
    duplex,
    send: (datagram) => duplex.up.send(datagram),
    onDatagram: (next) => {
      handler = next;
    },
    onClose: inner.onClose ? (next) => inner.onClose!(next) : undefined,
    close: () => {
      duplex.close();
      inner.close();
    },
  };
}
