// Doors from the map (docs/maps.md § Doors): point objects in the "interactables"
// layer with `kind: "door"`, on a cell whose tile is a door tile — a closed one
// (its tile data names `opensTo`, the id it opens to) or the open tile of one.
// Optional properties: `locked` (bool) and `key` (the item's catalogue name, which
// a locked door needs). Validated strictly: every problem is a MapError naming the
// object, so a typo fails at start instead of leaving a door that never opens.
import { utf8ByteLength } from "../../protocol/text.js";
import { NAME_MAX_BYTES } from "../../protocol/tlv.js";
import { MapError } from "../content/map-error.js";
import { DOOR_KIND, type MapObject } from "../content/map-object.js";
import type { TileData } from "./tile-data.js";

/** Longest key name, in bytes of UTF-8 (an item name is an EntityDetail name). */
export const DOOR_KEY_MAX_BYTES = NAME_MAX_BYTES;
const DOOR_PROPERTIES = new Set(["kind", "locked", "key"]);

export interface DoorSpec {
  /** The Tiled object's id, for messages. */
  id: number;
  /** The object's name ("" when it has none: the door is then called "door" or "locked door"). */
  name: string;
  x: number;
  y: number;
  /** The tile the cell shows closed (and locked) and open. */
  closedTile: number;
  openTile: number;
  /** Open at start: the map has the open tile on the cell. */
  open: boolean;
  locked: boolean;
  /** The item that unlocks it (locked doors only), e.g. "rusty key". */
  key: string | null;
}

/** The door tiles of the tile data: closed id → open id, checked (an open tile opens nothing, collides nothing). */
export function doorTilePairs(tileData: TileData, file: string): Map<number, number> {
  const pairs = new Map<number, number>();
  const closedOf = new Map<number, number>();
  for (const info of tileData.values()) {
    if (info.opensTo === undefined) continue;
    const open = tileData.get(info.opensTo);
    const where = `tile ${info.id}${info.name ? ` ("${info.name}")` : ""}`;
    if (!open) throw new MapError(file, `${where}: opensTo ${info.opensTo} is no tile of the map's tile data`);
    if (!info.collides) throw new MapError(file, `${where}: a closed door tile must collide`);
    if (open.collides)
      throw new MapError(file, `${where}: opensTo ${open.id} collides, so the door would never let anyone through`);
    if (open.opensTo !== undefined)
      throw new MapError(file, `${where}: opensTo ${open.id} is itself a closed door tile`);
    const other = closedOf.get(open.id);
    if (other !== undefined) {
      throw new MapError(
        file,
        `${where}: opensTo ${open.id}, which tile ${other} opens to already (one closed tile per open tile)`,
      );
    }
    closedOf.set(open.id, info.id);
    pairs.set(info.id, open.id);
  }
  return pairs;
}

/** Whether `object` is a door object (an interactable whose kind is "door"). */
export function isDoorObject(object: MapObject): boolean {
  return object.properties.kind === DOOR_KIND;
}

/**
 * The map's doors, each checked: a point on a door tile inside the map, known properties of the
 * right types, a key exactly when locked, a locked door shut, one door per cell.
 */
export function doorsOf(
  objects: readonly MapObject[],
  tiles: Uint16Array,
  width: number,
  height: number,
  tileData: TileData,
  file: string,
): DoorSpec[] {
  const pairs = doorTilePairs(tileData, file);
  const closedOf = new Map<number, number>();
  for (const [closed, open] of pairs) closedOf.set(open, closed);
  const doors: DoorSpec[] = [];
  const cells = new Set<number>();
  for (const object of objects) {
    if (!isDoorObject(object)) continue;
    const where = `door object ${object.id}${object.name ? ` ("${object.name}")` : ""}`;
    if (!object.point) throw new MapError(file, `${where} must be a point object`);
    for (const name of Object.keys(object.properties)) {
      if (!DOOR_PROPERTIES.has(name)) {
        throw new MapError(file, `${where}: unknown property "${name}" (a door takes kind, locked and key)`);
      }
    }
    if (utf8ByteLength(object.name) > NAME_MAX_BYTES) {
      throw new MapError(file, `${where}: the name is at most ${NAME_MAX_BYTES} bytes of UTF-8 (an EntityDetail name)`);
    }
    const { x, y } = object;
    if (x < 0 || y < 0 || x >= width || y >= height)
      throw new MapError(file, `${where} at (${x}, ${y}) is outside the map`);
    const tile = tiles[y * width + x];
    const openTile = pairs.get(tile);
    const closedTile = closedOf.get(tile);
    if (openTile === undefined && closedTile === undefined) {
      throw new MapError(
        file,
        `${where} at (${x}, ${y}) stands on tile ${tile}, which is no door tile (a closed door tile names opensTo in the tile data)`,
      );
    }
    const locked = object.properties.locked ?? false;
    if (typeof locked !== "boolean") {
      throw new MapError(file, `${where}: "locked" must be a bool, got ${JSON.stringify(locked)}`);
    }
    const key = object.properties.key;
    if (key !== undefined && (typeof key !== "string" || key.trim() === "" || key !== key.trim())) {
      throw new MapError(file, `${where}: "key" must be an item name (a non-empty string without outer spaces)`);
    }
    if (typeof key === "string" && utf8ByteLength(key) > DOOR_KEY_MAX_BYTES) {
      throw new MapError(file, `${where}: "key" is at most ${DOOR_KEY_MAX_BYTES} bytes of UTF-8`);
    }
    if (locked && key === undefined) throw new MapError(file, `${where} is locked but names no "key" to open it`);
    if (!locked && key !== undefined) throw new MapError(file, `${where} names a "key" but is not locked`);
    const open = openTile === undefined;
    if (open && locked)
      throw new MapError(file, `${where} is locked but its cell (${x}, ${y}) shows the open door tile ${tile}`);
    const cell = y * width + x;
    if (cells.has(cell)) throw new MapError(file, `${where}: another door stands on (${x}, ${y})`);
    cells.add(cell);
    doors.push({
      id: object.id,
      name: object.name,
      x,
      y,
      closedTile: open ? closedTile! : tile,
      openTile: open ? tile : openTile!,
      open,
      locked,
      key: typeof key === "string" ? key : null,
    });
  }
  return doors;
}
