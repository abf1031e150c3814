// GET /api/online (issue 18 item 8): who is playing, for the page's who's-online
// list. Public like /api/status, so it is bounded and rationed: at most
// ONLINE_NICKS_MAX nicks in the answer (the count is always the whole), and
// ONLINE_REQUESTS_PER_MINUTE per source (burst ONLINE_REQUESTS_BURST), each
// refused request a 429 with Retry-After. "Online" is what the other players
// were told: a session counts from its "joined" notice (its first bind) to its
// "left" one, so a join that never sent a datagram is not listed.
import type { IncomingMessage } from "node:http";
import { HttpError, type HttpApi } from "./http-api.js";
import { KeyedRateLimiter } from "../edge/rate-limit.js";
import type { Session } from "../sessions/session.js";

/** Most nicks one answer lists; the list is sorted, so a truncated one is the alphabet's start. */
export const ONLINE_NICKS_MAX = 100;
export const ONLINE_REQUESTS_PER_MINUTE = 30;
export const ONLINE_REQUESTS_BURST = 10;
/** Sources whose buckets are remembered (the oldest forgotten first), so a spoofing crowd cannot grow memory. */
const ONLINE_SOURCES_MAX = 10_000;

export interface OnlineList {
  /** Players online in all. */
  readonly count: number;
  /** Their nicks, sorted, at most ONLINE_NICKS_MAX. */
  readonly nicks: string[];
  /** Whether nicks lists fewer than count. */
  readonly truncated: boolean;
}

/** The sessions the route reads: nick and whether the others were told it joined. */
export interface OnlineSessions {
  values(): IterableIterator<Pick<Session, "nick" | "announced">>;
}

/** Who is online among `sessions`, listing at most `max` nicks. */
export function onlineList(sessions: OnlineSessions, max = ONLINE_NICKS_MAX): OnlineList {
  const nicks: string[] = [];
  for (const session of sessions.values()) if (session.announced) nicks.push(session.nick);
  nicks.sort((a, b) => a.localeCompare(b, "en"));
  const count = nicks.length;
  if (count > max) nicks.length = max;
  return { count, nicks, truncated: count > max };
}

/** Installs GET /api/online; `source` names a request's source (the rationing key). */
export function installOnlineRoute(
  http: HttpApi,
  sessions: OnlineSessions,
  source: (raw: IncomingMessage) => string,
  stats: { onlineHeldBack: number },
): void {
  const requests = new KeyedRateLimiter(ONLINE_REQUESTS_PER_MINUTE / 60, ONLINE_REQUESTS_BURST, ONLINE_SOURCES_MAX);
  http.route("GET", "/api/online", ({ raw }) => {
    if (!requests.take(source(raw), Date.now())) {
      stats.onlineHeldBack++;
      throw new HttpError(429, "too many requests for the online list: try again in a few seconds", {
        "retry-after": String(Math.ceil(60 / ONLINE_REQUESTS_PER_MINUTE)),
      });
    }
    return { body: onlineList(sessions) };
  });
}
