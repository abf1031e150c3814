// Tiled object templates: an object placed with `template="templates/gem.tx"`
// (TMX) or `"template": "….tj"` (TMJ) takes every field it does not state from
// the template's one object, as Tiled does. Both map formats and both template
// formats (.tx XML, .tj / .json JSON) meet here, so every object kind — tile
// objects, spawns, warps, signs, doors — is merged once, before anything reads
// it. A template that cannot be used is a warning and the object stays as the
// map states it: Tiled opens such a map too.
import { dirname, resolve } from "node:path";
import { readBoundedText } from "../content/bounded-file.js";
import { MapError } from "../content/map-error.js";
import { propertiesFromJson, type Properties } from "../content/properties.js";
import { GID_FLAG_BITS, maskGid } from "./gid.js";
import { type ObjectShape, shapeFromJson, shapeFromXml } from "./object-shapes.js";
import type { RawMap, RawObject } from "./raw-map.js";
import { readExternalTileset, type Tileset } from "./tileset.js";
import { childNamed, parseXml, xmlProperties, type XmlElement } from "./xml-tree.js";

/** The fields of an object its file states; an absent field is the template's (or the default). */
export interface StatedFields {
  name?: string;
  type?: string;
  widthPx?: number;
  heightPx?: number;
  rotationDeg?: number;
  /** Raw GID, flags included; in a template, already in the map's GIDs (ObjectTemplates). */
  gid?: number;
  visible?: boolean;
  /** A stated shape other than the plain rectangle: ellipse, point, polygon, polyline or text. */
  shape?: Pick<ObjectShape, "kind" | "points">;
  properties: Properties;
}

/** What a TMX <object> element states (attributes present, a shape child). */
export function statedFromXml(element: XmlElement, file: string): StatedFields {
  const { attrs } = element;
  const shape = shapeFromXml(element, file);
  const number = (value: string | undefined): number | undefined => {
    if (value === undefined) return undefined;
    const parsed = Number(value);
    return Number.isFinite(parsed) ? parsed : undefined;
  };
  const gid = attrs.gid === undefined ? undefined : Number(attrs.gid.trim());
  const stated: StatedFields = { properties: xmlProperties(element) };
  if (attrs.name !== undefined) stated.name = attrs.name;
  const type = attrs.class ?? attrs.type;
  if (type !== undefined) stated.type = type;
  const width = number(attrs.width);
  if (width !== undefined) stated.widthPx = width;
  const height = number(attrs.height);
  if (height !== undefined) stated.heightPx = height;
  const rotation = number(attrs.rotation);
  if (rotation !== undefined) stated.rotationDeg = rotation;
  if (gid !== undefined && Number.isInteger(gid) && gid >= 0 && gid <= 0xffffffff) stated.gid = gid;
  if (attrs.visible !== undefined) stated.visible = attrs.visible !== "0";
  if (shape.kind !== "rectangle") stated.shape = { kind: shape.kind, points: shape.points };
  return stated;
}

/** What a TMJ object states (keys present). */
export function statedFromJson(object: Record<string, unknown>, file: string): StatedFields {
  const shape = shapeFromJson(object, file);
  const text = (key: string): string | undefined =>
    typeof object[key] === "string" ? (object[key] as string) : undefined;
  const number = (key: string): number | undefined =>
    typeof object[key] === "number" && Number.isFinite(object[key]) ? (object[key] as number) : undefined;
  const stated: StatedFields = { properties: propertiesFromJson(object.properties) };
  const name = text("name");
  if (name !== undefined) stated.name = name;
  const type = text("class") ?? text("type");
  if (type !== undefined) stated.type = type;
  const width = number("width");
  if (width !== undefined) stated.widthPx = width;
  const height = number("height");
  if (height !== undefined) stated.heightPx = height;
  const rotation = number("rotation");
  if (rotation !== undefined) stated.rotationDeg = rotation;
  const gid = number("gid");
  if (gid !== undefined && Number.isInteger(gid) && gid >= 0 && gid <= 0xffffffff) stated.gid = gid;
  if (typeof object.visible === "boolean") stated.visible = object.visible;
  if (shape.kind !== "rectangle") stated.shape = { kind: shape.kind, points: shape.points };
  return stated;
}

/**
 * The object as Tiled shows it: each field the instance states, else the template's, else the default;
 * properties merged by name, the instance's winning. Position (x, y), id and layer are always the instance's.
 */
export function mergeTemplate(object: RawObject, instance: StatedFields, template: StatedFields): RawObject {
  const widthPx = instance.widthPx ?? template.widthPx ?? 0;
  const heightPx = instance.heightPx ?? template.heightPx ?? 0;
  const rotationDeg = instance.rotationDeg ?? template.rotationDeg ?? 0;
  const shape = instance.shape ?? template.shape ?? { kind: "rectangle" as const, points: [] };
  // RawObject.visible already folds in the layer's; the template's own visibility applies when the instance is silent.
  const visible = object.visible && (instance.visible ?? template.visible ?? true);
  return {
    ...object,
    name: instance.name ?? template.name ?? "",
    type: instance.type ?? template.type ?? "",
    widthPx,
    heightPx,
    point: shape.kind === "point",
    gid: instance.gid ?? template.gid ?? 0,
    shape: {
      kind: shape.kind,
      x: object.pixelX,
      y: object.pixelY,
      widthPx,
      heightPx,
      rotationDeg,
      points: shape.points,
    },
    visible,
    properties: { ...template.properties, ...instance.properties },
  };
}

/** A template read, or why it cannot be used. */
type TemplateResult = { ok: true; fields: StatedFields; note?: string } | { ok: false; reason: string };

/**
 * The templates one map uses, each file read once. A template's tile (its object's gid) is numbered in the
 * template's own tileset reference; it is renumbered into the map's GIDs: the map's copy of that tileset
 * when the map has it, else the tileset is read and added after the map's own (as Tiled adds it when the
 * map is opened), so its tiles are drawn like any other.
 */
export class ObjectTemplates {
  private readonly read = new Map<string, TemplateResult>();

  constructor(private readonly map: RawMap) {}

  /** The object merged with its template (`source` relative to the map); the object as stated, and a warning, when the template cannot be used. */
  apply(object: RawObject, instance: StatedFields, source: string): RawObject {
    const path = resolve(dirname(this.map.file), source);
    let result = this.read.get(path);
    if (result === undefined) {
      result = this.load(path);
      this.read.set(path, result);
    }
    const label = `object ${object.id}${object.name !== "" ? ` "${object.name}"` : ""} in layer "${object.layer}"`;
    if (!result.ok) {
      this.map.warnings.push(`${label}: template "${source}" ${result.reason}: the object kept as the map states it`);
      return object;
    }
    if (result.note !== undefined) this.map.warnings.push(`${label}: template "${source}" ${result.note}`);
    return mergeTemplate(object, instance, result.fields);
  }

  private load(path: string): TemplateResult {
    let text: string;
    try {
      text = readBoundedText(path);
    } catch (error) {
      return {
        ok: false,
        reason: `cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
      };
    }
    try {
      return /\.(tj|json)$/i.test(path) ? this.fromJson(text, path) : this.fromXml(text, path);
    } catch (error) {
      if (error instanceof MapError) return { ok: false, reason: `is malformed (${error.reason})` };
      throw error;
    }
  }

  private fromXml(text: string, path: string): TemplateResult {
    const root = parseXml(text, path);
    if (root.name !== "template")
      return { ok: false, reason: `is malformed (root element <${root.name}>, not <template>)` };
    const object = childNamed(root, "object");
    if (object === undefined) return { ok: false, reason: "is malformed (no <object>)" };
    const tileset = childNamed(root, "tileset");
    const reference =
      tileset === undefined ? undefined : { firstGid: Number(tileset.attrs.firstgid), source: tileset.attrs.source };
    return this.withMapGid(statedFromXml(object, path), reference, path);
  }

  private fromJson(text: string, path: string): TemplateResult {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      return { ok: false, reason: `is malformed (bad JSON: ${(error as Error).message})` };
    }
    const root = isJsonObject(json) ? json : null;
    if (root === null || (root.type !== undefined && root.type !== "template")) {
      return { ok: false, reason: "is malformed (not a JSON template object)" };
    }
    if (!isJsonObject(root.object)) return { ok: false, reason: 'is malformed (no "object")' };
    const tileset = isJsonObject(root.tileset) ? root.tileset : undefined;
    const reference =
      tileset === undefined
        ? undefined
        : {
            firstGid: Number(tileset.firstgid),
            source: typeof tileset.source === "string" ? tileset.source : undefined,
          };
    return this.withMapGid(statedFromJson(root.object, path), reference, path);
  }

  /** The template's gid renumbered from its tileset reference into the map's GIDs. */
  private withMapGid(
    fields: StatedFields,
    reference: { firstGid: number; source: string | undefined } | undefined,
    path: string,
  ): TemplateResult {
    if (fields.gid === undefined || maskGid(fields.gid) === 0) return { ok: true, fields };
    const dropGid = (note: string): TemplateResult => {
      const { gid: _gid, ...rest } = fields;
      return { ok: true, fields: rest, note: `${note}: its tile is not drawn` };
    };
    if (reference === undefined) return dropGid(`has a tile (gid ${maskGid(fields.gid)}) but no <tileset>`);
    if (reference.source === undefined) return dropGid("names its tileset without a source");
    if (!Number.isInteger(reference.firstGid) || reference.firstGid < 1) {
      return dropGid(`has tileset firstgid ${JSON.stringify(reference.firstGid)}, not a GID`);
    }
    const local = maskGid(fields.gid) - reference.firstGid;
    if (local < 0) return dropGid(`has gid ${maskGid(fields.gid)} below its tileset's firstgid ${reference.firstGid}`);
    let tileset: Tileset;
    try {
      tileset = this.tilesetAt(resolve(dirname(path), reference.source), reference.source, path);
    } catch (error) {
      if (error instanceof MapError)
        return dropGid(`has tileset "${reference.source}" that cannot be used (${error.reason})`);
      throw error;
    }
    const flags = (fields.gid & GID_FLAG_BITS) >>> 0;
    return { ok: true, fields: { ...fields, gid: (flags | (tileset.firstGid + local)) >>> 0 } };
  }

  /** The map's tileset read from `path`, or that tileset read now and added after the map's own. */
  private tilesetAt(path: string, source: string, templatePath: string): Tileset {
    const known = this.map.tilesets.find((tileset) => tileset.file === path);
    if (known !== undefined) return known;
    const firstGid = this.map.tilesets.reduce((next, each) => Math.max(next, each.firstGid + each.localIdSpan), 1);
    const tileset = readExternalTileset(source, firstGid, templatePath);
    this.map.tilesets.push(tileset);
    return tileset;
  }
}

function isJsonObject(json: unknown): json is Record<string, unknown> {
  return json !== null && typeof json === "object" && !Array.isArray(json);
}
