// The browser's fallback link: a WebSocket to the game server's /ws, one binary message per
// datagram, used when a WebRTC data channel cannot be set up (docs/transports.md). DOM-free:
// it needs only a WebSocket constructor (the platform's, or the `ws` package's in Node tests).
import { MAX_DATAGRAM_BYTES } from "../../protocol/header.js";
import type { DatagramHandler, Transport } from "../core/transport.js";

export const WEBSOCKET_PATH = "/ws";

/** While this many bytes wait to be sent, new datagrams are dropped (a stalled stream must not grow a queue). */
const MAX_BUFFERED_BYTES = 64 * 1024;

export interface WebSocketConnectOptions {
  /** Give up when the socket is not open after this long. Default 5000. */
  timeoutMs?: number;
  /** The WebSocket constructor; default the platform's. */
  WebSocket?: typeof WebSocket;
}

/** A link that could not be set up; `transport` says which. */
export class TransportError extends Error {
  constructor(
    readonly transport: "webrtc" | "websocket",
    message: string,
  ) {
    super(`${transport}: ${message}`);
  }
}

/** ws:// or wss:// URL of the game server's WebSocket endpoint, from its http(s) base URL. */
export function webSocketUrl(baseUrl: string): string {
  // Under the base's own path (a replay viewer the console reaches at /api/admin/viewers/ID), not the origin's root.
  const url = new URL(`${baseUrl.replace(/\/+$/, "")}${WEBSOCKET_PATH}`);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  return url.toString();
}

/** Opens a WebSocket to `baseUrl`'s /ws; resolves once it is open. */
export function connectWebSocket(baseUrl: string, options: WebSocketConnectOptions = {}): Promise<Transport> {
  const Socket = options.WebSocket ?? globalThis.WebSocket;
  if (typeof Socket !== "function") {
    return Promise.reject(new TransportError("websocket", "WebSocket is not available here"));
  }
  const timeoutMs = options.timeoutMs ?? 5000;
  return new Promise((resolve, reject) => {
    let socket: WebSocket;
    try {
      socket = new Socket(webSocketUrl(baseUrl));
    } catch (error) {
      reject(new TransportError("websocket", (error as Error).message));
      return;
    }
    socket.binaryType = "arraybuffer";
    const timer = setTimeout(() => {
      socket.onopen = socket.onclose = socket.onerror = null;
      socket.close();
      reject(new TransportError("websocket", `not open after ${timeoutMs} ms`));
    }, timeoutMs);
    socket.onerror = () => {}; // a close event follows with the code
    socket.onclose = (event) => {
      clearTimeout(timer);
      reject(new TransportError("websocket", `closed before opening (code ${event.code})`));
    };
    socket.onopen = () => {
      clearTimeout(timer);
      resolve(new WebSocketLink(socket));
    };
  });
}

class WebSocketLink implements Transport {
  readonly name = "websocket" as const;
  private datagramHandler: DatagramHandler | null = null;
  private closeHandler: ((reason: string) => void) | null = null;
  private closed = false;

  constructor(private readonly socket: WebSocket) {
    socket.onmessage = (event: MessageEvent) => {
      // A text message is not a datagram; the server never sends one.
      if (this.closed || typeof event.data === "string") return;
      this.datagramHandler?.(new Uint8Array(event.data as ArrayBuffer));
    };
    socket.onclose = (event) => {
      if (this.closed) return;
      this.closed = true;
      this.closeHandler?.(`websocket closed (code ${event.code}${event.reason ? `: ${event.reason}` : ""})`);
    };
  }

  send(datagram: Uint8Array): void {
    if (this.closed || this.socket.readyState !== 1 /* OPEN */) return;
    // Over the protocol's limit is a bug, a full buffer a stalled stream: neither is sent.
    if (datagram.length > MAX_DATAGRAM_BYTES || this.socket.bufferedAmount > MAX_BUFFERED_BYTES) return;
    this.socket.send(datagram);
  }

  onDatagram(handler: DatagramHandler): void {
    this.datagramHandler = handler;
  }

  onClose(handler: (reason: string) => void): void {
    this.closeHandler = handler;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.socket.close(1000, "client closed");
  }
}
