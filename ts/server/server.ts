// Composes a running server: the Game, its transports (UDP, and for browsers a WebRTC data
// channel and a WebSocket, all feeding the one datagram handler), its HTTP API and the client's
// static files. Tests start it in-process on port 0; main.ts starts it from the command line.
import type { Recorder } from "./recording/recorder.js";
import { DEFAULT_RECORDING_LIMITS, type RecordingLimits, startRecording } from "./recording/recording-files.js";
import { MEMORY_DATABASE, openGameDatabase } from "./persistence/database.js";
import { DEFAULT_GAME_OPTIONS } from "./game-options.js";
import { contentDirFor, readContentFiles } from "./content/content-files.js";
import { ContentWatcher } from "./world/content-watch.js";
import { LuaRuntime } from "./scripting/lua-sandbox.js";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import type { DuplexProfile } from "../netsim/index.js";
import { loadCore } from "../wasm/node.js";
import { installApiRoutes } from "./http/api-routes.js";
import { adminAuthorizer, installAdminRoutes } from "./http/admin-routes.js";
import { installAdminConsole } from "./http/admin-console.js";
import { DEFAULT_SPECTATOR_POLICY, type SpectatorPolicy, installSpectateRoute } from "./http/spectate-route.js";
import { installRecordingRoutes } from "./http/recording-routes.js";
import { ReplayViewers } from "./replay-viewer/viewer-pool.js";
import { installViewerRoutes, type ViewerDoors } from "./replay-viewer/viewer-routes.js";
import { HEALTH_SAMPLE_MS, HealthSampler } from "./http/health-sampler.js";
import type { GameOptions } from "./game-options.js";
import { Game } from "./game-server.js";
import { HttpApi } from "./http/http-api.js";
import { DEFAULT_HTTP_LIMITS, type HttpLimits } from "./http/http-guard.js";
import { ClientAddresses, parseTrustedProxy } from "./edge/client-address.js";
import { Logger } from "./ops/log.js";
import { MapWatcher } from "./world/map-watch.js";
import { readWorld } from "./world/world-areas.js";
import { type LinkPolicy, type LinkSink } from "./transports/link-sink.js";
import { NetsimLinks } from "./transports/netsim-links.js";
import { installRtcSignalling } from "./transports/signalling.js";
import { staticFiles } from "./transports/static-files.js";
import { DEFAULT_WEBRTC_OPTIONS, rtcBindAddress, type WebRtcOptions, WebRtcTransport } from "./transports/webrtc.js";
import {
  DEFAULT_WEBSOCKET_OPTIONS,
  type WebSocketTransportOptions,
  WebSocketTransport,
} from "./transports/websocket.js";
import { DEFAULT_RECEIVE_INTERVAL_MS, type UdpBackend, UdpTransport } from "./transports/udp-transport.js";

/** Where the browser client's build lands (Vite, outDir dist/client). */
export const DEFAULT_CLIENT_DIR = fileURLToPath(new URL("../../dist/client", import.meta.url));

export interface ServerOptions extends Partial<GameOptions> {
  host: string;
  httpPort: number;
  udpPort: number;
  mapPath: string;
  logger?: Logger;
  /**
   * WebRTC data channels. By default no ICE servers, the peer connections bind to `host` (unless it
   * is a wildcard address), at most maxPlayers of them, unbound ones closed after sessionTimeoutMs.
   */
  webrtc?: Partial<WebRtcOptions>;
  /** The WebSocket fallback on /ws. By default at most 2 × maxPlayers connections, 32 per address. */
  websocket?: Partial<WebSocketTransportOptions>;
  /** Impair every link (WebRTC, WebSocket and UDP), both directions: --netsim. */
  netsim?: { profile: DuplexProfile; seed: number };
  /** The built browser client, served at /; default dist/client. */
  clientDir?: string;
  /** How UDP datagrams move: batched system calls (native/udp-mmsg) or node:dgram; default "auto". */
  udpBackend?: UdpBackend;
  /** The batched socket's send thread and its niceness, or null for none (--udp-send-thread); default on, nice 0. */
  udpSendThread?: { nice: number } | null;
  /** The batched socket reads at most once per this many ms (--udp-receive-interval); default DEFAULT_RECEIVE_INTERVAL_MS. */
  udpReceiveIntervalMs?: number;
  /** HTTP edge and account limits (http-guard.ts); DEFAULT_HTTP_LIMITS for what is not given. */
  http?: Partial<HttpLimits>;
  /**
   * Reverse proxies (ADDRESS[/PREFIX], --trusted-proxy) whose X-Forwarded-For names the client
   * (edge/client-address.ts); default none: every limit keys on the TCP peer.
   */
  trustedProxies?: readonly string[];
  /** The operators' bearer token: with one, the admin API (/api/admin/*) is served; there is no default. */
  adminToken?: string;
  /** Who may watch with POST /api/spectate (--spectators): anyone, admins (their token; the default) or no one. */
  spectators?: SpectatorPolicy;
  /** How often the console's health history is sampled (ms; default HEALTH_SAMPLE_MS): tests sample faster. */
  healthSampleMs?: number;
  /** --watch: reload the map's tiles when its folder changes (map-watch.ts); default false. */
  watchMap?: boolean;
  /** The flight recorder (--record): the folder its recordings go in, and its bounds; absent: not recorded. */
  record?: { dir: string; limits?: Partial<RecordingLimits> };
  /**
   * The replay viewers the console starts (with an admin token and --record; docs/recording.md § Watching from
   * the console): at most `max` at once (--max-replay-viewers, default 2), each stopped after `idleMs` unused.
   */
  replayViewers?: { max?: number; idleMs?: number; startTimeoutMs?: number };
}

/** Replay viewers at once, by default: each is a world made again, as costly as the one it recorded. */
export const DEFAULT_MAX_REPLAY_VIEWERS = 2;
/** A replay viewer nothing went through for this long is stopped. */
export const REPLAY_VIEWER_IDLE_MS = 10 * 60_000;

export interface RunningServer {
  game: Game;
  httpPort: number;
  udpPort: number;
  /** Which socket carries UDP: "mmsg" (batched) or "dgram". */
  udpBackend: "mmsg" | "dgram";
  /** Why the "auto" backend fell back to node:dgram ("" when it did not). */
  udpFallbackReason: string;
  host: string;
  webrtc: WebRtcTransport;
  websocket: WebSocketTransport;
  /** The link impairment, when started with `netsim`. */
  netsim: NetsimLinks | null;
  /** The map watcher, when started with `watchMap`. */
  mapWatcher: MapWatcher | null;
  close(): Promise<void>;
}

export { readWorldMap } from "./world/world-map.js";

export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const logger = options.logger ?? new Logger("info");
  const core = await loadCore();
  // The map and every map of its folder its warps reach, as one world (world-areas.ts, P-24).
  const composed = readWorld(options.mapPath);
  const worldMap = composed.map;
  const loaded = composed.loaded[0];
  // --watch reloads one map file in place; a world of several maps is not reloaded (yet).
  const watchMap = options.watchMap === true && composed.files.length === 1;
  if (options.watchMap === true && !watchMap) {
    logger.warn("--watch ignored: the map's warps make a world of several maps, which is not reloaded", {
      maps: composed.files.length,
    });
  }
  // A map whose art cannot all be drawn still plays (placeholders); say what is missing, once, at start.
  for (const problem of worldMap.art?.problems ?? []) logger.warn("map art", { problem });
  // What a map's loader left out where Tiled would (cells of tile ids in no tileset, left empty).
  for (const map of composed.loaded) {
    for (const warning of map.warnings) logger.warn("map", { file: map.source.file, warning });
  }
  // The map's content scripts (<map>.content/*.lua), and a Lua module of their own to run in (scripting/).
  const contentFiles = options.content === undefined ? readContentFiles(options.mapPath) : null;
  const content =
    options.content ??
    (contentFiles !== null && contentFiles.length > 0
      ? { runtime: await LuaRuntime.load(), files: contentFiles }
      : undefined);
  if (content !== undefined) logger.info("content scripts", { files: content.files.map((file) => file.name) });
  // The flight recorder starts from the database as it is before the world touches it (recording/).
  let recorder: Recorder | undefined;
  let database = options.database;
  if (options.record !== undefined) {
    database ??= openGameDatabase(MEMORY_DATABASE);
    recorder = await startRecording({
      dir: options.record.dir,
      mapPath: options.mapPath,
      mapFiles: composed.files,
      options: { ...DEFAULT_GAME_OPTIONS, ...options },
      database: database.db.serialize(),
      content: content?.files ?? [],
      limits: { ...DEFAULT_RECORDING_LIMITS, ...options.record.limits },
      log: logger,
    });
  }
  const game = new Game(core, worldMap, { ...options, database, content, recorder }, logger);

  // Every transport feeds the one handler; with --netsim each link passes its impaired duplex first.
  const handler: LinkSink = {
    datagram: (datagram, peer) => game.receive(datagram, peer),
    closed: (peer) => game.linkClosed(peer.key),
  };
  const netsim = options.netsim ? new NetsimLinks(options.netsim.profile, options.netsim.seed, handler) : null;
  const sink = netsim ?? handler;
  const policy: LinkPolicy = {
    // A spectator's link is as bound as a player's: it is not reaped as unused.
    isBound: (key) =>
      game.sessions.byPeerKey(key) !== undefined || game.spectators.sessions.byPeerKey(key) !== undefined,
    drop: (reason) => game.metrics.drop(reason),
  };

  const udp = await UdpTransport.listen(
    options.host,
    options.udpPort,
    (datagram, peer) => sink.datagram(datagram, peer),
    {
      backend: options.udpBackend,
      sendThread: options.udpSendThread,
      receiveIntervalMs: options.udpReceiveIntervalMs ?? DEFAULT_RECEIVE_INTERVAL_MS,
    },
  );
  if (udp.fallbackReason) logger.info("UDP without batching (node:dgram)", { reason: udp.fallbackReason });
  const clientAddresses = new ClientAddresses((options.trustedProxies ?? []).map(parseTrustedProxy), (fields) =>
    logger.warn("unreadable X-Forwarded-For from a trusted proxy: the proxy's own address is used", fields),
  );
  const http = new HttpApi(
    (error) => logger.error("http handler failed", { error: String(error) }),
    { ...DEFAULT_HTTP_LIMITS, ...options.http },
    clientAddresses,
  );
  const webrtc = await WebRtcTransport.create(sink, policy, logger, {
    ...DEFAULT_WEBRTC_OPTIONS,
    bindAddress: rtcBindAddress(options.host),
    // Spectators watch over the same transports: their data channels are on top of the players'.
    maxPeers: game.options.maxPlayers + game.options.maxSpectators,
    unboundGraceMs: game.options.sessionTimeoutMs,
    ...options.webrtc,
  });
  /** The replay viewers' own paths, once their routes are installed (below). */
  let viewerDoors: ViewerDoors | null = null;
  const websocket = new WebSocketTransport(http.server, sink, policy, logger, {
    ...DEFAULT_WEBSOCKET_OPTIONS,
    maxConnections: 2 * game.options.maxPlayers + game.options.maxSpectators,
    unboundGraceMs: game.options.sessionTimeoutMs,
    clientAddress: http.clientAddress,
    // The console's replay viewers' links are theirs (replay-viewer/viewer-routes.ts).
    elsewhere: (req, socket, head) => viewerDoors?.upgrade(req, socket, head) === true,
    ...options.websocket,
  });
  installApiRoutes(
    http,
    game,
    () => udp.port,
    () => ({
      backend: udp.backend,
      ...(udp.fallbackReason ? { fallbackReason: udp.fallbackReason } : {}),
      ...udp.mmsgStats,
      ...(udp.backend === "mmsg" ? { receiveIntervalMs: udp.receiveIntervalMs } : {}),
    }),
  );
  // A spectator's token asks for a data channel as a player's does (spectators/).
  installRtcSignalling(http, webrtc, {
    byTokenValue: (token: bigint) => game.sessions.byTokenValue(token) ?? game.spectators.sessions.byTokenValue(token),
  });
  installSpectateRoute(http, game, {
    policy: options.spectators ?? DEFAULT_SPECTATOR_POLICY,
    authorize:
      options.adminToken === undefined ? null : adminAuthorizer(game.admin, options.adminToken, http.clientAddress),
    udpPort: () => udp.port,
    joinsPerMinute: http.limits.guestJoinsPerAddress,
  });
  // The console's graphs: sampled only where a console can be opened (with an admin token).
  const health =
    options.adminToken === undefined ? null : new HealthSampler(game, options.healthSampleMs ?? HEALTH_SAMPLE_MS);
  if (options.adminToken !== undefined && health !== null) {
    installAdminRoutes(http, game.admin, options.adminToken);
    // The console's page asks the browser for the token with its own login prompt (a Basic challenge).
    installAdminConsole(
      http,
      adminAuthorizer(game.admin, options.adminToken, http.clientAddress, 'Basic realm="admin"'),
      game,
      health,
    );
  }
  if (options.adminToken !== undefined && options.record !== undefined) {
    installRecordingRoutes(http, adminAuthorizer(game.admin, options.adminToken, http.clientAddress), {
      dir: options.record.dir,
      live: () => (recorder === undefined || recorder.status.stopped !== null ? null : recorder.status.path),
      noted: (action, request, result) => game.admin.noted(action, request, result),
    });
  }
  // The console's replay viewers: processes of their own, reached only through here, behind the admin login.
  const replayViewers =
    options.adminToken !== undefined && options.record !== undefined
      ? new ReplayViewers({
          maxViewers: options.replayViewers?.max ?? DEFAULT_MAX_REPLAY_VIEWERS,
          idleMs: options.replayViewers?.idleMs ?? REPLAY_VIEWER_IDLE_MS,
          startTimeoutMs: options.replayViewers?.startTimeoutMs ?? 120_000,
          clientDir: options.clientDir ?? DEFAULT_CLIENT_DIR,
          mapPath: options.mapPath,
          log: logger,
        })
      : null;
  if (replayViewers !== null && options.record !== undefined && options.adminToken !== undefined) {
    viewerDoors = installViewerRoutes(
      http,
      adminAuthorizer(game.admin, options.adminToken, http.clientAddress, 'Basic realm="admin"'),
      replayViewers,
      { dir: options.record.dir, noted: (action, request, result) => game.admin.noted(action, request, result) },
    );
  }
  const files = staticFiles(options.clientDir ?? DEFAULT_CLIENT_DIR);
  http.setFallback((req, res) => viewerDoors?.request(req, res) === true || files(req, res));
  const closeTransports = () => {
    websocket.close();
    webrtc.close();
    netsim?.close();
  };
  try {
    await http.listen(options.httpPort, options.host);
  } catch (error) {
    closeTransports();
    await udp.close();
    throw error;
  }
  game.start();
  health?.start();
  const mapWatcher = watchMap
    ? new MapWatcher(
        options.mapPath,
        {
          mapWidth: game.world.mapWidth,
          mapHeight: game.world.mapHeight,
          tileInfo: game.world.tileInfo,
          setTile: (x, y, id) => game.setTile(x, y, id),
        },
        loaded,
        worldMap.art != null,
        logger,
      )
    : null;
  mapWatcher?.start();
  // --watch also reloads the content scripts (content-watch.ts), when the world started with some.
  const contentWatcher =
    options.watchMap === true && content !== undefined && options.content === undefined
      ? new ContentWatcher(contentDirFor(options.mapPath), (name, source) => game.reloadScript(name, source), logger)
      : null;
  contentWatcher?.start();
  const sweeper = setInterval(() => {
    const nowMs = performance.now();
    webrtc.sweep(nowMs);
    websocket.sweep(nowMs);
    netsim?.sweep(nowMs);
  }, 1000);
  sweeper.unref();
  let closed = false;
  return {
    game,
    host: options.host,
    httpPort: (http.server.address() as AddressInfo).port,
    udpPort: udp.port,
    udpBackend: udp.backend,
    udpFallbackReason: udp.fallbackReason,
    webrtc,
    websocket,
    netsim,
    mapWatcher,
    async close() {
      if (closed) return;
      closed = true;
      mapWatcher?.close();
      contentWatcher?.close();
      clearInterval(sweeper);
      health?.stop();
      game.stop();
      closeTransports();
      await replayViewers?.close();
      http.server.closeAllConnections();
      await Promise.all([new Promise<void>((resolve) => http.server.close(() => resolve())), udp.close()]);
      // Saves every character in play and closes the database, once nothing can arrive any more.
      game.shutdown();
      await recorder?.close("the server stopped");
    },
  };
}
