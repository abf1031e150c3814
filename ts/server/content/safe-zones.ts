// Where the map says players may not fight: its `safe_zone` objects (rectangles, type/class safe_zone)
// and its `pvp` property (bool), read and validated at load, naming the object. The rule that answers
// "may players fight here?" from them is the combat room's (../combat/pvp-rule.ts).
import { MapError } from "./map-error.js";
import type { MapObject } from "./map-object.js";
import type { PropertyValue } from "./properties.js";

export const SAFE_ZONE_TYPE = "safe_zone";

export interface SafeZone {
  objectId: number;
  name: string;
  /** Tiles [x, x + width) × [y, y + height). */
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The map's safe zones: its safe_zone objects (any case), rectangles with no properties. */
export function safeZonesOf(objects: readonly MapObject[], file: string): SafeZone[] {
  const zones: SafeZone[] = [];
  for (const object of objects) {
    if (object.type.toLowerCase() !== SAFE_ZONE_TYPE) continue;
    const where = `safe_zone object ${object.id}${object.name ? ` ("${object.name}")` : ""}`;
    if (object.point) throw new MapError(file, `${where}: a safe zone is a rectangle, not a point`);
    const unknown = Object.keys(object.properties);
    if (unknown.length > 0) throw new MapError(file, `${where}: unknown property "${unknown[0]}" (none are read)`);
    zones.push({
      objectId: object.id,
      name: object.name,
      x: object.x,
      y: object.y,
      width: object.width,
      height: object.height,
    });
  }
  return zones;
}

/** The map's `pvp` property: true or false, or null when the map does not say. */
export function mapPvpOf(properties: Record<string, PropertyValue>, file: string): boolean | null {
  const value = properties.pvp;
  if (value === undefined) return null;
  if (typeof value !== "boolean")
    throw new MapError(file, `map property "pvp" must be a bool, got ${JSON.stringify(value)}`);
  return value;
}
