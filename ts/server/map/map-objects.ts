// Objects from Tiled object layers, placed on the world grid, and the two
// kinds the server uses: spawn points and interactables (signs, notice boards).
import { isTrue, propertyIgnoringCase } from "../content/properties.js";
import type { RawMap, RawTileLayer } from "./raw-map.js";
import { DOOR_KIND, type Interactable, type MapObject } from "../content/map-object.js";

/** Every object of the map with its tile position in world coordinates. */
export function worldObjects(map: RawMap, originX: number, originY: number): MapObject[] {
  return map.objects.map((object) => ({
    id: object.id,
    name: object.name,
    type: object.type,
    layer: object.layer,
    x: Math.floor(object.pixelX / map.tileWidthPx) - originX,
    y: Math.floor(object.pixelY / map.tileHeightPx) - originY,
    width: object.point ? 1 : Math.max(1, Math.round(object.widthPx / map.tileWidthPx)),
    height: object.point ? 1 : Math.max(1, Math.round(object.heightPx / map.tileHeightPx)),
    point: object.point,
    properties: object.properties,
  }));
}

/**
 * Spawn points: point objects whose type/class is "spawn", or any point object in a layer whose
 * path contains "spawn" (any case). Areas (rectangles) are not spawn points: in real maps a
 * "SPAWN" rectangle is where monsters appear, not players.
 */
export function spawnObjects(objects: readonly MapObject[]): MapObject[] {
  return objects.filter(
    (object) => object.point && (object.type.toLowerCase() === "spawn" || /spawn/i.test(object.layer)),
  );
}

/** Most spawn cells a start layer gives (a whole painted floor would be thousands; any of them will do). */
export const MAX_START_LAYER_SPAWNS = 256;

/**
 * WorkAdventure's convention (its starter kit's office.tmj): players start on the cells of a tile layer named
 * `start`, or with a true `startLayer` property, hidden or not. Cells are world cells (shifted by the origin), in
 * layer then row order; only free ones (`isFree`) count, at most MAX_START_LAYER_SPAWNS.
 */
export function startLayerSpawns(
  layers: readonly RawTileLayer[],
  originX: number,
  originY: number,
  isFree: (x: number, y: number) => boolean,
): { x: number; y: number }[] {
  const spawns: { x: number; y: number }[] = [];
  for (const layer of layers) {
    if (layer.name.toLowerCase() !== "start" && !isTrue(propertyIgnoringCase(layer.properties, "startLayer"))) continue;
    for (const chunk of layer.chunks) {
      for (let cell = 0; cell < chunk.gids.length && spawns.length < MAX_START_LAYER_SPAWNS; cell++) {
        if (chunk.gids[cell] === 0) continue;
        const x = chunk.x + (cell % chunk.width) - originX;
        const y = chunk.y + Math.floor(cell / chunk.width) - originY;
        if (isFree(x, y)) spawns.push({ x, y });
      }
    }
  }
  return spawns;
}

/**
 * Interactables: point objects with a string `kind` property, doors (kind "door") excepted. In a
 * layer named "interactables" every object should be such a point: one that is not is skipped with a
 * warning in `warnings` (the map plays without it).
 */
export function interactablesOf(objects: readonly MapObject[], warnings: string[]): Interactable[] {
  const found: Interactable[] = [];
  for (const object of objects) {
    const inInteractablesLayer = /(^|\/)interactables$/i.test(object.layer);
    const kind = object.properties.kind;
    if (typeof kind !== "string" || !object.point) {
      if (inInteractablesLayer) {
        warnings.push(
          `object ${object.id} in "${object.layer}" is not a point with a string "kind" property: not an interactable`,
        );
      }
      continue;
    }
    // Doors have their own loader and room (map-doors.ts, ts/server/world/doors.ts).
    if (kind === DOOR_KIND) continue;
    const interactable: Interactable = {
      id: object.id,
      name: object.name,
      kind,
      x: object.x,
      y: object.y,
      properties: object.properties,
    };
    if (typeof object.properties.text === "string") interactable.text = object.properties.text;
    found.push(interactable);
  }
  return found;
}
