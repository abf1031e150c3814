// The admin HTTP API (docs/server.md § Admin): /api/admin/*, each request
// authenticated with `Authorization: Bearer <token>`, the token the host gave
// the server (--admin-token-file or CAVES_ADMIN_TOKEN; there is no default,
// and without one these routes do not exist), or as a Basic password (the
// console's page, admin-console.ts). Tokens are compared through
// their SHA-256 digests with timingSafeEqual, so neither length nor content
// leaks through timing; a wrong token is logged and answered 401.
import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { type HttpApi, HttpError } from "./http-api.js";
import {
  AdminError,
  type AdminService,
  type BanTarget,
  type PlayerRef,
  type UnbanTarget,
} from "../admin/admin-service.js";
import type { AddressBan } from "../admin/admin-store.js";

/** The shortest token accepted: 32 characters (e.g. `openssl rand -hex 16`), so guessing is hopeless. */
export const ADMIN_TOKEN_MIN_CHARS = 32;
const LOG_LIMIT_MAX = 1000;

/** Checks a host's token: long enough and printable; throws an Error saying what is wrong. */
export function checkAdminToken(token: string): string {
  const trimmed = token.trim();
  if (trimmed.length < ADMIN_TOKEN_MIN_CHARS) {
    throw new Error(`the admin token must be at least ${ADMIN_TOKEN_MIN_CHARS} characters (try: openssl rand -hex 32)`);
  }
  if (!/^[\x21-\x7e]+$/.test(trimmed)) throw new Error("the admin token must be printable ASCII without spaces");
  return trimmed;
}

export interface AdminRouteOptions {
  /**
   * Why this process does not keep bans (a cluster's region without a shared store): ban, unban and bans
   * answer 501 with it, after the token is checked. Absent: bans are served.
   */
  bansElsewhere?: string;
  /**
   * Where bans are kept when not in this process's own store (a cluster's region: the shared PostgreSQL,
   * ts/cluster/cluster-bans.ts) — decided by the same AdminService rules. Absent: the AdminService's own.
   */
  bans?: BanDesk;
}

/** The ban requests (POST ban, unban; GET bans), answered once the ban is kept. */
export interface BanDesk {
  ban(target: BanTarget, minutes: number | undefined, reason: string): Promise<Record<string, unknown>>;
  unban(target: UnbanTarget): Promise<Record<string, unknown>>;
  bans(): Promise<{ addresses: AddressBan[] }>;
}

/** Checks a request's admin token; throws HttpError 401 (logged as refused) when it is missing or wrong. */
export type AdminAuthorizer = (raw: IncomingMessage, action: string) => void;

/**
 * The token a request carries: `Authorization: Bearer <token>` (the API's clients), or `Basic` with the
 * token as the password (a browser's own login prompt, for the console at /admin; the user name is not
 * read). Null when there is none.
 */
function presentedToken(header: string): string | null {
  const bearer = /^Bearer\s+(\S+)$/i.exec(header);
  if (bearer !== null) return bearer[1];
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(header);
  if (basic === null) return null;
  const decoded = Buffer.from(basic[1], "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  return colon < 0 ? null : decoded.slice(colon + 1);
}

/**
 * The token check every admin route makes, for `token` (checked by checkAdminToken). `challenge` is the
 * WWW-Authenticate a refusal carries: a browser shows its login prompt for Basic, not for Bearer.
 */
export function adminAuthorizer(
  admin: Pick<AdminService, "refused">,
  token: string,
  /** Who a refusal is logged as coming from (HttpApi.clientAddress: the client, behind trusted proxies too). */
  clientAddress: (raw: IncomingMessage) => string,
  challenge = 'Bearer realm="admin"',
): AdminAuthorizer {
  const expected = digest(checkAdminToken(token));
  return (raw, action) => {
    const presented = presentedToken(raw.headers.authorization ?? "");
    if (presented === null || !timingSafeEqual(digest(presented), expected)) {
      admin.refused(action, { from: clientAddress(raw) }, presented === null ? "no token" : "wrong token");
      throw new HttpError(401, "admin token missing or wrong", { "www-authenticate": challenge });
    }
  };
}

export function installAdminRoutes(
  http: HttpApi,
  admin: AdminService,
  token: string,
  options: AdminRouteOptions = {},
): void {
  const authorize = adminAuthorizer(admin, token, http.clientAddress);
  const run = async (action: string, raw: IncomingMessage, work: () => unknown) => {
    authorize(raw, action);
    try {
      return { body: await work() };
    } catch (error) {
      if (error instanceof AdminError) {
        admin.refused(action, {}, error.message);
        throw new HttpError(error.status, error.message);
      }
      throw error;
    }
  };
  const post = (action: string, work: (body: Record<string, unknown>) => unknown) =>
    http.route("POST", `/api/admin/${action}`, ({ body, raw }) => run(action, raw, () => work(objectBody(body))));
  /** A process that keeps no bans (AdminRouteOptions.bansElsewhere) refuses them, saying why. */
  const bansHere = (): void => {
    if (options.bansElsewhere !== undefined) throw new AdminError(501, options.bansElsewhere);
  };
  const desk: BanDesk = options.bans ?? {
    ban: async (target, minutes, reason) => admin.ban(target, minutes, reason),
    unban: async (target) => admin.unban(target),
    bans: async () => admin.bans(),
  };
  http.route("GET", "/api/admin/players", ({ raw }) => run("players", raw, () => ({ players: admin.players() })));
  http.route("GET", "/api/admin/bans", ({ raw }) =>
    run("bans", raw, () => {
      bansHere();
      return desk.bans();
    }),
  );
  http.route("GET", "/api/admin/log", ({ raw }) =>
    run("log", raw, () => ({ entries: admin.recent(limitOf(raw, 50)) })),
  );
  http.route("GET", "/api/admin/accounts", ({ raw }) =>
    run("accounts", raw, () => {
      bansHere(); // a cluster's region keeps no accounts of the world's
      return { accounts: admin.accounts(queryOf(raw), limitOf(raw, 50)) };
    }),
  );
  http.route("GET", "/api/admin/chat", ({ raw }) =>
    run("chat", raw, () => ({ lines: admin.chatLog(limitOf(raw, 100), queryOf(raw)) })),
  );
  post("kick", (body) => admin.kick(playerRef(body), optionalText(body, "reason") ?? "kicked by an operator"));
  post("ban", (body) => {
    bansHere();
    return desk.ban(
      { ...playerRef(body, true), account: optionalText(body, "account"), address: optionalText(body, "address") },
      optionalNumber(body, "minutes"),
      requiredText(body, "reason"),
    );
  });
  post("unban", (body) => {
    bansHere();
    return desk.unban({ account: optionalText(body, "account"), address: optionalText(body, "address") });
  });
  post("mute", (body) =>
    admin.mute(
      playerRef(body),
      optionalNumber(body, "minutes"),
      optionalText(body, "reason") ?? "muted by an operator",
    ),
  );
  post("unmute", (body) => admin.unmute(playerRef(body)));
  post("announce", (body) => admin.announce(requiredText(body, "text")));
  post("message", (body) => admin.message(playerRef(body), requiredText(body, "text")));
  post("teleport", (body) => {
    const x = optionalNumber(body, "x");
    const y = optionalNumber(body, "y");
    if ((x === undefined) !== (y === undefined)) throw new AdminError(400, 'give both "x" and "y", or neither');
    return admin.teleport(playerRef(body), x === undefined || y === undefined ? undefined : { x, y });
  });
}

/** The query's `limit` (1–LOG_LIMIT_MAX; `fallback` when absent), or a 400. */
function limitOf(raw: IncomingMessage, fallback: number): number {
  const limitParam = searchParams(raw).get("limit") ?? String(fallback);
  const limit = Number(limitParam);
  if (!/^\d+$/.test(limitParam) || limit < 1 || limit > LOG_LIMIT_MAX) {
    throw new AdminError(400, `limit must be an integer from 1 to ${LOG_LIMIT_MAX}`);
  }
  return limit;
}

/** The query's search text `q` (empty: everything), at most 64 characters. */
function queryOf(raw: IncomingMessage): string {
  const query = (searchParams(raw).get("q") ?? "").trim();
  if (query.length > 64) throw new AdminError(400, "q must be at most 64 characters");
  return query;
}

function searchParams(raw: IncomingMessage): URLSearchParams {
  return new URL(raw.url ?? "/", "http://localhost").searchParams;
}

function digest(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}

/** A request's JSON body as an object, or a 400 (AdminError). The admin routes' and the recordings' routes'. */
export function objectBody(body: unknown): Record<string, unknown> {
  if (body === null || typeof body !== "object" || Array.isArray(body))
    throw new AdminError(400, "the body must be a JSON object");
  return body as Record<string, unknown>;
}

/** nick or entityId; `optional`: neither is fine (the caller has other ways to name a target). */
function playerRef(body: Record<string, unknown>, optional = false): PlayerRef {
  const nick = optionalText(body, "nick");
  const entityId = optionalNumber(body, "entityId");
  if (entityId !== undefined && (!Number.isInteger(entityId) || entityId < 1)) {
    throw new AdminError(400, '"entityId" must be a positive integer');
  }
  if (!optional && nick === undefined && entityId === undefined) {
    throw new AdminError(400, 'give "nick" or "entityId" of a player in play');
  }
  return { nick, entityId };
}

export function optionalText(body: Record<string, unknown>, key: string): string | undefined {
  const value = body[key];
  if (value === undefined) return undefined;
  if (typeof value !== "string" || value.trim() === "")
    throw new AdminError(400, `"${key}" must be a non-empty string`);
  return value.trim();
}

function requiredText(body: Record<string, unknown>, key: string): string {
  const value = optionalText(body, key);
  if (value === undefined) throw new AdminError(400, `"${key}" is required`);
  return value;
}

export function optionalNumber(body: Record<string, unknown>, key: string): number | undefined {
  const value = body[key];
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isFinite(value)) throw new AdminError(400, `"${key}" must be a number`);
  return value;
}
