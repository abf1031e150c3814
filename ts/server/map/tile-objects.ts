// Tile objects (Tiled objects with a `gid`: a tile placed freely, like the
// forest example's trees and squirrel) drawn as static things with the map's
// art, the simplest honest way: each visible one is stamped at load into a
// tile layer of its own, at its object layer's place in the layer order, in the
// cell whose bottom-left corner is nearest the object's anchor (Tiled anchors
// a tile object at its bottom-left on orthogonal maps). From there it is an
// ordinary tile of the stack (tile-stacks.ts: a large one leaves a piece in
// every cell it covers), with its tile's flags and collision shapes. An object
// off the grid moves to the nearest cell (by less than half a tile; counted as
// snapped). A rotated tile object, or one drawn at another size than its tile,
// cannot be a cell's tile and is not drawn (listed, with the reason).
import { GID_TILE_MASK } from "./gid.js";
import type { RawMap, RawTileLayer } from "./raw-map.js";
import { GID_FLIP_HORIZONTAL, GID_FLIP_VERTICAL } from "./tile-stacks.js";
import { tileSizeOf, tilesetHasLocalId, type Tileset } from "./tileset.js";

export interface TileObjectReport {
  /** Tile objects stamped into the map's drawn layers. */
  stamped: number;
  /** Of those, the ones that were off the grid and moved to the nearest cell, and the largest move in px. */
  snapped: number;
  maxSnapPx: number;
  /** Visible tile objects that are not drawn, and why. */
  notDrawn: string[];
}

/** The world box the stamped layers cover, in Tiled tile coordinates. */
export interface StampExtent {
  originX: number;
  originY: number;
  width: number;
  height: number;
}

/**
 * The map's tile layers with its tile objects stamped in: after the tile layers that come before each object
 * layer, one layer per object layer (more when its objects overlap in a cell: a later object is drawn over).
 */
export function stampTileObjects(
  map: RawMap,
  extent: StampExtent,
): { layers: RawTileLayer[]; report: TileObjectReport } {
  const report: TileObjectReport = { stamped: 0, snapped: 0, maxSnapPx: 0, notDrawn: [] };
  const tilesets = [...map.tilesets].sort((a, b) => b.firstGid - a.firstGid);
  const inserts: { before: number; layers: RawTileLayer[] }[] = [];
  const tileW = map.tileWidthPx;
  const tileH = map.tileHeightPx;
  for (const objectLayer of map.objectLayers) {
    const stamped: RawTileLayer[] = [];
    const layerFor = (cell: number): RawTileLayer => {
      let layer = stamped.find((candidate) => candidate.chunks[0].gids[cell] === 0);
      if (!layer) {
        layer = {
          // Not "collision(s)" and no properties, so a stamped layer is always drawn (flatten.ts).
          name: `${objectLayer.name} (tile objects ${stamped.length + 1})`,
          path: `${objectLayer.path} (tile objects ${stamped.length + 1})`,
          visible: true,
          properties: {},
          chunks: [
            {
              x: extent.originX,
              y: extent.originY,
              width: extent.width,
              height: extent.height,
              gids: new Uint32Array(extent.width * extent.height),
            },
          ],
        };
        stamped.push(layer);
      }
      return layer;
    };
    for (const object of map.objects) {
      if (object.layer !== objectLayer.path || object.gid === 0 || !object.visible) continue;
      const name = `tile object ${object.id}${object.name !== "" ? ` ("${object.name}")` : ""} in "${object.layer}"`;
      const gid = object.gid & GID_TILE_MASK;
      const tileset: Tileset | undefined = tilesets.find((candidate) => candidate.firstGid <= gid);
      if (!tileset || !tilesetHasLocalId(tileset, gid - tileset.firstGid)) {
        report.notDrawn.push(`${name}: tile id ${gid} is in no tileset`);
        continue;
      }
      if (object.shape.rotationDeg !== 0) {
        report.notDrawn.push(`${name} is rotated ${object.shape.rotationDeg}°: only unrotated tile objects are drawn`);
        continue;
      }
      const size = tileSizeOf(tileset, gid - tileset.firstGid);
      const widthPx = object.widthPx > 0 ? object.widthPx : size.widthPx;
      const heightPx = object.heightPx > 0 ? object.heightPx : size.heightPx;
      if (widthPx !== size.widthPx || heightPx !== size.heightPx) {
        report.notDrawn.push(
          `${name} is drawn at ${widthPx}×${heightPx} px, its tile is ${size.widthPx}×${size.heightPx}: scaled tile objects are not drawn`,
        );
        continue;
      }
      if (tileW <= 0 || tileH <= 0) continue;
      // The cell whose bottom-left corner is nearest the object's bottom-left anchor.
      const column = Math.round(object.pixelX / tileW);
      const row = Math.round(object.pixelY / tileH) - 1;
      const snapPx = Math.max(Math.abs(object.pixelX - column * tileW), Math.abs(object.pixelY - (row + 1) * tileH));
      const x = column - extent.originX;
      const y = row - extent.originY;
      if (x < 0 || y < 0 || x >= extent.width || y >= extent.height) {
        report.notDrawn.push(`${name} is anchored outside the map (cell ${column}, ${row})`);
        continue;
      }
      const cell = y * extent.width + x;
      // A tile object keeps its horizontal and vertical flips (objects have no diagonal flip).
      layerFor(cell).chunks[0].gids[cell] = (gid | (object.gid & (GID_FLIP_HORIZONTAL | GID_FLIP_VERTICAL))) >>> 0;
      report.stamped++;
      if (snapPx > 0) {
        report.snapped++;
        report.maxSnapPx = Math.max(report.maxSnapPx, snapPx);
      }
    }
    if (stamped.length > 0) inserts.push({ before: objectLayer.tileLayersBefore, layers: stamped });
  }
  if (inserts.length === 0) return { layers: map.tileLayers, report };
  const layers: RawTileLayer[] = [];
  let next = 0;
  for (let index = 0; index <= map.tileLayers.length; index++) {
    while (next < inserts.length && inserts[next].before === index) layers.push(...inserts[next++].layers);
    if (index < map.tileLayers.length) layers.push(map.tileLayers[index]);
  }
  return { layers, report };
}
