// Warps, teleports and stairs from Tiled object layers (issue 16, docs/maps.md
// § Warps). A warp is an object whose cells move a player who steps onto them
// to a destination: a named object or a tile, in the same map or in another map
// of the world's folder. Three spellings are read, as real maps write them:
//
// - ours: type/class "warp" or "teleport", properties `map` (optional: a file
//   beside this one) and `to` (the name of an object there) or `x`, `y` (a tile);
// - Source of Tales: type "WARP", `DEST_MAP` (a path under the maps folder,
//   without extension, e.g. "goldenfields/house1") and `DEST_NAME` (an object);
// - WorkAdventure: any object with an `exitUrl` "other.tmj#entry" (the entry is
//   an object's name; a URL to another server is not followed);
// - The Mana World and its family (tmwAthena, Evol): type "warp", `dest_map` (a map
//   name without extension, e.g. "009-1") and `dest_x`, `dest_y` — a tile, written in
//   lower case (manaserv's upper-case DEST_X / DEST_Y are pixels, and not read).
//
// Stairs (type "stairs", `direction` down or up) lead to dungeon levels
// (docs/dungeons.md); the server places the levels, so they have no destination here.
import { existsSync, statSync } from "node:fs";
import { dirname, extname, resolve } from "node:path";
import type { MapObject } from "../content/map-object.js";
import { propertyIgnoringCase } from "../content/properties.js";

export interface WarpSpec {
  /** The Tiled object's id and name, for messages and `map check`. */
  id: number;
  name: string;
  /** The cells that send a player on: tiles [x, x + width) × [y, y + height) of this map. */
  x: number;
  y: number;
  width: number;
  height: number;
  kind: "warp" | "stairs";
  /** The destination map's file (resolved), or null for this map. */
  map: string | null;
  /** Where in the destination: an object's name, or a tile; null for stairs. */
  to: { name: string } | { x: number; y: number } | null;
  /** Stairs only: which way. */
  direction: "down" | "up" | null;
  /** Why the server cannot follow it (the map still plays); null when it can. */
  unfollowed: string | null;
}

const WARP_TYPES = new Set(["warp", "teleport"]);
const MAP_EXTENSIONS = ["", ".tmx", ".tmj", ".json"];

/** The warps, teleports and stairs among `objects` of the map file `file`. */
export function warpsOf(objects: readonly MapObject[], file: string): WarpSpec[] {
  const warps: WarpSpec[] = [];
  for (const object of objects) {
    const type = object.type.toLowerCase();
    const properties = object.properties;
    const exitUrl = propertyIgnoringCase(properties, "exitUrl");
    const base = {
      id: object.id,
      name: object.name,
      x: object.x,
      y: object.y,
      width: object.width,
      height: object.height,
    };
    if (type === "stairs") {
      const direction = String(propertyIgnoringCase(properties, "direction") ?? "down").toLowerCase();
      const known = direction === "down" || direction === "up";
      warps.push({
        ...base,
        kind: "stairs",
        map: null,
        to: null,
        direction: known ? direction : null,
        unfollowed: known ? null : `stairs ${describe(object)}: direction must be "down" or "up", not "${direction}"`,
      });
      continue;
    }
    if (typeof exitUrl === "string") {
      warps.push({ ...base, kind: "warp", direction: null, ...exitUrlTarget(exitUrl, file, object) });
      continue;
    }
    if (!WARP_TYPES.has(type)) continue;
    const destMap = propertyIgnoringCase(properties, "DEST_MAP") ?? propertyIgnoringCase(properties, "map");
    const destName = propertyIgnoringCase(properties, "DEST_NAME") ?? propertyIgnoringCase(properties, "to");
    // A tile: ours as x and y, The Mana World's as dest_x and dest_y (exactly so: DEST_X is manaserv's pixels).
    // Old TMX files write numbers untyped, as text.
    const destX = tileNumber(properties.dest_x ?? propertyIgnoringCase(properties, "x"));
    const destY = tileNumber(properties.dest_y ?? propertyIgnoringCase(properties, "y"));
    let to: WarpSpec["to"] = null;
    if (typeof destName === "string" && destName !== "") to = { name: destName };
    else if (destX !== null && destY !== null) to = { x: destX, y: destY };
    const map = typeof destMap === "string" && destMap !== "" ? findMapFile(destMap, file) : null;
    let unfollowed: string | null = null;
    if (to === null)
      unfollowed = `warp ${describe(object)}: no destination (a "to" / DEST_NAME object name, or x and y)`;
    else if (map === undefined)
      unfollowed = `warp ${describe(object)}: its map "${String(destMap)}" is not in the folder`;
    warps.push({ ...base, kind: "warp", map: map ?? null, to, direction: null, unfollowed });
  }
  return warps;
}

/** A whole tile coordinate, typed or written as text ("96"); null for anything else. */
function tileNumber(value: unknown): number | null {
  if (typeof value === "number") return Number.isInteger(value) ? value : null;
  if (typeof value === "string" && /^-?\d+$/.test(value.trim())) return Number(value.trim());
  return null;
}

function describe(object: MapObject): string {
  return `${object.id}${object.name ? ` ("${object.name}")` : ""}`;
}

/** WorkAdventure's exitUrl: "file#entry", "#entry" or "file" (the map's default start); URLs are not followed. */
function exitUrlTarget(url: string, file: string, object: MapObject): Pick<WarpSpec, "map" | "to" | "unfollowed"> {
  if (/^[a-z]+:\/\//i.test(url)) {
    return { map: null, to: null, unfollowed: `exit ${describe(object)}: "${url}" leads to another server` };
  }
  const hash = url.indexOf("#");
  const path = hash < 0 ? url : url.slice(0, hash);
  const entry = hash < 0 ? "" : url.slice(hash + 1);
  const map = path === "" ? null : findMapFile(path, file);
  if (map === undefined)
    return { map: null, to: null, unfollowed: `exit ${describe(object)}: "${path}" is not in the folder` };
  // Without an entry WorkAdventure uses the map's start; here that is the destination map's spawn ("" = spawn).
  return { map, to: { name: entry }, unfollowed: null };
}

/**
 * The map file a warp names, looked for beside `from` and one folder up (Source of Tales writes paths
 * under its maps folder), with the name as given or with .tmx, .tmj or .json added. null: `from` itself;
 * undefined: no such file.
 */
export function findMapFile(name: string, from: string): string | null | undefined {
  const here = dirname(from);
  for (const folder of [here, dirname(here)]) {
    for (const extension of extname(name) === "" ? MAP_EXTENSIONS : [""]) {
      const candidate = resolve(folder, name + extension);
      if (existsSync(candidate) && statSync(candidate).isFile()) {
        return candidate === resolve(from) ? null : candidate;
      }
    }
  }
  return undefined;
}
