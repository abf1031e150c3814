// The browser's primary link: a WebRTC data channel with {ordered: false, maxRetransmits: 0},
// which behaves like UDP — a lost datagram stays lost and never holds up later ones — and
// carries exactly the datagrams UDP carries. Signalling is one POST /api/rtc with the complete
// offer (ICE gathering finished first), answered with the server's complete answer.
// DOM-free: it needs only an RTCPeerConnection constructor and fetch (docs/transports.md).
import { MAX_DATAGRAM_BYTES } from "../../protocol/header.js";
import type { DatagramHandler, Transport } from "../core/transport.js";
import { TransportError } from "./websocket.js";

export const RTC_SIGNALLING_PATH = "/api/rtc";
export const DATA_CHANNEL_LABEL = "datagrams";

/** While this many bytes wait in the channel, new datagrams are dropped rather than queued. */
const MAX_BUFFERED_BYTES = 64 * 1024;

export interface WebRtcConnectOptions {
  /** The whole setup (gathering, signalling, channel open) must finish within this. Default 5000. */
  timeoutMs?: number;
  /** STUN/TURN servers for the browser's side. Default none: the server's candidate is enough unless UDP is filtered. */
  iceServers?: RTCIceServer[];
  /** Stop waiting for ICE gathering after this long and send the candidates found so far. Default 2000. */
  gatherTimeoutMs?: number;
  /** The RTCPeerConnection constructor; default the platform's. */
  RTCPeerConnection?: typeof RTCPeerConnection;
  /** The fetch function; default the platform's. */
  fetch?: (input: string, init?: RequestInit) => Promise<Response>;
}

/** The session token as the API writes it: 16 hex digits. */
function tokenHex(token: string | bigint): string {
  return typeof token === "bigint" ? token.toString(16).padStart(16, "0") : token;
}

/**
 * Opens a data channel to the game server at `baseUrl` for the session `token` (from POST /api/guest).
 * Resolves once the channel is open; rejects with a TransportError (and leaves nothing open) on any
 * failure or after `timeoutMs`.
 */
/**
 * A data channel offered before its session exists: the peer connection, its channel, and the offer with
 * every ICE candidate gathered. Gathering takes a browser 100–200 ms even on loopback, and needs nothing of
 * the session, so the page starts it at Play, beside the join's request (docs/transports.md).
 */
export interface WebRtcOffer {
  readonly connection: RTCPeerConnection;
  readonly channel: RTCDataChannel;
  /** The offer's SDP once gathering is complete (or has waited its limit). */
  readonly sdp: Promise<string>;
  /** Closes it unused (the join failed, or the page chose the WebSocket). */
  close(): void;
}

/** Starts an offer (see WebRtcOffer). Throws a TransportError where there is no RTCPeerConnection. */
export function offerWebRtc(options: WebRtcConnectOptions = {}): WebRtcOffer {
  const PeerConnection = options.RTCPeerConnection ?? globalThis.RTCPeerConnection;
  if (typeof PeerConnection !== "function")
    throw new TransportError("webrtc", "RTCPeerConnection is not available here");
  const gatherTimeoutMs = Math.min(options.gatherTimeoutMs ?? 2000, options.timeoutMs ?? 5000);
  const connection = new PeerConnection({ iceServers: options.iceServers ?? [] });
  const channel = connection.createDataChannel(DATA_CHANNEL_LABEL, { ordered: false, maxRetransmits: 0 });
  channel.binaryType = "arraybuffer";
  const hostOnly = (options.iceServers ?? []).length === 0;
  const sdp = (async () => {
    const gathered = candidatesGathered(connection, gatherTimeoutMs, hostOnly);
    await connection.setLocalDescription(await connection.createOffer());
    await gathered;
    const offer = connection.localDescription?.sdp;
    if (!offer) throw new TransportError("webrtc", "no local offer");
    return offer;
  })();
  // Read by connectWebRtc, or by nobody when the offer is closed unused.
  sdp.catch(() => {});
  return {
    connection,
    channel,
    sdp,
    close() {
      channel.close();
      connection.close();
    },
  };
}

export async function connectWebRtc(
  baseUrl: string,
  token: string | bigint,
  options: WebRtcConnectOptions = {},
  /** An offer started earlier (offerWebRtc), else one is started now. */
  started?: WebRtcOffer,
): Promise<Transport> {
  const offered = started ?? offerWebRtc(options);
  const { connection, channel } = offered;
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  const timeoutMs = options.timeoutMs ?? 5000;
  const abort = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TransportError("webrtc", `not open after ${timeoutMs} ms`)), timeoutMs);
  });

  const setUp = async (): Promise<void> => {
    const offer = await offered.sdp;
    let response: Response;
    try {
      response = await doFetch(`${baseUrl.replace(/\/+$/, "")}${RTC_SIGNALLING_PATH}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ token: tokenHex(token), type: "offer", sdp: offer }),
        signal: abort.signal,
      });
    } catch (error) {
      throw new TransportError("webrtc", `signalling failed: ${(error as Error).message}`);
    }
    const body = (await response.json().catch(() => null)) as { sdp?: unknown; error?: unknown } | null;
    if (!response.ok || typeof body?.sdp !== "string") {
      const reason = typeof body?.error === "string" ? body.error : "no answer";
      throw new TransportError("webrtc", `signalling refused (${response.status}): ${reason}`);
    }
    await connection.setRemoteDescription({ type: "answer", sdp: body.sdp });
    await channelOpen(connection, channel);
  };

  try {
    await Promise.race([setUp(), timedOut]);
  } catch (error) {
    abort.abort();
    offered.close();
    throw error instanceof TransportError ? error : new TransportError("webrtc", (error as Error).message);
  } finally {
    clearTimeout(timer);
  }
  return new DataChannelLink(connection, channel);
}

/** How long after the last host candidate an offer with no STUN or TURN server waits for another. */
const HOST_CANDIDATES_SETTLE_MS = 20;

/**
 * Resolves when the offer's candidates are gathered: gathering complete, or `timeoutMs` spent. With no STUN
 * or TURN server (`hostOnly`, the default) there is nothing to wait for beyond the host candidates, which
 * come within milliseconds, while Chromium reports gathering complete only 100–150 ms later: so the offer
 * goes once a candidate has come and none more for HOST_CANDIDATES_SETTLE_MS. The server's answer carries
 * its own candidate; the browser's checks to it are what the server's side pairs with.
 */
function candidatesGathered(connection: RTCPeerConnection, timeoutMs: number, hostOnly: boolean): Promise<void> {
  return new Promise((resolve) => {
    let settle: ReturnType<typeof setTimeout> | undefined;
    const done = () => {
      clearTimeout(timer);
      clearTimeout(settle);
      connection.removeEventListener("icegatheringstatechange", onChange);
      connection.removeEventListener("icecandidate", onCandidate);
      resolve();
    };
    const onChange = () => {
      if (connection.iceGatheringState === "complete") done();
    };
    const onCandidate = (event: RTCPeerConnectionIceEvent) => {
      if (!hostOnly || event.candidate === null) return;
      clearTimeout(settle);
      settle = setTimeout(done, HOST_CANDIDATES_SETTLE_MS);
    };
    const timer = setTimeout(done, timeoutMs);
    connection.addEventListener("icegatheringstatechange", onChange);
    connection.addEventListener("icecandidate", onCandidate);
  });
}

function channelOpen(connection: RTCPeerConnection, channel: RTCDataChannel): Promise<void> {
  if (channel.readyState === "open") return Promise.resolve();
  return new Promise((resolve, reject) => {
    const cleanUp = () => {
      channel.removeEventListener("open", onOpen);
      channel.removeEventListener("close", onClose);
      connection.removeEventListener("connectionstatechange", onState);
    };
    const onOpen = () => {
      cleanUp();
      resolve();
    };
    const onClose = () => {
      cleanUp();
      reject(new TransportError("webrtc", "data channel closed before opening"));
    };
    const onState = () => {
      if (connection.connectionState !== "failed") return;
      cleanUp();
      reject(new TransportError("webrtc", "peer connection failed (ICE found no working path)"));
    };
    channel.addEventListener("open", onOpen);
    channel.addEventListener("close", onClose);
    connection.addEventListener("connectionstatechange", onState);
  });
}

class DataChannelLink implements Transport {
  readonly name = "webrtc" as const;
  private datagramHandler: DatagramHandler | null = null;
  private closeHandler: ((reason: string) => void) | null = null;
  private closed = false;

  constructor(
    private readonly connection: RTCPeerConnection,
    private readonly channel: RTCDataChannel,
  ) {
    channel.onmessage = (event: MessageEvent) => {
      if (this.closed || typeof event.data === "string") return;
      this.datagramHandler?.(new Uint8Array(event.data as ArrayBuffer));
    };
    channel.onclose = () => this.lost("data channel closed");
    connection.onconnectionstatechange = () => {
      if (connection.connectionState === "failed" || connection.connectionState === "closed") {
        this.lost(`peer connection ${connection.connectionState}`);
      }
    };
  }

  send(datagram: Uint8Array): void {
    if (this.closed || this.channel.readyState !== "open") return;
    if (datagram.length > MAX_DATAGRAM_BYTES || this.channel.bufferedAmount > MAX_BUFFERED_BYTES) return;
    try {
      this.channel.send(datagram as Uint8Array<ArrayBuffer>);
    } catch {
      // The channel is closing; its close event reports it.
    }
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
    this.channel.close();
    this.connection.close();
  }

  /** The link ended without close(): tell the owner once, and free the connection. */
  private lost(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.connection.close();
    this.closeHandler?.(reason);
  }
}
