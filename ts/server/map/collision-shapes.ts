// Collision drawn as shapes (issue 16): rectangles, ellipses and polygons in an
// object layer such as `Collisions`, and the collision shapes a tileset draws
// inside its tiles (Tiled's tile collision editor: an <objectgroup> per tile).
// Collision stays one bit per cell, because both hosts decide steps from the
// cell's tile id alone (TILE_FLAGS), so each shape is rasterised to cells by
// one rule: a cell blocks when the shape covers the cell's centre. The
// flattener then gives such cells collision twins (flatten.ts), and the
// server, the client's prediction and A* all read the same ids.
import type { ObjectShape } from "./object-shapes.js";
import { hasCollisionProperty } from "./properties.js";
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
    if (!hasArea(object.shape)) {
      result.notes.push(`${name} is a ${object.shape.kind} without an area: it blocks nothing`);
      continue;
    }
    const shape = {
      ...object.shape,
      x: object.shape.x - originX * grid.cellWidthPx,
      y: object.shape.y - originY * grid.cellHeightPx,
    };
    result.objects++;
    if (rasteriseShape(shape, grid, blocked) === 0) {
      result.notes.push(`${name} covers no cell's centre: it blocks nothing`);
    }
  }
  result.cells = blocked.reduce((sum, value) => sum + value, 0) - before;
  return result;
}
