// TMX (Tiled's XML map format) into the raw model. Layers are walked in
// document order, depth-first into <group>s; a group's visibility applies to
// everything inside it.
import { decodeEncodedGids, LayerDecodes, parseGid, type DataSite } from "./layer-data.js";
import { MapError } from "../content/map-error.js";
import { shapeFromXml } from "./object-shapes.js";
import { ObjectTemplates, statedFromXml } from "./object-templates.js";
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
import { readExternalTileset, tilesetFromXml, type Tileset } from "./tileset.js";
import { childNamed, intAttr, numberAttr, parseXml, xmlProperties, type XmlElement } from "./xml-tree.js";

/** Parses TMX text; `file` is used to resolve external tilesets and in errors. */
export function parseTmx(text: string, file: string): RawMap {
  const root = parseXml(text, file);
  if (root.name !== "map") throw new MapError(file, `expected a <map> root element, found <${root.name}>`);
  const infinite = root.attrs.infinite === "1";
  const map: RawMap = {
    file,
    format: "tmx",
    orientation: root.attrs.orientation ?? "orthogonal",
    width: intAttr(root, "width", file),
    height: intAttr(root, "height", file),
    tileWidthPx: intAttr(root, "tilewidth", file),
    tileHeightPx: intAttr(root, "tileheight", file),
    infinite,
    properties: xmlProperties(root),
    tilesets: [],
    tileLayers: [],
    objects: [],
    objectLayers: [],
    objectLayerCount: 0,
    groupLayerCount: 0,
    warnings: [],
  };
  for (const child of root.children) {
    if (child.name === "tileset") map.tilesets.push(readTileset(child, file));
  }
  const decodes = new LayerDecodes();
  walkLayers(root.children, map, "", true, 1, UNTINTED, decodes, new ObjectTemplates(map));
  decodes.run();
  const background = mapBackgroundColor(root.attrs.backgroundcolor, map.warnings);
  if (background !== undefined) map.backgroundColor = background;
  return map;
}

function readTileset(element: XmlElement, file: string): Tileset {
  const firstGid = intAttr(element, "firstgid", file);
  const source = element.attrs.source;
  return source === undefined ? tilesetFromXml(element, firstGid, file) : readExternalTileset(source, firstGid, file);
}

function walkLayers(
  children: XmlElement[],
  map: RawMap,
  parentPath: string,
  parentVisible: boolean,
  parentOpacity: number,
  parentTint: LayerTint,
  decodes: LayerDecodes,
  templates: ObjectTemplates,
): void {
  for (const element of children) {
    if (element.name !== "layer" && element.name !== "objectgroup" && element.name !== "group") continue;
    const name = element.attrs.name ?? "";
    const path = parentPath === "" ? name : `${parentPath}/${name}`;
    const visible = parentVisible && element.attrs.visible !== "0";
    const tint = layerTint(element.attrs.tintcolor, parentTint, path, map.warnings);
    const opacity = parentOpacity * layerOpacity(element.attrs.opacity);
    if (element.name === "layer") {
      map.tileLayers.push({
        ...readTileLayer(element, map, name, path, visible, decodes),
        ...layerLook(opacity, tint),
      });
    } else if (element.name === "objectgroup") {
      map.objectLayerCount++;
      map.objectLayers.push({
        name,
        path,
        visible,
        properties: xmlProperties(element),
        tileLayersBefore: map.tileLayers.length,
        ...layerLook(opacity, tint),
        ...(element.attrs.draworder === "index" ? { indexOrder: true } : {}),
      });
      readObjects(element, map, path, visible, templates);
    } else {
      map.groupLayerCount++;
      walkLayers(element.children, map, path, visible, opacity, tint, decodes, templates);
    }
  }
}

/** The layer with its chunks; their GIDs are decoded by `decodes` once the whole file is walked. */
function readTileLayer(
  element: XmlElement,
  map: RawMap,
  name: string,
  path: string,
  visible: boolean,
  decodes: LayerDecodes,
): RawTileLayer {
  const { file } = map;
  const site: DataSite = { file, where: `layer "${path}"` };
  const data = childNamed(element, "data");
  if (!data) throw new MapError(file, `${site.where} has no <data>`);
  const chunks: GidChunk[] = [];
  if (map.infinite) {
    for (const chunk of data.children) {
      if (chunk.name !== "chunk") continue;
      const x = intAttr(chunk, "x", file);
      const y = intAttr(chunk, "y", file);
      const width = intAttr(chunk, "width", file);
      const height = intAttr(chunk, "height", file);
      const chunkSite = { file, where: `${site.where} chunk (${x}, ${y})` };
      const area: GidChunk = { x, y, width, height, gids: new Uint32Array(0) };
      decodes.add(area, chunkSite, (cells, at) => readData(data, chunk, cells, at));
      chunks.push(area);
    }
  } else {
    const width = intAttr(element, "width", file, map.width);
    const height = intAttr(element, "height", file, map.height);
    if (width !== map.width || height !== map.height) {
      throw new MapError(file, `${site.where} is ${width}×${height}, the map is ${map.width}×${map.height}`);
    }
    const area: GidChunk = { x: 0, y: 0, width, height, gids: new Uint32Array(0) };
    decodes.add(area, site, (cells, at) => readData(data, data, cells, at));
    chunks.push(area);
  }
  return { name, path, visible, properties: xmlProperties(element), chunks };
}

/** Reads cells from `holder` (the <data> itself, or one of its <chunk>s) using <data>'s encoding. */
function readData(data: XmlElement, holder: XmlElement, cellCount: number, site: DataSite): Uint32Array {
  const encoding = data.attrs.encoding;
  if (encoding !== undefined) {
    return decodeEncodedGids(holder.text, encoding, data.attrs.compression, cellCount, site);
  }
  // No encoding: one <tile gid="…"/> per cell (deprecated, still valid TMX).
  const tiles = holder.children.filter((child) => child.name === "tile");
  if (tiles.length !== cellCount) {
    throw new MapError(site.file, `${site.where}: has ${tiles.length} <tile> elements, expected ${cellCount}`);
  }
  const gids = new Uint32Array(cellCount);
  for (let i = 0; i < cellCount; i++) gids[i] = parseGid((tiles[i].attrs.gid ?? "0").trim(), i, site);
  return gids;
}

function readObjects(
  group: XmlElement,
  map: RawMap,
  layerPath: string,
  layerVisible: boolean,
  templates: ObjectTemplates,
): void {
  const { file } = map;
  for (const element of group.children) {
    if (element.name !== "object") continue;
    const gidText = element.attrs.gid;
    const object: RawObject = {
      id: intAttr(element, "id", file, 0),
      name: element.attrs.name ?? "",
      type: element.attrs.class ?? element.attrs.type ?? "",
      layer: layerPath,
      pixelX: numberAttr(element, "x", file, 0),
      pixelY: numberAttr(element, "y", file, 0),
      widthPx: numberAttr(element, "width", file, 0),
      heightPx: numberAttr(element, "height", file, 0),
      point: childNamed(element, "point") !== undefined,
      gid: gidText === undefined ? 0 : parseGid(gidText.trim(), 0, { file, where: `object ${element.attrs.id}` }),
      shape: shapeFromXml(element, file),
      visible: layerVisible && element.attrs.visible !== "0",
      properties: xmlProperties(element),
    };
    const template = element.attrs.template;
    map.objects.push(template === undefined ? object : templates.apply(object, statedFromXml(element, file), template));
  }
}
