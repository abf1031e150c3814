// Entry point of the map loader: a Tiled map (TMX, TMJ) or a CSV grid becomes
// a flat world — one u16 tile id per cell, tile data for every id, spawn
// points and interactables. Synchronous: maps are read once at server start,
// and the inputs are small (the largest real map here is 146 KB).
import { basename, extname } from "node:path";
import { CHUNK_SIZE } from "../../constants.js";
import { isFreeTile, tileFlagsTable } from "../../tile-flags.js";
import { flattenLayers, isCollisionLayer, overLayersOf } from "./flatten.js";
import { isCollisionObjectLayer, rasteriseCollisionObjects, rasteriseTileShapes } from "./collision-shapes.js";
import { maskGid } from "./gid.js";
import { MapError } from "../content/map-error.js";
import { type DoorSpec, doorsOf } from "./map-doors.js";
import { interactablesOf, spawnObjects, startLayerSpawns, worldObjects } from "./map-objects.js";
import type { Interactable, MapObject } from "../content/map-object.js";
import { type KindImage, type NpcKind, npcKindsPathFor, readNpcKindsFile } from "../content/npc-kinds.js";
import { type ItemDef, ItemCatalogue, itemCataloguePathFor, readItemCatalogueFile } from "../content/item-catalogue.js";
import { type ChestSpec, chestsOf, lootOf } from "../content/item-specs.js";
import { type NpcSpawnSpec, npcSpawnsOf } from "../content/npc-spawns.js";
import { type SafeZone, mapPvpOf, safeZonesOf } from "../content/safe-zones.js";
import { type Zone, zonesOf } from "../content/zones.js";
import type { MapFormat, RawMap, RawTileLayer } from "./raw-map.js";
import { parseCsvMap } from "./tiled-csv.js";
import { parseTmj } from "./tiled-tmj.js";
import { parseTmx } from "./tiled-tmx.js";
import {
  emptyTileInfo,
  mergeTileData,
  readTileDataFile,
  tileDataFromTilesets,
  tileDataPathFor,
  type TileData,
} from "./tile-data.js";
import { tilesetHasLocalId, type Tileset } from "./tileset.js";
import { Footprints } from "./tile-stacks.js";
import { type FreeObject, stampTileObjects, type TileObjectReport } from "./tile-objects.js";
import { usesBuiltInArt } from "./map-atlas.js";
import { readBoundedText } from "../content/bounded-file.js";

export { MapError } from "../content/map-error.js";
export { tileFlagsTable } from "../../tile-flags.js";
export type { Interactable, MapObject, TilePosition } from "../content/map-object.js";
export type { DoorSpec } from "./map-doors.js";
export type { MapArt } from "./map-atlas.js";

/** What the atlas of a map with its own art is built from. */
export interface MapArtSource {
  tilesets: Tileset[];
  tileWidthPx: number;
  tileHeightPx: number;
  footprints: Footprints;
  /** The creature kinds drawn with a tile of these tilesets (NpcKind.tile), resolved to the tile's GID. */
  kindTiles: KindGid[];
  /** The creature kinds drawn with an image beside the map (NpcKind.image). */
  kindImages: { typeId: number; image: KindImage }[];
  /** The tile objects drawn at their own place and size (tile-objects.ts): art only, they block nothing of their own. */
  freeObjects: FreeObject[];
  /** Tiled's map `backgroundcolor`, 0xRRGGBB: drawn behind every layer and in the empty cells; absent: none. */
  backgroundColor?: number;
}

/** A creature kind and the GID of the tile that draws it. */
export interface KindGid {
  typeId: number;
  gid: number;
}
export type { GidChunk, MapFormat, RawMap, RawTileLayer } from "./raw-map.js";
export {
  LOOK_NONE,
  parseTileDataFile,
  tileDataPathFor,
  tileLookTable,
  type TileData,
  type TileDataEntry,
  type TileInfo,
} from "./tile-data.js";

/** Largest map accepted, in cells (the tile array alone is 2 bytes per cell). */
export const MAX_MAP_CELLS = 1 << 26;

export interface MapSource {
  format: MapFormat;
  file: string;
  /** Tile layers (including hidden and collision layers), object layers and group layers in the file. */
  layers: number;
  objectLayers: number;
  groupLayers: number;
  /** Paths of the layers treated as collision layers. */
  collisionLayers: string[];
  /** Paths of the object layers whose objects are all collision (collision-shapes.ts). */
  collisionObjectLayers: string[];
  /** Collision objects with an area or a polyline, and the cells they block (a shape: its centre covered; a polyline: passed through). */
  collisionObjects: number;
  collisionObjectCells: number;
  /** Tiles with collision shapes drawn inside them that the map places, and the cells those block. */
  collisionShapeTiles: number;
  collisionShapeCells: number;
  /** Collision objects that block nothing, and why. */
  collisionNotes: string[];
  /** The tile objects (objects with a gid) stamped into drawn layers, snapped to the grid, or not drawn. */
  tileObjects: TileObjectReport;
  tilesets: number;
  orientation: string;
  infinite: boolean;
  /** Tiled tile coordinate of world cell (0, 0): the min corner of an infinite map's chunks, else 0. */
  originX: number;
  originY: number;
  tileWidthPx: number;
  tileHeightPx: number;
  /** The `.tiles.json` that was merged in, or null when there is none. */
  tileDataFile: string | null;
  /** Ids allocated for cells whose combined collision differs from their drawn tile's, and for stacks. */
  twinCount: number;
  /** Of those, the ids of cells that draw more than one unflipped tile (layers, flips, pieces of large tiles). */
  stackCount: number;
  /** Paths of the tile layers drawn over the entities (flatten.ts overLayersOf); none for the built-in art. */
  overLayers: string[];
  /** Of the stack ids, those that draw something over the entities. */
  overCount: number;
  /** True when the map has no spawn points and the free cell nearest the centre was used. */
  spawnFallback: boolean;
  /** The spawns are the free cells of a `start` tile layer (WorkAdventure's convention; map-objects.ts). */
  spawnsFromStartLayer: boolean;
  /** Most distinct ids in one 32×32 chunk; above PALETTE_MAX (64) the chunk is sent as ChunkWidePackets. */
  maxIdsPerChunk: number;
}

export interface LoadedMap {
  /** The map's `name` property, else the file name without extension. */
  name: string;
  width: number;
  height: number;
  /** width × height world tile ids, row-major. */
  tiles: Uint16Array;
  tileData: TileData;
  spawns: { x: number; y: number }[];
  interactables: Interactable[];
  /** The map's doors (map-doors.ts, docs/maps.md § Doors): where, which tiles, locked with which key. */
  doors: DoorSpec[];
  /** The creatures of `<map>.npcs.json` (ts/server/content/npc-kinds.ts); empty when there is no such file. */
  npcKinds: NpcKind[];
  /** The map's npc_spawn objects (ts/server/content/npc-spawns.ts), checked against the kinds and the free cells. */
  npcSpawns: NpcSpawnSpec[];
  /** The items of `<map>.items.json` (ts/server/content/item-catalogue.ts); empty when there is no such file. */
  items: ItemDef[];
  /** The map's chests (interactables of kind "chest"), their contents checked against the items. */
  chests: ChestSpec[];
  /** Every object of every object layer (hidden ones too), in world tile coordinates. */
  objects: MapObject[];
  /** The map's safe_zone rectangles: no PvP inside (ts/server/content/safe-zones.ts). */
  safeZones: SafeZone[];
  /** The map's named zones, for content scripts (ts/server/content/zones.ts). */
  zones: Zone[];
  /** The map's `pvp` property, or null when it has none (then the server's --pvp decides). */
  pvp: boolean | null;
  /**
   * Where the map's own art comes from, for buildMapArt (map-atlas.ts: reads the images, so only the server
   * and the map tool call it); null when the map shows the client's built-in art (maps/caves, CSV maps).
   */
  art: MapArtSource | null;
  source: MapSource;
  /**
   * What the loader left out where Tiled would (and says so): cells whose tile id is in no tileset, left
   * empty as Tiled shows them. One line each, for the log at start and `map check`; empty for a clean map.
   */
  warnings: string[];
}

/** Format by file extension: .tmx, .tmj / .json, .csv. */
export function mapFormatOf(path: string): MapFormat {
  switch (extname(path).toLowerCase()) {
    case ".tmx":
      return "tmx";
    case ".tmj":
    case ".json":
      return "tmj";
    case ".csv":
      return "csv";
    default:
      throw new MapError(path, "unknown map format (expected .tmx, .tmj, .json or .csv)");
  }
}

/** Parses a map file without interpreting it: raw GIDs with flags, any orientation. */
export function readRawMap(path: string): RawMap {
  const format = mapFormatOf(path);
  let text: string;
  try {
    text = readBoundedText(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new MapError(path, `cannot read map file (${code})`);
  }
  if (format === "tmx") return parseTmx(text, path);
  if (format === "tmj") return parseTmj(text, path);
  return parseCsvMap(text, path);
}

/** The tile layers of a map exactly as stored: document order, depth-first into groups, chunks in file order. */
export function readRawLayers(path: string): RawTileLayer[] {
  return readRawMap(path).tileLayers;
}

/** Raw GIDs of the layers, flags included, as little-endian u32 bytes (for checksums over decoded data). */
export function rawGidBytes(layers: readonly RawTileLayer[]): Uint8Array {
  let cellCount = 0;
  for (const layer of layers) for (const chunk of layer.chunks) cellCount += chunk.gids.length;
  const bytes = new Uint8Array(cellCount * 4);
  const view = new DataView(bytes.buffer);
  let offset = 0;
  for (const layer of layers) {
    for (const chunk of layer.chunks) {
      for (const gid of chunk.gids) {
        view.setUint32(offset, gid, true);
        offset += 4;
      }
    }
  }
  return bytes;
}

/** Loads a map into a flat world. Throws MapError (file + reason) for anything it cannot represent. */
export function loadMap(path: string): LoadedMap {
  const map = readRawMap(path);
  if (map.orientation !== "orthogonal") throw new MapError(path, `unsupported orientation: ${map.orientation}`);
  const { originX, originY, width, height } = worldExtent(map);
  const warnings = [...map.warnings, ...(map.format !== "csv" ? emptyCellsOutsideTilesets(map) : [])];
  // Tile objects: their cells' tiles in extra layers at their object layer's place, the rest drawn free (tile-objects.ts).
  const {
    layers: drawnLayers,
    report: tileObjects,
    freeObjects,
  } = stampTileObjects(map, { originX, originY, width, height });

  const tileData = tileDataFromTilesets(map.tilesets);
  tileData.set(0, emptyTileInfo());
  const tileDataFile = tileDataPathFor(path);
  const entries = readTileDataFile(tileDataFile);
  if (entries) mergeTileData(tileData, entries);

  // Only a map with its own art draws stacks (layers, flips, large tiles); the built-in art draws one tile per cell.
  const ownArt = map.format !== "csv" && !usesBuiltInArt(map.tilesets);
  const footprints = new Footprints(map.tilesets, map.tileWidthPx, map.tileHeightPx);
  // Collision drawn as shapes (objects in a collision layer, shapes inside tiles): cells whose centre they cover.
  const grid = { width, height, cellWidthPx: map.tileWidthPx, cellHeightPx: map.tileHeightPx };
  const blockedCells = new Uint8Array(width * height);
  const objectCollision = rasteriseCollisionObjects(map, grid, originX, originY, blockedCells);
  const tileShapes = rasteriseTileShapes({
    layers: drawnLayers,
    isCollisionLayer,
    tilesets: map.tilesets,
    grid,
    originX,
    originY,
    blocked: blockedCells,
  });
  // Layers drawn over the entities (roofs, tree tops); only a map with its own art draws them apart.
  const overLayers = overLayersOf(map.tileLayers, map.objectLayers);
  const flat = flattenLayers({
    file: path,
    width,
    height,
    originX,
    originY,
    layers: drawnLayers,
    tileData,
    footprints: ownArt ? footprints : undefined,
    overLayers: ownArt ? overLayers : undefined,
    blockedCells: objectCollision.objects > 0 || tileShapes.cells > 0 ? blockedCells : undefined,
  });
  const objects = worldObjects(map, originX, originY);
  const flags = tileFlagsTable(flat.tileData);
  const isFree = (x: number, y: number): boolean =>
    x >= 0 && y >= 0 && x < width && y < height && isFreeTile(flags, flat.tiles[y * width + x]);

  let spawns = spawnObjects(objects).map(({ x, y, id }) => {
    if (!isFree(x, y)) {
      throw new MapError(path, `spawn point ${id} at (${x}, ${y}) is outside the map or on a blocked tile`);
    }
    return { x, y };
  });
  // No spawn objects: WorkAdventure's start layer, then the free cell nearest the centre.
  let spawnsFromStartLayer = false;
  if (spawns.length === 0) {
    spawns = startLayerSpawns(map.tileLayers, originX, originY, isFree);
    spawnsFromStartLayer = spawns.length > 0;
  }
  const spawnFallback = spawns.length === 0;
  if (spawnFallback) spawns = [freeCellNearestCentre(path, width, height, isFree)];
  const kindsFile = npcKindsPathFor(path);
  const npcKinds = readNpcKindsFile(kindsFile);
  const npcSpawns = npcSpawnsOf(objects, npcKinds, isFree, path, kindsFile);
  const kindTiles = kindTilesOf(npcKinds ?? [], ownArt ? map.tilesets : null, kindsFile);
  const kindImages = kindImagesOf(npcKinds ?? [], ownArt, kindsFile);
  const itemsFile = itemCataloguePathFor(path);
  const items = readItemCatalogueFile(itemsFile) ?? [];
  const catalogue = new ItemCatalogue(items);
  // Loot and chest contents name items: every name must be in the catalogue, or the map does not load.
  (npcKinds ?? []).forEach((kind, index) => lootOf(kind.loot, catalogue, kindsFile, `kinds[${index}]`));
  const interactables = interactablesOf(objects, warnings);
  const chests = chestsOf(interactables, catalogue, path);

  const nameProperty = map.properties.name;
  return {
    name: typeof nameProperty === "string" && nameProperty !== "" ? nameProperty : basename(path, extname(path)),
    width,
    height,
    tiles: flat.tiles,
    tileData: flat.tileData,
    spawns,
    interactables,
    doors: doorsOf(objects, flat.tiles, width, height, flat.tileData, path),
    npcKinds: npcKinds ?? [],
    npcSpawns,
    items,
    chests,
    objects,
    safeZones: safeZonesOf(objects, path),
    zones: zonesOf(objects, path),
    pvp: mapPvpOf(map.properties, path),
    art: ownArt
      ? {
          tilesets: map.tilesets,
          tileWidthPx: map.tileWidthPx,
          tileHeightPx: map.tileHeightPx,
          footprints,
          kindTiles,
          kindImages,
          freeObjects,
          ...(map.backgroundColor === undefined ? {} : { backgroundColor: map.backgroundColor }),
        }
      : null,
    source: {
      format: map.format,
      file: path,
      layers: map.tileLayers.length,
      objectLayers: map.objectLayerCount,
      groupLayers: map.groupLayerCount,
      collisionLayers: map.tileLayers.filter(isCollisionLayer).map((layer) => layer.path),
      collisionObjectLayers: map.objectLayers.filter(isCollisionObjectLayer).map((layer) => layer.path),
      collisionObjects: objectCollision.objects,
      collisionObjectCells: objectCollision.cells,
      collisionShapeTiles: tileShapes.tiles,
      collisionShapeCells: tileShapes.cells,
      collisionNotes: objectCollision.notes,
      tileObjects,
      tilesets: map.tilesets.length,
      orientation: map.orientation,
      infinite: map.infinite,
      originX,
      originY,
      tileWidthPx: map.tileWidthPx,
      tileHeightPx: map.tileHeightPx,
      tileDataFile: entries ? tileDataFile : null,
      twinCount: flat.twinCount,
      stackCount: flat.stackCount,
      overLayers: ownArt ? map.tileLayers.filter((layer) => overLayers.has(layer)).map((layer) => layer.path) : [],
      overCount: flat.overCount,
      spawnFallback,
      spawnsFromStartLayer,
      maxIdsPerChunk: maxIdsPerChunk(flat.tiles, width, height),
    },
    warnings,
  };
}

/**
 * The grid the world uses. Finite maps: the header's size. Infinite maps: the bounding box of
 * all chunks of all tile layers — the header's width/height do not bound them — shifted so its
 * min corner is world (0, 0); cells no chunk covers are empty (id 0).
 */
function worldExtent(map: RawMap): { originX: number; originY: number; width: number; height: number } {
  let originX = 0;
  let originY = 0;
  let width = map.width;
  let height = map.height;
  if (map.infinite) {
    let minX = Infinity;
    let minY = Infinity;
    let maxX = -Infinity;
    let maxY = -Infinity;
    for (const layer of map.tileLayers) {
      for (const chunk of layer.chunks) {
        minX = Math.min(minX, chunk.x);
        minY = Math.min(minY, chunk.y);
        maxX = Math.max(maxX, chunk.x + chunk.width);
        maxY = Math.max(maxY, chunk.y + chunk.height);
      }
    }
    if (minX === Infinity) throw new MapError(map.file, "infinite map has no chunks");
    originX = minX;
    originY = minY;
    width = maxX - minX;
    height = maxY - minY;
  }
  if (width <= 0 || height <= 0) throw new MapError(map.file, `map is ${width}×${height} tiles: nothing to load`);
  if (width * height > MAX_MAP_CELLS) {
    throw new MapError(map.file, `map is ${width}×${height} tiles, more than the ${MAX_MAP_CELLS} cells allowed`);
  }
  return { originX, originY, width, height };
}

/** The most warning lines one map gives about cells outside its tilesets; the rest are counted in one more. */
const MAX_GID_WARNINGS = 20;

/**
 * A cell whose GID belongs to no tileset — in a gap between two, or past the last: a tileset's image shrank
 * after the map was made — is left empty, as Tiled opens such a map and shows it, instead of refusing the
 * map (a released game's map was refused for one such cell). Written into the raw layers, so every later
 * step sees an empty cell. Returns one warning per layer and tile id: how many cells, the first of them.
 */
function emptyCellsOutsideTilesets(map: RawMap): string[] {
  const tilesets = [...map.tilesets].sort((a, b) => b.firstGid - a.firstGid);
  const known = new Map<number, boolean>();
  const owner = (gid: number): Tileset | undefined => tilesets.find((tileset) => tileset.firstGid <= gid);
  const found = new Map<string, { layer: string; gid: number; cells: number; x: number; y: number }>();
  for (const layer of map.tileLayers) {
    for (const chunk of layer.chunks) {
      for (let i = 0; i < chunk.gids.length; i++) {
        const gid = maskGid(chunk.gids[i]);
        if (gid === 0) continue;
        let ok = known.get(gid);
        if (ok === undefined) {
          const tileset = owner(gid);
          ok = tileset !== undefined && tilesetHasLocalId(tileset, gid - tileset.firstGid);
          known.set(gid, ok);
        }
        if (ok) continue;
        chunk.gids[i] = 0;
        const key = `${layer.path}\u0000${gid}`;
        const seen = found.get(key);
        if (seen) seen.cells++;
        else {
          const x = chunk.x + (i % chunk.width);
          const y = chunk.y + Math.floor(i / chunk.width);
          found.set(key, { layer: layer.path, gid, cells: 1, x, y });
        }
      }
    }
  }
  const lines = [...found.values()].map(
    ({ layer, gid, cells, x, y }) =>
      `layer "${layer}": tile id ${gid} is not in any tileset: ${cells === 1 ? "the cell" : `${cells} cells, the first`} ` +
      `at (${x}, ${y}) left empty, as Tiled shows it`,
  );
  if (lines.length <= MAX_GID_WARNINGS) return lines;
  return [
    ...lines.slice(0, MAX_GID_WARNINGS),
    `${lines.length - MAX_GID_WARNINGS} more tile ids in no tileset, left empty`,
  ];
}

/** The largest number of distinct ids in any chunk of the world. */
export function maxIdsPerChunk(tiles: Uint16Array, width: number, height: number): number {
  let most = 0;
  const ids = new Set<number>();
  for (let chunkY = 0; chunkY < height; chunkY += CHUNK_SIZE) {
    for (let chunkX = 0; chunkX < width; chunkX += CHUNK_SIZE) {
      ids.clear();
      for (let y = chunkY; y < Math.min(height, chunkY + CHUNK_SIZE); y++) {
        for (let x = chunkX; x < Math.min(width, chunkX + CHUNK_SIZE); x++) ids.add(tiles[y * width + x]);
      }
      most = Math.max(most, ids.size);
    }
  }
  return most;
}

/** The free cell closest (Chebyshev) to the map centre, scanning rows top to bottom on ties. */
function freeCellNearestCentre(
  file: string,
  width: number,
  height: number,
  isFree: (x: number, y: number) => boolean,
): { x: number; y: number } {
  const centreX = Math.floor(width / 2);
  const centreY = Math.floor(height / 2);
  let best: { x: number; y: number } | null = null;
  let bestDistance = Infinity;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const distance = Math.max(Math.abs(x - centreX), Math.abs(y - centreY));
      if (distance < bestDistance && isFree(x, y)) {
        best = { x, y };
        bestDistance = distance;
      }
    }
  }
  if (!best) throw new MapError(file, "no spawn points and no walkable cell to spawn on");
  return best;
}

/** The kinds drawn with an image beside the map; refused on a map drawn with the built-in tiles (no atlas). */
function kindImagesOf(
  kinds: readonly NpcKind[],
  ownArt: boolean,
  file: string,
): { typeId: number; image: KindImage }[] {
  return kinds.flatMap((kind, index) => {
    if (kind.image === undefined) return [];
    if (!ownArt) {
      throw new MapError(
        file,
        `kinds[${index}].image: the map draws with the built-in tiles, whose creatures are the built-in sprites; an image look needs a map with its own tileset art`,
      );
    }
    return [{ typeId: kind.typeId, image: kind.image }];
  });
}

/**
 * The GID of each kind's `tile` (NpcKind.tile: a tileset's name and a local id) in this map's tilesets.
 * `tilesets` null: the map draws with the built-in art, which no kind can name a tile of.
 */
function kindTilesOf(kinds: readonly NpcKind[], tilesets: readonly Tileset[] | null, file: string): KindGid[] {
  const resolved: KindGid[] = [];
  kinds.forEach((kind, index) => {
    if (kind.tile === undefined) return;
    const where = `kinds[${index}].tile`;
    if (tilesets === null) {
      throw new MapError(
        file,
        `${where}: the map draws with the built-in tiles, so there is no tileset to take a tile from`,
      );
    }
    const tileset = tilesets.find((each) => each.name === kind.tile!.tileset);
    if (tileset === undefined) {
      const names = tilesets.map((each) => `"${each.name}"`).join(", ");
      throw new MapError(file, `${where}.tileset: the map has no tileset "${kind.tile.tileset}" (it has ${names})`);
    }
    const id = kind.tile.id;
    if (!tilesetHasLocalId(tileset, id))
      throw new MapError(file, `${where}.id: tileset "${tileset.name}" has no tile ${id}`);
    resolved.push({ typeId: kind.typeId, gid: tileset.firstGid + id });
  });
  return resolved;
}
