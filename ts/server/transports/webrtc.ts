// The browser's primary transport: a WebRTC data channel opened by the browser
// with {ordered: false, maxRetransmits: 0}, so it behaves like UDP — a lost
// datagram stays lost and never holds up the ones behind it — and carries
// exactly the datagrams UDP carries. Server side is libdatachannel through
// node-datachannel. Signalling (signalling.ts) is one HTTP POST: the browser's
// complete offer in, the server's complete answer out. docs/transports.md.
import type { DataChannel, PeerConnection, RtcConfig } from "node-datachannel";
import { MAX_DATAGRAM_BYTES } from "../../protocol/header.js";
import type { Logger } from "../ops/log.js";
import type { Peer } from "../edge/peer.js";
import { type LinkPolicy, type LinkSink, type ReapableLink, unboundTooLong } from "./link-sink.js";

type NodeDataChannel = typeof import("node-datachannel");

export interface WebRtcOptions {
  /** STUN/TURN servers in libdatachannel's URL form ("stun:host:port", "turn:user:pass@host:port"). */
  iceServers: string[];
  /** Address the peer connections' UDP sockets bind to (and the only host candidate offered); all when undefined. */
  bindAddress: string | undefined;
  /** UDP port range for peer connections; any free port when undefined. */
  portRange: { min: number; max: number } | undefined;
  /** Peer connections at most, half-open ones included; further offers are answered 503. */
  maxPeers: number;
  /** The answer is sent when gathering completes or after this long, with the candidates found so far. */
  gatherTimeoutMs: number;
  /** A peer connection that carries no session this long is closed, open or not (link-sink.ts). */
  unboundGraceMs: number;
  /** A datagram is dropped instead of queued while this many bytes wait in the channel's buffer. */
  maxBufferedBytes: number;
}

export const DEFAULT_WEBRTC_OPTIONS: WebRtcOptions = {
  iceServers: [],
  bindAddress: undefined,
  portRange: undefined,
  maxPeers: 256,
  gatherTimeoutMs: 5_000,
  unboundGraceMs: 10_000,
  maxBufferedBytes: 256 * 1024,
};

/** A refused offer: the HTTP status and the message the signalling route answers with. */
export class RtcRefusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

interface RtcLink extends ReapableLink {
  /** The session token (hex) that asked for this peer connection; one link per owner. */
  readonly owner: string;
  readonly connection: PeerConnection;
  channel: DataChannel | null;
  readonly peer: Peer;
  closed: boolean;
}

export interface WebRtcCounts {
  /** Peer connections now, half-open ones included. */
  open: number;
  /** Offers answered since start. */
  answered: number;
  /** Peer connections replaced by a newer offer from the same session. */
  replaced: number;
  /** Peer connections closed because they carried no session for the grace period. */
  reaped: number;
  /** Outbound datagrams dropped because the channel was closed, backed up or failing. */
  sendsDropped: number;
}

/**
 * The address peer connections bind for a server listening on `host`: a wildcard offers no usable ICE
 * host candidate of its own, so libdatachannel then uses every interface (undefined).
 */
export function rtcBindAddress(host: string): string | undefined {
  return host === "0.0.0.0" || host === "::" || host === "" ? undefined : host;
}

export class WebRtcTransport {
  private readonly links = new Set<RtcLink>();
  private readonly byOwner = new Map<string, RtcLink>();
  private nextLinkId = 1;
  private answered = 0;
  private replaced = 0;
  private reaped = 0;
  private sendsDropped = 0;
  private closed = false;

  private constructor(
    private readonly library: NodeDataChannel | null,
    /** Why WebRTC is off, when the native library could not be loaded. */
    readonly unavailableReason: string | null,
    private readonly sink: LinkSink,
    private readonly policy: LinkPolicy,
    private readonly log: Logger,
    private readonly options: WebRtcOptions,
  ) {}

  /**
   * Loads the native library. A platform without it still gets a server: offers are then refused
   * with 503, and browsers fall back to the WebSocket.
   */
  static async create(
    sink: LinkSink,
    policy: LinkPolicy,
    log: Logger,
    options: WebRtcOptions = DEFAULT_WEBRTC_OPTIONS,
  ): Promise<WebRtcTransport> {
    try {
      const library = await import("node-datachannel");
      return new WebRtcTransport(library, null, sink, policy, log, options);
    } catch (error) {
      const reason = `node-datachannel could not be loaded: ${(error as Error).message}`;
      log.warn("webrtc disabled", { reason });
      return new WebRtcTransport(null, reason, sink, policy, log, options);
    }
  }

  counts(): WebRtcCounts {
    return {
      open: this.links.size,
      answered: this.answered,
      replaced: this.replaced,
      reaped: this.reaped,
      sendsDropped: this.sendsDropped,
    };
  }

  /**
   * Answers a browser's complete offer (all its candidates included) with the server's complete answer.
   * `owner` is the hex token of the live session asking (checked by the caller); a newer offer from
   * the same session replaces its older peer connection. `address` is the signalling request's
   * remote address, used as the link's address for per-address rate limiting.
   */
  async answer(owner: string, offerSdp: string, address: string): Promise<string> {
    const library = this.library;
    if (!library) throw new RtcRefusal(503, `WebRTC is not available on this server (${this.unavailableReason})`);
    if (this.closed) throw new RtcRefusal(503, "server shutting down");
    const previous = this.byOwner.get(owner);
    if (previous) {
      this.replaced++;
      this.closeLink(previous, "replaced by a newer offer");
    }
    if (this.links.size >= this.options.maxPeers) {
      throw new RtcRefusal(503, `WebRTC peer connection limit reached (${this.options.maxPeers})`);
    }

    const key = `rtc:${this.nextLinkId++}`;
    const connection = new library.PeerConnection(key, this.rtcConfig());
    const link = this.track(key, owner, connection, address);
    const gathered = gatheringComplete(connection, this.options.gatherTimeoutMs);
    try {
      connection.setRemoteDescription(offerSdp, "offer");
    } catch (error) {
      this.closeLink(link, "offer rejected");
      throw new RtcRefusal(400, `offer rejected: ${(error as Error).message}`);
    }
    await gathered;
    const local = connection.localDescription();
    if (link.closed) throw new RtcRefusal(409, "peer connection closed before the answer was ready (replaced?)");
    if (!local || local.type !== "answer") {
      this.closeLink(link, "no answer");
      throw new RtcRefusal(500, "could not create an answer");
    }
    this.answered++;
    this.log.debug("webrtc answered", { peer: key, address });
    return local.sdp;
  }

  /** Closes peer connections that carried no session for the grace period; call about once a second. */
  sweep(nowMs: number): void {
    for (const link of this.links) {
      if (unboundTooLong(link, this.policy, nowMs, this.options.unboundGraceMs)) {
        this.reaped++;
        this.closeLink(link, "no session bound to this link");
      }
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const link of this.links) this.closeLink(link, "server shutting down");
  }

  private rtcConfig(): RtcConfig {
    const config: RtcConfig = { iceServers: this.options.iceServers, enableIceTcp: false };
    if (this.options.bindAddress !== undefined) config.bindAddress = this.options.bindAddress;
    if (this.options.portRange) {
      config.portRangeBegin = this.options.portRange.min;
      config.portRangeEnd = this.options.portRange.max;
    }
    return config;
  }

  private track(key: string, owner: string, connection: PeerConnection, address: string): RtcLink {
    const transport = this;
    const link: RtcLink = {
      key,
      owner,
      connection,
      channel: null,
      closed: false,
      unboundSinceMs: performance.now(),
      peer: {
        key,
        address,
        transport: "webrtc",
        send(datagram: Uint8Array) {
          const channel = link.channel;
          if (!channel || link.closed) return;
          try {
            // Past the buffer limit the browser is not keeping up: drop rather than queue.
            if (channel.bufferedAmount() > transport.options.maxBufferedBytes) transport.sendsDropped++;
            else channel.sendMessageBinary(datagram);
          } catch {
            transport.sendsDropped++; // closing channel; its close callback tidies up
          }
        },
      },
    };
    this.links.add(link);
    this.byOwner.set(owner, link);
    // node-datachannel frees a connection's native callbacks only on its "closed" state change, and
    // only if a state callback is registered; without one, a closed connection keeps Node alive.
    connection.onStateChange((state) => {
      if (state === "closed" || state === "failed") this.closeLink(link, `peer connection ${state}`);
    });
    connection.onDataChannel((channel) => this.attachChannel(link, channel));
    return link;
  }

  private attachChannel(link: RtcLink, channel: DataChannel): void {
    // Registered first, for the same native-cleanup reason as the state callback above.
    channel.onClosed(() => this.closeLink(link, "data channel closed"));
    if (link.closed || link.channel) {
      channel.close(); // one data channel per peer connection
      return;
    }
    link.channel = channel;
    channel.onMessage((message) => {
      if (typeof message === "string") return this.policy.drop("webrtc_text");
      const bytes = message instanceof ArrayBuffer ? new Uint8Array(message) : message;
      if (bytes.length > MAX_DATAGRAM_BYTES) return this.policy.drop("webrtc_oversize");
      this.sink.datagram(bytes, link.peer);
    });
    this.log.debug("webrtc channel open", { peer: link.key, label: channel.getLabel() });
  }

  private closeLink(link: RtcLink, reason: string): void {
    if (link.closed) return;
    link.closed = true;
    this.links.delete(link);
    if (this.byOwner.get(link.owner) === link) this.byOwner.delete(link.owner);
    try {
      link.channel?.close();
      link.connection.close();
    } catch (error) {
      this.log.debug("webrtc close failed", { peer: link.key, error: String(error) });
    }
    this.log.debug("webrtc link closed", { peer: link.key, reason });
    this.sink.closed(link.peer);
  }
}

/** Resolves when the connection's ICE gathering completes, or after `timeoutMs` with what was found. */
function gatheringComplete(connection: PeerConnection, timeoutMs: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, timeoutMs);
    connection.onGatheringStateChange((state) => {
      if (state === "complete") {
        clearTimeout(timer);
        resolve();
      }
    });
  });
}
