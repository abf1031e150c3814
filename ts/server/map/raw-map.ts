// The loader's intermediate model: what a Tiled map (or a CSV grid) says, in
// one shape for every format, before anything is flattened. GIDs here are raw
// (orientation flags still set), so the decoders can be checked bit for bit.
import type { ObjectShape } from "./object-shapes.js";
import type { Properties } from "../content/properties.js";
import type { Tileset } from "./tileset.js";

export type MapFormat = "csv" | "tmx" | "tmj";

/** A rectangle of raw GIDs in Tiled's tile coordinates (chunk x/y may be negative in infinite maps). */
export interface GidChunk {
  x: number;
  y: number;
  width: number;
  height: number;
  /** Raw GIDs, row-major, width × height. */
  gids: Uint32Array;
}

export interface RawTileLayer {
  name: string;
  /** Group names and the layer name joined by "/", e.g. "furniture/furniture2". */
  path: string;
  /** False when the layer or any group above it is hidden. */
  visible: boolean;
  /**
   * How opaque Tiled draws it, 0 … 1: its `opacity` times every group's above it (Tiled multiplies them);
   * absent: 1.
   */
  opacity?: number;
  /**
   * The colour Tiled multiplies its tiles' colours by, 0xRRGGBB: its `tintcolor` times every group's above it,
   * channel by channel (a tint's alpha is folded into `opacity`, as Tiled multiplies it in too); absent: none.
   */
  tint?: number;
  properties: Properties;
  /** One chunk covering the map for finite maps; the file's chunks, in file order, for infinite maps. */
  chunks: GidChunk[];
  /**
   * True for the layers of tile objects drawn free (tile-objects.ts): its tiles are the cells' tiles (drawn
   * id, flags, collision shapes) but draw nothing, as the free object draws them where Tiled does.
   */
  undrawn?: boolean;
}

export interface RawObject {
  id: number;
  name: string;
  /** Tiled's object `type` (renamed `class` in Tiled 1.9); "" when unset. */
  type: string;
  /** Path of the object layer it is in. */
  layer: string;
  /** Position in pixels, as Tiled stores it. */
  pixelX: number;
  pixelY: number;
  widthPx: number;
  heightPx: number;
  point: boolean;
  /** GID of a tile object (raw, flags included), 0 for other objects. */
  gid: number;
  /** Its geometry (kind, rotation, polygon points), for collision objects and tile objects. */
  shape: ObjectShape;
  /** False when the object, its layer or a group above it is hidden. */
  visible: boolean;
  properties: Properties;
}

export interface RawObjectLayer {
  name: string;
  path: string;
  visible: boolean;
  properties: Properties;
  /** How many tile layers come before it in document order (where its tile objects are drawn). */
  tileLayersBefore: number;
  /** As a tile layer's: how its tile objects are drawn (Tiled applies an object layer's opacity and tint to them). */
  opacity?: number;
  tint?: number;
  /** Tiled's `draworder="index"`: its objects drawn in file order; otherwise ("topdown", the default) by y. */
  indexOrder?: boolean;
}

export interface RawMap {
  file: string;
  format: MapFormat;
  orientation: string;
  /** Size in tiles from the map header; for infinite maps Tiled's values, which do not bound the chunks. */
  width: number;
  height: number;
  tileWidthPx: number;
  tileHeightPx: number;
  infinite: boolean;
  properties: Properties;
  tilesets: Tileset[];
  /** Tile layers in document order, depth-first into groups. */
  tileLayers: RawTileLayer[];
  objects: RawObject[];
  /** The object layers, in document order. */
  objectLayers: RawObjectLayer[];
  objectLayerCount: number;
  groupLayerCount: number;
  /** What the parser left out where Tiled would go on (a layer of a type it does not know); LoadedMap.warnings. */
  warnings: string[];
  /** Tiled's map `backgroundcolor`, 0xRRGGBB (its alpha folded in over black); absent: none. */
  backgroundColor?: number;
}

/**
 * A map's `backgroundcolor` ("#RRGGBB" or "#AARRGGBB", as Tiled writes it in both formats) as 0xRRGGBB, a
 * colour with alpha mixed over black; undefined when absent or fully transparent; not a colour: undefined
 * and a warning, as Tiled then draws none.
 */
export function mapBackgroundColor(value: unknown, warnings: string[]): number | undefined {
  if (value === undefined || value === "") return undefined;
  const match = typeof value === "string" ? /^#?([0-9a-fA-F]{2})?([0-9a-fA-F]{6})$/.exec(value.trim()) : null;
  if (match === null) {
    warnings.push(`map backgroundcolor ${JSON.stringify(value)} is not a colour: no background drawn`);
    return undefined;
  }
  const alpha = match[1] === undefined ? 255 : parseInt(match[1], 16);
  if (alpha === 0) return undefined;
  const rgb = parseInt(match[2], 16);
  const channel = (shift: number): number => Math.round((((rgb >>> shift) & 0xff) * alpha) / 255) << shift;
  return (channel(16) | channel(8) | channel(0)) >>> 0;
}

/** A layer's tint as Tiled combines them down the groups: colours multiplied channel by channel, alphas too. */
export interface LayerTint {
  /** 0xRRGGBB; 0xffffff multiplies nothing. */
  rgb: number;
  /** 0 … 1, multiplied into the layer's opacity. */
  alpha: number;
}

export const UNTINTED: LayerTint = { rgb: 0xffffff, alpha: 1 };

/**
 * A layer's `tintcolor` ("#RRGGBB" or "#AARRGGBB", as Tiled writes it in both formats) under its parent
 * group's tint. Absent: the parent's. Not a colour: the parent's, and a warning naming the layer, as Tiled
 * draws such a layer untinted.
 */
export function layerTint(value: unknown, parent: LayerTint, path: string, warnings: string[]): LayerTint {
  if (value === undefined || value === "") return parent;
  const match = typeof value === "string" ? /^#?([0-9a-fA-F]{2})?([0-9a-fA-F]{6})$/.exec(value.trim()) : null;
  if (match === null) {
    warnings.push(`layer "${path}" has tintcolor ${JSON.stringify(value)}, not a colour: drawn untinted`);
    return parent;
  }
  const own = parseInt(match[2], 16);
  const channel = (shift: number): number =>
    Math.round((((parent.rgb >>> shift) & 0xff) * ((own >>> shift) & 0xff)) / 255) << shift;
  const alpha = match[1] === undefined ? 1 : parseInt(match[1], 16) / 255;
  return { rgb: (channel(16) | channel(8) | channel(0)) >>> 0, alpha: parent.alpha * alpha };
}

/** How a tile layer is drawn: its opacity with its tint's alpha folded in, and its tint when it has one. */
export function layerLook(opacity: number, tint: LayerTint): Pick<RawTileLayer, "opacity" | "tint"> {
  return { opacity: opacity * tint.alpha, ...(tint.rgb === UNTINTED.rgb ? {} : { tint: tint.rgb }) };
}

/** A layer's `opacity` attribute or field, 0 … 1; absent or not a number: 1 (as Tiled reads it). */
export function layerOpacity(value: unknown): number {
  const opacity = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  return typeof opacity === "number" && Number.isFinite(opacity) ? Math.min(1, Math.max(0, opacity)) : 1;
}
