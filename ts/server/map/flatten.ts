// Several Tiled tile layers become one world tile id per cell, because the
// wire carries one u16 per cell and both hosts decide collision from that id
// alone (the wasm TILE_FLAGS table). Rules (docs/maps.md):
// - the drawn id of a cell is the top-most visible, non-collision layer's tile;
// - the cell's flags are the OR of every visible drawn layer's tile flags there,
//   plus COLLIDES if any collision layer has a tile there;
// - when those flags differ from what the drawn id says on its own, the cell
//   gets a twin id: same look as the drawn id, the combined flags. Twins are
//   counted down from 0xFFFD, skipping every id that has tile data.
import { TILE_FLAG_COLLIDES, TILE_FLAG_OPAQUE } from "../../constants.js";
import { maskGid, MAX_WORLD_TILE_ID } from "./gid.js";
import { MapError } from "./map-error.js";
import { hasCollisionProperty } from "./properties.js";
import type { RawTileLayer } from "./raw-map.js";
import { tileFlagsOf } from "../../tile-flags.js";
import type { TileData, TileInfo } from "./tile-data.js";

export interface FlattenInput {
  file: string;
  /** World size in tiles. */
  width: number;
  height: number;
  /** Tiled coordinate of world cell (0, 0); non-zero only for infinite maps with chunks left of / above 0. */
  originX: number;
  originY: number;
  /** Tile layers bottom to top (document order). */
  layers: readonly RawTileLayer[];
  /** Tile data for the map's ids; completed in place with defaults and twins. */
  tileData: TileData;
}

export interface FlatWorld {
  /** One world tile id per cell, row-major. */
  tiles: Uint16Array;
  tileData: TileData;
  twinCount: number;
}

/** A layer that only marks blocked cells and is never drawn: named collision(s), or a collision property is true. */
export function isCollisionLayer(layer: RawTileLayer): boolean {
  return /^collisions?$/i.test(layer.name) || hasCollisionProperty(layer.properties);
}

export function flattenLayers(input: FlattenInput): FlatWorld {
  const { file, width, height, originX, originY, layers, tileData } = input;
  const cellCount = width * height;
  const topIds = new Uint32Array(cellCount);
  const cellFlags = new Uint8Array(cellCount);
  const flagsById = new Map<number, number>();
  const flagsOf = (id: number): number => {
    let flags = flagsById.get(id);
    if (flags === undefined) {
      let info = tileData.get(id);
      if (!info) {
        // Only CSV maps get here (Tiled maps reject GIDs outside their tilesets):
        // an id nobody described is a plain walkable tile drawn as itself.
        info = { id, collides: false, opaque: false, look: id };
        tileData.set(id, info);
      }
      flags = tileFlagsOf(info);
      flagsById.set(id, flags);
    }
    return flags;
  };

  for (const layer of layers) {
    // Collision layers count even when hidden: editors hide them to see the art.
    const collision = isCollisionLayer(layer);
    if (!collision && !layer.visible) continue;
    for (const chunk of layer.chunks) {
      const { gids } = chunk;
      for (let y = 0; y < chunk.height; y++) {
        const rowStart = (chunk.y + y - originY) * width + (chunk.x - originX);
        for (let x = 0; x < chunk.width; x++) {
          const gid = maskGid(gids[y * chunk.width + x]);
          if (gid === 0) continue;
          const cell = rowStart + x;
          if (collision) {
            cellFlags[cell] |= TILE_FLAG_COLLIDES;
            continue;
          }
          if (gid > MAX_WORLD_TILE_ID) {
            throw new MapError(
              file,
              `layer "${layer.path}" uses tile id ${gid} at (${chunk.x + x}, ${chunk.y + y}); ` +
                `ids above ${MAX_WORLD_TILE_ID} cannot be sent (u16, two ids reserved)`,
            );
          }
          topIds[cell] = gid;
          cellFlags[cell] |= flagsOf(gid);
        }
      }
    }
  }

  const tiles = new Uint16Array(cellCount);
  const twins = new Map<number, number>(); // key: id * 256 + flags
  let nextTwinId = MAX_WORLD_TILE_ID;
  for (let cell = 0; cell < cellCount; cell++) {
    const id = topIds[cell];
    const ownFlags = flagsOf(id);
    const flags = cellFlags[cell] | ownFlags;
    if (flags === ownFlags) {
      tiles[cell] = id;
      continue;
    }
    const key = id * 256 + flags;
    let twinId = twins.get(key);
    if (twinId === undefined) {
      while (nextTwinId > 0 && tileData.has(nextTwinId)) nextTwinId--;
      if (nextTwinId <= 0) throw new MapError(file, "no free tile ids left for collision twins");
      twinId = nextTwinId--;
      tileData.set(twinId, makeTwin(twinId, tileData.get(id)!, flags));
      twins.set(key, twinId);
    }
    tiles[cell] = twinId;
  }
  return { tiles, tileData, twinCount: twins.size };
}

function makeTwin(twinId: number, base: TileInfo, flags: number): TileInfo {
  const collides = (flags & TILE_FLAG_COLLIDES) !== 0;
  const opaque = (flags & TILE_FLAG_OPAQUE) !== 0;
  const added = [collides && !base.collides ? "collides" : "", opaque && !base.opaque ? "opaque" : ""]
    .filter((word) => word !== "")
    .join(", ");
  return {
    id: twinId,
    name: `${base.name ?? `tile ${base.id}`} (+${added})`,
    collides,
    opaque,
    look: base.look,
    twinOf: base.id,
  };
}
