// Tile objects (Tiled objects with a `gid`: a tile placed freely, like the
// forest example's trees and squirrel) drawn as static things with the map's
// art, the simplest honest way: each visible one is stamped at load into a
// tile layer of its own, at its object layer's place in the layer order, in the
// cell whose bottom-left corner is nearest the object's anchor (Tiled anchors
// a tile object at its bottom-left on orthogonal maps). From there it is an
// ordinary tile of the stack (tile-stacks.ts: a large one leaves a piece in
// every cell it covers), with its tile's flags and collision shapes. An object
// off the grid moves to the nearest cell (by less than half a tile; counted as
// snapped). One rotated by a multiple of 90° is its tile with the flips that
// rotation is (90° clockwise = diagonal + horizontal), anchored where the
// rotated tile's bottom-left lands. One rotated otherwise, or drawn at another
// size than its tile (Tiled scales it), cannot be a cell's tile and is not
// drawn (listed, with the reason).
import { GID_TILE_MASK } from "./gid.js";
import type { RawMap, RawTileLayer } from "./raw-map.js";
import { GID_FLIP_DIAGONAL, GID_FLIP_HORIZONTAL, GID_FLIP_VERTICAL } from "./tile-stacks.js";
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
          // Drawn as the object layer is: its opacity and tint apply to its tile objects in Tiled.
          opacity: objectLayer.opacity,
          ...(objectLayer.tint === undefined ? {} : { tint: objectLayer.tint }),
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
      const quarterTurns = quarterTurnsOf(object.shape.rotationDeg);
      if (quarterTurns === null) {
        report.notDrawn.push(
          `${name} is rotated ${object.shape.rotationDeg}°: only tile objects rotated by a multiple of 90° are drawn`,
        );
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
      // Where the (rotated) tile's bottom-left corner is: Tiled turns it clockwise about its anchor.
      const [leftPx, bottomPx] = [
        [object.pixelX, object.pixelY],
        [object.pixelX, object.pixelY + widthPx],
        [object.pixelX - widthPx, object.pixelY + heightPx],
        [object.pixelX - heightPx, object.pixelY],
      ][quarterTurns];
      // The cell whose bottom-left corner is nearest that corner.
      const column = Math.round(leftPx / tileW);
      const row = Math.round(bottomPx / tileH) - 1;
      const snapPx = Math.max(Math.abs(leftPx - column * tileW), Math.abs(bottomPx - (row + 1) * tileH));
      const x = column - extent.originX;
      const y = row - extent.originY;
      if (x < 0 || y < 0 || x >= extent.width || y >= extent.height) {
        report.notDrawn.push(`${name} is anchored outside the map (cell ${column}, ${row})`);
        continue;
      }
      const cell = y * extent.width + x;
      // A tile object keeps its horizontal and vertical flips (objects have no diagonal flip), then turns.
      const flips = rotatedFlips(object.gid & (GID_FLIP_HORIZONTAL | GID_FLIP_VERTICAL), quarterTurns);
      layerFor(cell).chunks[0].gids[cell] = (gid | flips) >>> 0;
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

/** 0..3 clockwise quarter turns for a rotation in degrees, or null when it is not a multiple of 90°. */
export function quarterTurnsOf(rotationDeg: number): number | null {
  const turns = rotationDeg / 90;
  if (!Number.isInteger(turns)) return null;
  return ((turns % 4) + 4) % 4;
}

/**
 * The flip bits that draw a tile flipped by `flips` and then turned clockwise `quarterTurns` times. A set of
 * flips is the transform V·H·D (the diagonal flip, an x/y swap, first; docs/maps.md § Formats): the eight sets are
 * the eight symmetries of a square, so the turned result is one of them, found by its matrix on screen (y down).
 */
export function rotatedFlips(flips: number, quarterTurns: number): number {
  type Matrix = [number, number, number, number]; // [a, b, c, d]: (u, v) → (a u + b v, c u + d v)
  const multiply = (m: Matrix, n: Matrix): Matrix => [
    m[0] * n[0] + m[1] * n[2],
    m[0] * n[1] + m[1] * n[3],
    m[2] * n[0] + m[3] * n[2],
    m[2] * n[1] + m[3] * n[3],
  ];
  const matrixOf = (bits: number): Matrix => {
    let m: Matrix = [1, 0, 0, 1];
    if (bits & GID_FLIP_DIAGONAL) m = multiply([0, 1, 1, 0], m);
    if (bits & GID_FLIP_HORIZONTAL) m = multiply([-1, 0, 0, 1], m);
    if (bits & GID_FLIP_VERTICAL) m = multiply([1, 0, 0, -1], m);
    return m;
  };
  let target = matrixOf(flips);
  // A clockwise quarter turn on screen: (u, v) → (−v, u).
  for (let turn = 0; turn < quarterTurns; turn++) target = multiply([0, -1, 1, 0], target);
  for (let bits = 0; bits < 8; bits++) {
    const candidate =
      (bits & 1 ? GID_FLIP_DIAGONAL : 0) | (bits & 2 ? GID_FLIP_HORIZONTAL : 0) | (bits & 4 ? GID_FLIP_VERTICAL : 0);
    if (matrixOf(candidate).every((value, index) => value === target[index])) return candidate >>> 0;
  }
  throw new Error("unreachable: the flips and quarter turns of a square are closed");
}
