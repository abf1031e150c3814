// UDP transport: a dgram socket feeding the one datagram handler. Peers are
// cached per source address (bounded) so a steady client does not allocate a
// new handle per datagram.
import { createSocket, type Socket } from "node:dgram";
import type { Peer } from "./session.js";

const MAX_CACHED_PEERS = 16_384;

export type DatagramSink = (datagram: Uint8Array, peer: Peer) => void;

export class UdpTransport {
  private readonly socket: Socket;
  private readonly peers = new Map<string, Peer>();

  private constructor(socket: Socket) {
    this.socket = socket;
  }

  /** Binds host:port (port 0 picks a free one) and delivers every datagram to `sink`. */
  static async listen(host: string, port: number, sink: DatagramSink): Promise<UdpTransport> {
    const socket = createSocket({ type: host.includes(":") ? "udp6" : "udp4", reuseAddr: false });
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
    const key = `udp:${address}:${port}`;
    let peer = this.peers.get(key);
    if (!peer) {
      if (this.peers.size >= MAX_CACHED_PEERS) this.peers.delete(this.peers.keys().next().value as string);
      const socket = this.socket;
      peer = {
        key,
        address,
        transport: "udp",
        send(datagram: Uint8Array) {
          socket.send(datagram, port, address);
        },
      };
      this.peers.set(key, peer);
    }
    return peer;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.socket.close(() => resolve()));
  }
}
