// UDP transport: a dgram socket feeding the one datagram handler. Peers are
// cached per source address (bounded) so a steady client does not allocate a
// new handle per datagram.
import { createSocket, type Socket } from "node:dgram";
import { lookup as dnsLookup } from "node:dns";
import { isIP } from "node:net";
import type { Peer } from "./session.js";

const MAX_CACHED_PEERS = 16_384;

export type DatagramSink = (datagram: Uint8Array, peer: Peer) => void;

type LookupCallback = (error: Error | null, address: string, family: number) => void;

/**
 * dgram resolves the destination of every send through `lookup`; the default
 * (dns.lookup) answers an IP literal on the next tick, which costs a closure, a
 * nextTick and a deferred send per datagram. Peers are always IP literals, so
 * answer those at once; names (a --host given as a name) still go to DNS.
 */
function literalLookup(address: string, family: number, callback: LookupCallback): void {
  const literalFamily = isIP(address);
  if (literalFamily !== 0) callback(null, address, literalFamily);
  else dnsLookup(address, family, callback);
}

export class UdpTransport {
  private readonly socket: Socket;
  /** Every cached peer by key, oldest first (the eviction order). */
  private readonly peers = new Map<string, Peer>();
  /**
   * The latest peer seen from each source port: found without building the key
   * string; only a port shared by two addresses falls back to `peers`.
   */
  private readonly peersByPort = new Map<number, UdpPeer>();

  private constructor(socket: Socket) {
    this.socket = socket;
  }

  /** Binds host:port (port 0 picks a free one) and delivers every datagram to `sink`. */
  static async listen(host: string, port: number, sink: DatagramSink): Promise<UdpTransport> {
    const socket = createSocket({
      type: host.includes(":") ? "udp6" : "udp4",
      reuseAddr: false,
      lookup: literalLookup as never,
    });
    const transport = new UdpTransport(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once("error", reject);
      socket.bind(port, host, () => {
        socket.off("error", reject);
        resolve();
      });
    });
    // After binding, socket errors (e.g. ICMP unreachable on send) must not kill the server.
    socket.on("error", () => {});
    socket.on("message", (message, rinfo) => sink(message, transport.peerFor(rinfo.address, rinfo.port)));
    return transport;
  }

  get port(): number {
    return this.socket.address().port;
  }

  private peerFor(address: string, port: number): Peer {
    const recent = this.peersByPort.get(port);
    if (recent !== undefined && recent.address === address) return recent;
    const key = `udp:${address}:${port}`;
    let peer = this.peers.get(key) as UdpPeer | undefined;
    if (!peer) {
      if (this.peers.size >= MAX_CACHED_PEERS) {
        const oldest = this.peers.keys().next().value as string;
        const evicted = this.peers.get(oldest) as UdpPeer;
        this.peers.delete(oldest);
        if (this.peersByPort.get(evicted.port) === evicted) this.peersByPort.delete(evicted.port);
      }
      peer = new UdpPeer(this.socket, key, address, port);
      this.peers.set(key, peer);
    }
    this.peersByPort.set(port, peer);
    return peer;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.socket.close(() => resolve()));
  }
}

class UdpPeer implements Peer {
  readonly transport = "udp";

  constructor(
    private readonly socket: Socket,
    readonly key: string,
    readonly address: string,
    readonly port: number,
  ) {}

  send(datagram: Uint8Array): void {
    this.socket.send(datagram, this.port, this.address);
  }
}
