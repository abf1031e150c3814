// Limits at the edge of the HTTP side (docs/server.md § Limits): how many
// connections a source and the whole server may hold, how long a request may
// take to arrive, and which requests may change state. An HTTP server with no
// such limits was taken down for 25 s by 20,500 idle connections from one
// address (join, login, status, WebSocket and WebRTC signalling all went with
// it), and a cross-site text/plain form could create sessions and accounts.
import { readFileSync } from "node:fs";
import type { IncomingMessage, Server, ServerOptions } from "node:http";
import type { Socket } from "node:net";
import { addressKey } from "../edge/address-key.js";
import type { ClientAddresses } from "../edge/client-address.js";

export interface HttpLimits {
  /** Open TCP connections (HTTP keep-alive and WebSocket alike) one source may hold. */
  connectionsPerAddress: number;
  /** Open connections the server holds in all; default below the process's descriptor limit. */
  connectionsTotal: number;
  /** A request's headers must have arrived this long after the connection started waiting for them. */
  headersTimeoutMs: number;
  /** A whole request (headers and body) must have arrived within this. */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
  /** Origins besides the server's own whose pages may POST (e.g. a dev server's). */
  allowedOrigins: readonly string[];
  /**
   * Failed logins at one account from one source before that source must wait to log into it (429,
   * Retry-After), doubling with each further failure (accounts/login-limits.ts has the whole rule).
   */
  loginFailuresBeforeBackoff: number;
  /** Failed logins from one source, at any names, before it must wait — except at accounts it plays. */
  addressFailuresBeforeBackoff: number;
  /** Failed logins at one account, from anywhere, before sources it was never played from must wait. */
  accountFailuresBeforeBackoff: number;
  /** The first of those waits; each further failure doubles it, up to 15 min. */
  loginBackoffFirstMs: number;
  /** Password hashes computed at once; the rest wait in the queue. */
  hashConcurrency: number;
  /** Logins and registrations waiting for a hash beyond which new ones are answered 503 at once. */
  hashQueue: number;
  /** Registrations per source per hour (burst the same). */
  registrationsPerAddress: number;
  /** Guest joins per source per minute (burst the same): joins are free, so eight threads once held every slot. */
  guestJoinsPerAddress: number;
}

/** Descriptors kept free for what is not HTTP: the database, UDP, WebRTC, map and client files. */
const DESCRIPTOR_RESERVE = 256;
const DEFAULT_TOTAL_CAP = 8192;

/** The soft limit on open files of this process (Linux /proc), or null where it cannot be read. */
function openFileLimit(): number | null {
  try {
    const line = /^Max open files\s+(\d+)/m.exec(readFileSync("/proc/self/limits", "utf8"));
    return line ? Number(line[1]) : null;
  } catch {
    return null;
  }
}

/** The total connection cap: DEFAULT_TOTAL_CAP, lowered to stay DESCRIPTOR_RESERVE below the descriptor limit. */
export function defaultConnectionsTotal(limit: number | null = openFileLimit()): number {
  if (limit === null) return DEFAULT_TOTAL_CAP;
  return Math.max(64, Math.min(DEFAULT_TOTAL_CAP, limit - DESCRIPTOR_RESERVE));
}

export const DEFAULT_HTTP_LIMITS: HttpLimits = {
  connectionsPerAddress: 64,
  connectionsTotal: defaultConnectionsTotal(),
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  allowedOrigins: [],
  loginFailuresBeforeBackoff: 5,
  addressFailuresBeforeBackoff: 10,
  accountFailuresBeforeBackoff: 10,
  loginBackoffFirstMs: 1000,
  hashConcurrency: 2,
  hashQueue: 32,
  registrationsPerAddress: 10,
  guestJoinsPerAddress: 60,
};

export interface ConnectionStats {
  open: number;
  refusedConnections: number;
}

/** The node:http server options that close slow and idle connections. */
export function timeoutOptions(limits: HttpLimits): ServerOptions {
  return {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    // Node checks the first two on this period (default 30 s: too coarse for a short headers timeout).
    connectionsCheckingInterval: Math.min(1000, Math.max(100, limits.headersTimeoutMs / 4)),
  };
}

/**
 * Caps connections per source and in all. A connection over a cap is closed
 * before any byte of it is read. A trusted proxy's connections count only
 * towards the total: they carry many players, whose own addresses are not
 * known before a request arrives (the proxy limits its clients' connections).
 */
export function guardConnections(
  server: Server,
  limits: HttpLimits,
  proxies: Pick<ClientAddresses, "isTrusted">,
): ConnectionStats {
  const stats: ConnectionStats = { open: 0, refusedConnections: 0 };
  const perAddress = new Map<string, number>();
  server.on("connection", (socket: Socket) => {
    const peer = socket.remoteAddress ?? "";
    const key = addressKey(peer);
    const held = perAddress.get(key) ?? 0;
    const overSourceCap = held >= limits.connectionsPerAddress && !proxies.isTrusted(peer);
    if (overSourceCap || stats.open >= limits.connectionsTotal) {
      stats.refusedConnections++;
      socket.destroy();
      return;
    }
    perAddress.set(key, held + 1);
    stats.open++;
    socket.once("close", () => {
      stats.open--;
      const left = (perAddress.get(key) ?? 1) - 1;
      if (left <= 0) perAddress.delete(key);
      else perAddress.set(key, left);
    });
  });
  return stats;
}

/**
 * The origins besides a server's own whose pages may use it: a fixed list (HttpLimits.allowedOrigins), or a
 * rule asked with the request (a cluster gateway's sibling gateways, ts/cluster/gateway-origins.ts).
 */
export type OriginPolicy = readonly string[] | ((origin: string, req: IncomingMessage) => boolean);

/** Why a state-changing request is refused, with its status; null when it may proceed. */
export function refuseStateChange(
  req: IncomingMessage,
  allowedOrigins: OriginPolicy,
): { status: number; message: string } | null {
  const type = (req.headers["content-type"] ?? "").split(";")[0].trim().toLowerCase();
  if (type !== "application/json") {
    return { status: 415, message: "a POST body must be sent as content-type application/json" };
  }
  return refuseForeignOrigin(req, allowedOrigins);
}

/**
 * A request from a page of another site (its Origin neither this server's nor an allowed one), refused
 * with 403; null when it may proceed. For POSTs (above) and for WebSocket upgrades a browser sends the
 * operator's saved login with (the replay viewers' links, replay-viewer/viewer-routes.ts), and a cluster
 * gateway's game WebSocket (only its sibling gateways' pages may open one: ts/cluster/gateway.ts).
 */
export function refuseForeignOrigin(
  req: IncomingMessage,
  allowedOrigins: OriginPolicy,
): { status: number; message: string } | null {
  const origin = req.headers.origin;
  // Native clients and bots send no Origin; a browser always does on a POST and an upgrade.
  if (origin === undefined) return null;
  if (typeof allowedOrigins === "function" ? allowedOrigins(origin, req) : allowedOrigins.includes(origin)) return null;
  const host = req.headers.host;
  if (host !== undefined && (origin === `http://${host}` || origin === `https://${host}`)) return null;
  return { status: 403, message: `requests from pages of ${origin} are not accepted here` };
}
