// Several Tiled tile layers become one world tile id per cell, because the
// wire carries one u16 per cell and both hosts decide collision from that id
// alone (the wasm TILE_FLAGS table). Rules (docs/maps.md):
// - the drawn id of a cell is the top-most visible, non-collision layer's tile;
// - the cell's flags are the OR of every visible drawn layer's tile flags there,
//   plus COLLIDES if any collision layer has a tile there, or a collision shape
//   covers the cell's centre (collision-shapes.ts);
// - when those flags differ from what the drawn id says on its own, the cell
//   gets a twin id: same look as the drawn id, the combined flags. Twins are
//   counted down from 0xFFFD, skipping every id that has tile data;
// - a cell whose drawn stack (tile-stacks.ts) is more than its one unflipped
//   tile — several layers, a flip, a piece of a large neighbour — gets a stack
//   id the same way, one per distinct (stack, flags), its `stack` recorded;
// - tiles of over layers (isOverLayer: roofs, tree tops) go into the cell's
//   over stack instead (`overStack`), which the client draws after the
//   entities; a cell with an over stack is never plain.
import { TILE_FLAG_COLLIDES, TILE_FLAG_OPAQUE } from "../../constants.js";
import { isFreeObjectGid, maskGid, MAX_WORLD_TILE_ID } from "./gid.js";
import { MapError } from "../content/map-error.js";
import { hasCollisionProperty, propertyIgnoringCase } from "../content/properties.js";
import type { RawTileLayer } from "./raw-map.js";
import {
  type Footprint,
  type Footprints,
  NO_TINT,
  OPAQUE,
  STACK_ENTRY_LENGTH,
  STACK_GID_BITS,
  stackAlpha,
} from "./tile-stacks.js";
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
  /**
   * Which cells each tile covers; given only for maps with their own art, which draw stacks. Absent (the
   * built-in art: maps/caves, CSV maps): every cell is its top-most tile alone, flips ignored.
   */
  footprints?: Footprints;
  /** Cells blocked by collision objects and tiles' collision shapes (collision-shapes.ts): non-zero blocks. */
  blockedCells?: Uint8Array;
  /** The layers drawn over the entities (overLayersOf); only used with footprints (own art). */
  overLayers?: ReadonlySet<RawTileLayer>;
}

export interface FlatWorld {
  /** One world tile id per cell, row-major. */
  tiles: Uint16Array;
  tileData: TileData;
  /** Collision twins and stack ids together (every id made by flattening). */
  twinCount: number;
  /** Of those, the ids made for stacks (several layers, flips, pieces of large tiles). */
  stackCount: number;
  /** Of the stack ids, those with an over stack (tiles of over layers). */
  overCount: number;
}

/** A layer that only marks blocked cells and is never drawn: named collision(s), or a collision property is true. */
export function isCollisionLayer(layer: RawTileLayer): boolean {
  return /^collisions?$/i.test(layer.name) || hasCollisionProperty(layer.properties);
}

const OVER_NAME = /^over\d*$/i;
/** The object layer after which WorkAdventure maps draw over the players. */
const WORKADVENTURE_FLOOR_LAYER = "floorLayer";

/**
 * A tile layer's own say on being drawn over the entities (docs/maps.md § Over layers): a boolean
 * property `over`, else a string property `layer` of "over" / "under"; null when it says nothing.
 */
function overProperty(layer: RawTileLayer): boolean | null {
  const over = propertyIgnoringCase(layer.properties, "over");
  if (typeof over === "boolean") return over;
  const named = propertyIgnoringCase(layer.properties, "layer");
  if (typeof named === "string" && /^(over|under)$/i.test(named)) return named.toLowerCase() === "over";
  return null;
}

/**
 * The tile layers drawn over the entities (docs/maps.md § Over layers): a property says so (overProperty,
 * which wins), or the layer or a group above it is named Over, Over1, Over2 … (sourceoftales), or it comes
 * after the object layer named floorLayer (WorkAdventure). `tileLayersBefore` of that object layer says
 * how many tile layers come before it.
 */
export function overLayersOf(
  tileLayers: readonly RawTileLayer[],
  objectLayers: readonly { name: string; tileLayersBefore: number }[],
): Set<RawTileLayer> {
  const floor = objectLayers.find((layer) => layer.name === WORKADVENTURE_FLOOR_LAYER);
  const over = new Set<RawTileLayer>();
  tileLayers.forEach((layer, index) => {
    if (isCollisionLayer(layer)) return;
    const said = overProperty(layer);
    const byName = layer.path.split("/").some((part) => OVER_NAME.test(part));
    const afterFloor = floor !== undefined && index >= floor.tileLayersBefore;
    if (said ?? (byName || afterFloor)) over.add(layer);
  });
  return over;
}

export function flattenLayers(input: FlattenInput): FlatWorld {
  const { file, width, height, originX, originY, layers, tileData, footprints, blockedCells, overLayers } = input;
  const cellCount = width * height;
  const topIds = new Uint32Array(cellCount);
  const cellFlags = new Uint8Array(cellCount);
  if (blockedCells)
    for (let cell = 0; cell < cellCount; cell++) if (blockedCells[cell] !== 0) cellFlags[cell] = TILE_FLAG_COLLIDES;
  // What each cell shows, bottom to top: STACK_ENTRY_LENGTH numbers per tile or piece (tile-stacks.ts).
  const stacks: (number[] | undefined)[] = new Array<number[] | undefined>(cellCount);
  // What each cell shows over the entities, the same way (tiles of over layers); mostly empty.
  const overStacks: (number[] | undefined)[] = new Array<number[] | undefined>(cellCount);
  let into = stacks;
  const addToStack = (cell: number, rawGid: number, dx: number, dy: number, alpha: number, tint: number): void => {
    const stack = into[cell];
    if (stack) stack.push(rawGid, dx, dy, alpha, tint);
    else into[cell] = [rawGid, dx, dy, alpha, tint];
  };
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
    into = overLayers?.has(layer) === true ? overStacks : stacks;
    // Tiled's layer opacity: the layer's tiles drawn that opaque (a layer of opacity 0 is not drawn at all).
    const alpha = stackAlpha(layer.opacity);
    // Tiled's layer tint: the layer's tiles' colours multiplied by it (raw-map.ts layerTint).
    const tint = layer.tint ?? NO_TINT;
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
          if (isFreeObjectGid(gid)) {
            // A piece of a free-placed tile object (tile-objects.ts): art only, anchored at world cell (0, 0).
            if (footprints && alpha !== 0)
              addToStack(cell, gid, -(chunk.x + x - originX), -(chunk.y + y - originY), alpha, tint);
            continue;
          }
          if (gid > MAX_WORLD_TILE_ID) {
            throw new MapError(
              file,
              `layer "${layer.path}" uses tile id ${gid} at (${chunk.x + x}, ${chunk.y + y}); ` +
                `ids above ${MAX_WORLD_TILE_ID} cannot be sent (u16, two ids reserved)`,
            );
          }
          cellFlags[cell] |= flagsOf(gid);
          if (alpha === 0) continue;
          topIds[cell] = gid;
          if (!footprints) continue;
          // The tile of an object drawn free: the cell is it, but shows it only through the object's pieces.
          if (layer.undrawn === true) {
            into[cell] ??= [];
            continue;
          }
          const rawGid = (gids[y * chunk.width + x] & STACK_GID_BITS) >>> 0;
          const footprint = footprints.of(rawGid);
          if (isOneCell(footprint)) {
            addToStack(cell, rawGid, 0, 0, alpha, tint);
            continue;
          }
          // A tile over several cells: a piece in each covered cell of the world, anchored here.
          const worldX = chunk.x + x - originX;
          const worldY = chunk.y + y - originY;
          for (let dy = footprint.firstDy; dy <= footprint.lastDy; dy++) {
            for (let dx = footprint.firstDx; dx <= footprint.lastDx; dx++) {
              const coveredX = worldX + dx;
              const coveredY = worldY + dy;
              if (coveredX < 0 || coveredY < 0 || coveredX >= width || coveredY >= height) continue;
              addToStack(coveredY * width + coveredX, rawGid, -dx, -dy, alpha, tint);
            }
          }
        }
      }
    }
  }

  const tiles = new Uint16Array(cellCount);
  const twins = new Map<number, number>(); // key: id * 256 + flags
  const stackIds = new Map<string, number>(); // key: the stack's numbers, then the flags, then the over stack's
  let overCount = 0;
  let nextTwinId = MAX_WORLD_TILE_ID;
  const allocate = (): number => {
    while (nextTwinId > 0 && tileData.has(nextTwinId)) nextTwinId--;
    if (nextTwinId <= 0) throw new MapError(file, "no free tile ids left for collision twins and tile stacks");
    return nextTwinId--;
  };
  for (let cell = 0; cell < cellCount; cell++) {
    const id = topIds[cell];
    const ownFlags = flagsOf(id);
    const flags = cellFlags[cell] | ownFlags;
    const overStack = overStacks[cell];
    const stack = stacks[cell] ?? (overStack ? [] : undefined);
    // The plain cell: nothing drawn, or its own tile alone, unflipped, opaque, covering just this cell, nothing over it.
    const plain =
      overStack === undefined &&
      (stack === undefined ||
        (stack.length === STACK_ENTRY_LENGTH &&
          stack[0] === id &&
          stack[1] === 0 &&
          stack[2] === 0 &&
          stack[3] === OPAQUE &&
          stack[4] === NO_TINT));
    if (!plain) {
      const key = `${stack!.join(",")}|${flags}${overStack ? `|over ${overStack.join(",")}` : ""}`;
      let stackId = stackIds.get(key);
      if (stackId === undefined) {
        stackId = allocate();
        tileData.set(stackId, makeTwin(stackId, tileData.get(id)!, flags, stack, overStack));
        stackIds.set(key, stackId);
        if (overStack) overCount++;
      }
      tiles[cell] = stackId;
      continue;
    }
    if (flags === ownFlags) {
      tiles[cell] = id;
      continue;
    }
    const key = id * 256 + flags;
    let twinId = twins.get(key);
    if (twinId === undefined) {
      twinId = allocate();
      tileData.set(twinId, makeTwin(twinId, tileData.get(id)!, flags));
      twins.set(key, twinId);
    }
    tiles[cell] = twinId;
  }
  return { tiles, tileData, twinCount: twins.size + stackIds.size, stackCount: stackIds.size, overCount };
}

function isOneCell(footprint: Footprint): boolean {
  return footprint.firstDx === 0 && footprint.lastDx === 0 && footprint.firstDy === 0 && footprint.lastDy === 0;
}

function makeTwin(twinId: number, base: TileInfo, flags: number, stack?: number[], overStack?: number[]): TileInfo {
  const collides = (flags & TILE_FLAG_COLLIDES) !== 0;
  const opaque = (flags & TILE_FLAG_OPAQUE) !== 0;
  const added = [
    collides && !base.collides ? "collides" : "",
    opaque && !base.opaque ? "opaque" : "",
    stack ? `stack of ${stack.length / STACK_ENTRY_LENGTH}` : "",
    overStack ? `${overStack.length / STACK_ENTRY_LENGTH} over` : "",
  ]
    .filter((word) => word !== "")
    .join(", ");
  const twin: TileInfo = {
    id: twinId,
    name: `${base.name ?? `tile ${base.id}`} (+${added})`,
    collides,
    opaque,
    look: base.look,
    twinOf: base.id,
  };
  if (stack) twin.stack = stack;
  if (overStack) twin.overStack = overStack;
  // A twin of a torch still burns (its look and light are its base's).
  if (base.light !== undefined) twin.light = base.light;
  return twin;
}
