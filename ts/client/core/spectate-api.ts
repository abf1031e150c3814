// Joining as a spectator (docs/server.md § Spectators): POST /api/spectate for a
// session with no body — entity id 0, the StatePackets name no own entity — then
// the same link as a player's. An admin sends its token; where the host lets
// anyone watch, none is needed. Uses the platform fetch, in Node and the browser.
import { PROTOCOL_VERSION } from "../../protocol/header.js";
import { CLIENT_READS } from "../../protocol/reads.js";
import type { GuestConnection, MakeTransport } from "./game-client.js";
import type { ReconnectFn } from "./session-link.js";
import {
  type FetchFn,
  fetchWorld,
  type GuestSession,
  parseSessionKey,
  parseToken,
  SessionError,
} from "./session-api.js";

/** What POST /api/spectate grants: a session, and the tile its camera starts at. */
export interface SpectatorSession extends GuestSession {
  readonly camera: { readonly x: number; readonly y: number };
}

/** What a spectator's join says: the admin token (absent: watching as anyone), and where to look first. */
export interface SpectateRequest {
  readonly adminToken?: string;
  readonly at?: { readonly x: number; readonly y: number };
  /** An entity to follow from the start (a page rejoining keeps following whom it followed). */
  readonly follow?: number;
}

/** Joins as a spectator. Throws SessionError on refusal (401 no or a wrong admin token, 403 not allowed, 503 full). */
export async function joinSpectator(
  baseUrl: string,
  request: SpectateRequest = {},
  fetchFn: FetchFn = fetch,
): Promise<SpectatorSession> {
  let response: Response;
  try {
    response = await fetchFn(`${baseUrl.replace(/\/+$/, "")}/api/spectate`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...(request.adminToken ? { authorization: `Bearer ${request.adminToken}` } : {}),
      },
      body: JSON.stringify({
        ...(request.at ?? {}),
        ...(request.follow ? { follow: request.follow } : {}),
        reads: CLIENT_READS,
      }),
    });
  } catch (error) {
    throw new SessionError(`spectate: ${String(error)}`, 0);
  }
  let body: Record<string, unknown>;
  try {
    body = (await response.json()) as Record<string, unknown>;
  } catch {
    throw new SessionError(`spectate: answer is not JSON (status ${response.status})`, response.status);
  }
  if (!response.ok) {
    const reason = typeof body.error === "string" ? body.error : `status ${response.status}`;
    throw new SessionError(`spectate: ${reason}`, response.status);
  }
  const camera = body.camera as { x?: unknown; y?: unknown } | undefined;
  if (
    body.protocolVersion !== PROTOCOL_VERSION ||
    typeof body.udpPort !== "number" ||
    typeof camera?.x !== "number" ||
    typeof camera.y !== "number"
  ) {
    throw new SessionError("spectate: the answer is not a spectator's join of this protocol", 0);
  }
  return {
    nick: "spectator",
    token: parseToken(body.token),
    key: parseSessionKey(body.key),
    entityId: 0,
    protocolVersion: PROTOCOL_VERSION,
    udpPort: body.udpPort,
    camera: { x: camera.x, y: camera.y },
  };
}

/**
 * Joins as a spectator and fetches the world, then opens the link; a lost link rejoins as a spectator again,
 * with `request` read again then (a host may give getters: where its camera is, whom it follows, by then).
 */
export async function connectSpectator(
  baseUrl: string,
  request: SpectateRequest,
  makeTransport: MakeTransport,
  fetchFn: FetchFn = fetch,
): Promise<GuestConnection & { session: SpectatorSession }> {
  const [session, world] = await Promise.all([joinSpectator(baseUrl, request, fetchFn), fetchWorld(baseUrl, fetchFn)]);
  const transport = await makeTransport(session);
  const reconnect: ReconnectFn = async () => {
    const next = await joinSpectator(baseUrl, request, fetchFn);
    return { session: next, transport: await makeTransport(next) };
  };
  return { session, world, transport, reconnect };
}
