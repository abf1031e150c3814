// POST /api/spectate (issue 40): joins a spectator — a session with no body that
// watches the live world from a camera over the same transports as a player
// (docs/server.md § Spectators). Who may: an admin (its token, as the admin API
// takes it) always; anyone when the host says so (`--spectators anyone`); no
// one with `--spectators off`. The answer is a join's: a token, a key, the UDP
// port, with entity id 0 (no body) and where the camera starts.
import type { IncomingMessage } from "node:http";
import { PROTOCOL_VERSION } from "../../protocol/header.js";
import { readNames, readsOf } from "../../protocol/reads.js";
import type { AdminService } from "../admin/admin-service.js";
import { addressKey } from "../edge/address-key.js";
import { KeyedRateLimiter } from "../edge/rate-limit.js";
import { JoinError } from "../sessions/join-error.js";
import type { Session } from "../sessions/session.js";
import type { AdminAuthorizer } from "./admin-routes.js";
import { HttpError, type HttpApi } from "./http-api.js";

/** Who may spectate (`--spectators`): anyone, admins only (the default), or no one. */
export const SPECTATOR_POLICIES = ["anyone", "admin", "off"] as const;
export type SpectatorPolicy = (typeof SPECTATOR_POLICIES)[number];
export const DEFAULT_SPECTATOR_POLICY: SpectatorPolicy = "admin";

/** What the route uses of the game (the Game is one). */
export interface SpectateGame {
  spectate(at: { x: number; y: number } | null, joinSource: string, reads: number, followEntityId: number): Session;
  /** Address bans: a banned source may not watch either. */
  readonly admin: Pick<AdminService, "addressRefusal">;
}

export interface SpectateRouteOptions {
  readonly policy: SpectatorPolicy;
  /** The admin token's check (admin-routes.ts), or null when the host gave no admin token. */
  readonly authorize: AdminAuthorizer | null;
  readonly udpPort: () => number;
  /** Joins per minute per source for those who watch without a token (the guest joins' ration). */
  readonly joinsPerMinute: number;
}

/** Installs POST /api/spectate: body `{"x"?, "y"?, "follow"?, "reads"?}`. */
export function installSpectateRoute(http: HttpApi, game: SpectateGame, options: SpectateRouteOptions): void {
  const { policy, authorize } = options;
  const joins = new KeyedRateLimiter(options.joinsPerMinute / 60, options.joinsPerMinute, 100_000);
  const source = (raw: IncomingMessage) => addressKey(http.clientAddress(raw));
  http.route("POST", "/api/spectate", ({ body, raw }) => {
    if (policy === "off") throw new HttpError(403, "spectating is off on this server");
    const banned = game.admin.addressRefusal(http.clientAddress(raw));
    if (banned !== null) throw new HttpError(403, banned);
    const presentsToken = raw.headers.authorization !== undefined;
    if (policy === "admin" || presentsToken) {
      // An admin's token is checked (and a wrong one refused and logged) whenever one is presented.
      if (authorize === null)
        throw new HttpError(403, "spectating is for admins here, and this server has no admin token");
      authorize(raw, "spectate");
    } else if (!joins.take(source(raw), Date.now())) {
      throw new HttpError(429, "too many spectator joins from this address: try again in a minute", {
        "retry-after": String(Math.max(1, Math.ceil(60 / options.joinsPerMinute))),
      });
    }
    const at = cameraField(body);
    let reads: number;
    try {
      reads = readsOf((body as Record<string, unknown>).reads);
    } catch (error) {
      throw new HttpError(400, (error as Error).message);
    }
    let session: Session;
    try {
      session = game.spectate(at, source(raw), reads, followField(body));
    } catch (error) {
      if (error instanceof JoinError) throw new HttpError(error.status, error.message);
      throw error;
    }
    return {
      body: {
        token: session.tokenHex,
        key: session.keyHex,
        // No body: the StatePackets name entity 0 as the client's own (docs/protocol.md § 12.3).
        entityId: session.entity.id,
        spectator: true,
        camera: { x: session.entity.x, y: session.entity.y },
        protocolVersion: PROTOCOL_VERSION,
        udpPort: options.udpPort(),
        reads: readNames(reads),
      },
    };
  });
}

/** The body's optional camera tile: both `x` and `y` as integers, or neither (null); 400 otherwise. */
function cameraField(body: unknown): { x: number; y: number } | null {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new HttpError(400, "request body must be a JSON object");
  }
  const { x, y } = body as Record<string, unknown>;
  if (x === undefined && y === undefined) return null;
  if (!Number.isSafeInteger(x) || !Number.isSafeInteger(y)) {
    throw new HttpError(400, '"x" and "y" must be whole numbers, given together (the tile the camera looks at)');
  }
  return { x: x as number, y: y as number };
}

/** The body's optional entity to follow from the start: a positive whole number, or 0 when absent; 400 otherwise. */
function followField(body: unknown): number {
  const follow = (body as Record<string, unknown>).follow;
  if (follow === undefined) return 0;
  if (!Number.isSafeInteger(follow) || (follow as number) < 1 || (follow as number) > 0xffffffff) {
    throw new HttpError(400, '"follow" must be an entity id (a whole number from 1)');
  }
  return follow as number;
}
