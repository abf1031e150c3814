// What a map places, as the world's data reads it: an object of a Tiled object layer on the world grid,
// and an interactable (a sign, a notice board, a chest, a door). The map loader (../map/map-objects.ts)
// makes these from a map file; the data readers beside this file (spawns, chests, safe zones) take them,
// so they depend on the shape of a placed object, never on the loader.
import type { PropertyValue } from "./properties.js";

export interface MapObject {
  id: number;
  name: string;
  type: string;
  /** Path of the object layer ("group/layer"). */
  layer: string;
  /** World tile that contains the object's anchor (Tiled's x, y), after the infinite-map shift. */
  x: number;
  y: number;
  /** Size in whole tiles (at least 1 × 1; a point is 1 × 1): the tiles an area object covers from (x, y). */
  width: number;
  height: number;
  point: boolean;
  properties: Record<string, PropertyValue>;
}

export interface TilePosition {
  x: number;
  y: number;
}

/** The `kind` property value that makes an interactable a door (map-doors.ts reads those). */
export const DOOR_KIND = "door";

export interface Interactable {
  id: number;
  name: string;
  /** The object's `kind` property, e.g. "sign" or "notice_board". */
  kind: string;
  /** The `text` property (what a sign says), when present. */
  text?: string;
  x: number;
  y: number;
  properties: Record<string, PropertyValue>;
}
