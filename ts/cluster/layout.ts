// Which region owns which chunks (docs/scaling.md § Regions): a static layout of chunk rectangles, each
// owned by one region process, covering the map exactly once. A region may own several rectangles, so a
// rectangle can later be moved to another process by changing its owner alone. The handoff rule with its
// hysteresis and the ghost band (who is published to a neighbour) are here too, as pure functions over
// the layout, so every process decides them the same way.
import { readFileSync } from "node:fs";
import { CHUNK_SIZE } from "../constants.js";
import { VIEW_RADIUS } from "../server/entities/view.js";

/** Chunk rectangle [cx0, cx1) × [cy0, cy1) owned by `region`. */
export interface RegionRect {
  readonly region: number;
  readonly cx0: number;
  readonly cy0: number;
  readonly cx1: number;
  readonly cy1: number;
}

export interface ClusterLayout {
  readonly chunksX: number;
  readonly chunksY: number;
  /** Region ids 0 … regionCount − 1. */
  readonly regionCount: number;
  readonly rects: readonly RegionRect[];
}

/**
 * An entity is handed to the region whose ground it stands on only once it is more than this many tiles
 * from every tile of its owner: walking back and forth over a border line never moves authority; a
 * move back needs 2 × margin + 1 tiles of walking.
 */
export const HANDOFF_MARGIN_TILES = 2;

/**
 * Entities this close (Chebyshev, tiles) to a neighbour's ground are published to it as ghosts: a
 * player there sees everything within its view radius, plus the margin an owner may stand inside the
 * neighbour's ground before it hands off.
 */
export const GHOST_RADIUS_TILES = VIEW_RADIUS + HANDOFF_MARGIN_TILES + 1;

export class LayoutError extends Error {}

/**
 * The layout in `text` ({"regions": [{"region": 0, "chunks": [cx0, cy0, cx1, cy1]}, …]}, half-open
 * chunk rectangles) checked against a map of chunksX × chunksY chunks: every chunk owned exactly once,
 * region ids dense from 0.
 */
export function parseLayout(text: string, chunksX: number, chunksY: number): ClusterLayout {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new LayoutError(`the layout is not JSON: ${(error as Error).message}`);
  }
  const list = (raw as { regions?: unknown })?.regions;
  if (!Array.isArray(list) || list.length === 0) throw new LayoutError('the layout needs a non-empty "regions" list');
  const rects = list.map((entry: unknown, index) => {
    const { region, chunks } = (entry ?? {}) as { region?: unknown; chunks?: unknown };
    if (!Number.isInteger(region) || (region as number) < 0) {
      throw new LayoutError(`regions[${index}].region must be an integer ≥ 0`);
    }
    if (!Array.isArray(chunks) || chunks.length !== 4 || !chunks.every((n) => Number.isInteger(n))) {
      throw new LayoutError(`regions[${index}].chunks must be [cx0, cy0, cx1, cy1], integers`);
    }
    const [cx0, cy0, cx1, cy1] = chunks as number[];
    if (cx0 < 0 || cy0 < 0 || cx1 > chunksX || cy1 > chunksY || cx0 >= cx1 || cy0 >= cy1) {
      throw new LayoutError(
        `regions[${index}].chunks [${chunks.join(", ")}] is empty or outside ${chunksX}×${chunksY}`,
      );
    }
    return { region: region as number, cx0, cy0, cx1, cy1 };
  });
  return checkedLayout(chunksX, chunksY, rects);
}

export function readLayout(path: string, chunksX: number, chunksY: number): ClusterLayout {
  return parseLayout(readFileSync(path, "utf8"), chunksX, chunksY);
}

/** `regions` near-square rectangles over the map: columns × rows with columns ≥ rows. */
export function gridLayout(chunksX: number, chunksY: number, regions: number): ClusterLayout {
  if (!Number.isInteger(regions) || regions < 1)
    throw new LayoutError(`regions must be an integer ≥ 1, got ${regions}`);
  let rows = Math.floor(Math.sqrt(regions));
  while (regions % rows !== 0) rows--;
  const columns = regions / rows;
  if (columns > chunksX || rows > chunksY) {
    throw new LayoutError(`${regions} regions do not fit a map of ${chunksX}×${chunksY} chunks`);
  }
  const rects: RegionRect[] = [];
  for (let row = 0; row < rows; row++) {
    for (let column = 0; column < columns; column++) {
      rects.push({
        region: row * columns + column,
        cx0: Math.floor((column * chunksX) / columns),
        cx1: Math.floor(((column + 1) * chunksX) / columns),
        cy0: Math.floor((row * chunksY) / rows),
        cy1: Math.floor(((row + 1) * chunksY) / rows),
      });
    }
  }
  return checkedLayout(chunksX, chunksY, rects);
}

function checkedLayout(chunksX: number, chunksY: number, rects: RegionRect[]): ClusterLayout {
  const owner = new Int32Array(chunksX * chunksY).fill(-1);
  for (const rect of rects) {
    for (let cy = rect.cy0; cy < rect.cy1; cy++) {
      for (let cx = rect.cx0; cx < rect.cx1; cx++) {
        if (owner[cy * chunksX + cx] !== -1) throw new LayoutError(`chunk (${cx}, ${cy}) is owned twice`);
        owner[cy * chunksX + cx] = rect.region;
      }
    }
  }
  const missing = owner.indexOf(-1);
  if (missing !== -1) {
    throw new LayoutError(`chunk (${missing % chunksX}, ${Math.floor(missing / chunksX)}) has no region`);
  }
  const regionCount = Math.max(...rects.map((rect) => rect.region)) + 1;
  for (let region = 0; region < regionCount; region++) {
    if (!rects.some((rect) => rect.region === region)) throw new LayoutError(`region ${region} owns no chunk`);
  }
  return { chunksX, chunksY, regionCount, rects };
}

/** The region owning tile (x, y); tiles outside the map belong to the nearest rectangle's region. */
export function regionOfTile(layout: ClusterLayout, x: number, y: number): number {
  let best = layout.rects[0].region;
  let bestDistance = Infinity;
  for (const rect of layout.rects) {
    const distance = distanceToRect(rect, x, y);
    if (distance === 0) return rect.region;
    if (distance < bestDistance) {
      bestDistance = distance;
      best = rect.region;
    }
  }
  return best;
}

/** Chebyshev distance in tiles from tile (x, y) to the nearest tile of `region`'s ground (0: on it). */
export function distanceToRegion(layout: ClusterLayout, region: number, x: number, y: number): number {
  let best = Infinity;
  for (const rect of layout.rects) if (rect.region === region) best = Math.min(best, distanceToRect(rect, x, y));
  return best;
}

function distanceToRect(rect: RegionRect, x: number, y: number): number {
  const x0 = rect.cx0 * CHUNK_SIZE;
  const x1 = rect.cx1 * CHUNK_SIZE - 1;
  const y0 = rect.cy0 * CHUNK_SIZE;
  const y1 = rect.cy1 * CHUNK_SIZE - 1;
  return Math.max(x0 - x, x - x1, 0, Math.max(y0 - y, y - y1, 0));
}

/**
 * Where an entity owned by `owner` standing on (x, y) must be handed, or -1 to stay: to the region of
 * its tile once it is more than HANDOFF_MARGIN_TILES from all of the owner's ground.
 */
export function handoffTarget(layout: ClusterLayout, owner: number, x: number, y: number): number {
  if (distanceToRegion(layout, owner, x, y) <= HANDOFF_MARGIN_TILES) return -1;
  return regionOfTile(layout, x, y);
}

/** The regions other than `self` whose ground is within the ghost radius of some ground of `self`. */
export function neighboursOf(layout: ClusterLayout, self: number): number[] {
  const out: number[] = [];
  for (let region = 0; region < layout.regionCount; region++) {
    if (region === self) continue;
    const near = layout.rects.some(
      (mine) =>
        mine.region === self &&
        layout.rects.some((theirs) => theirs.region === region && rectGapTiles(mine, theirs) <= GHOST_RADIUS_TILES),
    );
    if (near) out.push(region);
  }
  return out;
}

function rectGapTiles(a: RegionRect, b: RegionRect): number {
  // Whole chunks between the two (0: they touch, also at a corner).
  const gapX = Math.max(a.cx0 - b.cx1, b.cx0 - a.cx1, 0);
  const gapY = Math.max(a.cy0 - b.cy1, b.cy0 - a.cy1, 0);
  return Math.max(gapX, gapY) * CHUNK_SIZE;
}

/** The layout in its file form (what parseLayout reads). */
export function layoutJson(layout: ClusterLayout): string {
  return JSON.stringify({
    regions: layout.rects.map((rect) => ({ region: rect.region, chunks: [rect.cx0, rect.cy0, rect.cx1, rect.cy1] })),
  });
}
