// The geometry of a Tiled object — rectangle, ellipse, polygon, polyline,
// point or text — read from TMX (<ellipse/>, <polygon points="x,y …"/>, …) and
// TMJ (`ellipse: true`, `polygon: [{x, y}]`, …) into one shape. Map objects
// and the collision shapes drawn inside tiles share it (collision-shapes.ts).
import { MapError } from "../content/map-error.js";
import { childNamed, numberAttr, type XmlElement } from "./xml-tree.js";

export type ShapeKind = "rectangle" | "ellipse" | "polygon" | "polyline" | "point" | "text";

/** A Tiled object's geometry, in pixels, as the file states it. */
export interface ObjectShape {
  kind: ShapeKind;
  /** The object's anchor: the top-left of a rectangle or ellipse, the origin of a polygon's points. */
  x: number;
  y: number;
  widthPx: number;
  heightPx: number;
  /** Degrees clockwise around (x, y), as Tiled rotates. */
  rotationDeg: number;
  /** Polygon and polyline vertices relative to (x, y); empty for the other kinds. */
  points: { x: number; y: number }[];
}

/** More vertices than this in one polygon is refused: rasterising costs cells × vertices. */
export const MAX_SHAPE_POINTS = 4096;

/** The shape of a TMX <object> (map objects and tile collision objects alike). */
export function shapeFromXml(element: XmlElement, file: string): ObjectShape {
  const where = `object ${element.attrs.id ?? "?"}`;
  let kind: ShapeKind = "rectangle";
  let points: { x: number; y: number }[] = [];
  const polygon = childNamed(element, "polygon") ?? childNamed(element, "polyline");
  if (polygon) {
    kind = polygon.name === "polygon" ? "polygon" : "polyline";
    points = parsePoints(polygon.attrs.points ?? "", file, where);
  } else if (childNamed(element, "ellipse")) kind = "ellipse";
  else if (childNamed(element, "point")) kind = "point";
  else if (childNamed(element, "text")) kind = "text";
  return {
    kind,
    x: numberAttr(element, "x", file, 0),
    y: numberAttr(element, "y", file, 0),
    widthPx: numberAttr(element, "width", file, 0),
    heightPx: numberAttr(element, "height", file, 0),
    rotationDeg: numberAttr(element, "rotation", file, 0),
    points,
  };
}

/** TMX points: "x,y x,y …". */
function parsePoints(text: string, file: string, where: string): { x: number; y: number }[] {
  const pairs = text.trim() === "" ? [] : text.trim().split(/\s+/);
  if (pairs.length > MAX_SHAPE_POINTS)
    throw new MapError(file, `${where} has ${pairs.length} points, more than ${MAX_SHAPE_POINTS}`);
  return pairs.map((pair) => {
    const [x, y, extra] = pair.split(",");
    const point = { x: Number(x), y: Number(y) };
    if (
      extra !== undefined ||
      x === undefined ||
      y === undefined ||
      !Number.isFinite(point.x) ||
      !Number.isFinite(point.y)
    ) {
      throw new MapError(file, `${where}: point "${pair}" is not "x,y"`);
    }
    return point;
  });
}

/** The shape of a TMJ object. */
export function shapeFromJson(object: Record<string, unknown>, file: string): ObjectShape {
  const where = `object ${typeof object.id === "number" ? object.id : "?"}`;
  // Lenient like the rest of the TMJ object reader: a missing or non-numeric field is 0.
  const number = (key: string): number =>
    typeof object[key] === "number" && Number.isFinite(object[key]) ? (object[key] as number) : 0;
  let kind: ShapeKind = "rectangle";
  let points: { x: number; y: number }[] = [];
  const list = object.polygon ?? object.polyline;
  if (list !== undefined) {
    kind = object.polygon !== undefined ? "polygon" : "polyline";
    if (!Array.isArray(list)) throw new MapError(file, `${where}: ${kind} is not an array of points`);
    if (list.length > MAX_SHAPE_POINTS)
      throw new MapError(file, `${where} has ${list.length} points, more than ${MAX_SHAPE_POINTS}`);
    points = list.map((entry: unknown) => {
      const point = entry as { x?: unknown; y?: unknown } | null;
      if (
        point === null ||
        typeof point !== "object" ||
        typeof point.x !== "number" ||
        typeof point.y !== "number" ||
        !Number.isFinite(point.x) ||
        !Number.isFinite(point.y)
      ) {
        throw new MapError(file, `${where}: ${kind} point ${JSON.stringify(entry)} is not {x, y}`);
      }
      return { x: point.x, y: point.y };
    });
  } else if (object.ellipse === true) kind = "ellipse";
  else if (object.point === true) kind = "point";
  else if (object.text !== undefined) kind = "text";
  return {
    kind,
    x: number("x"),
    y: number("y"),
    widthPx: number("width"),
    heightPx: number("height"),
    rotationDeg: number("rotation"),
    points,
  };
}
