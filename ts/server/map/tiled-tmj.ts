// TMJ (Tiled's JSON map format) into the raw model. Same walk as TMX: layers
// in document order, depth-first into "group" layers.
import { decodeEncodedGids, gidsFromJsonArray, LayerDecodes, type DataSite } from "./layer-data.js";
import { MapError } from "../content/map-error.js";
import { shapeFromJson } from "./object-shapes.js";
import { ObjectTemplates, statedFromJson } from "./object-templates.js";
import { propertiesFromJson } from "../content/properties.js";
import {
  type GidChunk,
  layerLook,
  layerOpacity,
  layerTint,
  type LayerTint,
  mapBackgroundColor,
  type RawMap,
  type RawObject,
  type RawTileLayer,
  UNTINTED,
} from "./raw-map.js";
import { readExternalTileset, tilesetFromJson, type Tileset } from "./tileset.js";

type JsonObject = Record<string, unknown>;

/** Parses TMJ text; `file` is used to resolve external tilesets and in errors. */
export function parseTmj(text: string, file: string): RawMap {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new MapError(file, `bad JSON: ${(error as Error).message}`);
  }
  const root = asObject(json, file, "the map");
  if (root.type !== undefined && root.type !== "map") {
    throw new MapError(file, `type is ${JSON.stringify(root.type)}, expected "map"`);
  }
  const map: RawMap = {
    file,
    format: "tmj",
    orientation:
      root.orientation === undefined
        ? "orthogonal"
        : typeof root.orientation === "string"
          ? root.orientation
          : JSON.stringify(root.orientation),
    width: integerField(root, "width", file, "map"),
    height: integerField(root, "height", file, "map"),
    tileWidthPx: integerField(root, "tilewidth", file, "map"),
    tileHeightPx: integerField(root, "tileheight", file, "map"),
    infinite: root.infinite === true,
    properties: propertiesFromJson(root.properties),
    tilesets: [],
    tileLayers: [],
    objects: [],
    objectLayers: [],
    objectLayerCount: 0,
    groupLayerCount: 0,
    warnings: [],
  };
  for (const entry of arrayField(root, "tilesets", file, "map")) map.tilesets.push(readTileset(entry, file));
  const decodes = new LayerDecodes();
  walkLayers(arrayField(root, "layers", file, "map"), map, "", true, 1, UNTINTED, decodes, new ObjectTemplates(map));
  decodes.run();
  const background = mapBackgroundColor(root.backgroundcolor, map.warnings);
  if (background !== undefined) map.backgroundColor = background;
  return map;
}

function readTileset(json: unknown, file: string): Tileset {
  const entry = asObject(json, file, "a tileset entry");
  const firstGid = integerField(entry, "firstgid", file, "tileset");
  if (typeof entry.source === "string") return readExternalTileset(entry.source, firstGid, file);
  return tilesetFromJson(entry, firstGid, file);
}

function walkLayers(
  layers: unknown[],
  map: RawMap,
  parentPath: string,
  parentVisible: boolean,
  parentOpacity: number,
  parentTint: LayerTint,
  decodes: LayerDecodes,
  templates: ObjectTemplates,
): void {
  for (const json of layers) {
    const layer = asObject(json, map.file, "a layer");
    const name = typeof layer.name === "string" ? layer.name : "";
    const path = parentPath === "" ? name : `${parentPath}/${name}`;
    const visible = parentVisible && layer.visible !== false;
    const tint = layerTint(layer.tintcolor, parentTint, path, map.warnings);
    const opacity = parentOpacity * layerOpacity(layer.opacity);
    switch (layer.type) {
      case "tilelayer": {
        map.tileLayers.push({
          ...readTileLayer(layer, map, name, path, visible, decodes),
          ...layerLook(opacity, tint),
        });
        break;
      }
      case "objectgroup":
        map.objectLayerCount++;
        map.objectLayers.push({
          name,
          path,
          visible,
          properties: propertiesFromJson(layer.properties),
          tileLayersBefore: map.tileLayers.length,
          ...layerLook(opacity, tint),
          ...(layer.draworder === "index" ? { indexOrder: true } : {}),
        });
        readObjects(layer, map, path, visible, templates);
        break;
      case "group":
        map.groupLayerCount++;
        walkLayers(
          arrayField(layer, "layers", map.file, `group "${path}"`),
          map,
          path,
          visible,
          opacity,
          tint,
          decodes,
          templates,
        );
        break;
      case "imagelayer":
        break;
      default:
        // A layer type of a newer Tiled: nothing the world reads, so the map plays without it, as the
        // TMX reader skips an element it does not know.
        map.warnings.push(`layer "${path}" has unknown type ${JSON.stringify(layer.type)}: skipped`);
    }
  }
}

/** The layer with its chunks; their GIDs are decoded by `decodes` once the whole file is walked. */
function readTileLayer(
  layer: JsonObject,
  map: RawMap,
  name: string,
  path: string,
  visible: boolean,
  decodes: LayerDecodes,
): RawTileLayer {
  const { file } = map;
  const where = `layer "${path}"`;
  const chunks: GidChunk[] = [];
  if (map.infinite) {
    for (const json of arrayField(layer, "chunks", file, where)) {
      const chunk = asObject(json, file, `a chunk of ${where}`);
      const x = integerField(chunk, "x", file, where);
      const y = integerField(chunk, "y", file, where);
      const width = integerField(chunk, "width", file, where);
      const height = integerField(chunk, "height", file, where);
      const site = { file, where: `${where} chunk (${x}, ${y})` };
      const area: GidChunk = { x, y, width, height, gids: new Uint32Array(0) };
      decodes.add(area, site, (cells, at) => readData(layer, chunk.data, cells, at));
      chunks.push(area);
    }
  } else {
    const width = integerField(layer, "width", file, where);
    const height = integerField(layer, "height", file, where);
    if (width !== map.width || height !== map.height) {
      throw new MapError(file, `${where} is ${width}×${height}, the map is ${map.width}×${map.height}`);
    }
    const area: GidChunk = { x: 0, y: 0, width, height, gids: new Uint32Array(0) };
    decodes.add(area, { file, where }, (cells, at) => readData(layer, layer.data, cells, at));
    chunks.push(area);
  }
  return { name, path, visible, properties: propertiesFromJson(layer.properties), chunks };
}

/** `data` is a JSON array of GIDs (encoding absent or "csv") or a base64 string (encoding "base64"). */
function readData(layer: JsonObject, data: unknown, cellCount: number, site: DataSite): Uint32Array {
  const encoding =
    layer.encoding === undefined
      ? "csv"
      : typeof layer.encoding === "string"
        ? layer.encoding
        : JSON.stringify(layer.encoding);
  const compression = typeof layer.compression === "string" ? layer.compression : undefined;
  if (encoding === "csv") {
    if (!Array.isArray(data)) throw new MapError(site.file, `${site.where}: data is not an array`);
    return gidsFromJsonArray(data, cellCount, site);
  }
  if (typeof data !== "string") throw new MapError(site.file, `${site.where}: data is not a string`);
  return decodeEncodedGids(data, encoding, compression, cellCount, site);
}

function readObjects(
  layer: JsonObject,
  map: RawMap,
  layerPath: string,
  layerVisible: boolean,
  templates: ObjectTemplates,
): void {
  const { file } = map;
  for (const json of arrayField(layer, "objects", file, `object layer "${layerPath}"`)) {
    const object = asObject(json, file, `an object in "${layerPath}"`);
    const number = (key: string): number => (typeof object[key] === "number" ? (object[key] as number) : 0);
    const text = (key: string): string | undefined =>
      typeof object[key] === "string" ? (object[key] as string) : undefined;
    const raw: RawObject = {
      id: number("id"),
      name: text("name") ?? "",
      type: text("class") ?? text("type") ?? "",
      layer: layerPath,
      pixelX: number("x"),
      pixelY: number("y"),
      widthPx: number("width"),
      heightPx: number("height"),
      point: object.point === true,
      gid: number("gid"),
      shape: shapeFromJson(object, file),
      visible: layerVisible && object.visible !== false,
      properties: propertiesFromJson(object.properties),
    };
    const template = object.template;
    map.objects.push(
      typeof template === "string" && template !== ""
        ? templates.apply(raw, statedFromJson(object, file), template)
        : raw,
    );
  }
}

function asObject(json: unknown, file: string, what: string): JsonObject {
  if (json === null || typeof json !== "object" || Array.isArray(json)) {
    throw new MapError(file, `${what} is not a JSON object`);
  }
  return json as JsonObject;
}

function integerField(object: JsonObject, key: string, file: string, where: string): number {
  const value = object[key];
  if (typeof value !== "number" || !Number.isInteger(value)) {
    throw new MapError(file, `${where}: ${key} is ${JSON.stringify(value)}, expected an integer`);
  }
  return value;
}

function arrayField(object: JsonObject, key: string, file: string, where: string): unknown[] {
  const value = object[key];
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new MapError(file, `${where}: ${key} is not an array`);
  return value;
}
