// A client's link, as every transport hands it to the server: where a datagram came from and how to
// answer it. The edge's one abstraction over UDP, WebRTC and WebSocket (docs/transports.md).
/** Where a datagram came from and how to answer it. One per transport link. */
export interface Peer {
  /** Unique per link, e.g. "udp:127.0.0.1:5000" or "ws:17". */
  readonly key: string;
  /** The remote IP, for per-address rate limiting. */
  readonly address: string;
  readonly transport: "udp" | "webrtc" | "websocket";
  /** Sends one datagram; the transport may hold on to it, so never modify it afterwards. */
  send(datagram: Uint8Array): void;
  /**
   * Sends `bytes[start .. start + length)` as one datagram, copying it before returning — for a
   * transport that copies anyway (the batched UDP socket stages every datagram in its own buffer),
   * so the sender needs no view per datagram. Optional: without it, Egress makes the view.
   */
  sendFrom?(bytes: Uint8Array, start: number, length: number): void;
}
