// Node-only: the UDP transport for bots, tests and tools. A connected dgram
// socket, so the kernel delivers only the server's datagrams to it. Given the
// session key, it signs ActionPackets (Transport.actionMac): UDP is the one
// link whose source address anyone can claim, so a session may move to a new
// address (NAT rebinding) only with a tagged, fresh packet (docs/protocol.md § 6.1).
import { createSocket, type Socket } from "node:dgram";
import { isIPv6 } from "node:net";
import type { ActionMac } from "../../protocol/action.js";
import { nodeActionMac } from "../../protocol/action-mac-node.js";
import type { DatagramHandler, Transport } from "../core/transport.js";
import type { GuestSession } from "../core/session-api.js";

export class UdpNodeTransport implements Transport {
  readonly name = "udp" as const;
  private handler: DatagramHandler = () => {};
  private closed = false;

  readonly actionMac: ActionMac | undefined;

  private constructor(
    private readonly socket: Socket,
    key: Uint8Array | undefined,
  ) {
    this.actionMac = key === undefined ? undefined : nodeActionMac(key);
    socket.on("message", (message) => {
      if (!this.closed) this.handler(new Uint8Array(message.buffer, message.byteOffset, message.byteLength));
    });
    // ICMP "port unreachable" surfaces here on a connected socket; the client notices a dead server by silence.
    socket.on("error", () => {});
  }

  /** Opens a socket connected to host:port; with the session `key`, ActionPackets are signed. */
  static async connect(host: string, port: number, key?: Uint8Array): Promise<UdpNodeTransport> {
    const socket = createSocket(isIPv6(host.replace(/^\[|\]$/g, "")) ? "udp6" : "udp4");
    await new Promise<void>((resolve, reject) => {
      socket.once("error", reject);
      socket.connect(port, host.replace(/^\[|\]$/g, ""), () => {
        socket.off("error", reject);
        resolve();
      });
    });
    return new UdpNodeTransport(socket, key);
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
  return (session) => UdpNodeTransport.connect(host, session.udpPort, session.key);
}
