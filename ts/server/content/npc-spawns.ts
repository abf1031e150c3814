// NPC spawn areas from the map's object layers: a point or rectangle object
// whose type/class is `npc_spawn`, with properties `kind` (a name from the
// kinds file), `count` (how many of it live there, default 1) and optionally
// `respawn` (seconds, overriding the kind's). Each spawn keeps `count` NPCs
// alive: a dead one is replaced after the respawn time, on a free cell of the
// area. Validated at load, naming the object, so a map with a misspelt kind
// or an area with no floor in it fails at start.
import { MapError } from "./map-error.js";
import type { MapObject } from "./map-object.js";
import { NPC_RESPAWN_MAX_SECONDS, type NpcKind } from "./npc-kinds.js";

export const NPC_SPAWN_TYPE = "npc_spawn";
/** Most NPCs one spawn object may keep alive. */
export const NPC_SPAWN_COUNT_MAX = 10_000;
const SPAWN_PROPERTIES = new Set(["kind", "count", "respawn"]);

export interface NpcSpawnSpec {
  /** The map object's id, for messages and /api/status. */
  objectId: number;
  name: string;
  kind: NpcKind;
  /** The area: tiles [x, x + width) × [y, y + height); a point object is one tile. */
  x: number;
  y: number;
  width: number;
  height: number;
  count: number;
  respawnSeconds: number;
  /** The free cells of the area, row-major: where its NPCs appear. */
  cells: { x: number; y: number }[];
  /**
   * One creature, never replaced (a content script's `spawn`): the spawn is done when it dies or is
   * despawned, and night brings it no company.
   */
  once?: boolean;
}

/** Whether a map object is an NPC spawn (type/class npc_spawn, any case). */
export function isNpcSpawn(object: MapObject): boolean {
  return object.type.toLowerCase() === NPC_SPAWN_TYPE;
}

/**
 * The map's NPC spawns, checked against the kinds (null: the map has no kinds file) and the
 * walkable cells. Throws MapError naming the object for a missing or unknown kind, a bad count
 * or respawn, an unknown property, or an area without a free cell.
 */
export function npcSpawnsOf(
  objects: readonly MapObject[],
  kinds: readonly NpcKind[] | null,
  isFree: (x: number, y: number) => boolean,
  file: string,
  kindsFile: string,
): NpcSpawnSpec[] {
  const spawns: NpcSpawnSpec[] = [];
  const byName = new Map((kinds ?? []).map((kind) => [kind.name, kind]));
  for (const object of objects) {
    if (!isNpcSpawn(object)) continue;
    const where = `npc_spawn object ${object.id}${object.name ? ` ("${object.name}")` : ""}`;
    for (const key of Object.keys(object.properties)) {
      if (!SPAWN_PROPERTIES.has(key))
        throw new MapError(file, `${where}: unknown property "${key}" (kind, count, respawn)`);
    }
    const kindName = object.properties.kind;
    if (typeof kindName !== "string") throw new MapError(file, `${where}: needs a string property "kind"`);
    if (kinds === null)
      throw new MapError(file, `${where}: kind "${kindName}" but there is no kinds file ${kindsFile}`);
    const kind = byName.get(kindName);
    if (kind === undefined) throw new MapError(file, `${where}: kind "${kindName}" is not in ${kindsFile}`);
    const count = integerProperty(object, "count", 1, NPC_SPAWN_COUNT_MAX, 1, where, file);
    const respawnSeconds = integerProperty(
      object,
      "respawn",
      1,
      NPC_RESPAWN_MAX_SECONDS,
      kind.respawnSeconds,
      where,
      file,
    );
    const cells: { x: number; y: number }[] = [];
    for (let y = object.y; y < object.y + object.height; y++) {
      for (let x = object.x; x < object.x + object.width; x++) if (isFree(x, y)) cells.push({ x, y });
    }
    if (cells.length === 0) {
      throw new MapError(
        file,
        `${where} at (${object.x}, ${object.y}) ${object.width}×${object.height}: no free tile to spawn on`,
      );
    }
    spawns.push({
      objectId: object.id,
      name: object.name,
      kind,
      x: object.x,
      y: object.y,
      width: object.width,
      height: object.height,
      count,
      respawnSeconds,
      cells,
    });
  }
  return spawns;
}

function integerProperty(
  object: MapObject,
  key: string,
  min: number,
  max: number,
  fallback: number,
  where: string,
  file: string,
): number {
  const value = object.properties[key];
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw new MapError(file, `${where}: "${key}" must be an integer ${min}..${max}, got ${JSON.stringify(value)}`);
  }
  return value;
}
