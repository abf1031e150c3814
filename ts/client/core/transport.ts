// The one thing the networking core needs from a link: send a datagram,
// receive datagrams, learn that the link died. UDP (Node, for bots and tests),
// a WebRTC data channel and a WebSocket (browser) all fit behind it, so the
// core never knows which one it is talking over.

import type { ActionMac } from "../../protocol/action.js";

export type TransportName = "udp" | "webrtc" | "websocket";

/** Called with each received datagram; the array is the handler's to keep (transports never reuse it). */
export type DatagramHandler = (datagram: Uint8Array) => void;

export interface Transport {
  readonly name: TransportName;
  /** Sends one datagram (at most 1200 bytes). Never throws for a dead link: the client notices by silence. */
  send(datagram: Uint8Array): void;
  /** Sets the receiver of every datagram from the server (one handler; a later call replaces it). */
  onDatagram(handler: DatagramHandler): void;
  /** Sets a callback for a link that knows it has closed (WebSocket, data channel); UDP never calls it. */
  onClose?(handler: (reason: string) => void): void;
  /**
   * Signs ActionPackets with the session key (docs/protocol.md § 6.1): a Node
   * client's UDP link (whose datagrams nothing else authenticates), and the
   * browser's links (signed-transport.ts), so that a session may move onto
   * another link — a new address, or a cluster's other gateway (§ 6.2). Absent:
   * the packets go without the trailer, and the session never moves.
   */
  readonly actionMac?: ActionMac;
  /** Closes the link; no datagram is delivered afterwards. Safe to call twice. */
  close(): void;
}
