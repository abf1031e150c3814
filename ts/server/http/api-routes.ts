// The HTTP API of the game server: guest join, accounts (register, login),
// status and metrics. docs/server.md documents every route. Passwords travel
// only here (over HTTP, HTTPS in front of it in production), never in a datagram.
import { readNames, readsOf } from "../../protocol/reads.js";
import type { IncomingMessage } from "node:http";
import { PROTOCOL_VERSION } from "../../protocol/header.js";
import { AccountError, type AccountService } from "../accounts/account-service.js";
import type { KnownAddresses } from "../accounts/known-addresses.js";
import { LoginLimits } from "../accounts/login-limits.js";
import { HashQueue, QueueFullError } from "../accounts/hash-queue.js";
import { StoreUnavailableError } from "../persistence/store-unavailable.js";
import { addressKey } from "../edge/address-key.js";
import { JoinError } from "../sessions/join-error.js";
import { HttpError, type HttpApi, type HttpReply, stringField } from "./http-api.js";
import { TIMING_WINDOW_TICKS } from "../ops/metrics.js";
import { KeyedRateLimiter } from "../edge/rate-limit.js";
import { checkNick } from "../sessions/nick.js";
import { installOnlineRoute } from "./online-route.js";
import { countByTransport } from "./transport-counts.js";
import { checkAppearance } from "../../appearance.js";
import { type MetricsSource, metricsRegistry } from "./prometheus.js";
import type { Session, SessionRegistry } from "../sessions/session.js";
import type { World } from "../world/world.js";
import type { PvpRule } from "../combat/pvp-rule.js";
import type { AdminService } from "../admin/admin-service.js";
import { installMapArtRoute, mapArtDescription } from "./map-art-route.js";

/** What the routes use of the game (the Game is one): joining and leaving, accounts, the world, the status. */
export interface ApiGame extends MetricsSource {
  readonly sessions: Pick<SessionRegistry, "byTokenValue" | "size" | "values">;
  readonly accounts: Pick<AccountService, "register" | "login">;
  readonly world: Pick<
    World,
    "name" | "mapWidth" | "mapHeight" | "chunksX" | "chunksY" | "tileInfo" | "npcKinds" | "safeZones" | "items" | "art"
  >;
  readonly options: { readonly tickHz: number };
  readonly pvp: Pick<PvpRule, "enabled">;
  /** Address bans (admin/): a banned source may not join, register or log in. */
  readonly admin: Pick<AdminService, "addressRefusal">;
  /** The sources each account was registered or logged into from (the login limits let them through). */
  readonly knownAddresses: KnownAddresses;
  /** Creates a guest session; throws JoinError when refused. */
  join(nick: string, appearance?: number | null): Session;
  /** Where a session's join came from and what its client reads (recorded: Game.admitted). */
  admitted(session: Session, joinSource: string, reads: number): void;
  leave(session: Session, reason: string): void;
  /** The quests' texts (GET /api/quests, docs/protocol.md § 18.7): their numbers, titles and what to do. */
  questCatalogue(): { version: number; quests: { number: number; id: string; title: string; text: string }[] };
  /** The /api/status body, over the last `ticks` ticks. */
  status(ticks: number): Record<string, unknown>;
}

/**
 * Every way into the game over HTTP: a banned address is refused at each (403, with the ban's reason and
 * end) before anything else is done for it — here, and at a cluster's gateways (ts/cluster/gateway.ts).
 */
export const WAYS_IN = { guest: "/api/guest", register: "/api/register", login: "/api/login" } as const;

/** The Retry-After header of a 429 or 503: whole seconds, at least 1. */
function retryAfter(seconds: number): Record<string, string> {
  return { "retry-after": String(Math.max(1, Math.ceil(seconds))) };
}

/**
 * `udpStatus` describes the UDP socket for /api/status (which backend carries the datagrams and
 * its counters); without it the status has no "udp" field.
 */
export function installApiRoutes(
  http: HttpApi,
  game: ApiGame,
  udpPort: () => number,
  udpStatus?: () => Record<string, unknown>,
): void {
  /**
   * What every way into the game answers: the session's token, its key (which tags
   * the ActionPackets that may move it, docs/protocol.md § 6.1) and where to send
   * datagrams. The request's source is kept: a spec-only client's UDP address
   * on the same source counts as proven (the TCP handshake came from there).
   */
  const joined = (session: Session, raw: IncomingMessage, reads: number): HttpReply => {
    game.admitted(session, source(raw), reads);
    return {
      body: {
        token: session.tokenHex,
        key: session.keyHex,
        entityId: session.entity.id,
        nick: session.nick,
        protocolVersion: PROTOCOL_VERSION,
        udpPort: udpPort(),
        // What the server will send this client of the additions it named (docs/protocol.md § 19.1).
        reads: readNames(reads),
      },
    };
  };
  /** The join request's `reads` (protocol/reads.ts), or 400 with the reason. */
  const readsField = (body: unknown): number => {
    try {
      return readsOf((body as Record<string, unknown>).reads);
    } catch (error) {
      throw new HttpError(400, (error as Error).message);
    }
  };
  const refusal = (error: unknown): never => {
    if (error instanceof JoinError || error instanceof AccountError) throw new HttpError(error.status, error.message);
    if (error instanceof QueueFullError) {
      throw new HttpError(503, "too many logins at once: try again in a moment", retryAfter(1));
    }
    if (error instanceof StoreUnavailableError) throw new HttpError(503, error.message, retryAfter(2));
    throw error;
  };

  // Password guessing and account spam (docs/server.md § HTTP limits): an account from one source, a
  // source at any names and an account from anywhere that keep failing must wait longer and longer —
  // the last two never at a source the account is played from (accounts/login-limits.ts); hashing runs
  // through a bounded queue; registrations are rationed per source.
  const limits = http.limits;
  const logins = new LoginLimits(
    {
      pairFailures: limits.loginFailuresBeforeBackoff,
      addressFailures: limits.addressFailuresBeforeBackoff,
      accountFailures: limits.accountFailuresBeforeBackoff,
      firstWaitMs: limits.loginBackoffFirstMs,
    },
    game.knownAddresses,
  );
  const hashing = new HashQueue(limits.hashConcurrency, limits.hashQueue);
  const registrations = new KeyedRateLimiter(
    limits.registrationsPerAddress / 3600,
    limits.registrationsPerAddress,
    100_000,
  );
  const guestJoins = new KeyedRateLimiter(limits.guestJoinsPerAddress / 60, limits.guestJoinsPerAddress, 100_000);
  const guardStats = { loginsHeldBack: 0, registrationsHeldBack: 0, guestJoinsHeldBack: 0, onlineHeldBack: 0 };
  // The client's address, behind trusted proxies too (edge/client-address.ts): the key of every limit here.
  const source = (raw: IncomingMessage) => addressKey(http.clientAddress(raw));
  // Who is playing, for the page's who's-online list: bounded and rationed per source (online-route.ts).
  installOnlineRoute(http, game.sessions, source, guardStats);
  /** A banned source gets 403 with the ban's reason and end, before anything else is done for it. */
  const refuseBanned = (raw: IncomingMessage): void => {
    const banned = game.admin.addressRefusal(http.clientAddress(raw));
    if (banned !== null) throw new HttpError(403, banned);
  };
  const wait = (ms: number, what: string): never => {
    const seconds = Math.ceil(ms / 1000);
    throw new HttpError(429, `too many failed logins ${what}: try again in ${seconds} s`, retryAfter(seconds));
  };

  // Body {"nick", "replaces"?}: `replaces` is the token of this client's previous guest
  // session (after a lost link), which ends now instead of lingering until eviction.
  http.route("POST", WAYS_IN.guest, ({ body, raw }) => {
    refuseBanned(raw);
    if (!guestJoins.take(source(raw), Date.now())) {
      guardStats.guestJoinsHeldBack++;
      throw new HttpError(
        429,
        "too many joins from this address: try again in a minute",
        retryAfter(60 / limits.guestJoinsPerAddress),
      );
    }
    const checked = checkNick(stringField(body, "nick"));
    if (!checked.ok) throw new HttpError(400, checked.reason);
    const appearance = appearanceField(body);
    const reads = readsField(body);
    const replaces = (body as Record<string, unknown>).replaces;
    if (replaces !== undefined) {
      if (typeof replaces !== "string" || !/^[0-9a-f]{16}$/i.test(replaces)) {
        throw new HttpError(400, '"replaces" must be the previous token (16 hex digits)');
      }
      const previous = game.sessions.byTokenValue(BigInt(`0x${replaces}`));
      if (previous && previous.accountId === null) game.leave(previous, "rejoined");
    }
    try {
      return joined(game.join(checked.nick, appearance), raw, reads);
    } catch (error) {
      return refusal(error);
    }
  });

  // Body {"name", "password", "nick"}: creates the account and its character, and plays it.
  http.route("POST", WAYS_IN.register, async ({ body, raw }) => {
    refuseBanned(raw);
    const name = stringField(body, "name");
    const password = stringField(body, "password");
    const nick = stringField(body, "nick");
    const appearance = appearanceField(body);
    const reads = readsField(body);
    // Rationed: accounts created per source. An attempt that creates none gives its token back.
    const from = source(raw);
    if (!registrations.take(from, Date.now())) {
      guardStats.registrationsHeldBack++;
      throw new HttpError(
        429,
        "too many registrations from this address: try again later",
        retryAfter(3600 / limits.registrationsPerAddress),
      );
    }
    try {
      const session = await hashing.run(() => game.accounts.register(name, password, nick, appearance));
      logins.registered(name, from, Date.now());
      return joined(session, raw, reads);
    } catch (error) {
      registrations.refund(from);
      return refusal(error);
    }
  });

  // Body {"name", "password"}: plays the account's character where it was saved,
  // replacing a session the account already has.
  http.route("POST", WAYS_IN.login, async ({ body, raw }) => {
    refuseBanned(raw);
    const name = stringField(body, "name");
    const password = stringField(body, "password");
    const appearance = appearanceField(body);
    const reads = readsField(body);
    const from = source(raw);
    const hold = logins.holdOf(name, from, Date.now());
    if (hold !== null) {
      guardStats.loginsHeldBack++;
      wait(hold.waitMs, hold.cause);
    }
    try {
      const session = await hashing.run(() => game.accounts.login(name, password, appearance));
      logins.succeeded(name, from, Date.now());
      return joined(session, raw, reads);
    } catch (error) {
      if (error instanceof AccountError && error.status === 401) logins.failed(name, from, Date.now());
      return refusal(error);
    }
  });

  // The map's own art, if it has any: its atlas at a content-hashed URL that /api/world names.
  installMapArtRoute(http, game.world.art);

  // Everything a client needs before its first datagram: the rules' tile data
  // (collision and looks, so prediction uses the server's exact table) and the world's extent.
  http.route("GET", "/api/world", () => ({ body: worldAnswer(game) }));

  // ?ticks=N narrows the tick and broadcast percentiles to the last N ticks (a benchmark's window).
  // The quests' texts a client's quest log shows: the `quests` TLV names quests by number and the catalogue's
  // version, and a client fetches this again when the version it holds is not the one a TLV names.
  http.route("GET", "/api/quests", () => ({ body: game.questCatalogue() }));
  http.route("GET", "/api/status", ({ raw }) => {
    const ticksParam = new URL(raw.url ?? "/", "http://localhost").searchParams.get("ticks");
    let ticks = TIMING_WINDOW_TICKS;
    if (ticksParam !== null) {
      ticks = Number(ticksParam);
      if (!/^\d+$/.test(ticksParam) || ticks < 1 || ticks > TIMING_WINDOW_TICKS) {
        throw new HttpError(400, `ticks must be an integer from 1 to ${TIMING_WINDOW_TICKS}`);
      }
    }
    const status = {
      ...game.status(ticks),
      playersByTransport: countByTransport(game.sessions.values()),
      http: {
        ...http.connections,
        ...guardStats,
        forwardedForUnreadable: http.clientAddresses.malformed,
        hashing: hashing.stats,
      },
    };
    return { body: udpStatus ? { ...status, udp: udpStatus() } : status };
  });

  const registry = metricsRegistry(game);
  http.route("GET", "/metrics", async () => ({ body: await registry.metrics(), contentType: registry.contentType }));
}

/** A join body's optional "appearance" (ts/appearance.ts): null when absent; 400 in words when not a look. */
function appearanceField(body: unknown): number | null {
  const value = typeof body === "object" && body !== null ? (body as Record<string, unknown>).appearance : undefined;
  const checked = checkAppearance(value);
  if (!checked.ok) throw new HttpError(400, checked.reason);
  return checked.value;
}

/**
 * GET /api/world's answer: everything a client needs before its first datagram — the rules' tile data
 * (collision and looks, so prediction uses the server's exact table), the world's extent, the kinds, the
 * items and the PvP rule. A replay's viewer (replay-viewer/) answers with the same.
 */
export function worldAnswer(game: Pick<ApiGame, "world" | "options" | "pvp">): Record<string, unknown> {
  const world = game.world;
  return {
    name: world.name,
    protocolVersion: PROTOCOL_VERSION,
    mapWidth: world.mapWidth,
    mapHeight: world.mapHeight,
    chunksX: world.chunksX,
    chunksY: world.chunksY,
    tickHz: game.options.tickHz,
    tiles: world.tileInfo,
    // The map's atlas (map-art-route.ts): null when the client draws the map with its own art.
    art: mapArtDescription(world.art),
    // What clients draw NPCs with: a kind's sprite, and its speed for a glide as long as its steps;
    // `look` when the kinds file names a tile of the map's own art (its atlas tile, and frames if animated).
    kinds: world.npcKinds.map(({ typeId, name, sprite, behaviour, speed, light }) => {
      const look = world.art?.kindLooks.get(typeId);
      return {
        typeId,
        name,
        sprite,
        behaviour,
        speed,
        ...(light ? { light } : {}),
        ...(look ? { look } : {}),
      };
    }),
    // What clients draw and explain items with (content/item-catalogue.ts): the whole catalogue, every number.
    // `light` only on an item that gives it (a torch): a client learns who carries light from the weapon TLV.
    items: world.items.map(({ id, name, kind, stack, sprite, damage, armor, heal, light }) => ({
      id,
      name,
      kind,
      stack,
      sprite,
      damage,
      armor,
      heal,
      ...(light ? { light } : {}),
    })),
    // Where players may fight each other (combat/pvp-rule.ts, content/safe-zones.ts): the switch and the safe rectangles.
    pvp: {
      enabled: game.pvp.enabled,
      safeZones: world.safeZones.map(({ x, y, width, height }) => ({ x, y, width, height })),
    },
  };
}
