// Picks the browser's link to the game server: a WebRTC data channel when it can be set up
// (it behaves like UDP), else the WebSocket fallback (docs/transports.md). The networking core
// gets a Transport either way and never needs to know which.
import type { Transport } from "../core/transport.js";
import { connectWebRtc, type WebRtcConnectOptions, type WebRtcOffer } from "./webrtc.js";
import { connectWebSocket, TransportError, type WebSocketConnectOptions } from "./websocket.js";

export { connectWebRtc, offerWebRtc, type WebRtcConnectOptions, type WebRtcOffer } from "./webrtc.js";
export { connectWebSocket, TransportError, type WebSocketConnectOptions, webSocketUrl } from "./websocket.js";

export interface ConnectOptions {
  /** Skip the data channel and use the WebSocket (e.g. `?transport=websocket`). */
  disableWebRtc?: boolean;
  /** Use the data channel or fail: no WebSocket fallback (e.g. `?transport=webrtc`, for tests). */
  requireWebRtc?: boolean;
  /** Data channel setup limit before falling back. Default 5000. */
  webRtcTimeoutMs?: number;
  /** WebSocket open limit. Default 5000. */
  webSocketTimeoutMs?: number;
  /** STUN/TURN servers for the browser's side of the data channel. Default none. */
  iceServers?: RTCIceServer[];
  /** Platform overrides, for running outside a browser. */
  RTCPeerConnection?: WebRtcConnectOptions["RTCPeerConnection"];
  WebSocket?: WebSocketConnectOptions["WebSocket"];
  fetch?: WebRtcConnectOptions["fetch"];
  /** Told why the data channel was not used, when falling back. */
  onFallback?: (reason: string) => void;
  /** A data channel offered earlier (offerWebRtc, started at Play beside the join): used instead of a new one. */
  offer?: WebRtcOffer;
}

/**
 * Connects to the game server at `baseUrl` for the session `token`: the data channel first, the
 * WebSocket when the data channel cannot be set up (no RTCPeerConnection, refused, failed or timed out).
 */
export async function connectBest(
  baseUrl: string,
  token: string | bigint,
  options: ConnectOptions = {},
): Promise<Transport> {
  const webSocketOptions = { timeoutMs: options.webSocketTimeoutMs, WebSocket: options.WebSocket };
  if (options.disableWebRtc) {
    options.offer?.close();
    if (options.requireWebRtc) throw new TransportError("webrtc", "disabled and required at once");
    return connectWebSocket(baseUrl, webSocketOptions);
  }
  try {
    return await connectWebRtc(
      baseUrl,
      token,
      {
        timeoutMs: options.webRtcTimeoutMs,
        iceServers: options.iceServers,
        RTCPeerConnection: options.RTCPeerConnection,
        fetch: options.fetch,
      },
      options.offer,
    );
  } catch (error) {
    if (options.requireWebRtc) throw error;
    options.onFallback?.((error as Error).message);
    return connectWebSocket(baseUrl, webSocketOptions);
  }
}

/**
 * Reads the transport choice from a page's query string: `transport=websocket` disables the data
 * channel, `transport=webrtc` requires it, anything else (or nothing) means automatic.
 */
export function connectOptionsFromQuery(search: string): Pick<ConnectOptions, "disableWebRtc" | "requireWebRtc"> {
  const choice = new URLSearchParams(search).get("transport");
  if (choice === "websocket") return { disableWebRtc: true };
  if (choice === "webrtc") return { requireWebRtc: true };
  return {};
}
