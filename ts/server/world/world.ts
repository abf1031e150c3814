// The authoritative world: the loaded map sliced into 32×32 chunks, each with a
// version, held in the wasm grid so that every move is checked by the one
// movement rule (`step_allowed`, and `apply_moves` over it) the clients predict with.
//
// The map occupies world tiles (0, 0) .. (width - 1, height - 1). Cells of the
// edge chunks that lie beyond the map are TILE_BORDER: solid and never drawn.
// Chunks entirely outside the map do not exist; the manifest lists them with
// version 0 ("no chunk: do not request"), and both sides treat their cells as
// unknown, i.e. blocked.
import { CHUNK_SIZE, CHUNK_TILE_COUNT, TILE_BORDER } from "../../constants.js";
import { chunkId } from "../../protocol/chunk-id.js";
import type { Core } from "../../wasm/core.js";
import type { DoorSpec } from "../map/map-doors.js";
import type { NpcKind } from "../content/npc-kinds.js";
import type { NpcSpawnSpec } from "../content/npc-spawns.js";
import type { SafeZone } from "../content/safe-zones.js";
import type { Zone } from "../content/zones.js";
import type { ItemDef } from "../content/item-catalogue.js";
import type { ChestSpec } from "../content/item-specs.js";
import type { MapArt } from "../map/map-atlas.js";
import { ChunkEncodings } from "./chunk-encoding.js";
import { ChunkNarrowing } from "./seed-chunk.js";
import { STACK_ENTRY_LENGTH } from "../map/tile-stacks.js";
import { type AreaRect, AreaLayoutError, layoutAreas, type WorldWarp } from "./areas.js";
import { type MoveTable, type Pathing, WasmSim } from "../../wasm/sim.js";

export interface WorldMap {
  name: string;
  width: number;
  height: number;
  /** width × height world tile ids, row-major. */
  tiles: Uint16Array;
  /** 65536 flag bytes (TILE_FLAG_*), indexed by tile id. */
  flags: Uint8Array;
  spawns: { x: number; y: number }[];
  /** What clients need to draw and predict: per tile id, its flags and look, and a stack id's stack (served at /api/world). */
  tileInfo: {
    id: number;
    name?: string;
    collides: boolean;
    opaque: boolean;
    look: number;
    stack?: number[];
    /** What a stack id draws over the entities, in the form of `stack` (docs/maps.md § Over layers). */
    overStack?: number[];
    /** The atlas tile it draws over the entities, transparent (map-atlas.ts overLooks); absent: nothing over. */
    over?: number;
    /** An animated id's timeline: atlas tile and duration per segment, looping from time 0 (map-atlas.ts). */
    frames?: { look: number; durationMs: number }[];
    light?: number;
  }[];
  /** The map's own art (ts/server/map/map-atlas.ts); null or absent: the client's built-in art. */
  art?: MapArt | null;
  /** Signs, notice boards and the like (LoadedMap.interactables); none when absent. */
  interactables?: { name: string; kind: string; text?: string; x: number; y: number }[];
  /** The map's doors (LoadedMap.doors); none when absent. */
  doors?: DoorSpec[];
  /** The creatures and where they live (LoadedMap.npcKinds / npcSpawns); none when absent. */
  npcKinds?: NpcKind[];
  npcSpawns?: NpcSpawnSpec[];
  /** The item catalogue and the chests (LoadedMap.items / chests); none when absent. */
  items?: ItemDef[];
  chests?: ChestSpec[];
  /** Where PvP never holds (LoadedMap.safeZones), and the map's own PvP switch; none / null when absent. */
  safeZones?: SafeZone[];
  /** The named zones content scripts watch (LoadedMap.zones); none when absent. */
  zones?: Zone[];
  pvp?: boolean | null;
  /**
   * The maps this one is made of (world-areas.ts composes a folder's maps into one WorldMap): their
   * rectangles, whose chunks exist; the cells between them are TILE_BORDER in no chunk. Absent: the
   * whole map is one area.
   */
  areas?: AreaRect[];
  /** The warps, resolved to world tiles (world-areas.ts); none when absent. */
  warps?: WorldWarp[];
}

/** Dungeon level slots beside the maps (P-24): how many, and their edge in tiles. */
export interface LevelSlotOptions {
  levelSlots: number;
  levelSize: number;
}

export class WorldError extends Error {}

export class World {
  readonly name: string;
  readonly mapWidth: number;
  readonly mapHeight: number;
  readonly chunksX: number;
  readonly chunksY: number;
  readonly spawns: { x: number; y: number }[];
  readonly tileInfo: WorldMap["tileInfo"];
  readonly art: MapArt | null;
  readonly interactables: NonNullable<WorldMap["interactables"]>;
  readonly doors: readonly DoorSpec[];
  /** The maps' rectangles (one for a one-map world) and the level slots' (P-24, areas.ts). */
  readonly mapAreas: readonly AreaRect[];
  readonly levelSlots: readonly AreaRect[];
  /** Per chunk: 1 when it lies in an area that holds something now (a map, a filled level slot). */
  private readonly present: Uint8Array;
  private readonly versions: Uint16Array;
  /** Each chunk version's datagrams, encoded once (chunk-encoding.ts). */
  private readonly encodings: ChunkEncodings;
  private readonly sim: WasmSim;
  private readonly chunkScratch = new Uint16Array(CHUNK_TILE_COUNT);

  /** The wasm move kernel over this world's grid: a movement window is applied through it (movement.ts). */
  readonly moves: MoveTable;
  /** THE rule's allowed steps and the wasm A* over this world's grid: what NPCs plan with (npc/). */
  readonly pathing: Pathing;
  /** The creatures of the map and where they live (empty for a map without a kinds file). */
  readonly npcKinds: readonly NpcKind[];
  readonly npcSpawns: readonly NpcSpawnSpec[];
  readonly safeZones: readonly SafeZone[];
  readonly zones: readonly Zone[];
  readonly items: readonly ItemDef[];
  readonly chests: readonly ChestSpec[];
  /** The map's `pvp` property; null when it does not say. */
  readonly mapPvp: boolean | null;

  constructor(core: Core, map: WorldMap, slots: LevelSlotOptions = { levelSlots: 0, levelSize: 0 }) {
    this.name = map.name;
    this.mapWidth = map.width;
    this.mapHeight = map.height;
    this.tileInfo = map.tileInfo;
    this.art = map.art ?? null;
    this.interactables = map.interactables ?? [];
    this.doors = map.doors ?? [];
    let layout;
    try {
      layout = layoutAreas([map], slots.levelSlots, slots.levelSize);
    } catch (error) {
      if (error instanceof AreaLayoutError) throw new WorldError(`map ${map.name}: ${error.message}`);
      throw error;
    }
    this.mapAreas = map.areas ?? layout.maps;
    this.levelSlots = layout.slots;
    this.chunksX = layout.gridWidth / CHUNK_SIZE;
    this.chunksY = layout.gridHeight / CHUNK_SIZE;
    this.sim = new WasmSim(core);
    this.moves = this.sim;
    this.pathing = this.sim;
    this.npcKinds = map.npcKinds ?? [];
    this.npcSpawns = map.npcSpawns ?? [];
    this.safeZones = map.safeZones ?? [];
    this.zones = map.zones ?? [];
    this.items = map.items ?? [];
    this.chests = map.chests ?? [];
    this.mapPvp = map.pvp ?? null;
    const gridWidth = this.chunksX * CHUNK_SIZE;
    const gridHeight = this.chunksY * CHUNK_SIZE;
    if (!this.sim.initGrid(gridWidth, gridHeight, 0, 0)) {
      throw new WorldError(`map ${map.name} (${gridWidth}×${gridHeight} tiles) does not fit the wasm grid`);
    }
    this.sim.setFlags(map.flags);
    const grid = this.sim.tiles;
    grid.fill(TILE_BORDER);
    for (let y = 0; y < map.height; y++) {
      grid.set(map.tiles.subarray(y * map.width, (y + 1) * map.width), y * gridWidth);
    }
    this.sim.gridChanged(); // written through the view: NPC A*'s step mask is rebuilt from the rule
    this.versions = new Uint16Array(this.chunksX * this.chunksY).fill(1);
    this.present = new Uint8Array(this.chunksX * this.chunksY);
    this.encodings = new ChunkEncodings(core, this.chunksX * this.chunksY, narrowingOf(map));
    for (const area of this.mapAreas) this.markPresent(area, 1);
    // Encode every chunk at start-up (once per version), so no client request waits for an encode.
    for (let cy = 0; cy < this.chunksY; cy++) {
      for (let cx = 0; cx < this.chunksX; cx++) if (this.hasChunk(cx, cy)) this.chunkDatagrams(cx, cy);
    }
    this.spawns = map.spawns.filter((s) => this.walkable(s.x, s.y));
    if (this.spawns.length === 0) this.spawns = [this.findWalkable()];
  }

  hasChunk(cx: number, cy: number): boolean {
    return cx >= 0 && cy >= 0 && cx < this.chunksX && cy < this.chunksY && this.present[cy * this.chunksX + cx] === 1;
  }

  /** Every chunk's version, row by row (read only: a recording's digest covers the tiles through it). */
  get chunkVersions(): Uint16Array {
    return this.versions;
  }

  /** Current version of a chunk; 0 for a chunk outside every area (a gap, an empty level slot, beyond the grid). */
  chunkVersion(cx: number, cy: number): number {
    return this.hasChunk(cx, cy) ? this.versions[cy * this.chunksX + cx] : 0;
  }

  /**
   * Puts a level into slot `slot` (P-24): `tiles` (width × height ≤ the slot's edge, row-major) at the slot's
   * top-left, TILE_BORDER around it. Every chunk of the slot gets a version it never had while held before,
   * so a client that cached a chunk of an earlier level here asks again.
   */
  fillSlot(slot: number, tiles: Uint16Array, width: number, height: number): void {
    const area = this.levelSlots[slot];
    if (area === undefined) throw new WorldError(`no level slot ${slot}`);
    if (width > area.width || height > area.height || tiles.length !== width * height) {
      throw new WorldError(`a ${width}×${height} level does not fit the ${area.width}×${area.height} slot`);
    }
    const chunk = this.chunkScratch;
    const firstCx = area.x / CHUNK_SIZE;
    const firstCy = area.y / CHUNK_SIZE;
    for (let cy = 0; cy < Math.ceil(area.height / CHUNK_SIZE); cy++) {
      for (let cx = 0; cx < Math.ceil(area.width / CHUNK_SIZE); cx++) {
        chunk.fill(TILE_BORDER);
        for (let y = 0; y < CHUNK_SIZE; y++) {
          const row = cy * CHUNK_SIZE + y;
          const from = cx * CHUNK_SIZE;
          if (row >= height || from >= width) continue;
          const to = Math.min(width, from + CHUNK_SIZE);
          chunk.set(tiles.subarray(row * width + from, row * width + to), y * CHUNK_SIZE);
        }
        this.sim.putChunk(firstCx + cx, firstCy + cy, chunk);
      }
    }
    // Encoded on first request (once per version), not here: 64 encodes would lengthen this tick, and the
    // arriving players ask for only the 3×3 chunks around them.
    this.markPresent(area, 1);
  }

  /** Empties slot `slot`: its cells become TILE_BORDER and its chunks cease to exist (version 0 in manifests). */
  clearSlot(slot: number): void {
    const area = this.levelSlots[slot];
    if (area === undefined) throw new WorldError(`no level slot ${slot}`);
    this.forEachChunkOf(area, (cx, cy) => this.sim.fillChunk(cx, cy, TILE_BORDER));
    this.markPresent(area, 0);
  }

  /** Marks the chunks of `area` present or not; either way their encodings go and their versions move on. */
  private markPresent(area: AreaRect, present: 0 | 1): void {
    this.forEachChunkOf(area, (cx, cy) => {
      const index = cy * this.chunksX + cx;
      this.present[index] = present;
      if (this.encodings.has(index)) this.bumpVersion(index);
    });
  }

  private forEachChunkOf(area: AreaRect, visit: (cx: number, cy: number) => void): void {
    const left = area.x / CHUNK_SIZE;
    const top = area.y / CHUNK_SIZE;
    const right = Math.ceil((area.x + area.width) / CHUNK_SIZE);
    const bottom = Math.ceil((area.y + area.height) / CHUNK_SIZE);
    for (let cy = top; cy < bottom; cy++) for (let cx = left; cx < right; cx++) visit(cx, cy);
  }

  private bumpVersion(index: number): void {
    // Version 0 means "no chunk", so the counter wraps from 65535 to 1.
    this.versions[index] = this.versions[index] === 0xffff ? 1 : this.versions[index] + 1;
    this.encodings.forget(index);
  }

  /**
   * The datagrams that carry a chunk's current version (one ChunkPacket, or its ChunkWidePackets),
   * encoded once per version (chunk-encoding.ts). What a client is sent, and when, is chunk-stream.ts.
   */
  /**
   * The datagrams of a chunk's current version: its ChunkPacket or ChunkWidePackets; for a client that does
   * not read ChunkWidePackets (`readsWide` false, docs/protocol.md § 7.2), always one ChunkPacket.
   */
  chunkDatagrams(cx: number, cy: number, readsWide = true): readonly Uint8Array[] {
    const index = cy * this.chunksX + cx;
    const copy = (out: Uint16Array) => this.copyChunkTiles(cx, cy, out);
    const encodings = this.encodings;
    return readsWide
      ? encodings.datagrams(index, chunkId(cx, cy), this.versions[index], copy)
      : encodings.seedDatagrams(index, chunkId(cx, cy), this.versions[index], copy);
  }

  /** Copies a chunk's 1024 tile ids (row-major) into `out`. */
  copyChunkTiles(cx: number, cy: number, out: Uint16Array): void {
    const grid = this.sim.tiles;
    const stride = this.chunksX * CHUNK_SIZE;
    for (let y = 0; y < CHUNK_SIZE; y++) {
      const from = (cy * CHUNK_SIZE + y) * stride + cx * CHUNK_SIZE;
      out.set(grid.subarray(from, from + CHUNK_SIZE), y * CHUNK_SIZE);
    }
  }

  tileAt(x: number, y: number): number {
    return this.sim.getTile(x, y);
  }

  /** Changes one tile at run time; bumps its chunk's version so caches converge. */
  setTile(x: number, y: number, tile: number): boolean {
    const cx = Math.floor(x / CHUNK_SIZE);
    const cy = Math.floor(y / CHUNK_SIZE);
    if (!this.hasChunk(cx, cy) || this.sim.getTile(x, y) === TILE_BORDER) return false;
    this.sim.setTile(x, y, tile);
    this.bumpVersion(cy * this.chunksX + cx);
    this.tileChanges++;
    return true;
  }

  /** Run-time tile changes so far (setTile): what a copy of the maps' cells (freeCells) is checked against. */
  tileChanges = 0;
  /** freeCells' table: per tile id, its mark when free (ids up to TILE_BORDER; those above never are). */
  private freeById: Uint8Array | null = null;

  /**
   * Marks in `into` (mapWidth × mapHeight, row-major) each cell of the maps' rectangle that is free by
   * THE rule's data (`free`, else 0): one pass over the grid, for searches that visit many cells
   * (world/enclosure.ts) without a call per cell.
   */
  freeCells(into: Uint8Array, free: number): void {
    const byId = (this.freeById ??= new Uint8Array(TILE_BORDER + 1));
    for (let id = 0; id <= TILE_BORDER; id++) byId[id] = this.sim.isFreeTileId(id) ? free : 0;
    const grid = this.sim.tiles;
    const stride = this.chunksX * CHUNK_SIZE;
    const width = this.mapWidth;
    for (let y = 0; y < this.mapHeight; y++) {
      const row = y * stride;
      const out = y * width;
      for (let x = 0; x < width; x++) {
        const id = grid[row + x];
        into[out + x] = id <= TILE_BORDER ? byId[id] : 0;
      }
    }
  }

  /** Whether (x, y) is a free cell: the rule's own data, the wasm grid and TILE_FLAGS table. */
  walkable(x: number, y: number): boolean {
    return this.sim.isFree(x, y);
  }

  private findWalkable(): { x: number; y: number } {
    for (let y = 0; y < this.mapHeight; y++) {
      for (let x = 0; x < this.mapWidth; x++) if (this.walkable(x, y)) return { x, y };
    }
    throw new WorldError(`map ${this.name} has no walkable tile`);
  }
}

/** How the world's chunks narrow for a seed-only client: by its tiles' flags, drawn as their stacks or looks. */
function narrowingOf(map: WorldMap): ChunkNarrowing {
  // Built the first time a seed client needs a wide chunk narrowed: most worlds never have one.
  let drawn: Map<number, readonly number[]> | null = null;
  const drawnOf = (id: number): readonly number[] | undefined => {
    if (drawn === null) {
      drawn = new Map();
      for (const tile of map.tileInfo) {
        // A stack lists STACK_ENTRY_LENGTH numbers per tile, the GID with its flip bits first.
        const tiles = tile.stack ? tile.stack.filter((_, index) => index % STACK_ENTRY_LENGTH === 0) : [tile.look];
        drawn.set(tile.id, tiles);
      }
    }
    return drawn.get(id);
  };
  return new ChunkNarrowing({ flags: map.flags, drawnOf });
}
