// The admin API of a cluster (docs/scaling.md § Admin in a cluster): an operator talks to any gateway,
// which passes the request on to the regions' own admin routes (admin/admin-routes.ts, the same token,
// checked and logged by every region) and puts their answers together. The players are spread over the
// regions, so "players" and "log" ask every region and merge; "kick", "mute" and "unmute" first find the
// one player meant in every region's list (a nick shared by players of two regions is refused, 409, as in
// one process) and then send the request, by entity id, to every region — the one holding the player now
// acts (a handoff between the two steps only moves which one), the others answer 404. "announce" goes to
// region 0, whose chat relay (chat-relay.ts) carries the line to every region. A ban is kept by one region
// in the shared store and its sessions ended in every region (banEverywhere, cluster-bans.ts); unban and
// the list of bans go to region 0, which reads and writes the same store. The recordings are each region's
// own: listed together, cut and watched in the region named (gateway-recordings.ts).

import { sameNick } from "../server/admin/admin-service.js";
import { CONSOLE_CREATURES_MAX } from "../server/http/console-world-answer.js";
import { VIEWERS_PATH } from "../server/replay-viewer/viewer-pool.js";
import { regionAsked, regionOfViewer } from "./gateway-recordings.js";

/** An admin request as the gateway received it. */
export interface AdminRequest {
  method: string;
  /** Path and query, e.g. /api/admin/log?limit=20. */
  url: string;
  authorization: string | undefined;
  /** The JSON body of a POST, as text. */
  body: string | undefined;
}

export interface AdminAnswer {
  status: number;
  body: unknown;
}

/** A region's HTTP base, e.g. http://127.0.0.1:41479. */
export interface AdminRegion {
  region: number;
  httpBase: string;
}

/** A recording's cut and its Watch: done by the region `?region=N` names, whose file it is. */
const ONE_REGION_RECORDINGS = new Set(["/api/admin/recordings/cut", "/api/admin/recordings/watch"]);
const EVERY_REGION_READS = new Set(["/api/admin/players", "/api/admin/log", "/api/admin/world", "/api/admin/chat"]);
const ONE_PLAYER = new Set([
  "/api/admin/kick",
  "/api/admin/mute",
  "/api/admin/unmute",
  "/api/admin/message",
  "/api/admin/teleport",
]);

/** Passes `request` on to `regions` (every region of the world, region 0 first) and answers as one server would. */
export async function adminFanOut(request: AdminRequest, regions: readonly AdminRegion[]): Promise<AdminAnswer> {
  const url = new URL(request.url, "http://localhost");
  const path = url.pathname;
  if (EVERY_REGION_READS.has(path)) {
    const answers = await everywhere(request, regions);
    const failed = firstFailure(answers);
    if (failed !== undefined) return failed;
    if (path === "/api/admin/players") {
      return { status: 200, body: { players: answers.flatMap((a) => listOf(a, "players")) } };
    }
    if (path === "/api/admin/world") return { status: 200, body: wholeWorld(answers) };
    if (path === "/api/admin/chat") {
      // Each region keeps the lines said in it (relayed lines are heard, not kept): the world's chat is their
      // union, newest first, each line with the region it was said in.
      const limit = Number(url.searchParams.get("limit") ?? "100");
      const lines = answers.flatMap((a) => listOf(a, "lines"));
      lines.sort((a, b) => Number(b.atMs) - Number(a.atMs));
      return { status: 200, body: { lines: lines.slice(0, limit) } };
    }
    const limit = Number(url.searchParams.get("limit") ?? "50");
    const entries = answers.flatMap((a) => listOf(a, "entries"));
    entries.sort((a, b) => Number(b.atMs) - Number(a.atMs));
    return { status: 200, body: { entries: entries.slice(0, limit) } };
  }
  if (ONE_PLAYER.has(path) && request.method === "POST") return onePlayer(request, regions);
  // One entity, described by the region that owns it (the others list it, if at all, as a ghost they do not).
  if (path === "/api/admin/entity") {
    const answers = await everywhere(request, regions);
    const owner = answers.find((a) => a.status === 200);
    if (owner !== undefined) return { status: 200, body: { ...(owner.body as object), region: owner.region } };
    return firstFailure(answers.filter((a) => a.status !== 404)) ?? answers[0];
  }
  if (path === "/api/admin/ban" && request.method === "POST") return banEverywhere(request, regions);
  // A region's health graphs (the console's Health tab): each region samples its own process, on its own
  // times, so the histories are not added up but shown one region at a time, `?region=N` (0 by default).
  // A region's recordings are its own too (gateway-recordings.ts): cut and watched where they are.
  if (path === "/api/admin/history" || (request.method === "POST" && ONE_REGION_RECORDINGS.has(path))) {
    return inRegion(
      request,
      regions,
      regionAsked(
        url,
        regions.map((r) => r.region),
      ),
    );
  }
  // Every region's recordings and replay viewers in one list, each with its region, newest first.
  if (path === "/api/admin/recordings" && request.method === "GET") {
    const answers = await everywhere(request, regions);
    const failed = firstFailure(answers);
    if (failed !== undefined) return failed;
    const recordings = answers.flatMap((a) => listOf(a, "recordings"));
    recordings.sort(
      (a, b) => String(b.modified).localeCompare(String(a.modified)) || String(a.name).localeCompare(String(b.name)),
    );
    return { status: 200, body: { dir: (answers[0].body as { dir?: unknown }).dir, recordings } };
  }
  if (path === VIEWERS_PATH && request.method === "GET") {
    const answers = await everywhere(request, regions);
    return firstFailure(answers) ?? { status: 200, body: { viewers: answers.flatMap((a) => listOf(a, "viewers")) } };
  }
  // A viewer is stopped by the region its id names (`r1-…`).
  if (path === `${VIEWERS_PATH}/stop` && request.method === "POST") {
    const id = objectOf(request)?.id;
    const region = typeof id === "string" ? regionOfViewer(id) : null;
    return inRegion(
      request,
      regions,
      region ?? { error: `no replay viewer ${JSON.stringify(id ?? null)}`, status: 404 },
    );
  }
  // announce, unban, bans (kept in the shared store: any region reads and writes it), and whatever
  // region 0 says of a route it does not have.
  const [answer] = await everywhere(request, regions.slice(0, 1));
  return answer;
}

/** `request` answered by region `asked` alone, its answer naming the region; or the refusal `asked` is. */
async function inRegion(
  request: AdminRequest,
  regions: readonly AdminRegion[],
  asked: number | { error: string; status?: number },
): Promise<AdminAnswer> {
  const region = typeof asked === "number" ? regions.find((r) => r.region === asked) : undefined;
  if (region === undefined) {
    const refusal = typeof asked === "number" ? { error: `region ${asked} is not linked`, status: 503 } : asked;
    return { status: refusal.status ?? 400, body: { error: refusal.error } };
  }
  const [answer] = await everywhere(request, [region]);
  return answer.status === 200 ? { status: 200, body: { ...(answer.body as object), region: region.region } } : answer;
}

/**
 * The console's world (http/admin-console.ts) from every region's answer: each lists its own players and
 * creatures and its ground, so the whole world is their union, with the borders between the regions' grounds;
 * the tick and the map are region 0's (every region runs the world's one clock on the one map). The creatures
 * listed stay within one process's limit (CONSOLE_CREATURES_MAX), the count says the rest.
 */
function wholeWorld(answers: readonly (AdminAnswer & { region: number })[]): Record<string, unknown> {
  const bodies = answers.map((a) => a.body as Record<string, unknown>);
  // Creatures are compact rows ([id, x, y, hp, hpMax, typeId]), kept as they are.
  const creatures = bodies.flatMap((body) => (Array.isArray(body.creatures) ? (body.creatures as unknown[]) : []));
  const counted = bodies.reduce((sum, body) => sum + Number(body.creatureCount ?? 0), 0);
  return {
    tick: bodies[0].tick,
    map: bodies[0].map,
    players: answers.flatMap((a) => listOf(a, "players")),
    creatures: creatures.slice(0, CONSOLE_CREATURES_MAX),
    creatureCount: counted,
    kinds: Object.assign({}, ...bodies.map((body) => body.kinds ?? {})) as object,
    regions: answers.flatMap((a) => listOf(a, "regions")),
  };
}

async function onePlayer(request: AdminRequest, regions: readonly AdminRegion[]): Promise<AdminAnswer> {
  const body = objectOf(request);
  if (body === null) return NOT_AN_OBJECT;
  const found = await findPlayer(request, body, regions);
  if ("status" in found) return found;
  const answers = await everywhere({ ...request, body: found.byId }, regions);
  const done = answers.find((a) => a.status === 200);
  // Which region acted: a cluster's answer says so, beside what one server's says.
  if (done !== undefined) return { status: 200, body: { ...(done.body as object), region: done.region } };
  return firstFailure(answers.filter((a) => a.status !== 404)) ?? answers[0];
}

/**
 * A ban (cluster-bans.ts): kept by one region — region 0 for an account or an address named, the region
 * holding the player for one named by nick or entity id — which ends the sessions it covers there and
 * answers with its reach; then every other region ends those it covers (an address's players may be
 * anywhere, an account's may be on its way across a border). The answer is one process's, with every
 * region's kicks, the region that kept it and the regions that could not be asked (if any).
 */
async function banEverywhere(request: AdminRequest, regions: readonly AdminRegion[]): Promise<AdminAnswer> {
  const body = objectOf(request);
  if (body === null) return NOT_AN_OBJECT;
  let kept: AdminAnswer & { region: number };
  if (
    body.account !== undefined ||
    body.address !== undefined ||
    (body.nick === undefined && body.entityId === undefined)
  ) {
    // Named outright (or not at all: region 0 says what is wrong, as one server would).
    [kept] = await everywhere(request, regions.slice(0, 1));
  } else {
    const found = await findPlayer(request, body, regions);
    if ("status" in found) return found;
    const answers = await everywhere({ ...request, body: found.byId }, regions);
    kept = answers.find((a) => a.status === 200) ?? firstFailure(answers.filter((a) => a.status !== 404)) ?? answers[0];
  }
  if (kept.status !== 200) return kept;
  const { reach, ...answer } = kept.body as { reach?: unknown; kicked?: unknown };
  const others = regions.filter((r) => r.region !== kept.region);
  const ended = await everywhere(
    { ...request, url: "/api/admin/end-banned", body: JSON.stringify(reach ?? null) },
    others,
  );
  const kicked = [
    ...(Array.isArray(answer.kicked) ? answer.kicked : []),
    ...ended.flatMap((a) => (a.status === 200 ? ((a.body as { kicked?: unknown[] }).kicked ?? []) : [])),
  ];
  const notReached = ended.filter((a) => a.status !== 200).map((a) => a.region);
  return {
    status: 200,
    body: {
      ...answer,
      kicked,
      region: kept.region,
      ...(notReached.length > 0 ? { regionsNotReached: notReached } : {}),
    },
  };
}

/** The one player in play a request names (nick or entity id) across `regions`, or the answer saying why not. */
async function findPlayer(
  request: AdminRequest,
  body: Record<string, unknown>,
  regions: readonly AdminRegion[],
): Promise<AdminAnswer | { byId: string }> {
  const lists = await everywhere({ ...request, method: "GET", url: "/api/admin/players", body: undefined }, regions);
  const failed = firstFailure(lists);
  if (failed !== undefined) return failed;
  const players = lists.flatMap((a) => listOf(a, "players"));
  const { nick, entityId } = body;
  const byEntity = typeof entityId === "number" && Number.isInteger(entityId) && entityId > 0;
  const byNick = entityId === undefined && typeof nick === "string" && nick.trim() !== "";
  if (!byEntity && !byNick) {
    // Let a region say what is wrong with the request (400), as one server would.
    const [answer] = await everywhere(request, regions.slice(0, 1));
    return answer;
  }
  const found = byEntity
    ? players.filter((p) => p.entityId === entityId)
    : players.filter((p) => sameNick(String(p.nick), (nick as string).trim()));
  if (found.length === 0) {
    const who = byEntity ? `with entity id ${entityId as number}` : `"${nick as string}"`;
    return { status: 404, body: { error: `no player ${who} is in play` } };
  }
  if (found.length > 1) {
    const ids = found.map((p) => p.entityId).join(", ");
    return {
      status: 409,
      body: { error: `${found.length} players are called "${String(nick)}": use entityId (${ids})` },
    };
  }
  return { byId: JSON.stringify({ ...body, nick: undefined, entityId: found[0].entityId }) };
}

const NOT_AN_OBJECT: AdminAnswer = { status: 400, body: { error: "the body must be a JSON object" } };

/** A POST's body as a JSON object, or null when it is not one. */
function objectOf(request: AdminRequest): Record<string, unknown> | null {
  try {
    const parsed: unknown = JSON.parse(request.body ?? "");
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) return null;
    return parsed as Record<string, unknown>;
  } catch {
    return null;
  }
}

/** `request` sent to each of `regions`, answers in the same order; a region that does not answer is a 502. */
async function everywhere(
  request: AdminRequest,
  regions: readonly AdminRegion[],
): Promise<(AdminAnswer & { region: number })[]> {
  return Promise.all(
    regions.map(async ({ region, httpBase }) => {
      try {
        const answer = await fetch(`${httpBase}${request.url}`, {
          method: request.method,
          headers: {
            "content-type": "application/json",
            ...(request.authorization === undefined ? {} : { authorization: request.authorization }),
          },
          body: request.method === "POST" ? request.body : undefined,
          signal: AbortSignal.timeout(5000),
        });
        const text = await answer.text();
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          body = { error: text };
        }
        return { region, status: answer.status, body };
      } catch {
        return { region, status: 502, body: { error: `region ${region} did not answer` } };
      }
    }),
  );
}

/** The first answer that is not a 200 (an unauthorised request is refused by every region alike). */
function firstFailure<T extends AdminAnswer>(answers: readonly T[]): T | undefined {
  return answers.find((a) => a.status !== 200);
}

/** The list under `key` of a region's answer, each entry marked with the region. */
function listOf(answer: AdminAnswer & { region: number }, key: string): Record<string, unknown>[] {
  const list = (answer.body as Record<string, unknown> | null)?.[key];
  if (!Array.isArray(list)) return [];
  return list.map((entry: Record<string, unknown>) => ({ ...entry, region: answer.region }));
}
