// A gateway process (docs/scaling.md § Gateways): it owns the clients' transports (UDP, and the
// WebSocket for browsers) and the HTTP front door, and forwards each client's datagrams over a direct
// link (link-frames.ts) to the region that owns its player — so a player crossing a border keeps its
// address, its session and its socket, and the wire protocol to the client is the one a single server
// speaks. The route of a datagram is its session's: an ActionPacket names its token; any other packet
// follows the token its link last used. A handoff comes from the old region on its link and goes to
// the new one on its own, ahead of that client's next datagram; datagrams the old region got after it
// let go come back (REROUTE) and follow. HTTP: joins go to region 0 (any region can
// answer one: accounts live in the shared PostgreSQL store), whose answer names the gateway's UDP port; other /api/ requests go there too.
import type { Socket } from "node:net";
import type { AddressInfo } from "node:net";
import type { IncomingMessage, ServerResponse } from "node:http";
import { isValidAction, readActionTokenHigh, readActionTokenLow } from "../protocol/action.js";
import { addressKey } from "../server/edge/address-key.js";
import { HttpApi } from "../server/http/http-api.js";
import { DEFAULT_HTTP_LIMITS, refuseForeignOrigin } from "../server/http/http-guard.js";
import { Logger } from "../server/ops/log.js";
import { KeyedRateLimiter } from "../server/edge/rate-limit.js";
import type { Peer } from "../server/edge/peer.js";
import { staticFiles } from "../server/transports/static-files.js";
import { DEFAULT_WEBSOCKET_OPTIONS, WebSocketTransport } from "../server/transports/websocket.js";
import { installRtcSignalling, RTC_SIGNALLING_PATH } from "../server/transports/signalling.js";
import { DEFAULT_WEBRTC_OPTIONS, rtcBindAddress, WebRtcTransport } from "../server/transports/webrtc.js";
import { UdpTransport } from "../server/transports/udp-transport.js";
import { adminFanOut } from "./admin-fanout.js";
import { passRecordingRequest, passRecordingUpgrade } from "./gateway-recordings.js";
import { SharedAnswer } from "./shared-answer.js";
import { addressRefusal } from "../server/admin/admin-service.js";
import { WAYS_IN } from "../server/http/api-routes.js";
import { AddressBanWatch, PgBans } from "./pg-bans.js";
import { PgConnection } from "./pg-connection.js";
import { healthMetricsText } from "./cluster-health.js";
import type { PartHealth } from "./supervisor.js";
import { Directory, type GatewayEndpoint, REFRESH_MS } from "./directory.js";
import { RouteFinder } from "./route-finder.js";
import { isGatewayOrigin } from "./gateway-origins.js";
import { regionOfTile } from "./layout.js";
import type { HandoffState } from "./handoff.js";
import {
  FRAME_CLOSE,
  FRAME_DATA,
  FRAME_HANDOFF,
  FRAME_OPEN,
  FRAME_REROUTE,
  FrameError,
  FrameReader,
  type FrameWriter,
  dialLink,
  jsonOf,
} from "./link-frames.js";

/** The token bits routes are keyed by (as SessionRegistry keys them: a small integer). */
const TOKEN_KEY_MASK = 0x3fffffff;
/** A client link unseen this long is forgotten (its regions are told). */
const CLIENT_IDLE_MS = 30_000;
/** A route (a session) no client used this long is forgotten. */
const ROUTE_IDLE_MS = 60_000;
/** The HTTP routes a banned address is refused at (one process's: api-routes.ts). */
const WAYS_IN_PATHS: ReadonlySet<string> = new Set(Object.values(WAYS_IN));
/**
 * What of the operators' console a gateway passes on from region 0 as it is (relayConsole). The health
 * history is not: each region's is its own, asked for by `?region=` (admin-fanout.ts).
 */
const CONSOLE_RELAYED = /^\/admin(\/uplot\.(js|css))?$|^\/api\/admin\/map$/;

/** The admin requests that change the bans in force. */
const BAN_CHANGES: ReadonlySet<string> = new Set(["/api/admin/ban", "/api/admin/unban"]);
/** HTTP bodies the gateway passes on. */
const MAX_PROXY_BODY_BYTES = 64 * 1024;
/** Spectators a gateway relays at once (the console's Follow), unless told otherwise; joins beyond: 503. */
export const GATEWAY_SPECTATORS_MAX = 32;

export interface GatewayOptions {
  id: string;
  host: string;
  httpPort: number;
  udpPort: number;
  redisUrl: string;
  regionCount: number;
  clientDir: string;
  /** Most client links held at once (beyond: new ones are dropped). */
  maxClients?: number;
  /** Guest joins per minute per source address (default DEFAULT_HTTP_LIMITS'). */
  guestJoinsPerAddress?: number;
  logger?: Logger;
  /** The health of the cluster's parts, as the launcher last sent it (null: not yet, or no launcher). */
  health?: () => readonly PartHealth[] | null;
  /** Spectators relayed at once (GATEWAY_SPECTATORS_MAX when absent). */
  maxSpectators?: number;
  /**
   * The shared PostgreSQL the regions keep bans in: the address bans in force are read from it again
   * and again (pg-bans.ts), and a join from a banned address is refused here. Absent: no address bans.
   */
  postgresUrl?: string;
  /**
   * This gateway's public base URL (an http(s) origin), when browsers reach it by a name or port its
   * `host` and `httpPort` do not say (another host, a TLS proxy): listed in the join's answer for clients
   * that go on through it (docs/protocol.md § 6.2). Absent: the host a client joined through, at httpPort.
   */
  publicUrl?: string;
  /** STUN/TURN servers for the WebRTC peer connections (default none). */
  iceServers?: string[];
  /** This gateway's UDP ports for WebRTC peer connections (default any free port). */
  rtcPorts?: { min: number; max: number };
}

interface Route {
  readonly low: number;
  readonly high: number;
  readonly tokenHex: string;
  region: number;
  lastUsedMs: number;
  /** A spectator's (the console's Follow): forgotten with its client link, and counted against maxSpectators. */
  readonly spectator?: boolean;
}

interface Client {
  readonly id: number;
  peer: Peer;
  route: Route;
  lastSeenMs: number;
}

interface RegionLink {
  readonly region: number;
  readonly writer: FrameWriter;
  readonly socket: Socket;
  /** The clients announced (FRAME_OPEN) on this link. */
  readonly opened: Set<number>;
  httpBase: string;
}

export interface RunningGateway {
  readonly id: string;
  readonly httpPort: number;
  readonly udpPort: number;
  readonly stats: GatewayStats;
  close(): Promise<void>;
}

export interface GatewayStats {
  forwarded: number;
  delivered: number;
  unrouted: number;
  noRegion: number;
  handoffs: number;
  bounced: number;
  rerouted: number;
  clientsDropped: number;
  badFrames: number;
  /** Sessions another gateway routed, found in the directory when their clients came here. */
  sessionsFound: number;
  /** Spectators joined through this gateway, and refused at its bound. */
  spectatorsJoined: number;
  spectatorsRefused: number;
}

export async function startGateway(options: GatewayOptions): Promise<RunningGateway> {
  const log = options.logger ?? new Logger("info");
  const maxClients = options.maxClients ?? 20_000;
  const directory = new Directory(options.redisUrl);
  // Redis lost: clients keep playing over the links already open; the routes are written again when
  // it is back (every few seconds, and at once then).
  directory.watch(log, () => writeRoutes());
  await directory.connect();
  // The address bans, read from the shared store (a gateway starts, and routes, while it is down: the
  // bans are read once it is back).
  const store = options.postgresUrl === undefined ? null : new PgConnection(options.postgresUrl, log);
  const addressBans = store === null ? null : new AddressBanWatch(new PgBans(store), log);
  if (store !== null) await store.connectWhenUp();
  await addressBans?.start();
  const links = new Map<number, RegionLink>();
  const connecting = new Set<number>();
  const routes = new Map<number, Route>();
  const clients = new Map<string, Client>();
  const clientsById = new Map<number, Client>();
  let nextClientId = 1;
  const stats: GatewayStats = {
    forwarded: 0,
    delivered: 0,
    unrouted: 0,
    noRegion: 0,
    handoffs: 0,
    bounced: 0,
    rerouted: 0,
    clientsDropped: 0,
    badFrames: 0,
    sessionsFound: 0,
    spectatorsJoined: 0,
    spectatorsRefused: 0,
  };
  const maxSpectators = options.maxSpectators ?? GATEWAY_SPECTATORS_MAX;
  /** The spectators' routes (a subset of `routes`): each ends with its client link. */
  const spectatorRoutes = new Set<Route>();

  const routeOf = (low: number, high: number): Route | undefined => {
    const route = routes.get(low & TOKEN_KEY_MASK);
    return route !== undefined && route.low === (low | 0) && route.high === (high | 0) ? route : undefined;
  };

  function sendTo(link: RegionLink, client: Client, kind: number, payload: Uint8Array): void {
    if (!link.opened.has(client.id)) {
      link.writer.sendJson(FRAME_OPEN, client.id, { address: client.peer.address, transport: client.peer.transport });
      link.opened.add(client.id);
    }
    link.writer.send(kind, client.id, payload);
  }

  /** Every datagram from every client transport. */
  function onDatagram(datagram: Uint8Array, peer: Peer): void {
    const nowMs = performance.now();
    let client = clients.get(peer.key);
    let route = client?.route;
    if (isValidAction(datagram)) {
      const low = readActionTokenLow(datagram);
      const high = readActionTokenHigh(datagram);
      const named = routeOf(low, high);
      if (named !== undefined) route = named;
      else if (route === undefined) {
        // A session this gateway does not route (its client's gateway died): the directory says where.
        return findRoute(low, high, datagram, peer, nowMs);
      }
    }
    if (route === undefined) {
      stats.unrouted++;
      return;
    }
    if (client === undefined) {
      if (clients.size >= maxClients) {
        stats.clientsDropped++;
        return;
      }
      client = { id: nextClientId++, peer, route, lastSeenMs: nowMs };
      clients.set(peer.key, client);
      clientsById.set(client.id, client);
    }
    client.peer = peer;
    client.route = route;
    client.lastSeenMs = nowMs;
    route.lastUsedMs = nowMs;
    const link = links.get(route.region);
    if (link === undefined) {
      stats.noRegion++;
      return;
    }
    stats.forwarded++;
    sendTo(link, client, FRAME_DATA, datagram);
  }

  const finder = new RouteFinder(async (tokenHex) => (await directory.sessionOf(tokenHex))?.region ?? null);
  /** Asks the directory for the region of the session an ActionPacket names; routes it, and the packet, once known. */
  function findRoute(low: number, high: number, datagram: Uint8Array, peer: Peer, nowMs: number): void {
    stats.unrouted++;
    // The transport may reuse the datagram's bytes once this returns.
    const copy = datagram.slice();
    finder.find(tokenHexOf(low, high), addressKey(peer.address), nowMs, (region) => {
      routeFound(low, high, region);
      onDatagram(copy, peer);
    });
  }

  /**
   * A session another gateway routed, found in the directory in `region`: routed here from now on. Only a
   * route: the region moves the session to a link of this gateway on a tagged, fresh ActionPacket alone.
   */
  function routeFound(low: number, high: number, region: number): void {
    if (routeOf(low, high) !== undefined) return;
    const tokenHex = tokenHexOf(low, high);
    const route: Route = { low: low | 0, high: high | 0, tokenHex, region, lastUsedMs: performance.now() };
    routes.set(route.low & TOKEN_KEY_MASK, route);
    stats.sessionsFound++;
    directory.putSessions([{ tokenHex, gateway: options.id, region }]).catch(() => {});
  }

  /**
   * Whether a browser may signal a data channel for session `token`: one this gateway routes, or — a
   * browser going on from a gateway that stopped answering — one the directory names, asked under the
   * RouteFinder's limits (a flood of made-up tokens costs its sender, as over UDP). Nothing is routed
   * here yet (the token is no secret): the channel's first ActionPacket finds the route as a datagram does.
   */
  async function signalledSession(token: bigint, source: string): Promise<boolean> {
    const low = Number(token & 0xffffffffn) | 0;
    const high = Number(token >> 32n) | 0;
    if (routeOf(low, high) !== undefined) return true;
    return (await finder.region(tokenHexOf(low, high), addressKey(source), performance.now())) !== null;
  }

  function forget(client: Client): void {
    clients.delete(client.peer.key);
    clientsById.delete(client.id);
    // A spectator's session ends with its link (its region ends it on the CLOSE below): so does its route.
    if (client.route.spectator === true) dropRoute(client.route);
    for (const link of links.values()) {
      if (link.opened.delete(client.id)) link.writer.send(FRAME_CLOSE, client.id, new Uint8Array(0));
    }
  }

  function onRegionFrame(link: RegionLink, kind: number, clientId: number, payload: Buffer): void {
    const client = clientsById.get(clientId);
    switch (kind) {
      case FRAME_DATA:
        if (client === undefined) return;
        stats.delivered++;
        client.peer.send(payload);
        return;
      case FRAME_REROUTE: {
        if (client === undefined) return;
        const target = links.get(client.route.region);
        if (target === undefined || target === link) return;
        stats.rerouted++;
        // As a REROUTE: the new region owes a step in it that its handoff made late (schedule.ts).
        sendTo(target, client, FRAME_REROUTE, payload);
        return;
      }
      case FRAME_HANDOFF: {
        if (client === undefined) throw new FrameError("handoff for an unknown client");
        const state = jsonOf(payload, "handoff") as HandoffState;
        const route = routes.get(Number(BigInt(`0x${state.tokenHex}`) & 0xffffffffn) & TOKEN_KEY_MASK);
        if (route === undefined || route.tokenHex !== state.tokenHex) throw new FrameError("handoff: unknown session");
        let target = links.get(state.to);
        let forwarded: Uint8Array = payload;
        if (target === undefined) {
          // The new region is not reachable: the session goes back where it was rather than nowhere.
          stats.bounced++;
          target = link;
          forwarded = Buffer.from(JSON.stringify({ ...state, to: state.from }));
        }
        route.region = target.region;
        stats.handoffs++;
        sendTo(target, client, FRAME_HANDOFF, forwarded);
        directory
          .putSessions([{ tokenHex: route.tokenHex, gateway: options.id, region: route.region }])
          .catch(() => {});
        return;
      }
      default:
        throw new FrameError(`region frame of kind ${kind}`);
    }
  }

  async function linkRegions(): Promise<void> {
    const missing: number[] = [];
    for (let region = 0; region < options.regionCount; region++) {
      if (!links.has(region) && !connecting.has(region)) missing.push(region);
    }
    if (missing.length === 0) return;
    const endpoints = await directory.regions(options.regionCount);
    for (const region of missing) {
      const endpoint = endpoints.get(region);
      if (endpoint === undefined) continue;
      connecting.add(region);
      dialLink(
        { host: endpoint.host, port: endpoint.linkPort },
        { role: "gateway", id: options.id },
        (writer, socket) => {
          connecting.delete(region);
          const link: RegionLink = {
            region,
            writer,
            socket,
            opened: new Set(),
            httpBase: `http://${endpoint.host}:${endpoint.httpPort}`,
          };
          const reader = new FrameReader((kind, client, payload) => onRegionFrame(link, kind, client, payload));
          socket.on("data", (chunk: Buffer) => {
            try {
              reader.push(chunk);
            } catch (error) {
              stats.badFrames++;
              log.warn("region link closed: bad frame", { region, error: String(error) });
              socket.destroy();
            }
          });
          links.set(region, link);
          log.info("linked to region", { region, port: endpoint.linkPort });
        },
        (socket) => {
          connecting.delete(region);
          if (links.get(region)?.socket === socket) {
            links.delete(region);
            log.warn("region link lost", { region });
          }
        },
      );
    }
  }

  const udp = await UdpTransport.listen(options.host, options.udpPort, onDatagram);
  // This gateway and the others as the directory lists them (set once listening, read again every REFRESH_MS).
  let self: GatewayEndpoint = { id: options.id, httpPort: options.httpPort, udpPort: udp.port };
  let otherGateways: GatewayEndpoint[] = [];
  const limits = {
    ...DEFAULT_HTTP_LIMITS,
    guestJoinsPerAddress: options.guestJoinsPerAddress ?? DEFAULT_HTTP_LIMITS.guestJoinsPerAddress,
  };
  const http = new HttpApi((error) => log.error("http handler failed", { error: String(error) }), limits);
  const joins = new KeyedRateLimiter(limits.guestJoinsPerAddress / 60, 60, 100_000);
  // The pages that may use this gateway from another origin: its sibling gateways' (gateway-origins.ts),
  // for the WebRTC signalling and the WebSocket a browser goes on through when its own gateway stops answering.
  const siblingOrigin = (origin: string, req: IncomingMessage) =>
    isGatewayOrigin(origin, req, [self, ...otherGateways]);
  const websocket = new WebSocketTransport(
    http.server,
    { datagram: onDatagram, closed: (peer) => forgetPeer(peer.key) },
    { isBound: (key) => clients.has(key), drop: () => stats.unrouted++ },
    log,
    {
      ...DEFAULT_WEBSOCKET_OPTIONS,
      maxConnections: maxClients,
      unboundGraceMs: 10_000,
      clientAddress: http.clientAddress,
      // A replay viewer's link (the console's Watch), once its page's Origin is this gateway's or a sibling's:
      // passed on to the region running the viewer (gateway-recordings.ts).
      elsewhere: (req, socket, head) =>
        refuseForeignOrigin(
          req,
          (origin, request) => limits.allowedOrigins.includes(origin) || siblingOrigin(origin, request),
        ) === null && passRecordingUpgrade(req, socket, head, regionBases()),
      // A page of another site opens no game link here (an upgrade has no CORS to stop it).
      refuse: (req) =>
        refuseForeignOrigin(
          req,
          (origin, request) => limits.allowedOrigins.includes(origin) || siblingOrigin(origin, request),
        ),
    },
  );
  // Browsers' first choice (docs/netcode.md § Transports): a WebRTC data channel, signalled here by the
  // live sessions this gateway routes, its datagrams forwarded like the UDP socket's and the WebSocket's.
  const rtc = await WebRtcTransport.create(
    { datagram: onDatagram, closed: (peer) => forgetPeer(peer.key) },
    { isBound: (key) => clients.has(key), drop: () => stats.unrouted++ },
    log,
    {
      ...DEFAULT_WEBRTC_OPTIONS,
      bindAddress: rtcBindAddress(options.host),
      iceServers: options.iceServers ?? DEFAULT_WEBRTC_OPTIONS.iceServers,
      portRange: options.rtcPorts,
      maxPeers: maxClients,
      unboundGraceMs: 10_000,
    },
  );
  installRtcSignalling(http, rtc, { byTokenValue: signalledSession });
  http.shareAcrossOrigins(RTC_SIGNALLING_PATH, siblingOrigin);
  /** Each linked region's HTTP base, by region. */
  const regionBases = () => new Map([...links].map(([region, link]) => [region, link.httpBase]));
  function dropRoute(route: Route): void {
    const key = route.low & TOKEN_KEY_MASK;
    if (routes.get(key) === route) routes.delete(key);
    spectatorRoutes.delete(route);
  }
  function forgetPeer(key: string): void {
    const client = clients.get(key);
    if (client !== undefined) forget(client);
  }
  const statics = staticFiles(options.clientDir);
  http.route("GET", "/api/gateway", () => ({
    body: {
      id: options.id,
      clients: clients.size,
      routes: routes.size,
      regions: [...links.keys()],
      redis: { up: directory.up, ...directory.connection },
      addressBans: addressBans === null ? null : { inForce: addressBans.size, ...addressBans.stats },
      routeLookups: finder.stats,
      consoleWorld: worldAnswers.stats,
      gateways: otherGateways,
      ...stats,
      webrtc: rtc.counts(),
    },
  }));
  /** The request budget's key for `req`'s sender (an IPv6 address's /64). */
  const addressOf = (req: IncomingMessage): string => addressKey(req.socket.remoteAddress ?? "");

  http.setFallback(async (req, res) => {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    if (req.method === "GET" && CONSOLE_RELAYED.test(path)) await relayConsole(req, res);
    else if (!path.startsWith("/api/") && path !== "/metrics") return statics(req, res);
    // Token guesses pay the address's request budget, as joins do (each region logs a wrong token too): every
    // POST of the admin API, a replay viewer's controls passed on to a region among them.
    else if (path.startsWith("/api/admin/") && req.method === "POST" && !joins.take(addressOf(req), Date.now())) {
      reply(res, 429, { error: "too many requests from this address: try again in a minute" });
    }
    // A recording's download and a replay viewer's page: streamed from the region named (gateway-recordings.ts).
    else if (passRecordingRequest(req, res, regionBases())) return true;
    else if (path.startsWith("/api/admin/")) await admin(req, res);
    else if (req.method === "POST" && path === "/api/spectate") await spectate(req, res);
    else if (req.method === "GET" && (path === "/api/cluster" || path === "/metrics")) await status(res, path);
    else await proxy(req, res, path);
    return true;
  });

  /**
   * The console's page, its files and the map's cells: region 0's, passed on as they are (not JSON), with
   * the token it checks and the login prompt it asks for (a Basic challenge). Its other routes are the admin API's, put together for the whole world (admin-fanout.ts).
   */
  async function relayConsole(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const link = links.get(0);
    if (link === undefined) return reply(res, 503, { error: "the world is starting: try again in a moment" });
    const answer = await fetch(`${link.httpBase}${req.url ?? "/"}`, {
      headers: req.headers.authorization === undefined ? {} : { authorization: req.headers.authorization },
      signal: AbortSignal.timeout(5000),
    }).catch(() => null);
    if (answer === null) return reply(res, 502, { error: "region 0 did not answer" });
    const headers: Record<string, string> = {};
    for (const name of ["content-type", "www-authenticate", "x-map-width", "cache-control"]) {
      const value = answer.headers.get(name);
      if (value !== null) headers[name] = value;
    }
    res.writeHead(answer.status, headers);
    res.end(Buffer.from(await answer.arrayBuffer()));
  }

  const worldAnswers = new SharedAnswer();
  /** An operator's request: to the regions' own admin routes, their answers put together (admin-fanout.ts). */
  async function admin(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // Its POSTs have paid the address's request budget (the fallback above).
    const body = req.method === "POST" ? await bodyOf(req) : undefined;
    if (body === null) return reply(res, 413, { error: "request body too large" });
    const regions = [...links.entries()]
      .sort(([a], [b]) => a - b)
      .map(([region, link]) => ({ region, httpBase: link.httpBase }));
    // A player may be in any region: an answer from some of them only could miss it.
    if (regions.length < options.regionCount) {
      return reply(res, 503, { error: "not every region is linked to this gateway yet: try again in a moment" });
    }
    const request = {
      method: req.method ?? "GET",
      url: req.url ?? "/",
      authorization: req.headers.authorization,
      body,
    };
    // The whole world, asked by every open console each second: put together once for all of them (shared-answer.ts).
    const answer =
      req.method === "GET" && pathOf(req) === "/api/admin/world"
        ? await worldAnswers.get(req.headers.authorization, performance.now(), () => adminFanOut(request, regions))
        : await adminFanOut(request, regions);
    // A ban or unban made here holds here at once (the other gateways read it within a second).
    if (answer.status === 200 && req.method === "POST" && BAN_CHANGES.has(pathOf(req))) await addressBans?.reread();
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (answer.status === 401) headers["www-authenticate"] = 'Bearer realm="admin"';
    res.writeHead(answer.status, headers);
    res.end(JSON.stringify(answer.body));
  }

  /**
   * A spectator's join (the console's Follow, docs/scaling.md § Following across regions): passed with its
   * login to the region holding the entity it follows — the directory's owner of a player, else the region
   * whose ground holds the tile the console last saw it on — which checks the admin token itself (admins
   * only: a gateway holds no secret) and answers as one server would; the token is routed there and the
   * answer names this gateway's UDP port. When the entity crosses a border, that region hands the spectator
   * on with it (spectator-handoff.ts) on the link its datagrams come by, as a player's handoff goes. At most
   * `maxSpectators` at once through this gateway; each ends with its client's link.
   */
  async function spectate(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const source = addressOf(req);
    if (!joins.take(source, Date.now())) {
      return reply(res, 429, { error: "too many requests from this address: try again in a minute" });
    }
    if (addressBans !== null) {
      const banned = addressRefusal(addressBans, http.clientAddress(req), Date.now());
      if (banned !== null) return reply(res, 403, { error: banned });
    }
    if (spectatorRoutes.size >= maxSpectators) {
      stats.spectatorsRefused++;
      return reply(res, 503, { error: `spectators full at this gateway (${maxSpectators}): close a view first` });
    }
    const body = await bodyOf(req);
    if (body === null) return reply(res, 413, { error: "request body too large" });
    let asked: { follow?: unknown; x?: unknown; y?: unknown } = {};
    try {
      const parsed: unknown = JSON.parse(body === "" ? "{}" : body);
      if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) asked = parsed;
    } catch {
      // The region says what is wrong with it, as one server would.
    }
    const region = await spectatedRegion(asked);
    const link = links.get(region) ?? links.get(0);
    if (link === undefined) return reply(res, 503, { error: "the world is starting: try again in a moment" });
    const answer = await fetch(`${link.httpBase}/api/spectate`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...(req.headers.authorization === undefined ? {} : { authorization: req.headers.authorization }),
      },
      body,
      signal: AbortSignal.timeout(5000),
    }).catch(() => null);
    if (answer === null) return reply(res, 502, { error: `region ${link.region} did not answer` });
    const text = await answer.text();
    let json: { token?: unknown; udpPort?: unknown } | null;
    try {
      json = JSON.parse(text) as { token?: unknown } | null;
    } catch {
      json = null;
    }
    if (
      answer.status !== 200 ||
      json === null ||
      typeof json.token !== "string" ||
      !/^[0-9a-f]{16}$/.test(json.token)
    ) {
      const headers: Record<string, string> = {
        "content-type": answer.headers.get("content-type") ?? "application/json",
      };
      const challenge = answer.headers.get("www-authenticate");
      if (challenge !== null) headers["www-authenticate"] = challenge;
      res.writeHead(answer.status === 200 ? 502 : answer.status, headers);
      return void res.end(
        answer.status === 200 ? JSON.stringify({ error: "the region's answer was not a join" }) : text,
      );
    }
    const token = BigInt(`0x${json.token}`);
    const route: Route = {
      low: Number(token & 0xffffffffn) | 0,
      high: Number(token >> 32n) | 0,
      tokenHex: json.token,
      region: link.region,
      lastUsedMs: performance.now(),
      spectator: true,
    };
    routes.set(route.low & TOKEN_KEY_MASK, route);
    spectatorRoutes.add(route);
    stats.spectatorsJoined++;
    return reply(res, 200, { ...json, udpPort: udp.port });
  }

  /** The region a spectator's join goes to: the owner of the entity it follows, else the one under its tile, else 0. */
  async function spectatedRegion(asked: { follow?: unknown; x?: unknown; y?: unknown }): Promise<number> {
    try {
      if (Number.isSafeInteger(asked.follow) && (asked.follow as number) > 0) {
        const owner = await directory.ownerOf(asked.follow as number);
        if (owner !== null && links.has(owner)) return owner;
      }
      if (Number.isSafeInteger(asked.x) && Number.isSafeInteger(asked.y)) {
        const layout = await directory.layout();
        if (layout !== null) return regionOfTile(layout, asked.x as number, asked.y as number);
      }
    } catch (error) {
      // Redis away: region 0 serves the view; a camera following a ghost there goes to its owner (region.ts).
      log.warn("a spectator's region not looked up", { error: String(error) });
    }
    return 0;
  }

  /**
   * /api/cluster and /metrics: region 0's answer with the health of every part of the cluster added —
   * the health alone while region 0 is down (it is what an operator then needs).
   */
  async function status(res: ServerResponse, path: string): Promise<void> {
    const link = links.get(0);
    const answer =
      link === undefined
        ? null
        : await fetch(`${link.httpBase}${path}`, { signal: AbortSignal.timeout(2000) })
            .then((response) => (response.ok ? response.text() : null))
            .catch(() => null);
    const health = options.health?.() ?? null;
    if (path === "/metrics") {
      res.writeHead(200, { "content-type": "text/plain; version=0.0.4" });
      return void res.end(`${answer ?? ""}${health === null ? "" : healthMetricsText(health)}`);
    }
    let region0: Record<string, unknown> = { region0: "unreachable" };
    try {
      if (answer !== null) region0 = JSON.parse(answer) as Record<string, unknown>;
    } catch {
      region0 = { region0: "answered with something that is not JSON" };
    }
    reply(res, 200, { ...region0, health });
  }

  /** A request's body as text, or null past MAX_PROXY_BODY_BYTES. */
  async function bodyOf(req: IncomingMessage): Promise<string | null> {
    const parts: Buffer[] = [];
    let size = 0;
    for await (const part of req as AsyncIterable<Buffer>) {
      size += part.length;
      if (size > MAX_PROXY_BODY_BYTES) return null;
      parts.push(part);
    }
    return Buffer.concat(parts).toString("utf8");
  }

  /** Passes an API request to region 0; an answer that starts a session is routed and names our UDP port. */
  async function proxy(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    const link = links.get(0);
    if (link === undefined) return reply(res, 503, { error: "the world is starting: try again in a moment" });
    const source = addressOf(req);
    if (req.method === "POST" && !joins.take(source, Date.now())) {
      return reply(res, 429, { error: "too many requests from this address: try again in a minute" });
    }
    // A banned address is refused every way in, with the words one process says (admin-service.ts).
    if (req.method === "POST" && addressBans !== null && WAYS_IN_PATHS.has(path)) {
      const banned = addressRefusal(addressBans, http.clientAddress(req), Date.now());
      if (banned !== null) return reply(res, 403, { error: banned });
    }
    const body = req.method === "POST" ? await bodyOf(req) : undefined;
    if (body === null) return reply(res, 413, { error: "request body too large" });
    const answer = await fetch(`${link.httpBase}${req.url ?? path}`, {
      method: req.method,
      headers: { "content-type": req.headers["content-type"] ?? "application/json" },
      body,
    }).catch(() => null);
    if (answer === null) return reply(res, 502, { error: "the region did not answer" });
    const text = await answer.text();
    const type = answer.headers.get("content-type") ?? "application/octet-stream";
    if (answer.status === 200 && type.includes("json")) {
      const json = JSON.parse(text) as { token?: unknown; udpPort?: unknown };
      if (typeof json.token === "string" && /^[0-9a-f]{16}$/.test(json.token) && "udpPort" in json) {
        const token = BigInt(`0x${json.token}`);
        const route: Route = {
          low: Number(token & 0xffffffffn) | 0,
          high: Number(token >> 32n) | 0,
          tokenHex: json.token,
          region: 0,
          lastUsedMs: performance.now(),
        };
        routes.set(route.low & TOKEN_KEY_MASK, route);
        directory.putSessions([{ tokenHex: route.tokenHex, gateway: options.id, region: 0 }]).catch(() => {});
        // The gateways a client may go on through if this one stops answering (docs/protocol.md § 6.2):
        // as the directory has them now (one started a moment ago included), else as last read.
        await meetGateways().catch(directory.failed("reading the gateways"));
        const gateways = [self, ...otherGateways].map(({ httpPort, udpPort, url }) =>
          url === undefined ? { httpPort, udpPort } : { httpPort, udpPort, url },
        );
        return reply(res, 200, { ...json, udpPort: udp.port, gateways });
      }
    }
    res.writeHead(answer.status, { "content-type": type });
    res.end(text);
  }

  await new Promise<void>((resolve, reject) => {
    http.server.once("error", reject);
    http.server.listen(options.httpPort, options.host, () => {
      http.server.off("error", reject);
      resolve();
    });
  });
  await linkRegions();
  // This gateway in the directory, and the others read from it, every REFRESH_MS: a join's answer lists them.
  self = {
    id: options.id,
    httpPort: (http.server.address() as AddressInfo).port,
    udpPort: udp.port,
    ...(options.publicUrl === undefined ? {} : { url: options.publicUrl }),
  };
  const meetGateways = async () => {
    await directory.registerGateway(self);
    otherGateways = (await directory.gateways()).filter((gateway) => gateway.id !== options.id);
  };
  await meetGateways().catch(directory.failed("registering the gateway"));
  let rounds = 0;
  const upkeep = setInterval(() => {
    linkRegions().catch(directory.failed("linking regions"));
    meetGateways().catch(directory.failed("registering the gateway"));
    const nowMs = performance.now();
    for (const client of [...clients.values()]) if (nowMs - client.lastSeenMs > CLIENT_IDLE_MS) forget(client);
    for (const route of [...routes.values()]) if (nowMs - route.lastUsedMs > ROUTE_IDLE_MS) dropRoute(route);
    websocket.sweep(nowMs);
    rtc.sweep(nowMs);
    if (++rounds % 5 === 0) writeRoutes();
  }, REFRESH_MS);
  /** Writes down (or refreshes) the sessions this gateway routes and used lately. */
  function writeRoutes(): void {
    const nowMs = performance.now();
    const live = [...routes.values()].filter((route) => nowMs - route.lastUsedMs < 10_000);
    directory
      .putSessions(live.map((route) => ({ tokenHex: route.tokenHex, gateway: options.id, region: route.region })))
      .catch(() => {});
  }
  upkeep.unref();
  log.info("gateway started", { id: options.id, httpPort: (http.server.address() as AddressInfo).port, udp: udp.port });

  let closed = false;
  return {
    id: options.id,
    httpPort: (http.server.address() as AddressInfo).port,
    udpPort: udp.port,
    stats,
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(upkeep);
      websocket.close();
      rtc.close();
      for (const link of links.values()) link.socket.destroy();
      http.server.closeAllConnections();
      await Promise.all([new Promise<void>((resolve) => http.server.close(() => resolve())), udp.close()]);
      addressBans?.stop();
      await store?.end();
      await directory.close();
    },
  };
}

function pathOf(req: IncomingMessage): string {
  return new URL(req.url ?? "/", "http://localhost").pathname;
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

/** A token's 16 hex digits (the directory's key) from its two u32 words. */
function tokenHexOf(low: number, high: number): string {
  return ((BigInt(high >>> 0) << 32n) | BigInt(low >>> 0)).toString(16).padStart(16, "0");
}
