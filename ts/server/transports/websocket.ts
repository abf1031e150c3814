// The WebSocket fallback: the browser's way in when a WebRTC data channel
// cannot be set up. It carries exactly the datagrams UDP carries, one binary
// message per datagram, on the game server's own HTTP port (path /ws). A
// WebSocket is a reliable, ordered stream, so one lost TCP segment stalls
// everything behind it; the protocol still works (it only ever needs the
// newest state), it just degrades worse under loss. docs/transports.md.
import { STATUS_CODES, type IncomingMessage, type Server } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocket, WebSocketServer } from "ws";
import { MAX_DATAGRAM_BYTES } from "../../protocol/header.js";
import type { Logger } from "../ops/log.js";
import type { Peer } from "../edge/peer.js";
import { ClientAddresses } from "../edge/client-address.js";
import { type LinkPolicy, type LinkSink, type ReapableLink, unboundTooLong } from "./link-sink.js";

export const WEBSOCKET_PATH = "/ws";

/**
 * Messages up to this size are read and then dropped when over MAX_DATAGRAM_BYTES, keeping the
 * connection (a buggy client loses one datagram, like an oversize UDP datagram); beyond it `ws`
 * stops reading and closes the connection with 1009, so no message can make the server buffer more.
 */
const MAX_READ_BYTES = 64 * 1024;

export interface WebSocketTransportOptions {
  /** Open connections at most; further upgrades are answered 503. */
  maxConnections: number;
  /** Open connections per remote address at most; further upgrades are answered 429. */
  maxConnectionsPerAddress: number;
  /** A connection that carries no session this long is closed (link-sink.ts). */
  unboundGraceMs: number;
  /** A datagram is dropped instead of queued while this many bytes wait to be written to the socket. */
  maxBufferedBytes: number;
  /** The address an upgrade came from (HttpApi.clientAddress behind trusted proxies); default the TCP peer's. */
  clientAddress: (req: IncomingMessage) => string;
  /**
   * Upgrades another part of the server takes (the replay viewers' links, replay-viewer/viewer-pool.ts):
   * asked first; true when it took the upgrade. Absent: every upgrade is this transport's to answer.
   */
  elsewhere?: (req: IncomingMessage, socket: Duplex, head: Buffer) => boolean;
  /**
   * Why an upgrade is refused before it is taken (a cluster gateway: a page of a site that is not one of its
   * gateways, refuseForeignOrigin), or null. Absent: every upgrade to the path is taken, within the limits.
   */
  refuse?: (req: IncomingMessage) => { status: number; message: string } | null;
}

const NO_PROXIES = new ClientAddresses();

export const DEFAULT_WEBSOCKET_OPTIONS: WebSocketTransportOptions = {
  maxConnections: 512,
  maxConnectionsPerAddress: 32,
  unboundGraceMs: 10_000,
  maxBufferedBytes: 256 * 1024,
  clientAddress: (req) => NO_PROXIES.of(req),
};

interface WebSocketLink extends ReapableLink {
  readonly socket: WebSocket;
  readonly peer: Peer;
  readonly address: string;
}

export interface WebSocketCounts {
  /** Connections open now. */
  open: number;
  /** Connections accepted since start. */
  accepted: number;
  /** Upgrades refused (wrong path, connection limits). */
  refused: number;
  /** Connections closed because they carried no session for the grace period. */
  reaped: number;
  /** Outbound datagrams dropped because the socket was backed up. */
  sendsDropped: number;
}

export class WebSocketTransport {
  private readonly server = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_READ_BYTES,
    perMessageDeflate: false, // datagrams are small and mostly incompressible; deflate would cost CPU and memory
    clientTracking: false,
  });
  private readonly links = new Map<string, WebSocketLink>();
  private readonly perAddress = new Map<string, number>();
  private nextLinkId = 1;
  private accepted = 0;
  private refused = 0;
  private reaped = 0;
  private sendsDropped = 0;
  private closed = false;
  private readonly onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => this.upgrade(req, socket, head);

  constructor(
    private readonly httpServer: Server,
    private readonly sink: LinkSink,
    private readonly policy: LinkPolicy,
    private readonly log: Logger,
    private readonly options: WebSocketTransportOptions = DEFAULT_WEBSOCKET_OPTIONS,
  ) {
    httpServer.on("upgrade", this.onUpgrade);
  }

  counts(): WebSocketCounts {
    return {
      open: this.links.size,
      accepted: this.accepted,
      refused: this.refused,
      reaped: this.reaped,
      sendsDropped: this.sendsDropped,
    };
  }

  /** Closes connections that carried no session for the grace period; call about once a second. */
  sweep(nowMs: number): void {
    for (const link of this.links.values()) {
      if (unboundTooLong(link, this.policy, nowMs, this.options.unboundGraceMs)) {
        this.reaped++;
        link.socket.close(4000, "no session bound to this link");
      }
    }
  }

  /** Stops accepting upgrades and closes every connection (1001 going away). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.httpServer.off("upgrade", this.onUpgrade);
    for (const link of this.links.values()) {
      link.socket.close(1001, "server shutting down");
      // A peer that never answers the close handshake must not hold the socket open.
      setTimeout(() => link.socket.terminate(), 1000).unref();
    }
    this.server.close();
  }

  private upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    if (this.options.elsewhere?.(req, socket, head) === true) return;
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    const address = this.options.clientAddress(req) || "unknown";
    if (path !== WEBSOCKET_PATH) return this.refuse(socket, 404, `no WebSocket endpoint at ${path}`);
    if (this.closed) return this.refuse(socket, 503, "server shutting down");
    const refused = this.options.refuse?.(req) ?? null;
    if (refused !== null) return this.refuse(socket, refused.status, refused.message);
    if (this.links.size >= this.options.maxConnections) {
      return this.refuse(socket, 503, `WebSocket connection limit reached (${this.options.maxConnections})`);
    }
    const fromAddress = this.perAddress.get(address) ?? 0;
    if (fromAddress >= this.options.maxConnectionsPerAddress) {
      return this.refuse(socket, 429, `too many WebSocket connections from ${address}`);
    }
    // Without verifyClient, ws completes a valid handshake synchronously (and answers a bad one
    // itself, 400, without calling back), so the limits checked above cannot be overshot.
    this.server.handleUpgrade(req, socket, head, (ws) => this.accept(ws, address));
  }

  private accept(ws: WebSocket, address: string): void {
    const key = `ws:${this.nextLinkId++}`;
    this.perAddress.set(address, (this.perAddress.get(address) ?? 0) + 1);
    const policy = this.policy;
    const transport = this;
    const peer: Peer = {
      key,
      address,
      transport: "websocket",
      send(datagram: Uint8Array) {
        if (ws.readyState !== WebSocket.OPEN) return;
        // A backed-up socket means the client cannot keep up; queuing more would only add latency
        // and server memory to a protocol that re-sends what matters anyway.
        if (ws.bufferedAmount > transport.options.maxBufferedBytes) {
          transport.sendsDropped++;
          return;
        }
        ws.send(datagram, { binary: true });
      },
    };
    const link: WebSocketLink = { key, socket: ws, peer, address, unboundSinceMs: performance.now() };
    this.links.set(key, link);
    this.accepted++;
    this.log.debug("websocket open", { peer: key, address });
    if (this.closed) ws.close(1001, "server shutting down");
    ws.on("message", (data, isBinary) => {
      if (!isBinary) return policy.drop("websocket_text");
      // With the default binaryType, a message (even a fragmented one) arrives as one Buffer.
      const bytes = data as Buffer;
      if (bytes.length > MAX_DATAGRAM_BYTES) return policy.drop("websocket_oversize");
      this.sink.datagram(bytes, peer);
    });
    ws.on("error", (error: Error & { code?: string }) => {
      // ws closes the connection itself after a protocol error; only the count is ours.
      if (error.code === "WS_ERR_UNSUPPORTED_MESSAGE_LENGTH") policy.drop("websocket_oversize");
      else policy.drop("websocket_protocol_error");
    });
    ws.on("close", (code) => {
      this.log.debug("websocket closed", { peer: key, code });
      this.forget(key, address);
      this.sink.closed(peer);
    });
  }

  private forget(key: string, address: string): void {
    if (!this.links.delete(key)) return;
    const remaining = (this.perAddress.get(address) ?? 1) - 1;
    if (remaining > 0) this.perAddress.set(address, remaining);
    else this.perAddress.delete(address);
  }

  private refuse(socket: Duplex, status: number, message: string): void {
    this.refused++;
    const body = JSON.stringify({ error: message });
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
        "Connection: close\r\n" +
        "Content-Type: application/json\r\n" +
        `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n` +
        body,
    );
  }
}
