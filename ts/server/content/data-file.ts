// The JSON data files that sit beside a map (`<map>.tiles.json`, `<map>.npcs.json`):
// where they are, reading one (absent is not an error), and the envelope they
// share — an object of exactly `version` and one list — checked strictly, so
// every problem names the file and the field.
import { basename, dirname, extname, join } from "node:path";
import { MapError } from "./map-error.js";
import { readBoundedText } from "./bounded-file.js";

/** `maps/caves.tmj` with suffix "tiles" → `maps/caves.tiles.json`. */
export function dataFilePathFor(mapPath: string, suffix: string): string {
  return join(dirname(mapPath), `${basename(mapPath, extname(mapPath))}.${suffix}.json`);
}

/** The file's text, or null when there is no such file; `what` names it in the error for any other failure. */
export function readDataFile(path: string, what: string): string | null {
  try {
    return readBoundedText(path);
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

const SPRITE_NAME = /^[a-z0-9_-]{1,32}$/;

/**
 * One object of a data file's list (a creature kind, an item), checked strictly: an object, no field
 * outside `keys`, and readers that name the field in every error — so each data file states its own
 * fields and ranges, and the rules for reading one are written once.
 */
export class DataRecord {
  private constructor(
    readonly fields: Readonly<Record<string, unknown>>,
    readonly where: string,
    readonly file: string,
  ) {}

  /** The record at `where` (e.g. "kinds[2]"); throws MapError for a non-object or an unknown field. */
  static of(value: unknown, where: string, file: string, keys: ReadonlySet<string>): DataRecord {
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      throw new MapError(file, `${where}: expected an object`);
    }
    const fields = value as Record<string, unknown>;
    for (const key of Object.keys(fields)) {
      if (!keys.has(key)) throw new MapError(file, `${where}: unknown field "${key}"`);
    }
    return new DataRecord(fields, where, file);
  }

  fail(key: string, message: string): never {
    throw new MapError(this.file, `${this.where}.${key}: ${message}`);
  }

  /** An integer min … max; `fallback` when absent (else absent is an error). */
  integer(key: string, min: number, max: number, fallback?: number): number {
    const field = this.fields[key];
    if (field === undefined && fallback !== undefined) return fallback;
    if (field === undefined) this.fail(key, "missing");
    if (typeof field !== "number" || !Number.isInteger(field) || field < min || field > max) {
      this.fail(key, `expected an integer ${min}..${max}, got ${JSON.stringify(field)}`);
    }
    return field;
  }

  /** One of `names`. */
  choice<T extends string>(key: string, names: readonly T[]): T {
    const field = this.fields[key];
    if (typeof field !== "string" || !names.includes(field as T)) {
      this.fail(key, `expected one of ${names.join(", ")}, got ${JSON.stringify(field)}`);
    }
    return field as T;
  }

  /** A display name: non-empty, no outer spaces, at most `maxBytes` of UTF-8 (an EntityDetail name). */
  displayName(key: string, maxBytes: number, byteLength: (text: string) => number): string {
    const name = this.fields[key];
    if (typeof name !== "string" || name.trim() === "" || name !== name.trim()) {
      this.fail(key, "expected a non-empty string without outer spaces");
    }
    if (byteLength(name) > maxBytes) this.fail(key, `at most ${maxBytes} bytes of UTF-8 (an EntityDetail name)`);
    return name;
  }

  /** A sprite name a client looks up: 1 … 32 of a-z 0-9 _ -. */
  sprite(key: string): string {
    const sprite = this.fields[key];
    if (typeof sprite !== "string" || !SPRITE_NAME.test(sprite)) {
      this.fail(key, `expected 1..32 of a-z 0-9 _ -, got ${JSON.stringify(sprite)}`);
    }
    return sprite;
  }
}
