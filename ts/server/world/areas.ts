// Where the areas of one world lie in world coordinates (docs/protocol.md P-24,
// docs/dungeons.md § Where levels live). A world is one wasm grid and one
// coordinate plane; each area — the map the server was started with, the other
// maps of its folder its warps lead to, and a fixed number of dungeon level
// slots — is its own rectangle of that plane, chunk-aligned, with a gap of
// AREA_GAP_CHUNKS chunks that exist in no area between any two. The wire
// format does not change: ChunkPackets, the manifest (a gap chunk has version
// 0, "no chunk"), prediction and A* see one world in which the areas are far
// apart, and the gap is wider than the 3×3 chunks a client holds and the radius
// joins are announced in, so nothing of one area is ever seen from another.
//
// Layout: the maps in a column at x = 0 (the first map at the origin, so a
// one-map world keeps its coordinates), the level slots in a second column
// beside them (more columns when one would pass the grid's edge). The grid holds the bounding rectangle; memory is bounded by the
// slot count, never by how many levels players visit.
import { CHUNK_SIZE } from "../../constants.js";

/** Chunks of nothing between two areas: more than the 1-chunk ring of the 3×3 a client holds, and than NOTICE_RADIUS. */
export const AREA_GAP_CHUNKS = 2;
/** The largest grid edge the wasm grid takes (assembly/sim/grid.ts GRID_MAX_EDGE). */
export const GRID_MAX_EDGE_TILES = 4096;

export interface AreaRect {
  /** World tile of the area's top-left cell (a multiple of CHUNK_SIZE). */
  x: number;
  y: number;
  /** The area's size in tiles (its map's size; a level slot's edge). */
  width: number;
  height: number;
}

export interface AreaLayout {
  /** One rectangle per map, in the order given; the first at (0, 0). */
  maps: AreaRect[];
  /** One rectangle per level slot, each levelSize × levelSize. */
  slots: AreaRect[];
  /** The grid that holds them all, in tiles (multiples of CHUNK_SIZE). */
  gridWidth: number;
  gridHeight: number;
}

export class AreaLayoutError extends Error {}

const chunksOf = (tiles: number): number => Math.ceil(tiles / CHUNK_SIZE);

/** Places `maps` (sizes in tiles) and `levelSlots` slots of levelSize × levelSize tiles; throws when the grid would pass 4096. */
export function layoutAreas(
  maps: readonly { width: number; height: number }[],
  levelSlots: number,
  levelSize: number,
): AreaLayout {
  if (maps.length === 0) throw new AreaLayoutError("a world has at least one map");
  const placedMaps: AreaRect[] = [];
  let column = 0;
  let mapsWidthChunks = 0;
  for (const { width, height } of maps) {
    placedMaps.push({ x: 0, y: column * CHUNK_SIZE, width, height });
    column += chunksOf(height) + AREA_GAP_CHUNKS;
    mapsWidthChunks = Math.max(mapsWidthChunks, chunksOf(width));
  }
  let heightChunks = column - AREA_GAP_CHUNKS;
  let widthChunks = mapsWidthChunks;
  const slots: AreaRect[] = [];
  if (levelSlots > 0) {
    const left = (mapsWidthChunks + AREA_GAP_CHUNKS) * CHUNK_SIZE;
    const slotChunks = chunksOf(levelSize);
    const pitchChunks = slotChunks + AREA_GAP_CHUNKS;
    // One column while it fits the grid's edge (one process's 4 slots always do); more beside it when not —
    // a cluster lays out every region's slots (ts/cluster/cluster-levels.ts).
    const fitInColumn = Math.max(1, Math.floor((GRID_MAX_EDGE_TILES / CHUNK_SIZE + AREA_GAP_CHUNKS) / pitchChunks));
    const perColumn = Math.min(levelSlots, fitInColumn);
    const columns = Math.ceil(levelSlots / perColumn);
    for (let slot = 0; slot < levelSlots; slot++) {
      slots.push({
        x: left + Math.floor(slot / perColumn) * pitchChunks * CHUNK_SIZE,
        y: (slot % perColumn) * pitchChunks * CHUNK_SIZE,
        width: levelSize,
        height: levelSize,
      });
    }
    widthChunks += columns * pitchChunks;
    heightChunks = Math.max(heightChunks, perColumn * pitchChunks - AREA_GAP_CHUNKS);
  }
  const gridWidth = widthChunks * CHUNK_SIZE;
  const gridHeight = heightChunks * CHUNK_SIZE;
  if (gridWidth > GRID_MAX_EDGE_TILES || gridHeight > GRID_MAX_EDGE_TILES) {
    throw new AreaLayoutError(
      `the world's areas (${maps.length} maps, ${levelSlots} level slots of ${levelSize}) need a ` +
        `${gridWidth}×${gridHeight} grid; the wasm grid's edge is at most ${GRID_MAX_EDGE_TILES} (fewer or smaller slots)`,
    );
  }
  return { maps: placedMaps, slots, gridWidth, gridHeight };
}

/** Whether world tile (x, y) lies inside `area`. */
export function inArea(area: AreaRect, x: number, y: number): boolean {
  return x >= area.x && y >= area.y && x < area.x + area.width && y < area.y + area.height;
}

/** A warp as the server follows it: its trigger cells and its destination, in world tiles. */
export interface WorldWarp {
  name: string;
  /** The file and object it came from, for messages. */
  file: string;
  objectId: number;
  x: number;
  y: number;
  width: number;
  height: number;
  /** Where a player arrives; null for stairs (the dungeon levels place those, ts/server/dungeon/levels.ts). */
  to: { x: number; y: number } | null;
  /** Stairs only: which way. */
  stairs: "down" | "up" | null;
}
