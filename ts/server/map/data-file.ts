// The JSON data files that sit beside a map (`<map>.tiles.json`, `<map>.npcs.json`):
// where they are, reading one (absent is not an error), and the envelope they
// share — an object of exactly `version` and one list — checked strictly, so
// every problem names the file and the field.
import { readFileSync } from "node:fs";
import { basename, dirname, extname, join } from "node:path";
import { MapError } from "./map-error.js";

/** `maps/caves.tmj` with suffix "tiles" → `maps/caves.tiles.json`. */
export function dataFilePathFor(mapPath: string, suffix: string): string {
  return join(dirname(mapPath), `${basename(mapPath, extname(mapPath))}.${suffix}.json`);
}

/** The file's text, or null when there is no such file; `what` names it in the error for any other failure. */
export function readDataFile(path: string, what: string): string | null {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw new MapError(path, `cannot read ${what} (${(error as Error).message})`);
  }
}

/**
 * Parses `{ "version": version, "<listKey>": [...] }` and returns the list. Refuses bad JSON, a
 * non-object, any other field, another version and a list that is not an array.
 */
export function parseDataFileList(
  text: string,
  file: string,
  what: string,
  version: number,
  listKey: string,
): unknown[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new MapError(file, `bad JSON: ${(error as Error).message}`);
  }
  if (json === null || typeof json !== "object" || Array.isArray(json)) {
    throw new MapError(file, `${what} is not a JSON object`);
  }
  const root = json as Record<string, unknown>;
  for (const key of Object.keys(root)) {
    if (key !== "version" && key !== listKey) throw new MapError(file, `unknown field "${key}"`);
  }
  if (root.version !== version) {
    throw new MapError(file, `version: expected ${version}, got ${JSON.stringify(root.version)}`);
  }
  const list = root[listKey];
  if (!Array.isArray(list)) throw new MapError(file, `${listKey}: expected an array`);
  return list;
}
