// Tile objects (Tiled objects with a `gid`: a tile placed freely, like the
// forest example's trees and squirrel, or sticker-knight's scaled stickers).
// Collision and the look are two questions here, answered apart:
// - What collides is the grid's, as before: a visible tile object at its
//   tile's size, unrotated or turned by a multiple of 90°, is stamped at load
//   into a tile layer of its own, at its object layer's place in the layer
//   order, in the cell whose bottom-left corner is nearest the object's anchor
//   (Tiled anchors a tile object at its bottom-left on orthogonal maps), and is
//   from there an ordinary tile of that cell (its flags, its collision shapes,
//   the drawn id when on top). Any other (scaled, or rotated otherwise) is art
//   only: it blocks nothing, as it always did.
// - What is drawn is what Tiled draws: an object that sits on the grid is drawn
//   by its stamp (tile-stacks.ts: a large one leaves a piece in every cell it
//   covers). Every other one — off the grid, scaled, rotated by any angle — is a
//   *free object*: a piece of it goes into the stack of every cell its drawn
//   box touches, at its object layer's place, as GID FREE_OBJECT_GID_BASE + i,
//   and the atlas (map-atlas.ts) draws it there at its exact place, size, flips
//   and rotation. An off-grid object's stamp then only says what the cell is
//   (its layer is `undrawn`), so it is not drawn twice.
import { FREE_OBJECT_GID_BASE, GID_TILE_MASK } from "./gid.js";
import type { RawMap, RawTileLayer } from "./raw-map.js";
import { GID_FLIP_DIAGONAL, GID_FLIP_HORIZONTAL, GID_FLIP_VERTICAL } from "./tile-stacks.js";
import { tileSizeOf, tilesetHasLocalId, type Tileset } from "./tileset.js";

export interface TileObjectReport {
  /** Tile objects stamped into the map's layers: they are their cells' tiles (collision, drawn id). */
  stamped: number;
  /** Of those, the ones that were off the grid and stand in the nearest cell, and the largest move in px. */
  snapped: number;
  maxSnapPx: number;
  /** Tile objects drawn free (`freeObjects`): off the grid, scaled or rotated; the scaled and rotated ones block nothing. */
  free: number;
  /** Of the free ones, those drawn at another size than their tile's (Tiled scales them). */
  scaled: number;
  /** Visible tile objects that are not drawn, and why. */
  notDrawn: string[];
}

/**
 * A tile object drawn at its own place (map-atlas.ts draws it into the cells it touches): its tile, drawn
 * `widthPx` × `heightPx` with its bottom-left at (`xPx`, `yPx`) in world pixels (world cell (0, 0)'s
 * top-left is 0, 0), flipped as `flips` says (horizontal, vertical), then turned `rotationDeg` clockwise
 * about that corner, as Tiled draws tile objects on orthogonal maps.
 */
export interface FreeObject {
  gid: number;
  flips: number;
  xPx: number;
  yPx: number;
  widthPx: number;
  heightPx: number;
  rotationDeg: number;
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
): { layers: RawTileLayer[]; report: TileObjectReport; freeObjects: FreeObject[] } {
  const report: TileObjectReport = { stamped: 0, snapped: 0, maxSnapPx: 0, free: 0, scaled: 0, notDrawn: [] };
  const freeObjects: FreeObject[] = [];
  const tilesets = [...map.tilesets].sort((a, b) => b.firstGid - a.firstGid);
  const inserts: { before: number; layers: RawTileLayer[] }[] = [];
  const tileW = map.tileWidthPx;
  const tileH = map.tileHeightPx;
  for (const objectLayer of map.objectLayers) {
    const stamped: RawTileLayer[] = [];
    // The cells' tiles of objects drawn free instead (off the grid): what the cells are, not what they show.
    const undrawn: RawTileLayer[] = [];
    const layerFor = (cell: number, drawn = true): RawTileLayer => {
      const layers = drawn ? stamped : undrawn;
      let layer = layers.find((candidate) => candidate.chunks[0].gids[cell] === 0);
      if (!layer) {
        const label = drawn ? "tile objects" : "tile objects drawn free";
        layer = {
          // Not "collision(s)" and no properties, so a stamped layer is always drawn (flatten.ts).
          name: `${objectLayer.name} (${label} ${layers.length + 1})`,
          path: `${objectLayer.path} (${label} ${layers.length + 1})`,
          visible: true,
          ...(drawn ? {} : { undrawn: true }),
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
        layers.push(layer);
      }
      return layer;
    };
    // A free object: a piece in every cell its drawn box touches (the box turned about its anchor), in order.
    const drawFree = (object: FreeObject): void => {
      const index = freeObjects.length;
      freeObjects.push(object);
      report.free++;
      const box = freeObjectBox(object);
      const firstX = Math.max(0, Math.floor(box.left / tileW));
      const lastX = Math.min(extent.width - 1, Math.ceil(box.right / tileW) - 1);
      const firstY = Math.max(0, Math.floor(box.top / tileH));
      const lastY = Math.min(extent.height - 1, Math.ceil(box.bottom / tileH) - 1);
      for (let y = firstY; y <= lastY; y++) {
        for (let x = firstX; x <= lastX; x++) {
          const cell = y * extent.width + x;
          layerFor(cell).chunks[0].gids[cell] = FREE_OBJECT_GID_BASE + index;
        }
      }
    };
    const ownObjects = map.objects.filter((object) => object.layer === objectLayer.path);
    // Tiled draws an object layer top-down (by y, ties in file order) unless its draworder is "index".
    if (objectLayer.indexOrder !== true) ownObjects.sort((a, b) => a.pixelY - b.pixelY);
    for (const object of ownObjects) {
      if (object.gid === 0 || !object.visible) continue;
      const name = `tile object ${object.id}${object.name !== "" ? ` ("${object.name}")` : ""} in "${object.layer}"`;
      const gid = object.gid & GID_TILE_MASK;
      const tileset: Tileset | undefined = tilesets.find((candidate) => candidate.firstGid <= gid);
      if (!tileset || !tilesetHasLocalId(tileset, gid - tileset.firstGid)) {
        report.notDrawn.push(`${name}: tile id ${gid} is in no tileset`);
        continue;
      }
      if (tileW <= 0 || tileH <= 0) continue;
      const size = tileSizeOf(tileset, gid - tileset.firstGid);
      const widthPx = object.widthPx > 0 ? object.widthPx : size.widthPx;
      const heightPx = object.heightPx > 0 ? object.heightPx : size.heightPx;
      const free: FreeObject = {
        gid,
        flips: (object.gid & (GID_FLIP_HORIZONTAL | GID_FLIP_VERTICAL)) >>> 0,
        xPx: object.pixelX - extent.originX * tileW,
        yPx: object.pixelY - extent.originY * tileH,
        widthPx,
        heightPx,
        rotationDeg: object.shape.rotationDeg,
      };
      const quarterTurns = quarterTurnsOf(object.shape.rotationDeg);
      if (quarterTurns === null || widthPx !== size.widthPx || heightPx !== size.heightPx) {
        // Tiled scales or turns it: no cell's tile can be it, so it is drawn free and blocks nothing (as before).
        if (quarterTurns !== null) report.scaled++;
        drawFree(free);
        continue;
      }
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
        // No cell of the map is its own: the part inside the map is drawn, and it blocks nothing (as before).
        drawFree(free);
        continue;
      }
      const cell = y * extent.width + x;
      // A tile object keeps its horizontal and vertical flips (objects have no diagonal flip), then turns.
      const flips = rotatedFlips(free.flips, quarterTurns);
      // Off the grid, the cell's tile is the object (collision as ever) but it is drawn where Tiled draws it.
      layerFor(cell, snapPx === 0).chunks[0].gids[cell] = (gid | flips) >>> 0;
      report.stamped++;
      if (snapPx > 0) {
        report.snapped++;
        report.maxSnapPx = Math.max(report.maxSnapPx, snapPx);
        drawFree(free);
      }
    }
    if (stamped.length + undrawn.length > 0) {
      inserts.push({ before: objectLayer.tileLayersBefore, layers: [...undrawn, ...stamped] });
    }
  }
  if (inserts.length === 0) return { layers: map.tileLayers, report, freeObjects };
  const layers: RawTileLayer[] = [];
  let next = 0;
  for (let index = 0; index <= map.tileLayers.length; index++) {
    while (next < inserts.length && inserts[next].before === index) layers.push(...inserts[next++].layers);
    if (index < map.tileLayers.length) layers.push(map.tileLayers[index]);
  }
  return { layers, report, freeObjects };
}

/** A free object's drawn box in world pixels: its rectangle turned about its anchor, bounded. */
export function freeObjectBox(object: FreeObject): { left: number; top: number; right: number; bottom: number } {
  const radians = (object.rotationDeg * Math.PI) / 180;
  const cos = Math.cos(radians);
  const sin = Math.sin(radians);
  const xs: number[] = [];
  const ys: number[] = [];
  // The corners relative to the anchor (bottom-left), y down, turned clockwise on screen.
  for (const [u, v] of [
    [0, 0],
    [object.widthPx, 0],
    [0, -object.heightPx],
    [object.widthPx, -object.heightPx],
  ]) {
    xs.push(object.xPx + u * cos - v * sin);
    ys.push(object.yPx + u * sin + v * cos);
  }
  return { left: Math.min(...xs), top: Math.min(...ys), right: Math.max(...xs), bottom: Math.max(...ys) };
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
