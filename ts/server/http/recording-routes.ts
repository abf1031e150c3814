// The flight recorder's recordings through the admin API (docs/recording.md § Through the admin API),
// behind the admin token like every /api/admin route:
//   GET  /api/admin/recordings                 the recordings in the folder and its cuts/, newest first
//   GET  /api/admin/recordings/file?name=NAME  one of them, streamed (a bug report's attachment)
//   POST /api/admin/recordings/cut             the minutes around a moment, cut into cuts/ (the same cut
//                                              as `npm run -s replay -- cut`: recording/cut.ts)
// A cut reads the recording a block at a time with asynchronous reads and inflates on libuv's thread pool,
// so the world's tick goes on while an operator cuts the recording it is writing. One cut at a time; each
// is in the admin log. Names are looked up in the two folders, never joined into a path as given.
import { mkdirSync, readdirSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import type { IncomingMessage } from "node:http";
import { RecordingError } from "../recording/bytes.js";
import { CutRequestError, cutFile, cutWindow, summarizeFile } from "../recording/cut.js";
import { fileSource, readHeader, type RecordingHeader } from "../recording/format.js";
import { RECORDING_SUFFIX } from "../recording/recording-files.js";
import { type HttpApi, HttpError } from "./http-api.js";
import { type AdminAuthorizer, objectBody, optionalNumber, optionalText } from "./admin-routes.js";
import { AdminError } from "../admin/admin-service.js";

/** Where cuts go, inside the recordings' folder: never pruned (a bug report's evidence is the host's to delete). */
export const CUTS_FOLDER = "cuts";
/** What a recording's name may be: a file name of the folder, no path. */
const NAME = new RegExp(`^[A-Za-z0-9][A-Za-z0-9._-]{0,200}\\${RECORDING_SUFFIX}$`);

export interface RecordingRoutesOptions {
  /** The recordings' folder (--record DIR). */
  readonly dir: string;
  /** The recording being written now (its path), or null. */
  readonly live: () => string | null;
  /** Writes a done action to the admin log (AdminService.noted). */
  readonly noted: (action: string, request: Record<string, unknown>, result: Record<string, unknown>) => void;
  /**
   * Which files of the folder are this server's (a cluster's region: its own, `caves-rN-…`, of a folder the
   * regions share); absent: all of them.
   */
  readonly owns?: (name: string) => boolean;
}

/** One recording as listed. */
export interface RecordingListing {
  readonly name: string;
  /** "" for the folder, "cuts" for a cut. */
  readonly folder: string;
  readonly bytes: number;
  readonly modified: string;
  readonly live: boolean;
  readonly startedAt?: string;
  readonly map?: string;
  readonly window?: RecordingHeader["window"];
  /** Why its header could not be read (a foreign or damaged file). */
  readonly error?: string;
}

export function installRecordingRoutes(
  http: HttpApi,
  authorize: AdminAuthorizer,
  options: RecordingRoutesOptions,
): void {
  const cutsDir = join(options.dir, CUTS_FOLDER);
  let cutting = false;

  const owns = options.owns ?? (() => true);
  const find = (name: unknown) => findRecording(options.dir, name, owns);

  http.route("GET", "/api/admin/recordings", ({ raw }) => {
    authorize(raw, "recordings");
    const live = options.live();
    const listed = [
      ...names(options.dir, owns).map((name) => listing(options.dir, "", name, live)),
      ...names(cutsDir, owns).map((name) => listing(cutsDir, CUTS_FOLDER, name, live)),
    ].sort((a, b) => b.modified.localeCompare(a.modified) || a.name.localeCompare(b.name));
    return { body: { dir: options.dir, recordings: listed } };
  });

  http.route("GET", "/api/admin/recordings/file", ({ raw }) => {
    authorize(raw, "recording download");
    const name = queryOf(raw).get("name");
    const found = find(name ?? undefined);
    return {
      body: null,
      file: { path: found.path, bytes: found.bytes },
      headers: { "content-disposition": `attachment; filename="${basename(found.path)}"` },
    };
  });

  http.route("POST", "/api/admin/recordings/cut", async ({ body, raw }) => {
    authorize(raw, "recording cut");
    let request;
    let moment;
    try {
      // The admin API's own reading of a body (one wording for every route's bad input).
      request = objectBody(body);
      moment = {
        at: optionalText(request, "at"),
        atTick: optionalNumber(request, "atTick"),
        beforeS: optionalNumber(request, "before"),
        afterS: optionalNumber(request, "after"),
      };
    } catch (error) {
      if (error instanceof AdminError) throw new HttpError(error.status, error.message);
      throw error;
    }
    const live = options.live();
    const name = request.name ?? (live === null ? undefined : basename(live));
    if (name === undefined) throw new HttpError(400, 'no recording is being written: give "name"');
    const source = find(name);
    if (cutting) throw new HttpError(409, "a cut is being made: one at a time");
    cutting = true;
    try {
      const summary = await summarizeFile(source.path);
      const window = cutWindow(summary, moment);
      mkdirSync(cutsDir, { recursive: true });
      const out = join(
        cutsDir,
        freeName(cutsDir, `${basename(source.path, RECORDING_SUFFIX)}-t${window.fromTick}-${window.toTick}`),
      );
      const written = await cutFile(source.path, summary, { fromTick: window.fromTick, toTick: window.toTick }, out);
      const result = {
        name: basename(out),
        folder: CUTS_FOLDER,
        from: basename(source.path),
        atTick: window.at,
        fromTick: window.fromTick,
        toTick: written.toTick,
        blocks: written.blocks,
        bytes: written.bytes,
      };
      options.noted("recording cut", { name: basename(source.path), ...moment }, result);
      return { body: { action: "recording cut", ...result } };
    } catch (error) {
      if (error instanceof CutRequestError) throw new HttpError(400, error.message);
      if (error instanceof RecordingError) throw new HttpError(422, error.message);
      throw error;
    } finally {
      cutting = false;
    }
  });
}

/**
 * The recording called `name` in the recordings' folder `dir` or its cuts (of those `owns` accepts): its path,
 * folder ("" or "cuts") and size. A 400 for a name that is not a recording's file name, a 404 when there is
 * none: a name is looked up among the files there, never joined into a path as given.
 */
export function findRecording(
  dir: string,
  name: unknown,
  owns: (name: string) => boolean = () => true,
): { path: string; folder: string; bytes: number } {
  if (typeof name !== "string" || !NAME.test(name)) {
    throw new HttpError(
      400,
      `a recording's name is a file name ending in ${RECORDING_SUFFIX}, got ${JSON.stringify(name)}`,
    );
  }
  for (const [folder, folderDir] of [
    ["", dir],
    [CUTS_FOLDER, join(dir, CUTS_FOLDER)],
  ] as const) {
    if (!names(folderDir, owns).includes(name)) continue;
    const path = join(folderDir, name);
    return { path, folder, bytes: statSync(path).size };
  }
  throw new HttpError(404, `no recording called ${name}`);
}

/** The recordings in `dir` that `owns` accepts (none when it does not exist). */
function names(dir: string, owns: (name: string) => boolean = () => true): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isFile() && NAME.test(entry.name) && owns(entry.name))
      .map((entry) => entry.name);
  } catch {
    return [];
  }
}

function listing(dir: string, folder: string, name: string, live: string | null): RecordingListing {
  const path = join(dir, name);
  const stat = statSync(path);
  const base = {
    name,
    folder,
    bytes: stat.size,
    modified: stat.mtime.toISOString(),
    live: live !== null && path === live,
  };
  let source;
  try {
    source = fileSource(path);
    const { header } = readHeader(source);
    return {
      ...base,
      startedAt: header.startedAt,
      map: header.map.path,
      ...(header.window ? { window: header.window } : {}),
    };
  } catch (error) {
    return { ...base, error: error instanceof Error ? error.message : String(error) };
  } finally {
    source?.close();
  }
}

/** `stem`.fcrec, or `stem`-2.fcrec and on, whichever is free in `dir`: a cut never writes over a file. */
function freeName(dir: string, stem: string): string {
  const taken = new Set(names(dir));
  for (let index = 1; ; index++) {
    const name = `${stem}${index === 1 ? "" : `-${index}`}${RECORDING_SUFFIX}`;
    if (!taken.has(name)) return name;
  }
}

function queryOf(raw: IncomingMessage): URLSearchParams {
  return new URL(raw.url ?? "/", "http://localhost").searchParams;
}
