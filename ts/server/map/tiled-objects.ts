// Writing Tiled objects and object layers (TMJ) for the maps this project
// generates — the bundled caves (caves-tmj.ts) and dungeon levels
// (dungeon/dungeon-tmj.ts): one numbering of object ids, points at a tile's
// centre so they sit visibly on their tile in Tiled, areas in whole tiles.

const TILE_PX = 8;

export interface TiledProperty {
  name: string;
  type: "bool" | "string" | "int";
  value: boolean | string | number;
}

/** Objects of one map, numbered 1, 2, 3, … in the order they are made. */
export class TiledObjects {
  private nextId = 1;

  /** The map's `nextobjectid`: the id the next object would get. */
  get nextObjectId(): number {
    return this.nextId;
  }

  /** A point object at the centre of tile (x, y); `properties` only when there are any. */
  point(name: string, type: string, x: number, y: number, properties: TiledProperty[] = []) {
    return {
      id: this.nextId++,
      name,
      type,
      x: x * TILE_PX + TILE_PX / 2,
      y: y * TILE_PX + TILE_PX / 2,
      width: 0,
      height: 0,
      rotation: 0,
      visible: true,
      point: true,
      ...(properties.length > 0 ? { properties } : {}),
    };
  }

  /** A rectangle over tiles [x, x + width) × [y, y + height). */
  area(name: string, type: string, x: number, y: number, width: number, height: number, properties: TiledProperty[]) {
    return {
      id: this.nextId++,
      name,
      type,
      x: x * TILE_PX,
      y: y * TILE_PX,
      width: width * TILE_PX,
      height: height * TILE_PX,
      rotation: 0,
      visible: true,
      properties,
    };
  }
}

/** An object layer. */
export function objectLayer(id: number, name: string, objects: unknown[]) {
  return { id, name, type: "objectgroup", draworder: "topdown", x: 0, y: 0, opacity: 1, visible: true, objects };
}

/**
 * A whole orthogonal 8-px map as TMJ text: one tile layer "ground" (id 1; its data one row per
 * line, so diffs stay readable), the object layers given (ids from 2), the map's properties and one
 * tileset. Deterministic: the same arguments, the same bytes.
 */
export function tiledMapText(map: {
  width: number;
  height: number;
  tiles: Uint16Array;
  objectLayers: readonly unknown[];
  nextObjectId: number;
  properties: TiledProperty[];
  tileset: Record<string, unknown>;
}): string {
  const json = {
    compressionlevel: -1,
    width: map.width,
    height: map.height,
    infinite: false,
    layers: [
      {
        id: 1,
        name: "ground",
        type: "tilelayer",
        x: 0,
        y: 0,
        width: map.width,
        height: map.height,
        opacity: 1,
        visible: true,
        data: "@DATA@",
      },
      ...map.objectLayers,
    ],
    nextlayerid: map.objectLayers.length + 2,
    nextobjectid: map.nextObjectId,
    orientation: "orthogonal",
    properties: map.properties,
    renderorder: "right-down",
    tiledversion: "1.10.2",
    tileheight: TILE_PX,
    tilewidth: TILE_PX,
    tilesets: [map.tileset],
    type: "map",
    version: "1.10",
  };
  const rows: string[] = [];
  for (let y = 0; y < map.height; y++) {
    rows.push(Array.from(map.tiles.subarray(y * map.width, (y + 1) * map.width)).join(","));
  }
  return JSON.stringify(json, null, 1).replace('"@DATA@"', `[\n${rows.join(",\n")}\n]`) + "\n";
}
