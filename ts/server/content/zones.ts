// The places a map names for its content scripts: its `zone` objects (rectangles, type/class zone, any
// case), each with a name the scripts use (`on.enter("great hall", …)`, docs/content.md § Zones). Read
// and validated at load, naming the object: a zone is a named rectangle, its name unique in its map.
// Where players stand against them is the scripting room's (../scripting/player-places.ts).
import { MapError } from "./map-error.js";
import type { MapObject } from "./map-object.js";

export const ZONE_TYPE = "zone";
/** The longest zone name (a script names it; the content check reports an unknown one). */
export const MAX_ZONE_NAME = 64;

export interface Zone {
  objectId: number;
  name: string;
  /** Tiles [x, x + width) × [y, y + height). */
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The map's zones: its zone objects, named rectangles with no properties. */
export function zonesOf(objects: readonly MapObject[], file: string): Zone[] {
  const zones: Zone[] = [];
  const byName = new Map<string, number>();
  for (const object of objects) {
    if (object.type.toLowerCase() !== ZONE_TYPE) continue;
    const where = `zone object ${object.id}${object.name ? ` ("${object.name}")` : ""}`;
    if (object.point) throw new MapError(file, `${where}: a zone is a rectangle, not a point`);
    const name = object.name.trim();
    if (name === "") throw new MapError(file, `${where}: a zone needs a name (scripts name it: on.enter("hall", …))`);
    if (name.length > MAX_ZONE_NAME)
      throw new MapError(file, `${where}: a zone's name is at most ${MAX_ZONE_NAME} characters`);
    const before = byName.get(name);
    if (before !== undefined)
      throw new MapError(file, `${where}: zone object ${before} has the name "${name}" already`);
    const unknown = Object.keys(object.properties);
    if (unknown.length > 0) throw new MapError(file, `${where}: unknown property "${unknown[0]}" (none are read)`);
    byName.set(name, object.id);
    zones.push({ objectId: object.id, name, x: object.x, y: object.y, width: object.width, height: object.height });
  }
  return zones;
}
