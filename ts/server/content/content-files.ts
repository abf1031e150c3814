// A map's content scripts (docs/content.md): the Lua files in the folder beside the map named after it,
// `<map>.content/` (maps/caves.tmj → maps/caves.content/*.lua). They are the host's code, not the
// server's: the scripting room (../scripting/) runs each in a sandbox of its own. Read here, bounded —
// how many files and how large each — and in name order, the order their states are made in (so a
// world run twice makes them alike).
import { existsSync, readdirSync, statSync } from "node:fs";
import { basename, dirname, extname, join } from "node:path";
import { readBoundedText } from "./bounded-file.js";
import { MapError } from "./map-error.js";

/** What a content script's file name looks like: a name of letters, digits, "-", "_" and ".", ending ".lua". */
export const CONTENT_FILE_PATTERN = /^[A-Za-z0-9_.-]+\.lua$/;

/** The most script files one map's content folder may hold. */
export const MAX_CONTENT_FILES = 64;
/** The largest script file. */
export const MAX_CONTENT_FILE_BYTES = 256 * 1024;

export interface ContentFile {
  /** Its name in the folder ("merchant.lua"): what errors and the status name it by. */
  readonly name: string;
  readonly path: string;
  readonly source: string;
}

/** The content folder of the map at `mapPath` (it may not exist). */
export function contentDirFor(mapPath: string): string {
  return join(dirname(mapPath), `${basename(mapPath, extname(mapPath))}.content`);
}

/** The names of the script files in `dir`, in name order; none when the folder does not exist. */
export function contentFileNames(dir: string): string[] {
  if (!existsSync(dir)) return [];
  if (!statSync(dir).isDirectory()) throw new MapError(dir, "the content folder is a file, not a folder");
  const names = readdirSync(dir)
    .filter((name) => CONTENT_FILE_PATTERN.test(name))
    .sort();
  if (names.length > MAX_CONTENT_FILES) {
    throw new MapError(dir, `${names.length} scripts, more than ${MAX_CONTENT_FILES}`);
  }
  return names;
}

/** One script file, read bounded; throws MapError naming it when it cannot be read or is too large. */
export function readContentFile(dir: string, name: string): ContentFile {
  const path = join(dir, name);
  try {
    return { name, path, source: readBoundedText(path, MAX_CONTENT_FILE_BYTES) };
  } catch (error) {
    throw new MapError(path, `cannot read the script: ${(error as Error).message}`);
  }
}

/** Every script of the map at `mapPath`, in name order. */
export function readContentFiles(mapPath: string): ContentFile[] {
  const dir = contentDirFor(mapPath);
  return contentFileNames(dir).map((name) => readContentFile(dir, name));
}
