// The watch server (`replay watch`, docs/recording.md § Watch): a recording replayed for viewers in a
// browser. It composes what a running server has for a spectator and nothing for a player — the
// browser client's files, GET /api/world, POST /api/spectate and the same transports (UDP, WebSocket, a
// WebRTC data channel) — around the replayed world (ReplayPlayer) instead of a live one, and the
// replay's own controls (replay-routes.ts). Viewers are the replayed Game's spectators: the same
// rooms send them what a player there would be sent. Every datagram is given to the spectators' room
// or dropped: nothing a viewer sends reaches the recorded players or changes the replay.
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import { worldAnswer } from "../http/api-routes.js";
import { HttpApi } from "../http/http-api.js";
import { DEFAULT_HTTP_LIMITS } from "../http/http-guard.js";
import { installMapArtRoute } from "../http/map-art-route.js";
import { installSpectateRoute } from "../http/spectate-route.js";
import type { Logger } from "../ops/log.js";
import type { LinkPolicy, LinkSink } from "../transports/link-sink.js";
import { installRtcSignalling } from "../transports/signalling.js";
import { staticFiles } from "../transports/static-files.js";
import { UdpTransport } from "../transports/udp-transport.js";
import { DEFAULT_WEBRTC_OPTIONS, rtcBindAddress, WebRtcTransport } from "../transports/webrtc.js";
import { DEFAULT_WEBSOCKET_OPTIONS, WebSocketTransport } from "../transports/websocket.js";
import { installReplayRoutes } from "./replay-routes.js";
import type { ReplayPlayer } from "./replay-player.js";

export interface ViewerServerOptions {
  readonly host: string;
  /** HTTP (and WebSocket) port; 0: any free one. */
  readonly httpPort: number;
  /** UDP port; 0: any free one. */
  readonly udpPort: number;
  /** The built browser client (server.ts DEFAULT_CLIENT_DIR). */
  readonly clientDir: string;
  readonly log: Logger;
}

export interface ViewerServer {
  readonly httpPort: number;
  readonly udpPort: number;
  close(): Promise<void>;
}

/** Serves `player`'s world to viewers; `close` stops serving (the player is the caller's to close). */
export async function serveReplay(player: ReplayPlayer, options: ViewerServerOptions): Promise<ViewerServer> {
  const { log } = options;
  const spectators = () => player.world.spectators;
  const sink: LinkSink = {
    datagram: (datagram, peer) => {
      const room = spectators();
      // A viewer watches: whatever is not a spectator's is no one's here (the recorded players are the recording's).
      if (room.claims(datagram, peer)) room.receive(datagram, peer, performance.now());
      else player.world.metrics.drop("replay_not_spectator");
    },
    closed: (peer) => void spectators().linkClosed(peer.key),
  };
  const policy: LinkPolicy = {
    isBound: (key) => spectators().sessions.byPeerKey(key) !== undefined,
    drop: (reason) => player.world.metrics.drop(reason),
  };
  const udp = await UdpTransport.listen(
    options.host,
    options.udpPort,
    (datagram, peer) => sink.datagram(datagram, peer),
    {
      backend: "dgram",
    },
  );
  const http = new HttpApi((error) => log.error("http handler failed", { error: String(error) }), DEFAULT_HTTP_LIMITS);
  const maxViewers = player.world.options.maxSpectators;
  const webrtc = await WebRtcTransport.create(sink, policy, log, {
    ...DEFAULT_WEBRTC_OPTIONS,
    bindAddress: rtcBindAddress(options.host),
    maxPeers: maxViewers,
    unboundGraceMs: player.world.options.sessionTimeoutMs,
  });
  const websocket = new WebSocketTransport(http.server, sink, policy, log, {
    ...DEFAULT_WEBSOCKET_OPTIONS,
    maxConnections: maxViewers,
    unboundGraceMs: player.world.options.sessionTimeoutMs,
    clientAddress: http.clientAddress,
  });
  // The map is the same in every world the player makes: described once.
  const world = worldAnswer(player.world);
  http.route("GET", "/api/world", () => ({ body: world }));
  installMapArtRoute(http, player.world.world.art);
  installRtcSignalling(http, webrtc, { byTokenValue: (token: bigint) => spectators().sessions.byTokenValue(token) });
  // Whoever reaches the viewer may watch (it binds to 127.0.0.1 unless told otherwise); never an admin's door.
  installSpectateRoute(
    http,
    {
      spectate: (at, joinSource, reads, follow) => player.world.spectate(at, joinSource, reads, follow),
      admin: { addressRefusal: () => null },
    },
    { policy: "anyone", authorize: null, udpPort: () => udp.port, joinsPerMinute: http.limits.guestJoinsPerAddress },
  );
  installReplayRoutes(http, player);
  http.setFallback(staticFiles(options.clientDir));
  const closeTransports = () => {
    websocket.close();
    webrtc.close();
  };
  try {
    await http.listen(options.httpPort, options.host);
  } catch (error) {
    closeTransports();
    await udp.close();
    throw error;
  }
  const sweeper = setInterval(() => {
    const nowMs = performance.now();
    webrtc.sweep(nowMs);
    websocket.sweep(nowMs);
  }, 1000);
  sweeper.unref();
  let closed = false;
  return {
    httpPort: (http.server.address() as AddressInfo).port,
    udpPort: udp.port,
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(sweeper);
      closeTransports();
      http.server.closeAllConnections();
      await Promise.all([new Promise<void>((resolve) => http.server.close(() => resolve())), udp.close()]);
    },
  };
}
