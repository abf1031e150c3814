// Tile data: what each world tile id means to the rules (collides, opaque)
// and to the renderer (look = atlas / GID to draw). It comes from Tiled tile
// properties and from a JSON file beside the map, `<map>.tiles.json`, which
// wins field by field. Server and client both reduce it to one 65536-byte
// flags table (the wasm TILE_FLAGS region) with the one builder in
// ts/tile-flags.ts, so collision is a pure function of a cell's id everywhere.
import { TILE_BORDER, TILE_UNKNOWN } from "../../constants.js";
import { TILE_ID_COUNT } from "../../tile-flags.js";
import { dataFilePathFor, parseDataFileList, readDataFile } from "../content/data-file.js";
import { MAX_WORLD_TILE_ID } from "./gid.js";
import { MapError } from "../content/map-error.js";
import { hasCollisionProperty, isTrue, propertyIgnoringCase } from "../content/properties.js";
import { tilesetGids, type Tileset } from "./tileset.js";

export interface TileInfo {
  id: number;
  name?: string;
  collides: boolean;
  opaque: boolean;
  /** What to draw: an atlas index / GID (0xFFFF draws nothing). */
  look: number;
  /** Set on twin ids made by flattening: the id whose look this twin shares (see docs/maps.md). */
  twinOf?: number;
  /** A closed door's tile: the id the cell takes when the door opens (docs/maps.md § Doors). */
  opensTo?: number;
  /**
   * Set on stack ids made by flattening: what the cell draws, bottom to top, four numbers per tile (the
   * GID with its flip bits, dx, dy from the drawn cell to the tile's anchor cell, and its layer's opacity
   * 0 … 255; tile-stacks.ts).
   */
  stack?: number[];
  /**
   * Set on stack ids whose cell has tiles of over layers (flatten.ts overLayersOf): what the cell draws over
   * the entities, bottom to top, in the form of `stack` (docs/maps.md § Over layers).
   */
  overStack?: number[];
  /** A light source (issue 15, docs/world-time.md § Light): its light radius in tiles, 1 … LIGHT_RADIUS_MAX. */
  light?: number;
}

/** Largest `light` radius in tiles (assembly/layout.ts LIGHT_RADIUS_MAX). */
export const TILE_LIGHT_MAX = 8;

/** Tile data by world tile id. */
export type TileData = Map<number, TileInfo>;

/** One entry of a tile data file; absent fields keep what the tileset says. */
export interface TileDataEntry {
  id: number;
  name?: string;
  collides?: boolean;
  opaque?: boolean;
  look?: number;
  opensTo?: number;
  light?: number;
}

export const TILE_DATA_VERSION = 1;
/** TILE_LOOK value meaning "draw nothing". */
export const LOOK_NONE = 0xffff;
const ENTRY_KEYS = new Set(["id", "name", "collides", "opaque", "look", "opensTo", "light"]);

/** `maps/caves.tmj` → `maps/caves.tiles.json`. */
export function tileDataPathFor(mapPath: string): string {
  return dataFilePathFor(mapPath, "tiles");
}

/** Reads and validates a tile data file; null when there is no such file. */
export function readTileDataFile(path: string): TileDataEntry[] | null {
  const text = readDataFile(path, "tile data");
  return text === null ? null : parseTileDataFile(text, path);
}

/** Validates tile data file text strictly: every problem names the field it is in. */
export function parseTileDataFile(text: string, file: string): TileDataEntry[] {
  const tiles = parseDataFileList(text, file, "tile data", TILE_DATA_VERSION, "tiles");
  const seen = new Set<number>();
  return tiles.map((value, index) => {
    const entry = parseEntry(value, `tiles[${index}]`, file);
    if (seen.has(entry.id)) throw new MapError(file, `tiles[${index}].id: ${entry.id} appears twice`);
    seen.add(entry.id);
    return entry;
  });
}

function parseEntry(value: unknown, where: string, file: string): TileDataEntry {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new MapError(file, `${where}: expected an object`);
  }
  const fields = value as Record<string, unknown>;
  for (const key of Object.keys(fields)) {
    if (!ENTRY_KEYS.has(key)) throw new MapError(file, `${where}: unknown field "${key}"`);
  }
  const integer = (key: string, max: number): number | undefined => {
    const field = fields[key];
    if (field === undefined) return undefined;
    if (typeof field !== "number" || !Number.isInteger(field) || field < 0 || field > max) {
      throw new MapError(file, `${where}.${key}: expected an integer 0..${max}, got ${JSON.stringify(field)}`);
    }
    return field;
  };
  const boolean = (key: string): boolean | undefined => {
    const field = fields[key];
    if (field === undefined || typeof field === "boolean") return field;
    throw new MapError(file, `${where}.${key}: expected true or false, got ${JSON.stringify(field)}`);
  };
  if (fields.id === undefined) throw new MapError(file, `${where}.id: missing`);
  if (fields.id === TILE_BORDER || fields.id === TILE_UNKNOWN) {
    throw new MapError(file, `${where}.id: ${fields.id} is reserved (TILE_BORDER / TILE_UNKNOWN)`);
  }
  const id = integer("id", MAX_WORLD_TILE_ID)!;
  if (fields.name !== undefined && typeof fields.name !== "string") {
    throw new MapError(file, `${where}.name: expected a string, got ${JSON.stringify(fields.name)}`);
  }
  const entry: TileDataEntry = { id };
  if (fields.name !== undefined) entry.name = fields.name as string;
  const collides = boolean("collides");
  if (collides !== undefined) entry.collides = collides;
  const opaque = boolean("opaque");
  if (opaque !== undefined) entry.opaque = opaque;
  const look = integer("look", 0xffff);
  if (look !== undefined) entry.look = look;
  const light = integer("light", TILE_LIGHT_MAX);
  if (light !== undefined) entry.light = light;
  const opensTo = integer("opensTo", MAX_WORLD_TILE_ID);
  if (opensTo !== undefined) {
    if (opensTo === id) throw new MapError(file, `${where}.opensTo: a door cannot open to its own tile ${id}`);
    entry.opensTo = opensTo;
  }
  return entry;
}

/**
 * Tile data for every GID the tilesets define (up to the largest wire id), from Tiled tile
 * properties: a collision property (collides / collision / solid / blocked), `opaque` and a door's
 * `opensTo` (int: the id it opens to; checked with the doors, map-doors.ts); the name is the `name`
 * property, else the tile's class.
 * Where tilesets overlap, the one with the larger firstgid owns the GID, as in Tiled.
 */
export function tileDataFromTilesets(tilesets: readonly Tileset[]): TileData {
  const tileData: TileData = new Map();
  for (const tileset of [...tilesets].sort((a, b) => a.firstGid - b.firstGid)) {
    for (const gid of tilesetGids(tileset)) {
      if (gid > MAX_WORLD_TILE_ID) break;
      const definition = tileset.tiles.get(gid - tileset.firstGid);
      const info: TileInfo = { id: gid, collides: false, opaque: false, look: gid };
      if (definition) {
        const name = propertyIgnoringCase(definition.properties, "name");
        if (typeof name === "string") info.name = name;
        else if (definition.className !== "") info.name = definition.className;
        info.collides = hasCollisionProperty(definition.properties);
        info.opaque = isTrue(propertyIgnoringCase(definition.properties, "opaque"));
        const opensTo = propertyIgnoringCase(definition.properties, "opensTo");
        if (typeof opensTo === "number" && Number.isInteger(opensTo) && opensTo > 0 && opensTo !== gid) {
          info.opensTo = opensTo;
        }
        const light = lightProperty(propertyIgnoringCase(definition.properties, "light"));
        if (light > 0) info.light = light;
      }
      tileData.set(gid, info);
    }
  }
  return tileData;
}

/**
 * A Tiled `light` property as a radius: an int or float is the radius in tiles (rounded, clamped to
 * 0 … TILE_LIGHT_MAX), `true` a torch's 5 tiles; anything else gives no light.
 */
export function lightProperty(value: unknown): number {
  if (value === true) return 5;
  if (typeof value !== "number" || !Number.isFinite(value)) return 0;
  return Math.max(0, Math.min(TILE_LIGHT_MAX, Math.round(value)));
}

/** The default meaning of id 0 (a cell no layer has a tile in): solid, drawn as nothing. */
export function emptyTileInfo(): TileInfo {
  return { id: 0, name: "empty", collides: true, opaque: false, look: LOOK_NONE };
}

/** Applies file entries over `tileData` in place, field by field; new ids default to walkable, look = id. */
export function mergeTileData(tileData: TileData, entries: readonly TileDataEntry[]): TileData {
  for (const entry of entries) {
    const base = tileData.get(entry.id) ?? { id: entry.id, collides: false, opaque: false, look: entry.id };
    const merged: TileInfo = { ...base };
    if (entry.name !== undefined) merged.name = entry.name;
    if (entry.collides !== undefined) merged.collides = entry.collides;
    if (entry.opaque !== undefined) merged.opaque = entry.opaque;
    if (entry.look !== undefined) merged.look = entry.look;
    if (entry.opensTo !== undefined) merged.opensTo = entry.opensTo;
    if (entry.light !== undefined) {
      if (entry.light > 0) merged.light = entry.light;
      else delete merged.light;
    }
    tileData.set(entry.id, merged);
  }
  return tileData;
}

/** The 65536-entry table for the wasm TILE_LOOK region: id → look, LOOK_NONE (draw nothing) where unknown. */
export function tileLookTable(tileData: TileData): Uint16Array {
  const table = new Uint16Array(TILE_ID_COUNT).fill(LOOK_NONE);
  for (const info of tileData.values()) table[info.id] = info.look;
  table[TILE_BORDER] = LOOK_NONE;
  table[TILE_UNKNOWN] = LOOK_NONE;
  return table;
}
