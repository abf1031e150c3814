// Tilesets embedded in a map or kept in an external file (.tsx XML, or .tsj /
// .json), reduced to what the loader needs: the GID range a tileset owns and
// the custom properties of its tiles, and where its art is (TilesetArt: the
// image or the per-tile images and how tiles are cut from them). Images are
// not opened here: tileset-images.ts reads them for the map's atlas.
import { dirname, resolve } from "node:path";
import { MapError } from "../content/map-error.js";
import { shapeFromJson, shapeFromXml, type ObjectShape } from "./object-shapes.js";
import { propertiesFromJson, type Properties } from "../content/properties.js";
import { childNamed, intAttr, parseXml, xmlProperties, type XmlElement } from "./xml-tree.js";
import { readBoundedText } from "../content/bounded-file.js";
import { pngSize } from "./png-frame.js";

export interface TileDefinition {
  /** The tile's `type` / `class` in Tiled; "" when unset. */
  className: string;
  properties: Properties;
}

/** An image a tileset names, resolved against the file that names it. */
export interface TilesetImageRef {
  /** As written in the file (for messages). */
  source: string;
  /** Absolute path. */
  path: string;
  /** The colour drawn as transparent (Tiled's `trans`, 0xRRGGBB), or null. */
  transparentColour: number | null;
  /** Sub-rectangle of the image (Tiled 1.9 image-collection tiles with x/y/width/height); null = the whole image. */
  rect: { x: number; y: number; width: number; height: number } | null;
  /** The image's size as the file states it (0 when unstated): a collection tile's size before its image is read. */
  widthPx: number;
  heightPx: number;
}

/** How a tileset's tiles are cut from its image(s) and placed on the map (docs/art.md § Map art). */
export interface TilesetArt {
  tileWidthPx: number;
  tileHeightPx: number;
  marginPx: number;
  spacingPx: number;
  /** Tiles per image row (the attribute, else derived from the image width); 0 for image collections. */
  columns: number;
  /** Tiled's <tileoffset>: every tile of the set is drawn shifted by this many pixels. */
  offsetXPx: number;
  offsetYPx: number;
  /** The one image of a grid tileset; null for an image collection. */
  image: TilesetImageRef | null;
  /** Image-collection tiles: each tile's own image, by local id. */
  tileImages: Map<number, TilesetImageRef>;
}

export interface Tileset {
  name: string;
  firstGid: number;
  /** One past the largest local tile id. */
  localIdSpan: number;
  /** For image-collection tilesets, the tile ids that exist (they need not be contiguous); null when all of 0..span-1 do. */
  definedLocalIds: ReadonlySet<number> | null;
  /** Tiles that carry a class or properties, by local id. */
  tiles: Map<number, TileDefinition>;
  /** The file the tileset was read from (the map itself when embedded). */
  file: string;
  art: TilesetArt;
  /** Collision shapes drawn inside tiles (Tiled's tile collision editor), by local id, in the tile's pixels. */
  collisionShapes: Map<number, ObjectShape[]>;
  /** Tile animations (Tiled's <animation>, a JSON tile's `animation`), by local id: the frames in order. */
  animations: Map<number, AnimationFrame[]>;
}

/** One frame of a tile animation: which tile of the same tileset is shown, and for how long. */
export interface AnimationFrame {
  localId: number;
  durationMs: number;
}

/** Checks one frame as the file states it; `where` names the tileset and tile for the message. */
function animationFrame(tileId: unknown, duration: unknown, file: string, where: string): AnimationFrame {
  if (typeof tileId !== "number" || !Number.isInteger(tileId) || tileId < 0) {
    throw new MapError(file, `${where}: frame tile id ${JSON.stringify(tileId)} is not a tile id`);
  }
  if (typeof duration !== "number" || !Number.isInteger(duration) || duration <= 0 || duration > 0x7fffffff) {
    throw new MapError(file, `${where}: frame duration ${JSON.stringify(duration)} is not a positive number of ms`);
  }
  return { localId: tileId, durationMs: duration };
}

/** Whether a local tile id exists in the tileset. */
export function tilesetHasLocalId(tileset: Tileset, localId: number): boolean {
  if (localId < 0 || localId >= tileset.localIdSpan) return false;
  return tileset.definedLocalIds === null || tileset.definedLocalIds.has(localId);
}

/** Every GID the tileset defines, ascending. */
export function* tilesetGids(tileset: Tileset): Generator<number> {
  if (tileset.definedLocalIds === null) {
    for (let local = 0; local < tileset.localIdSpan; local++) yield tileset.firstGid + local;
  } else {
    for (const local of [...tileset.definedLocalIds].sort((a, b) => a - b)) yield tileset.firstGid + local;
  }
}

/** Reads an external tileset referenced by `source` (relative to the referencing file). */
export function readExternalTileset(source: string, firstGid: number, referencingFile: string): Tileset {
  const path = resolve(dirname(referencingFile), source);
  let text: string;
  try {
    text = readBoundedText(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new MapError(referencingFile, `external tileset "${source}" cannot be read (${code})`);
  }
  if (/\.(tsj|json)$/i.test(path)) {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw new MapError(path, `bad JSON: ${(error as Error).message}`);
    }
    return tilesetFromJson(json, firstGid, path);
  }
  const root = parseXml(text, path);
  if (root.name !== "tileset") throw new MapError(path, `expected a <tileset> root element, found <${root.name}>`);
  return tilesetFromXml(root, firstGid, path);
}

/** A tileset from a TMX <tileset> element (embedded) or a TSX root element. */
export function tilesetFromXml(element: XmlElement, firstGid: number, file: string): Tileset {
  const name = element.attrs.name ?? "";
  const tiles = new Map<number, TileDefinition>();
  const listedIds = new Set<number>();
  const tileImages = new Map<number, TilesetImageRef>();
  const collisionShapes = new Map<number, ObjectShape[]>();
  const animations = new Map<number, AnimationFrame[]>();
  for (const child of element.children) {
    if (child.name !== "tile") continue;
    const localId = intAttr(child, "id", file);
    listedIds.add(localId);
    const shapes = childNamed(child, "objectgroup")
      ?.children.filter((object) => object.name === "object")
      .map((object) => shapeFromXml(object, file));
    if (shapes && shapes.length > 0) collisionShapes.set(localId, shapes);
    const animation = childNamed(child, "animation");
    if (animation) {
      const where = `tileset "${name}" tile ${localId} animation`;
      const frames = animation.children
        .filter((frame) => frame.name === "frame")
        .map((frame) => {
          const number = (key: string) =>
            /^\d+$/.test(frame.attrs[key] ?? "") ? Number(frame.attrs[key]) : frame.attrs[key];
          return animationFrame(number("tileid"), number("duration"), file, where);
        });
      if (frames.length > 0) animations.set(localId, frames);
    }
    const tileImage = childNamed(child, "image");
    if (tileImage?.attrs.source !== undefined) {
      const rect =
        child.attrs.width !== undefined && child.attrs.height !== undefined
          ? {
              x: intAttr(child, "x", file, 0),
              y: intAttr(child, "y", file, 0),
              width: intAttr(child, "width", file),
              height: intAttr(child, "height", file),
            }
          : null;
      const declared = { width: intAttr(tileImage, "width", file, 0), height: intAttr(tileImage, "height", file, 0) };
      tileImages.set(localId, imageRef(tileImage.attrs.source, tileImage.attrs.trans, rect, file, declared));
    }
    const className = child.attrs.class ?? child.attrs.type ?? "";
    const properties = xmlProperties(child);
    if (className !== "" || Object.keys(properties).length > 0) tiles.set(localId, { className, properties });
  }
  const image = childNamed(element, "image");
  const geometry = {
    tileCount: element.attrs.tilecount === undefined ? undefined : intAttr(element, "tilecount", file),
    tileWidth: intAttr(element, "tilewidth", file, 0),
    tileHeight: intAttr(element, "tileheight", file, 0),
    margin: intAttr(element, "margin", file, 0),
    spacing: intAttr(element, "spacing", file, 0),
    imageWidth: image ? intAttr(image, "width", file, 0) : undefined,
    imageHeight: image ? intAttr(image, "height", file, 0) : undefined,
    columns: element.attrs.columns === undefined ? undefined : intAttr(element, "columns", file),
  };
  const offset = childNamed(element, "tileoffset");
  const sheet = image?.attrs.source !== undefined ? imageRef(image.attrs.source, image.attrs.trans, null, file) : null;
  withImageSize(geometry, sheet);
  const art = artOf(
    geometry,
    offset ? intAttr(offset, "x", file, 0) : 0,
    offset ? intAttr(offset, "y", file, 0) : 0,
    sheet,
    tileImages,
  );
  return finishTileset(name, firstGid, file, tiles, image !== undefined, listedIds, geometry, art, {
    collisionShapes,
    animations,
  });
}

/** A tileset from a TMJ `tilesets[]` entry (embedded) or a .tsj file. */
export function tilesetFromJson(json: unknown, firstGid: number, file: string): Tileset {
  if (json === null || typeof json !== "object" || Array.isArray(json)) {
    throw new MapError(file, "tileset is not a JSON object");
  }
  const entry = json as Record<string, unknown>;
  const name = typeof entry.name === "string" ? entry.name : "";
  const tiles = new Map<number, TileDefinition>();
  const listedIds = new Set<number>();
  const tileImages = new Map<number, TilesetImageRef>();
  const collisionShapes = new Map<number, ObjectShape[]>();
  const animations = new Map<number, AnimationFrame[]>();
  if (entry.tiles !== undefined) {
    if (!Array.isArray(entry.tiles)) throw new MapError(file, `tileset "${name}": tiles is not an array`);
    for (const tile of entry.tiles as Record<string, unknown>[]) {
      const localId = tile?.id;
      if (typeof localId !== "number" || !Number.isInteger(localId) || localId < 0) {
        throw new MapError(file, `tileset "${name}": tile id ${JSON.stringify(localId)} is not an integer`);
      }
      listedIds.add(localId);
      const group = tile.objectgroup as { objects?: unknown } | undefined;
      if (group !== null && typeof group === "object" && Array.isArray(group.objects)) {
        const shapes = (group.objects as unknown[])
          .filter((object): object is Record<string, unknown> => object !== null && typeof object === "object")
          .map((object) => shapeFromJson(object, file));
        if (shapes.length > 0) collisionShapes.set(localId, shapes);
      }
      if (tile.animation !== undefined) {
        const where = `tileset "${name}" tile ${localId} animation`;
        if (!Array.isArray(tile.animation)) throw new MapError(file, `${where} is not an array`);
        const frames = (tile.animation as unknown[]).map((frame) => {
          const entry = (frame ?? {}) as Record<string, unknown>;
          return animationFrame(entry.tileid, entry.duration, file, where);
        });
        if (frames.length > 0) animations.set(localId, frames);
      }
      if (typeof tile.image === "string") {
        const size = (key: string): number | undefined =>
          typeof tile[key] === "number" && Number.isInteger(tile[key]) ? (tile[key] as number) : undefined;
        const width = size("width");
        const height = size("height");
        const rect =
          width !== undefined && height !== undefined ? { x: size("x") ?? 0, y: size("y") ?? 0, width, height } : null;
        const trans = typeof tile.transparentcolor === "string" ? tile.transparentcolor : undefined;
        const declared = { width: size("imagewidth") ?? 0, height: size("imageheight") ?? 0 };
        tileImages.set(localId, imageRef(tile.image, trans, rect, file, declared));
      }
      const className = typeof tile.class === "string" ? tile.class : typeof tile.type === "string" ? tile.type : "";
      const properties = propertiesFromJson(tile.properties);
      if (className !== "" || Object.keys(properties).length > 0) tiles.set(localId, { className, properties });
    }
  }
  // Tiled before 1.2 kept tile properties in a map keyed by the local id.
  if (entry.tileproperties !== null && typeof entry.tileproperties === "object") {
    for (const [key, value] of Object.entries(entry.tileproperties as Record<string, unknown>)) {
      const localId = Number(key);
      if (!Number.isInteger(localId)) continue;
      const previous = tiles.get(localId);
      tiles.set(localId, {
        className: previous?.className ?? "",
        properties: { ...previous?.properties, ...propertiesFromJson(value) },
      });
    }
  }
  const integer = (key: string): number | undefined => {
    const value = entry[key];
    if (value === undefined) return undefined;
    if (typeof value !== "number" || !Number.isInteger(value)) {
      throw new MapError(file, `tileset "${name}": ${key} is not an integer`);
    }
    return value;
  };
  const hasImage = typeof entry.image === "string";
  const geometry = {
    tileCount: integer("tilecount"),
    tileWidth: integer("tilewidth") ?? 0,
    tileHeight: integer("tileheight") ?? 0,
    margin: integer("margin") ?? 0,
    spacing: integer("spacing") ?? 0,
    imageWidth: integer("imagewidth"),
    imageHeight: integer("imageheight"),
    columns: integer("columns"),
  };
  const offset = entry.tileoffset as Record<string, unknown> | undefined;
  const offsetOf = (key: string): number =>
    offset !== null && typeof offset === "object" && typeof offset[key] === "number" ? Math.trunc(offset[key]) : 0;
  const trans = typeof entry.transparentcolor === "string" ? entry.transparentcolor : undefined;
  const image = hasImage ? imageRef(entry.image as string, trans, null, file) : null;
  withImageSize(geometry, image);
  const art = artOf(geometry, offsetOf("x"), offsetOf("y"), image, tileImages);
  return finishTileset(name, firstGid, file, tiles, hasImage, listedIds, geometry, art, {
    collisionShapes,
    animations,
  });
}

interface TilesetGeometry {
  tileCount: number | undefined;
  tileWidth: number;
  tileHeight: number;
  margin: number;
  spacing: number;
  imageWidth: number | undefined;
  imageHeight: number | undefined;
  columns: number | undefined;
}

/** `trans` is "rrggbb" or "#rrggbb" (TMX without the #, TMJ with it); anything else is no colour key. */
function imageRef(
  source: string,
  trans: string | undefined,
  rect: TilesetImageRef["rect"],
  file: string,
  declared: { width: number; height: number } = { width: 0, height: 0 },
): TilesetImageRef {
  const hex = trans?.replace(/^#/, "");
  const transparentColour = hex !== undefined && /^[0-9a-fA-F]{6}$/.test(hex) ? parseInt(hex, 16) : null;
  const path = resolve(dirname(file), source);
  return { source, path, transparentColour, rect, widthPx: declared.width, heightPx: declared.height };
}

/** The pixel size a tile is drawn at (before flips): its rectangle, its image's stated size, or the tileset's tile size. */
export function tileSizeOf(tileset: Tileset, localId: number): { widthPx: number; heightPx: number } {
  const art = tileset.art;
  const ref = art.image ? null : art.tileImages.get(localId);
  if (ref?.rect) return { widthPx: ref.rect.width, heightPx: ref.rect.height };
  if (ref && ref.widthPx > 0 && ref.heightPx > 0) return { widthPx: ref.widthPx, heightPx: ref.heightPx };
  return { widthPx: art.tileWidthPx, heightPx: art.tileHeightPx };
}

/**
 * A tileset image named without its size (Tiled's own perspective_walls.tsx: `<image source=…/>` and no
 * tilecount) is sized as Tiled sizes it, from the image: its PNG header. An image that cannot be read leaves
 * the size unknown (finishTileset says so if the grid cannot be derived without it).
 */
function withImageSize(geometry: TilesetGeometry, image: TilesetImageRef | null): void {
  if (image === null || (geometry.imageWidth && geometry.imageHeight)) return;
  if (geometry.tileCount !== undefined && geometry.columns !== undefined) return;
  const size = pngSize(image.path);
  if (size === null) return;
  geometry.imageWidth = size.width;
  geometry.imageHeight = size.height;
}

function artOf(
  geometry: TilesetGeometry,
  offsetXPx: number,
  offsetYPx: number,
  image: TilesetImageRef | null,
  tileImages: Map<number, TilesetImageRef>,
): TilesetArt {
  const { tileWidth, tileHeight, margin, spacing, imageWidth } = geometry;
  let columns = geometry.columns ?? 0;
  if (image && columns <= 0 && imageWidth && tileWidth > 0) {
    columns = Math.max(0, Math.floor((imageWidth - 2 * margin + spacing) / (tileWidth + spacing)));
  }
  return {
    tileWidthPx: tileWidth,
    tileHeightPx: tileHeight,
    marginPx: margin,
    spacingPx: spacing,
    columns: image ? columns : 0,
    offsetXPx,
    offsetYPx,
    image,
    tileImages,
  };
}

function finishTileset(
  name: string,
  firstGid: number,
  file: string,
  tiles: Map<number, TileDefinition>,
  hasImage: boolean,
  listedIds: Set<number>,
  geometry: TilesetGeometry,
  art: TilesetArt,
  perTile: Pick<Tileset, "collisionShapes" | "animations">,
): Tileset {
  const { collisionShapes, animations } = perTile;
  if (!hasImage) {
    // Image collection: each tile has its own image, and ids may have gaps,
    // so tilecount is not the span (forest.tsx: 7 tiles with ids 0..13).
    const span = listedIds.size === 0 ? 0 : Math.max(...listedIds) + 1;
    const tileset = {
      name,
      firstGid,
      localIdSpan: span,
      definedLocalIds: listedIds,
      tiles,
      file,
      art,
      collisionShapes,
    };
    return withAnimations(tileset, animations);
  }
  let count = geometry.tileCount;
  if (count === undefined) {
    // Old maps (no tilecount attribute): derive the grid from the image size.
    const { tileWidth, tileHeight, margin, spacing, imageWidth, imageHeight } = geometry;
    if (!imageWidth || !imageHeight || tileWidth <= 0 || tileHeight <= 0) {
      throw new MapError(
        file,
        `tileset "${name}" has no tilecount, and no image size to derive it from (its image is not a PNG that can be read)`,
      );
    }
    const columns = Math.floor((imageWidth - 2 * margin + spacing) / (tileWidth + spacing));
    const rows = Math.floor((imageHeight - 2 * margin + spacing) / (tileHeight + spacing));
    count = Math.max(0, columns) * Math.max(0, rows);
  }
  return withAnimations(
    { name, firstGid, localIdSpan: count, definedLocalIds: null, tiles, file, art, collisionShapes },
    animations,
  );
}

/** The tileset with its animations, every frame checked to name a tile of the set. */
function withAnimations(tileset: Omit<Tileset, "animations">, animations: Map<number, AnimationFrame[]>): Tileset {
  const complete: Tileset = { ...tileset, animations };
  for (const [localId, frames] of animations) {
    for (const frame of frames) {
      if (!tilesetHasLocalId(complete, frame.localId)) {
        throw new MapError(
          tileset.file,
          `tileset "${tileset.name}" tile ${localId} animation: frame tile ${frame.localId} is not in the tileset`,
        );
      }
    }
  }
  return complete;
}
