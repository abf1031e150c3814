// Tiled custom properties in their three spellings — TMX <property> elements,
// TMJ arrays of {name, type, value}, and the object maps of TMJ files written
// before Tiled 1.2 — reduced to one plain record.

/** A property value; class-typed (nested) properties are not used by the loader and are skipped. */
export type PropertyValue = string | number | boolean;
export type Properties = Record<string, PropertyValue>;

/** Property names that mark a tile (or a layer) as blocking movement. */
const COLLISION_PROPERTY_NAMES = ["collides", "collision", "solid", "blocked"];

/** True for a boolean true, and for the "true" / "1" / 1 that untyped (old) TMX files write. */
export function isTrue(value: PropertyValue | undefined): boolean {
  if (value === true || value === 1) return true;
  return typeof value === "string" && (value.toLowerCase() === "true" || value === "1");
}

/** Whether any collision-marking property (collides, collision, solid, blocked; any case) is true. */
export function hasCollisionProperty(properties: Properties): boolean {
  for (const [name, value] of Object.entries(properties)) {
    if (COLLISION_PROPERTY_NAMES.includes(name.toLowerCase()) && isTrue(value)) return true;
  }
  return false;
}

/** Looks up a property by name, ignoring case. */
export function propertyIgnoringCase(properties: Properties, name: string): PropertyValue | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(properties)) if (key.toLowerCase() === wanted) return value;
  return undefined;
}

/** Converts a TMX property's string value by its declared type. */
export function typedPropertyValue(type: string | undefined, text: string): PropertyValue | undefined {
  switch (type) {
    case "bool":
      return text === "true";
    case "int":
    case "float":
    case "object": {
      const value = Number(text);
      return Number.isFinite(value) ? value : text;
    }
    case "class":
      return undefined;
    default:
      return text; // string, color, file, or untyped (old TMX)
  }
}

/** Reads TMJ properties: an array of {name, type, value}, or an old-style {name: value} object. */
export function propertiesFromJson(json: unknown): Properties {
  const properties: Properties = {};
  if (Array.isArray(json)) {
    for (const entry of json) {
      if (entry === null || typeof entry !== "object") continue;
      const { name, value } = entry as { name?: unknown; value?: unknown };
      if (typeof name !== "string") continue;
      if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") {
        properties[name] = value;
      }
    }
  } else if (json !== null && typeof json === "object") {
    for (const [name, value] of Object.entries(json)) {
      if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") {
        properties[name] = value;
      }
    }
  }
  return properties;
}
