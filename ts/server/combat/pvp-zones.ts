// Where players may fight each other. PvP is off unless the server's --pvp flag
// or the map's `pvp` property (bool) turns it on; even then a `safe_zone`
// object (a rectangle, type/class safe_zone) keeps the tiles it covers safe —
// the bundled map's great hall is one, so a newcomer's first minute is never a
// fight they did not choose. Validated at load, naming the object.
import { MapError } from "../map/map-error.js";
import type { MapObject } from "../map/map-objects.js";
import type { PropertyValue } from "../map/properties.js";

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

/** Answers "may players fight here?" per tile: the switch, minus the safe zones. */
export class PvpRule {
  constructor(
    readonly enabled: boolean,
    private readonly zones: readonly SafeZone[],
  ) {}

  /** Whether a player standing on (x, y) may attack and be attacked by players. */
  allowsAt(x: number, y: number): boolean {
    return this.enabled && !this.isSafe(x, y);
  }

  /** Whether the safe zones cover (x, y) . */
  isSafe(x: number, y: number): boolean {
    for (const zone of this.zones) {
      if (x >= zone.x && y >= zone.y && x < zone.x + zone.width && y < zone.y + zone.height) return true;
    }
    return false;
  }
}
