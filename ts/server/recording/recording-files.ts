// Where recordings live and what their header says: the build that made them, the map they were made
// on, the world's plain options; how a new recording starts (its database snapshot taken before the
// world touches it); and how the folder is kept within its bounds (the oldest recordings deleted first).
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { RELEASE_WASM } from "../../wasm/node.js";
import type { Logger } from "../ops/log.js";
import { FORMAT_VERSION, type RecordingHeader } from "./format.js";
import { gitCommit } from "./git-commit.js";
import { Recorder } from "./recorder.js";

/** What a recording file's name ends with. */
export const RECORDING_SUFFIX = ".fcrec";

/** The recorder's bounds (--record-max-mb, --record-keep-mb, --record-keep-days) and their defaults. */
export interface RecordingLimits {
  /** One recording stops (with a warning) past this size. */
  readonly maxBytes: number;
  /** The folder's recordings together: the oldest are deleted past this, at every start. */
  readonly keepBytes: number;
  /** Recordings older than this are deleted at every start. */
  readonly keepDays: number;
}

export const DEFAULT_RECORDING_LIMITS: RecordingLimits = {
  maxBytes: 1024 * 1024 * 1024,
  keepBytes: 4 * 1024 * 1024 * 1024,
  keepDays: 7,
};

/** The build running now: package version, git commit (CAVES_COMMIT or .git), the wasm core's hash. */
export function buildInfo(): RecordingHeader["build"] {
  let version = "unknown";
  let commit: string | null = process.env.CAVES_COMMIT ?? null;
  try {
    const root = new URL("../../../", import.meta.url);
    commit ??= gitCommit(fileURLToPath(root));
    version = (JSON.parse(readFileSync(new URL("package.json", root), "utf8")) as { version: string }).version;
  } catch {
    // A single-file build (no package.json, no checkout beside it): the version stays unknown.
  }
  return { version, commit, core: fileHash(RELEASE_WASM) };
}

function fileHash(path: string): string {
  try {
    return createHash("sha256").update(readFileSync(path)).digest("hex").slice(0, 16);
  } catch {
    return "unknown";
  }
}

/** A hash of the map files' bytes, in the order the world read them: a replay checks its map against it. */
export function mapFingerprint(files: readonly string[]): string {
  const hash = createHash("sha256");
  for (const file of files) hash.update(readFileSync(file));
  return hash.digest("hex");
}

/** The options that are plain values (seeds, rates, limits): what a replay's world is made with. */
export function plainOptions(options: object): Record<string, string | number | boolean | null> {
  const plain: Record<string, string | number | boolean | null> = {};
  for (const [key, value] of Object.entries(options)) {
    if (typeof value === "string" || typeof value === "number" || typeof value === "boolean" || value === null) {
      plain[key] = value;
    }
  }
  return plain;
}

export interface RecordingStart {
  readonly dir: string;
  readonly mapPath: string;
  readonly mapFiles: readonly string[];
  readonly options: object;
  /** The world's database before the world is made from it: Database.serialize(). */
  readonly database: Uint8Array;
  readonly content: readonly { name: string; source: string }[];
  readonly limits: RecordingLimits;
  readonly log: Logger;
  /** A cluster's region: its number, the layout, the world's epoch (the header's `region`). */
  readonly region?: RecordingHeader["region"];
}

/**
 * Starts a recording in `dir` (made if missing) after pruning the folder to its bounds: the header, the
 * database snapshot and the content scripts written before the world's first tick.
 */
export async function startRecording(start: RecordingStart): Promise<Recorder> {
  mkdirSync(start.dir, { recursive: true });
  pruneRecordings(start.dir, start.limits, start.log);
  const startedAt = new Date();
  const header: RecordingHeader = {
    format: FORMAT_VERSION,
    build: buildInfo(),
    map: { path: start.mapPath, files: [...start.mapFiles], sha256: mapFingerprint(start.mapFiles) },
    options: plainOptions(start.options),
    startedAt: startedAt.toISOString(),
    firstTick: 0,
    ...(start.region === undefined ? {} : { region: start.region }),
  };
  const path = join(start.dir, recordingName(startedAt, start.region?.id));
  const recorder = await Recorder.create({ path, header, maxBytes: start.limits.maxBytes, log: start.log });
  recorder.snapshot(start.database, start.content);
  start.log.info("recording the world", { path, snapshotBytes: start.database.length });
  return recorder;
}

/**
 * caves-20261207-052233-<pid>.fcrec (a region's: caves-r1-20261207-052233-<pid>.fcrec): sorts by time, never
 * clashes with another process's.
 */
function recordingName(at: Date, region: number | undefined): string {
  const stamp = at.toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
  return `${recordingPrefix(region)}${stamp}-${process.pid}${RECORDING_SUFFIX}`;
}

/**
 * What the name of every recording of one process (`caves-`) or of region N (`caves-rN-`) starts with, its
 * cuts' too (a cut's name starts with its recording's): how a region tells its own files in a folder the
 * cluster's regions share.
 */
export function recordingPrefix(region: number | undefined): string {
  return `caves-${region === undefined ? "" : `r${region}-`}`;
}

/** Deletes the folder's oldest recordings past `keepDays` or beyond `keepBytes` together. */
export function pruneRecordings(dir: string, limits: RecordingLimits, log: Logger): void {
  if (!existsSync(dir)) return;
  const files = readdirSync(dir)
    .filter((name) => name.endsWith(RECORDING_SUFFIX))
    .map((name) => {
      const path = join(dir, name);
      const stat = statSync(path);
      return { path, bytes: stat.size, mtimeMs: stat.mtimeMs };
    })
    .sort((a, b) => b.mtimeMs - a.mtimeMs);
  const oldestKept = Date.now() - limits.keepDays * 86_400_000;
  let total = 0;
  for (const file of files) {
    total += file.bytes;
    if (total <= limits.keepBytes && file.mtimeMs >= oldestKept) continue;
    try {
      unlinkSync(file.path);
      log.info("old recording deleted", { path: file.path, bytes: file.bytes });
    } catch (error) {
      log.warn("an old recording could not be deleted", { path: file.path, error: String(error) });
    }
  }
}
