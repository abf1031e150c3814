// The HTTP side of the game server: a tiny router over node:http with JSON
// bodies and `{"error": "..."}` refusals. The datagram channel never carries
// anything that needs a stream (accounts, signalling); this does.
import { createReadStream } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import {
  type ConnectionStats,
  DEFAULT_HTTP_LIMITS,
  guardConnections,
  type HttpLimits,
  type OriginPolicy,
  refuseForeignOrigin,
  refuseStateChange,
  timeoutOptions,
} from "./http-guard.js";
import { ClientAddresses } from "../edge/client-address.js";

/** Largest request body accepted, in bytes. */
const BODY_LIMIT_BYTES = 16 * 1024;
/** How long a browser may keep a preflight's answer (seconds). */
const PREFLIGHT_MAX_AGE_S = 600;

/** Decides whether a page of `origin` (not this server's own) may call a path shared across origins. */
export type CrossOriginRule = (origin: string, req: IncomingMessage) => boolean;

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** Extra response headers, e.g. Retry-After on a 429 or 503. */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}

export interface HttpReply {
  status?: number;
  /** A JSON-serialisable body, or a string/Buffer sent as is with `contentType`. */
  body: unknown;
  /** A file sent as the body instead, streamed (a recording may be a gigabyte): its path and size. */
  file?: { readonly path: string; readonly bytes: number };
  contentType?: string;
  headers?: Record<string, string>;
}

export type Handler = (request: { body: unknown; raw: IncomingMessage }) => Promise<HttpReply> | HttpReply;
/** A fallback for paths no route claims (static files); returns false to fall through to 404. */
export type FallbackHandler = (req: IncomingMessage, res: ServerResponse) => Promise<boolean> | boolean;

export class HttpApi {
  private readonly routes = new Map<string, Handler>();
  /** The paths pages of other origins may POST to, each with the rule naming those origins (shareAcrossOrigins). */
  private readonly shared = new Map<string, CrossOriginRule>();
  private fallback: FallbackHandler | null = null;
  readonly server: Server;
  /** Open and refused connections (http-guard.ts). */
  readonly connections: ConnectionStats;

  constructor(
    private readonly onError: (error: unknown) => void,
    /** The edge limits (connections, timeouts, origins) and the account limits routes read from here. */
    readonly limits: HttpLimits = DEFAULT_HTTP_LIMITS,
    /** Whose request each one is behind trusted proxies (edge/client-address.ts); by default the TCP peer's. */
    readonly clientAddresses: ClientAddresses = new ClientAddresses(),
  ) {
    this.server = createServer(timeoutOptions(limits), (req, res) => void this.dispatch(req, res));
    this.connections = guardConnections(this.server, limits, clientAddresses);
  }

  /** The address `req` came from, for every per-address limit and ban: see edge/client-address.ts. */
  readonly clientAddress = (req: IncomingMessage): string => this.clientAddresses.of(req);

  route(method: "GET" | "POST", path: string, handler: Handler): void {
    this.routes.set(`${method} ${path}`, handler);
  }

  /**
   * Lets the pages of the origins `rule` accepts POST to `path` from another origin (CORS): the browser's
   * preflight is answered for them alone, and their answers name their origin in
   * Access-Control-Allow-Origin. Every other origin is refused as before (refuseForeignOrigin). A cluster's
   * gateways share their WebRTC signalling so with their sibling gateways' pages (docs/transports.md).
   */
  shareAcrossOrigins(path: string, rule: CrossOriginRule): void {
    this.shared.set(path, rule);
  }

  setFallback(handler: FallbackHandler): void {
    this.fallback = handler;
  }

  /** Starts listening on `host`:`port` (0: any free port); rejects when it cannot (the port taken). */
  listen(port: number, host: string): Promise<void> {
    const server = this.server;
    return new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, host, () => {
        server.off("error", reject);
        resolve();
      });
    });
  }

  private async dispatch(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // The answer to a page of another origin allowed on a shared path names that origin (else its browser
    // keeps the answer from it); none otherwise.
    let crossOrigin: Record<string, string> | undefined;
    try {
      const path = new URL(req.url ?? "/", "http://localhost").pathname;
      const sharedRule = this.shared.get(path);
      const origins: OriginPolicy =
        sharedRule === undefined
          ? this.limits.allowedOrigins
          : (origin, request) => this.limits.allowedOrigins.includes(origin) || sharedRule(origin, request);
      if (req.method === "OPTIONS" && sharedRule !== undefined) return preflight(req, res, origins);
      // Before any handler, the fallback's too: a cluster's gateway serves the admin API and the joins through
      // its fallback (a relay to the regions, which see no Origin from it), and a page of another site must be
      // refused there as here.
      if (req.method === "POST") {
        const refused = refuseStateChange(req, origins);
        if (refused) throw new HttpError(refused.status, refused.message);
        if (sharedRule !== undefined && req.headers.origin !== undefined) {
          crossOrigin = { "access-control-allow-origin": req.headers.origin, vary: "Origin" };
        }
      }
      const handler = this.routes.get(`${req.method} ${path}`);
      if (!handler) {
        if (this.fallback && (await this.fallback(req, res))) return;
        const known = [...this.routes.keys()].some((key) => key.endsWith(` ${path}`));
        throw known
          ? new HttpError(405, `method ${req.method} not allowed on ${path}`)
          : new HttpError(404, "not found");
      }
      const body = req.method === "POST" ? await readJsonBody(req) : undefined;
      const reply = await handler({ body, raw: req });
      send(res, crossOrigin === undefined ? reply : { ...reply, headers: { ...reply.headers, ...crossOrigin } });
    } catch (error) {
      if (error instanceof HttpError) {
        send(res, {
          status: error.status,
          body: { error: error.message },
          headers: { ...error.headers, ...crossOrigin },
        });
      } else {
        this.onError(error);
        send(res, { status: 500, body: { error: "internal server error" }, headers: crossOrigin });
      }
    }
  }
}

/**
 * A browser's preflight before a POST from another origin to a shared path: allowed (204, naming the
 * origin, the method and the JSON content type) for the origins `origins` accepts, refused (403) otherwise.
 */
function preflight(req: IncomingMessage, res: ServerResponse, origins: OriginPolicy): void {
  const origin = req.headers.origin;
  const refused =
    origin === undefined
      ? { status: 400, message: "a preflight names its Origin" }
      : req.headers["access-control-request-method"] !== "POST"
        ? { status: 405, message: "only POST is shared across origins here" }
        : refuseForeignOrigin(req, origins);
  if (refused !== null) {
    send(res, { status: refused.status, body: { error: refused.message } });
    return;
  }
  res.writeHead(204, {
    "access-control-allow-origin": origin!,
    "access-control-allow-methods": "POST",
    "access-control-allow-headers": "content-type",
    "access-control-max-age": String(PREFLIGHT_MAX_AGE_S),
    vary: "Origin",
  });
  res.end();
}

function send(res: ServerResponse, reply: HttpReply): void {
  if (res.headersSent) return;
  if (reply.file !== undefined) {
    const stream = createReadStream(reply.file.path, { start: 0, end: Math.max(0, reply.file.bytes - 1) });
    stream.once("error", () => res.destroy());
    stream.once("open", () => {
      res.writeHead(reply.status ?? 200, {
        "content-type": reply.contentType ?? "application/octet-stream",
        "content-length": String(reply.file!.bytes),
        "cache-control": "no-store",
        ...reply.headers,
      });
      stream.pipe(res);
    });
    res.once("close", () => stream.destroy());
    return;
  }
  const isRaw = typeof reply.body === "string" || reply.body instanceof Uint8Array;
  const payload = isRaw ? (reply.body as string | Uint8Array) : JSON.stringify(reply.body);
  res.writeHead(reply.status ?? 200, {
    "content-type": reply.contentType ?? (isRaw ? "text/plain; charset=utf-8" : "application/json"),
    "cache-control": "no-store",
    ...reply.headers,
  });
  res.end(payload);
}

async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > BODY_LIMIT_BYTES) throw new HttpError(413, `request body over ${BODY_LIMIT_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString("utf8");
  if (text.trim() === "") throw new HttpError(400, "request body must be a JSON object");
  try {
    return JSON.parse(text);
  } catch {
    throw new HttpError(400, "request body is not valid JSON");
  }
}

/** A string field of a JSON object body, or a 400. */
export function stringField(body: unknown, name: string): string {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new HttpError(400, "request body must be a JSON object");
  }
  const value = (body as Record<string, unknown>)[name];
  if (typeof value !== "string") throw new HttpError(400, `"${name}" must be a string`);
  return value;
}
