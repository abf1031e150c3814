// Collision drawn as shapes (issue 16): rectangles, ellipses and polygons in an
// object layer such as `Collisions`, and the collision shapes a tileset draws
// inside its tiles (Tiled's tile collision editor: an <objectgroup> per tile).
// Collision stays one bit per cell, because both hosts decide steps from the
// cell's tile id alone (TILE_FLAGS), so each shape is rasterised to cells by
// one rule: a cell blocks when the shape covers the cell's centre. The
// flattener then gives such cells collision twins (flatten.ts), and the
// server, the client's prediction and A* all read the same ids.
import type { ObjectShape } from "./object-shapes.js";
import { hasCollisionProperty } from "../content/properties.js";
import type { RawMap, RawObject, RawObjectLayer, RawTileLayer } from "./raw-map.js";
import { GID_TILE_MASK } from "./gid.js";
import { GID_FLIP_DIAGONAL, GID_FLIP_HORIZONTAL, GID_FLIP_VERTICAL } from "./tile-stacks.js";
import { tileSizeOf, type Tileset } from "./tileset.js";

/** Whether a shape has an area that can cover cell centres (points, lines and text do not). */
export function hasArea(shape: ObjectShape): boolean {
  if (shape.kind === "rectangle" || shape.kind === "ellipse") return shape.widthPx > 0 && shape.heightPx > 0;
  return shape.kind === "polygon" && shape.points.length >= 3;
}

/** Whether the shape covers the point (px, py): the rule that rasterises it. Edges: left/top in, right/bottom out. */
export function shapeCovers(shape: ObjectShape, px: number, py: number): boolean {
  let lx = px - shape.x;
  let ly = py - shape.y;
  if (shape.rotationDeg !== 0) {
    // Into the shape's own frame: rotate by minus its rotation around its anchor.
    const radians = (-shape.rotationDeg * Math.PI) / 180;
    const cos = Math.cos(radians);
    const sin = Math.sin(radians);
    const rx = lx * cos - ly * sin;
    ly = lx * sin + ly * cos;
    lx = rx;
  }
  switch (shape.kind) {
    case "rectangle":
      return lx >= 0 && ly >= 0 && lx < shape.widthPx && ly < shape.heightPx;
    case "ellipse": {
      const rx = shape.widthPx / 2;
      const ry = shape.heightPx / 2;
      if (rx <= 0 || ry <= 0) return false;
      const dx = (lx - rx) / rx;
      const dy = (ly - ry) / ry;
      return dx * dx + dy * dy < 1;
    }
    case "polygon":
      return insidePolygon(shape.points, lx, ly);
    default:
      return false;
  }
}

/** Even-odd rule (a self-intersecting polygon's overlaps are outside, as Tiled fills them). */
function insidePolygon(points: readonly { x: number; y: number }[], px: number, py: number): boolean {
  let inside = false;
  for (let i = 0, j = points.length - 1; i < points.length; j = i++) {
    const a = points[i];
    const b = points[j];
    if (a.y > py !== b.y > py && px < ((b.x - a.x) * (py - a.y)) / (b.y - a.y) + a.x) inside = !inside;
  }
  return inside;
}

/** The shape's bounding box in its parent's pixels (rotation included). */
function boundsOf(shape: ObjectShape): { left: number; top: number; right: number; bottom: number } {
  const corners =
    shape.kind === "polygon" || shape.kind === "polyline"
      ? shape.points
      : [
          { x: 0, y: 0 },
          { x: shape.widthPx, y: 0 },
          { x: 0, y: shape.heightPx },
          { x: shape.widthPx, y: shape.heightPx },
        ];
  const radians = (shape.rotationDeg * Math.PI) / 180;
  const cos = Math.cos(radians);
  const sin = Math.sin(radians);
  let left = Infinity;
  let top = Infinity;
  let right = -Infinity;
  let bottom = -Infinity;
  for (const corner of corners) {
    const x = shape.x + corner.x * cos - corner.y * sin;
    const y = shape.y + corner.x * sin + corner.y * cos;
    left = Math.min(left, x);
    right = Math.max(right, x);
    top = Math.min(top, y);
    bottom = Math.max(bottom, y);
  }
  return { left, top, right, bottom };
}

/** The world grid shapes are rasterised onto. */
export interface CellGrid {
  width: number;
  height: number;
  cellWidthPx: number;
  cellHeightPx: number;
}

/**
 * Marks in `blocked` (one byte per cell, row-major) every cell of the grid whose centre the shape
 * covers; the shape's pixels are relative to the grid's top-left. Returns how many cells it covers.
 */
export function rasteriseShape(shape: ObjectShape, grid: CellGrid, blocked: Uint8Array): number {
  if (!hasArea(shape)) return 0;
  const { width, height, cellWidthPx, cellHeightPx } = grid;
  const box = boundsOf(shape);
  // Cells whose centre ((x + ½) · cell width) can lie inside the box.
  const firstX = Math.max(0, Math.ceil(box.left / cellWidthPx - 0.5));
  const lastX = Math.min(width - 1, Math.floor(box.right / cellWidthPx - 0.5));
  const firstY = Math.max(0, Math.ceil(box.top / cellHeightPx - 0.5));
  const lastY = Math.min(height - 1, Math.floor(box.bottom / cellHeightPx - 0.5));
  let covered = 0;
  for (let y = firstY; y <= lastY; y++) {
    for (let x = firstX; x <= lastX; x++) {
      if (!shapeCovers(shape, (x + 0.5) * cellWidthPx, (y + 0.5) * cellHeightPx)) continue;
      blocked[y * width + x] = 1;
      covered++;
    }
  }
  return covered;
}

/**
 * Marks every cell a polyline passes through (polylines in collision object layers: a fence, a cliff
 * edge). Each segment is walked cell by cell (Amanatides & Woo): a cell blocks when the segment runs
 * through its inside; a segment along a cell edge blocks the cells right of or below it, one through a
 * cell corner also one of the two cells beside the corner, and an end point on an edge does not reach
 * past it. The shape's rotation turns the points about its anchor. Returns how many cells of the grid
 * the line passes through (marked now or blocked already).
 */
export function rasterisePolyline(shape: ObjectShape, grid: CellGrid, blocked: Uint8Array): number {
  if (shape.kind !== "polyline" || shape.points.length < 2) return 0;
  const radians = (shape.rotationDeg * Math.PI) / 180;
  const cos = Math.cos(radians);
  const sin = Math.sin(radians);
  // In cell units, so cell (x, y) is the square [x, x + 1) × [y, y + 1).
  const points = shape.points.map((point) => ({
    x: (shape.x + point.x * cos - point.y * sin) / grid.cellWidthPx,
    y: (shape.y + point.x * sin + point.y * cos) / grid.cellHeightPx,
  }));
  const passed = new Set<number>();
  for (let i = 1; i < points.length; i++) {
    // Clipped to the map first, so a line drawn far outside costs nothing to walk.
    const inside = clipSegment(points[i - 1], points[i], grid.width, grid.height);
    if (inside === null) continue;
    walkSegment(inside[0], inside[1], (x, y) => {
      if (x >= 0 && y >= 0 && x < grid.width && y < grid.height) passed.add(y * grid.width + x);
    });
  }
  for (const cell of passed) blocked[cell] = 1;
  return passed.size;
}

type Point = { x: number; y: number };

/** The part of segment a–b inside [0, width] × [0, height] (Liang–Barsky), or null when none is. */
function clipSegment(a: Point, b: Point, width: number, height: number): [Point, Point] | null {
  const dx = b.x - a.x;
  const dy = b.y - a.y;
  let enter = 0;
  let leave = 1;
  for (const [p, q] of [
    [-dx, a.x],
    [dx, width - a.x],
    [-dy, a.y],
    [dy, height - a.y],
  ]) {
    if (p === 0) {
      if (q < 0) return null;
      continue;
    }
    const t = q / p;
    if (p < 0) enter = Math.max(enter, t);
    else leave = Math.min(leave, t);
    if (enter > leave) return null;
  }
  return [
    { x: a.x + enter * dx, y: a.y + enter * dy },
    { x: a.x + leave * dx, y: a.y + leave * dy },
  ];
}

/** Calls `visit` for each cell (unit squares) the segment from `a` to `b` passes through, in order. */
function walkSegment(a: { x: number; y: number }, b: { x: number; y: number }, visit: (x: number, y: number) => void) {
  const dx = b.x - a.x;
  const dy = b.y - a.y;
  // Leaving a point on an edge leftwards or upwards starts in the cell left of or above it; arriving on an
  // edge rightwards or downwards ends in the cell before it.
  const first = (at: number, d: number) => (d < 0 && Number.isInteger(at) ? at - 1 : Math.floor(at));
  const last = (from: number, at: number, d: number) => {
    const cell = d > 0 && Number.isInteger(at) ? at - 1 : Math.floor(at);
    return d > 0 ? Math.max(from, cell) : d < 0 ? Math.min(from, cell) : from;
  };
  let x = first(a.x, dx);
  let y = first(a.y, dy);
  const endX = last(x, b.x, dx);
  const endY = last(y, b.y, dy);
  const stepX = Math.sign(dx);
  const stepY = Math.sign(dy);
  const deltaX = stepX === 0 ? Infinity : Math.abs(1 / dx);
  const deltaY = stepY === 0 ? Infinity : Math.abs(1 / dy);
  // How far along the segment (0..1) the next vertical and horizontal cell edges are.
  let nextX = stepX > 0 ? (x + 1 - a.x) / dx : stepX < 0 ? (x - a.x) / dx : Infinity;
  let nextY = stepY > 0 ? (y + 1 - a.y) / dy : stepY < 0 ? (y - a.y) / dy : Infinity;
  visit(x, y);
  for (let steps = Math.abs(endX - x) + Math.abs(endY - y); steps > 0; steps--) {
    if (nextX < nextY) {
      x += stepX;
      nextX += deltaX;
    } else {
      y += stepY;
      nextY += deltaY;
    }
    visit(x, y);
  }
}

/** What the tiles' own collision shapes blocked. */
export interface TileShapeCollision {
  /** Distinct tiles (GIDs) with collision shapes that the map places. */
  tiles: number;
  /** Cells blocked by them. */
  cells: number;
}

/**
 * Rasterises the collision shapes drawn inside tiles, wherever a visible, drawn layer places such a tile:
 * the tile as Tiled draws it on an orthogonal map (bottom-left at its cell's bottom-left, moved by its
 * tileset's tileoffset, flipped as its GID says), and every cell whose centre one of its shapes covers.
 */
export function rasteriseTileShapes(input: {
  layers: readonly RawTileLayer[];
  isCollisionLayer: (layer: RawTileLayer) => boolean;
  tilesets: readonly Tileset[];
  grid: CellGrid;
  originX: number;
  originY: number;
  blocked: Uint8Array;
}): TileShapeCollision {
  const { layers, tilesets, grid, originX, originY, blocked } = input;
  const shaped = tilesets.filter((tileset) => tileset.collisionShapes.size > 0);
  if (shaped.length === 0) return { tiles: 0, cells: 0 };
  const descending = [...shaped].sort((a, b) => b.firstGid - a.firstGid);
  const shapesByGid = new Map<number, { tileset: Tileset; shapes: readonly ObjectShape[] } | null>();
  const shapesOf = (gid: number) => {
    let found = shapesByGid.get(gid);
    if (found === undefined) {
      const tileset = descending.find((candidate) => candidate.firstGid <= gid);
      const shapes = tileset?.collisionShapes.get(gid - tileset.firstGid);
      found = tileset && shapes ? { tileset, shapes } : null;
      shapesByGid.set(gid, found);
    }
    return found;
  };
  const placed = new Set<number>();
  let cells = 0;
  const { cellWidthPx: cellW, cellHeightPx: cellH } = grid;
  for (const layer of layers) {
    if (!layer.visible || input.isCollisionLayer(layer)) continue;
    for (const chunk of layer.chunks) {
      for (let i = 0; i < chunk.gids.length; i++) {
        const raw = chunk.gids[i];
        const gid = raw & GID_TILE_MASK;
        if (gid === 0) continue;
        const found = shapesOf(gid);
        if (!found) continue;
        placed.add(gid);
        const cellX = chunk.x + (i % chunk.width) - originX;
        const cellY = chunk.y + Math.floor(i / chunk.width) - originY;
        cells += rasteriseTile(found.tileset, gid - found.tileset.firstGid, found.shapes, raw, cellX, cellY);
      }
    }
  }
  return { tiles: placed.size, cells };

  function rasteriseTile(
    tileset: Tileset,
    localId: number,
    shapes: readonly ObjectShape[],
    raw: number,
    cellX: number,
    cellY: number,
  ): number {
    const size = tileSizeOf(tileset, localId);
    const diagonal = (raw & GID_FLIP_DIAGONAL) !== 0;
    const drawnW = diagonal ? size.heightPx : size.widthPx;
    const drawnH = diagonal ? size.widthPx : size.heightPx;
    const left = cellX * cellW + tileset.art.offsetXPx;
    const top = (cellY + 1) * cellH + tileset.art.offsetYPx - drawnH;
    const firstX = Math.max(0, Math.ceil(left / cellW - 0.5));
    const lastX = Math.min(grid.width - 1, Math.floor((left + drawnW) / cellW - 0.5));
    const firstY = Math.max(0, Math.ceil(top / cellH - 0.5));
    const lastY = Math.min(grid.height - 1, Math.floor((top + drawnH) / cellH - 0.5));
    let covered = 0;
    for (let y = firstY; y <= lastY; y++) {
      for (let x = firstX; x <= lastX; x++) {
        // The cell centre in the drawn tile, then back through the flips (drawn = V(H(D(tile)))) into the tile.
        let u = (x + 0.5) * cellW - left;
        let v = (y + 0.5) * cellH - top;
        if ((raw & GID_FLIP_VERTICAL) !== 0) v = drawnH - v;
        if ((raw & GID_FLIP_HORIZONTAL) !== 0) u = drawnW - u;
        if (diagonal) [u, v] = [v, u];
        if (!shapes.some((shape) => shapeCovers(shape, u, v))) continue;
        const cell = y * grid.width + x;
        if (blocked[cell] === 0) covered++;
        blocked[cell] = 1;
      }
    }
    return covered;
  }
}

/** What the collision objects of a map blocked, for MapSource and `map check`. */
export interface ObjectCollision {
  /** Objects used as collision (shapes with an area). */
  objects: number;
  /** Cells they block. */
  cells: number;
  /** Collision objects that block nothing, and why (no area, covers no cell centre). */
  notes: string[];
}

/** An object layer whose objects are all collision: named collision(s), or a true collision property. */
export function isCollisionObjectLayer(layer: RawObjectLayer): boolean {
  return /^collisions?$/i.test(layer.name) || hasCollisionProperty(layer.properties);
}

/** A collision object: in a collision object layer, of type/class `collision` (any case), or with a true collision property. */
export function isCollisionObject(object: RawObject, collisionLayers: ReadonlySet<string>): boolean {
  if (object.gid !== 0) return false; // tile objects are drawn things (tile-objects.ts), not shapes
  return (
    collisionLayers.has(object.layer) || /^collision$/i.test(object.type) || hasCollisionProperty(object.properties)
  );
}

/**
 * Rasterises the map's collision objects into `blocked` (hidden ones too: editors hide collision layers to
 * see the art, as with collision tile layers). Pixels are shifted by the world's origin (infinite maps).
 */
export function rasteriseCollisionObjects(
  map: RawMap,
  grid: CellGrid,
  originX: number,
  originY: number,
  blocked: Uint8Array,
): ObjectCollision {
  const layers = new Set(map.objectLayers.filter(isCollisionObjectLayer).map((layer) => layer.path));
  const result: ObjectCollision = { objects: 0, cells: 0, notes: [] };
  const before = blocked.reduce((sum, value) => sum + value, 0);
  for (const object of map.objects) {
    if (!isCollisionObject(object, layers)) continue;
    const name = `collision object ${object.id}${object.name !== "" ? ` ("${object.name}")` : ""} in "${object.layer}"`;
    const shape = {
      ...object.shape,
      x: object.shape.x - originX * grid.cellWidthPx,
      y: object.shape.y - originY * grid.cellHeightPx,
    };
    if (shape.kind === "polyline" && shape.points.length >= 2) {
      // A line has no area: it blocks the cells it passes through.
      result.objects++;
      if (rasterisePolyline(shape, grid, blocked) === 0)
        result.notes.push(`${name} lies outside the map: it blocks nothing`);
      continue;
    }
    if (!hasArea(object.shape)) {
      result.notes.push(`${name} is a ${object.shape.kind} without an area: it blocks nothing`);
      continue;
    }
    result.objects++;
    if (rasteriseShape(shape, grid, blocked) === 0) {
      result.notes.push(`${name} covers no cell's centre: it blocks nothing`);
    }
  }
  result.cells = blocked.reduce((sum, value) => sum + value, 0) - before;
  return result;
}
