// The console's Recordings tab at a gateway (docs/recording.md § The Recordings tab at a gateway): each region
// records, cuts and replays its own files (region.ts serves one process's routes over them), and a gateway
// passes an operator's request on to the region it names. The JSON routes — the list, a cut, a Watch, the
// viewers — are put together with the rest of the admin API (admin-fanout.ts); what is streamed is passed on
// here as it comes: a recording's download (`/api/admin/recordings/file?region=N&name=…`, a gigabyte perhaps)
// and a replay viewer's page, files, controls and WebSocket (`/api/admin/viewers/rN-…/…`: a viewer's id names
// the region running it, so any gateway finds it without keeping anything). The login is passed on with them:
// the region checks it, and logs what is done.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { answerError, headersPassedOn, passRequestOn, passUpgradeOn, refuseUpgrade } from "../server/http/pass-on.js";
import { VIEWERS_PATH } from "../server/replay-viewer/viewer-pool.js";

/** A recording's download: streamed from the region it names. */
const FILE_PATH = "/api/admin/recordings/file";
/** A viewer's own paths: /api/admin/viewers/rN-ID/… (the id a region's viewer pool gives: `r${region}-…`). */
const VIEWER_PAGE = new RegExp(`^${VIEWERS_PATH}/r(\\d{1,4})-[0-9a-f]+/`);
/** Nothing is withheld from a region: it checks the login (and the Origin, against the gateway's Host) itself. */
const NOTHING_WITHHELD: ReadonlySet<string> = new Set();

/** A region's HTTP base, e.g. http://127.0.0.1:41479. */
export type RegionBases = ReadonlyMap<number, string>;

/** The region a viewer's id names (`r1-…` → 1), or null for an id that names none. */
export function regionOfViewer(id: string): number | null {
  const match = /^r(\d{1,4})-[0-9a-f]+$/.exec(id);
  return match === null ? null : Number(match[1]);
}

/** The region `?region=N` names (0 when absent), or a refusal naming the regions there are. */
export function regionAsked(url: URL, regions: readonly number[]): number | { error: string } {
  const asked = url.searchParams.get("region") ?? "0";
  const region = regions.find((r) => String(r) === asked);
  if (region === undefined) {
    return { error: `region must be one of ${regions.join(", ")}, got ${JSON.stringify(asked)}` };
  }
  return region;
}

/**
 * Passes a streamed request (a download, a viewer's page) on to its region; false when `req` is not one. The
 * gateway's own checks have been made (an Origin refused at its door: http-api.ts).
 */
export function passRecordingRequest(req: IncomingMessage, res: ServerResponse, bases: RegionBases): boolean {
  const url = new URL(req.url ?? "/", "http://localhost");
  let region: number | null;
  if (url.pathname === FILE_PATH && req.method === "GET") {
    const asked = regionAsked(
      url,
      [...bases.keys()].sort((a, b) => a - b),
    );
    if (typeof asked !== "number") {
      answerError(res, 400, asked.error);
      return true;
    }
    region = asked;
  } else {
    const viewer = VIEWER_PAGE.exec(url.pathname);
    if (viewer === null) return false;
    region = Number(viewer[1]);
  }
  const base = bases.get(region);
  if (base === undefined) {
    answerError(res, 503, `region ${region} is not linked to this gateway: try again in a moment`);
    return true;
  }
  passRequestOn(targetOf(base, req, false), req, res, `region ${region}`);
  return true;
}

/** Passes a replay viewer's WebSocket upgrade on to its region; false when `req` is not one. */
export function passRecordingUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, bases: RegionBases): boolean {
  const viewer = VIEWER_PAGE.exec(new URL(req.url ?? "/", "http://localhost").pathname);
  if (viewer === null) return false;
  const base = bases.get(Number(viewer[1]));
  if (base === undefined) refuseUpgrade(socket, 503, "Service Unavailable");
  else passUpgradeOn(targetOf(base, req, true), socket, head);
  return true;
}

function targetOf(base: string, req: IncomingMessage, upgrade: boolean) {
  const { hostname, port } = new URL(base);
  return {
    host: hostname,
    port: Number(port),
    path: req.url ?? "/",
    headers: headersPassedOn(req.headers, NOTHING_WITHHELD, upgrade),
  };
}
