// The authoritative world: the loaded map sliced into 32×32 chunks, each with a
// version, held in the wasm grid so that every move is checked by the one
// movement rule (`step_allowed`, and `apply_moves` over it) the clients predict with.
//
// The map occupies world tiles (0, 0) .. (width - 1, height - 1). Cells of the
// edge chunks that lie beyond the map are TILE_BORDER: solid and never drawn.
// Chunks entirely outside the map do not exist; the manifest lists them with
// version 0 ("no chunk: do not request"), and both sides treat their cells as
// unknown, i.e. blocked.
import { CHUNK_SIZE, CHUNK_TILE_COUNT, PALETTE_MAX, TILE_BORDER } from "../constants.js";
import { chunkId } from "../protocol/chunk-id.js";
import { encodeChunk, CHUNK_PACKET_MAX_BYTES } from "../protocol/chunk.js";
import { CHUNK_WIDE_PAYLOAD_BUDGET, chunkWidePacketBytes, encodeChunkWide } from "../protocol/chunk-wide.js";
import type { Core } from "../wasm/core.js";
import type { DoorSpec } from "./map/map-doors.js";
import type { NpcKind } from "./npc/kinds.js";
import type { NpcSpawnSpec } from "./npc/spawns.js";
import type { SafeZone } from "./combat/pvp-zones.js";
import type { ItemDef } from "./items/catalogue.js";
import type { ChestSpec } from "./items/item-specs.js";
import type { MapArt } from "./map/map-atlas.js";
import { WasmCodec, type WidePart } from "../wasm/codec.js";
import { type MoveTable, type Pathing, WasmSim } from "../wasm/sim.js";

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
  pvp?: boolean | null;
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
  private readonly versions: Uint16Array;
  private readonly encoded: (readonly Uint8Array[] | null)[];
  private readonly sim: WasmSim;
  private readonly codec: WasmCodec;
  private readonly chunkScratch = new Uint16Array(CHUNK_TILE_COUNT);
  private readonly paletteScratch = new Uint16Array(PALETTE_MAX);
  private readonly packedScratch = new Uint8Array(768);
  private readonly widePart: WidePart = { rowCount: 0, count: 0 };

  /** The wasm move kernel over this world's grid: a movement window is applied through it (movement.ts). */
  readonly moves: MoveTable;
  /** THE rule's allowed steps and the wasm A* over this world's grid: what NPCs plan with (npc/). */
  readonly pathing: Pathing;
  /** The creatures of the map and where they live (empty for a map without a kinds file). */
  readonly npcKinds: readonly NpcKind[];
  readonly npcSpawns: readonly NpcSpawnSpec[];
  readonly safeZones: readonly SafeZone[];
  readonly items: readonly ItemDef[];
  readonly chests: readonly ChestSpec[];
  /** The map's `pvp` property; null when it does not say. */
  readonly mapPvp: boolean | null;

  constructor(core: Core, map: WorldMap) {
    this.name = map.name;
    this.mapWidth = map.width;
    this.mapHeight = map.height;
    this.tileInfo = map.tileInfo;
    this.art = map.art ?? null;
    this.interactables = map.interactables ?? [];
    this.doors = map.doors ?? [];
    this.chunksX = Math.ceil(map.width / CHUNK_SIZE);
    this.chunksY = Math.ceil(map.height / CHUNK_SIZE);
    if (this.chunksX > 0x7fff || this.chunksY > 0x7fff) throw new WorldError("map too large for i16 chunk coordinates");
    this.sim = new WasmSim(core);
    this.moves = this.sim;
    this.pathing = this.sim;
    this.npcKinds = map.npcKinds ?? [];
    this.npcSpawns = map.npcSpawns ?? [];
    this.safeZones = map.safeZones ?? [];
    this.items = map.items ?? [];
    this.chests = map.chests ?? [];
    this.mapPvp = map.pvp ?? null;
    this.codec = new WasmCodec(core);
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
    this.encoded = new Array(this.chunksX * this.chunksY).fill(null);
    // Encode every chunk at start-up (once per version), so no client request waits for an encode.
    for (let cy = 0; cy < this.chunksY; cy++) for (let cx = 0; cx < this.chunksX; cx++) this.chunkDatagrams(cx, cy);
    this.spawns = map.spawns.filter((s) => this.walkable(s.x, s.y));
    if (this.spawns.length === 0) this.spawns = [this.findWalkable()];
  }

  hasChunk(cx: number, cy: number): boolean {
    return cx >= 0 && cy >= 0 && cx < this.chunksX && cy < this.chunksY;
  }

  /** Current version of a chunk; 0 for a chunk outside the world. */
  chunkVersion(cx: number, cy: number): number {
    return this.hasChunk(cx, cy) ? this.versions[cy * this.chunksX + cx] : 0;
  }

  /**
   * The datagrams that carry a chunk's current version, encoded once per
   * version: one ChunkPacket when its palette fits 64 ids, else the
   * ChunkWidePackets whose row bands cover it (docs/protocol.md §
   * ChunkWidePacket). The cache diff sends them all.
   */
  chunkDatagrams(cx: number, cy: number): readonly Uint8Array[] {
    const index = cy * this.chunksX + cx;
    const cached = this.encoded[index];
    if (cached) return cached;
    this.copyChunkTiles(cx, cy, this.chunkScratch);
    const count = this.codec.encodeChunk(this.chunkScratch, this.paletteScratch, this.packedScratch);
    const id = chunkId(cx, cy);
    const version = this.versions[index];
    let datagrams: Uint8Array[];
    if (count >= 0) {
      const out = new Uint8Array(CHUNK_PACKET_MAX_BYTES);
      const size = encodeChunk(
        {
          type: "chunk",
          clientType: 0,
          chunkId: id,
          version,
          palette: this.paletteScratch.subarray(0, count),
          packedTiles: this.packedScratch,
        },
        out,
      );
      datagrams = [out.slice(0, size)];
    } else {
      datagrams = this.encodeWide(id, version);
    }
    this.encoded[index] = datagrams;
    return datagrams;
  }

  /** The ChunkWidePackets of the chunk in chunkScratch, greedily as many rows per part as fit a datagram. */
  private encodeWide(id: number, version: number): Uint8Array[] {
    const codec = this.codec;
    const part = this.widePart;
    codec.loadTiles(this.chunkScratch);
    const datagrams: Uint8Array[] = [];
    for (let rowStart = 0; rowStart < CHUNK_SIZE; rowStart += part.rowCount) {
      codec.encodeWidePart(rowStart, CHUNK_WIDE_PAYLOAD_BUDGET, part);
      const out = new Uint8Array(chunkWidePacketBytes(part.rowCount, part.count));
      encodeChunkWide(
        {
          type: "chunk_wide",
          clientType: 0,
          chunkId: id,
          version,
          rowStart,
          rowCount: part.rowCount,
          palette: codec.widePalette.subarray(0, part.count),
          packedTiles: codec.widePacked.subarray(0, part.rowCount * 4 * codec.wideIndexBits(part.count)),
        },
        out,
      );
      datagrams.push(out);
    }
    return datagrams;
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
    if (!this.hasChunk(cx, cy) || x >= this.mapWidth || y >= this.mapHeight) return false;
    this.sim.setTile(x, y, tile);
    const index = cy * this.chunksX + cx;
    // Version 0 means "no chunk", so the counter wraps from 65535 to 1.
    this.versions[index] = this.versions[index] === 0xffff ? 1 : this.versions[index] + 1;
    this.encoded[index] = null;
    return true;
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
