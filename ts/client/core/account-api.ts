// Playing an account (docs/persistence.md § Account API): POST /api/register
// {name, password, nick} creates the account and plays its fresh character;
// POST /api/login {name, password} plays it where it was last saved (and ends a
// session the account already has). Both answer like /api/guest, so the result
// is the same session a guest gets. The password travels only in these HTTP(S)
// bodies, never in a datagram. Refusals are SessionErrors carrying the HTTP
// status: 400 bad input, 401 wrong name or password, 403 banned, 409 name
// taken, 503 full; 0 when the server could not be reached or made no sense.
import { CLIENT_READS } from "../../protocol/reads.js";
import { PROTOCOL_VERSION } from "../../protocol/header.js";
import type { GuestConnection, MakeTransport, ReconnectFn } from "./game-client.js";
import {
  type FetchFn,
  fetchWorld,
  type GuestSession,
  parseGateways,
  parseSessionKey,
  parseToken,
  SessionError,
} from "./session-api.js";

/** `appearance`: the look chosen on the join card (ts/appearance.ts); a login that gives one keeps it from then on. */
export type AccountRequest =
  | { readonly kind: "login"; readonly name: string; readonly password: string; readonly appearance?: number }
  | {
      readonly kind: "register";
      readonly name: string;
      readonly password: string;
      readonly nick: string;
      readonly appearance?: number;
    };

function endpoint(baseUrl: string, kind: AccountRequest["kind"]): string {
  return `${baseUrl.replace(/\/+$/, "")}/api/${kind}`;
}

/**
 * Registers or logs in. The session's `nick` is the answer's `nick` if the
 * server sends one; else the nick registered, or for a login the account name
 * (the player's entity carries the nick, and the client learns it by name lookup).
 */
export async function joinAccount(
  baseUrl: string,
  request: AccountRequest,
  fetchFn: FetchFn = fetch,
): Promise<GuestSession> {
  const what = request.kind;
  // Both announce what this client reads beyond the seed's packets (docs/protocol.md § 19.1).
  const body =
    request.kind === "register"
      ? {
          name: request.name,
          password: request.password,
          nick: request.nick,
          appearance: request.appearance,
          reads: CLIENT_READS,
        }
      : { name: request.name, password: request.password, appearance: request.appearance, reads: CLIENT_READS };
  let response: Response;
  try {
    response = await fetchFn(endpoint(baseUrl, what), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  } catch (error) {
    throw new SessionError(`${what}: ${String(error)}`, 0);
  }
  let answer: unknown;
  try {
    answer = await response.json();
  } catch {
    throw new SessionError(`${what}: answer is not JSON (status ${response.status})`, response.status);
  }
  if (typeof answer !== "object" || answer === null) throw new SessionError(`${what}: answer is not an object`, 0);
  const record = answer as Record<string, unknown>;
  if (!response.ok) {
    const reason = typeof record.error === "string" ? record.error : `status ${response.status}`;
    throw new SessionError(`${what}: ${reason}`, response.status);
  }
  const integer = (name: string): number => {
    const value = record[name];
    if (typeof value !== "number" || !Number.isInteger(value)) throw new SessionError(`${what}: ${name} is missing`, 0);
    return value;
  };
  const protocolVersion = integer("protocolVersion");
  if (protocolVersion !== PROTOCOL_VERSION) {
    throw new SessionError(`${what}: server speaks protocol ${protocolVersion}, this client ${PROTOCOL_VERSION}`, 0);
  }
  // A server that names the nick in its answer is believed; otherwise the nick asked for, or the account name.
  const nick =
    typeof record.nick === "string" ? record.nick : request.kind === "register" ? request.nick : request.name;
  return {
    nick: nick.trim(),
    token: parseToken(record.token),
    key: parseSessionKey(record.key),
    entityId: integer("entityId"),
    protocolVersion,
    udpPort: integer("udpPort"),
    gateways: parseGateways(record.gateways, what),
  };
}

/**
 * Registers or logs in, fetches the world and opens the link: everything
 * GameClient.create needs but a core. Its reconnect logs in again with the same
 * name and password (kept in this closure only), which replaces the lost session.
 */
export async function connectAccount(
  baseUrl: string,
  request: AccountRequest,
  makeTransport: MakeTransport,
  fetchFn: FetchFn = fetch,
): Promise<GuestConnection> {
  const [session, world] = await Promise.all([joinAccount(baseUrl, request, fetchFn), fetchWorld(baseUrl, fetchFn)]);
  const transport = await makeTransport(session);
  const login: AccountRequest = { kind: "login", name: request.name, password: request.password };
  const reconnect: ReconnectFn = async () => {
    const next = await joinAccount(baseUrl, login, fetchFn);
    return { session: next, transport: await makeTransport(next) };
  };
  return { session, world, transport, reconnect };
}
