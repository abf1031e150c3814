// Node-only: the UDP transport for bots, tests and tools. A connected dgram
// socket, so the kernel delivers only the server's datagrams to it.
import { createSocket, type Socket } from "node:dgram";
import { isIPv6 } from "node:net";
import type { DatagramHandler, Transport } from "../core/transport.js";
import type { GuestSession } from "../core/session-api.js";

export class UdpNodeTransport implements Transport {
  readonly name = "udp" as const;
  private handler: DatagramHandler = () => {};
  private closed = false;

  private constructor(private readonly socket: Socket) {
    socket.on("message", (message) => {
      if (!this.closed) this.handler(new Uint8Array(message.buffer, message.byteOffset, message.byteLength));
    });
    // ICMP "port unreachable" surfaces here on a connected socket; the client notices a dead server by silence.
    socket.on("error", () => {});
  }

  /** Opens a socket connected to host:port. */
  static async connect(host: string, port: number): Promise<UdpNodeTransport> {
    const socket = createSocket(isIPv6(host.replace(/^\[|\]$/g, "")) ? "udp6" : "udp4");
    await new Promise<void>((resolve, reject) => {
      socket.once("error", reject);
      socket.connect(port, host.replace(/^\[|\]$/g, ""), () => {
        socket.off("error", reject);
        resolve();
      });
    });
    return new UdpNodeTransport(socket);
  }

  send(datagram: Uint8Array): void {
    if (this.closed) return;
    this.socket.send(datagram);
  }

  onDatagram(handler: DatagramHandler): void {
    this.handler = handler;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.socket.close();
  }
}

/** A MakeTransport for connectGuest: UDP to the HTTP server's host at the session's udpPort. */
export function udpTransportFor(baseUrl: string): (session: GuestSession) => Promise<UdpNodeTransport> {
  const host = new URL(baseUrl).hostname;
  return (session) => UdpNodeTransport.connect(host, session.udpPort);
}
