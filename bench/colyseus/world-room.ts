// The server-scale workload (docs/benchmarks.md § Server scale) as a Colyseus 0.17 room, so the
// server suite can run Colyseus beside our server in the same run. The same world file (the bench's
// map.tmj and map.tiles.json), the same movement rule (ts/ref/sim.ts RefGrid.stepAllowed: 8
// directions, no corner cutting, entities do not block each other), the same rates (24 Hz
// simulation, a step per 4-tick movement window, 12 Hz state patches), the same 31×31 view and the
// same chunk traffic (the 3×3 chunks around the player, as ChunkPacket bytes from ts/protocol,
// forgotten like the bots forget them), written the way a Colyseus user would: the entities live in
// a @view() MapSchema, every client has a StateView, and each patch the room adds to and removes from
// it the entities entering and leaving its view square (a chunk-bucket index finds them).
import { type Client, Room } from "@colyseus/core";
import { StateView, schema } from "@colyseus/schema";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import {
  BROADCAST_EVERY_TICKS,
  CHUNK_SIZE,
  CHUNK_TILE_COUNT,
  TICK_HZ,
  TILE_FLAG_COLLIDES,
} from "../../ts/constants.js";
import { ACTION_DX, ACTION_DY, ACTION_MAX } from "../../ts/protocol/action.js";
import { CHUNK_PACKET_MAX_BYTES, encodeChunkFromTiles } from "../../ts/protocol/chunk.js";
import { chunkId } from "../../ts/protocol/chunk-id.js";
import { CLIENT_TYPE_OFFICIAL } from "../../ts/protocol/header.js";
import { RefGrid } from "../../ts/ref/sim.js";
import { VIEW_RADIUS } from "../../ts/server/entities/view.js";
import { executesWindow } from "../../ts/window.js";

/** The wire names of the room's messages (the bot driver uses the same). */
export const MESSAGE_MOVE = "m";
export const MESSAGE_CHUNK = "c";
/** The entity type of a player (ts/entity-types.ts's player id is 1 too; only its size on the wire matters). */
const PLAYER_TYPE_ID = 1;
const PLAYER_HP = 20;
/** Chunk versions a client is assumed to keep before those outside its 3×3 are forgotten (bench/server/bots.ts). */
const HELD_CHUNKS_MAX = 32;

/** One entity as the EntityPacket entry carries it (docs/protocol.md § EntityEntry), without the metadata. */
export const Entity = schema(
  {
    typeId: "uint16",
    x: "int16",
    y: "int16",
    hp: "uint16",
    hpMax: "uint16",
    elo: "uint16",
    flags: "uint8",
  },
  "Entity",
);
export type Entity = InstanceType<typeof Entity>;

/** The room's state: every entity, each visible only to the StateViews it was added to. */
export const WorldState = schema({ entities: { map: Entity, view: true } }, "WorldState");
export type WorldState = InstanceType<typeof WorldState>;

/** The tiles of a bench world directory and its spawn points, as the room reads them. */
interface World {
  grid: RefGrid;
  width: number;
  height: number;
  spawns: { x: number; y: number }[];
  /** ChunkPacket bytes per chunk (row-major chunk index), encoded once. */
  chunkBytes: Uint8Array[];
  chunksX: number;
  chunksY: number;
}

/** Reads map.tmj (the bench's Tiled map: tile ids in the "ground" layer, "spawn" points) and map.tiles.json. */
export function loadWorld(mapPath: string): World {
  const map = JSON.parse(readFileSync(mapPath, "utf8")) as {
    width: number;
    height: number;
    layers: { type: string; name: string; data?: number[]; objects?: { type: string; x: number; y: number }[] }[];
  };
  const tileData = JSON.parse(readFileSync(join(dirname(mapPath), "map.tiles.json"), "utf8")) as {
    tiles: { id: number; collides: boolean }[];
  };
  const ground = map.layers.find((layer) => layer.type === "tilelayer");
  if (!ground?.data) throw new Error(`${mapPath}: no tile layer`);
  const grid = new RefGrid(map.width, map.height);
  for (const tile of tileData.tiles) if (tile.collides) grid.flags[tile.id] |= TILE_FLAG_COLLIDES;
  grid.tiles.set(ground.data);
  const spawns = map.layers
    .flatMap((layer) => layer.objects ?? [])
    .filter((object) => object.type === "spawn")
    .map((object) => ({ x: Math.floor(object.x / 8), y: Math.floor(object.y / 8) }));
  const chunksX = Math.ceil(map.width / CHUNK_SIZE);
  const chunksY = Math.ceil(map.height / CHUNK_SIZE);
  const chunkBytes: Uint8Array[] = [];
  const tiles = new Uint16Array(CHUNK_TILE_COUNT);
  const out = new Uint8Array(CHUNK_PACKET_MAX_BYTES);
  for (let cy = 0; cy < chunksY; cy++) {
    for (let cx = 0; cx < chunksX; cx++) {
      for (let y = 0; y < CHUNK_SIZE; y++)
        for (let x = 0; x < CHUNK_SIZE; x++)
          tiles[y * CHUNK_SIZE + x] = grid.getTile(cx * CHUNK_SIZE + x, cy * CHUNK_SIZE + y);
      const length = encodeChunkFromTiles(CLIENT_TYPE_OFFICIAL, chunkId(cx, cy), 1, tiles, out, 0);
      chunkBytes.push(out.slice(0, length));
    }
  }
  return { grid, width: map.width, height: map.height, spawns, chunkBytes, chunksX, chunksY };
}

/** What the room keeps per client besides its schema entity. */
interface Player {
  client: Client;
  id: string;
  entity: Entity;
  view: StateView;
  /** The step to take in the next movement window (0: none), as the last move message said. */
  action: number;
  /** Entities now in this client's StateView. */
  inView: Set<Player>;
  /** Chunk indices the client holds (sent and not yet forgotten), and the chunk it stood in last. */
  held: Set<number>;
  chunk: number;
  /** The chunk bucket it is filed under. */
  bucket: number;
}

/** Durations (ms) of the newest simulation ticks and patches, for the status endpoint's percentiles. */
export class DurationRing {
  private readonly values: Float64Array;
  private count = 0;
  constructor(size: number) {
    this.values = new Float64Array(size);
  }
  push(ms: number): void {
    this.values[this.count % this.values.length] = ms;
    this.count++;
  }
  /** p50, p99 and max of the newest `newest` values (all kept ones by default). */
  percentiles(newest = this.values.length): { p50: number; p99: number; max: number } {
    const n = Math.min(newest, this.count, this.values.length);
    if (n === 0) return { p50: NaN, p99: NaN, max: NaN };
    const sorted = new Float64Array(n);
    for (let i = 0; i < n; i++) sorted[i] = this.values[(this.count - 1 - i) % this.values.length];
    sorted.sort();
    return { p50: sorted[Math.floor((n - 1) * 0.5)], p99: sorted[Math.floor((n - 1) * 0.99)], max: sorted[n - 1] };
  }
}

/** The room's counters, read by the status endpoint (bench/colyseus/server.ts). */
export const roomStats = {
  ticks: 0,
  patches: 0,
  clients: 0,
  chunksSent: 0,
  tickMs: new DurationRing(1024),
  patchMs: new DurationRing(1024),
};

let world: World | null = null;

/** Loads the world the room serves; called once before the server listens. */
export function setWorld(mapPath: string): void {
  world = loadWorld(mapPath);
}

export class WorldRoom extends Room {
  override state = new WorldState();
  private readonly players = new Map<string, Player>();
  /** Chunk-sized buckets of players, row-major like the chunks: the view query visits the few around a player. */
  private buckets: Set<Player>[] = [];
  private nextSpawn = 0;
  private nextEntityId = 1;

  override onCreate(): void {
    if (!world) throw new Error("setWorld() before the room is created");
    this.buckets = Array.from({ length: world.chunksX * world.chunksY }, () => new Set<Player>());
    this.autoDispose = false;
    this.patchRate = (1000 * BROADCAST_EVERY_TICKS) / TICK_HZ;
    this.setSimulationInterval(() => this.tick(), 1000 / TICK_HZ);
    this.onMessage(MESSAGE_MOVE, (client: Client, action: unknown) => {
      const player = this.players.get(client.sessionId);
      if (player && typeof action === "number" && Number.isInteger(action) && action >= 0 && action <= ACTION_MAX)
        player.action = action;
    });
  }

  override onJoin(client: Client): void {
    const w = world!;
    const spawn = w.spawns[this.nextSpawn++ % w.spawns.length];
    const entity = new Entity();
    entity.typeId = PLAYER_TYPE_ID;
    entity.x = spawn.x;
    entity.y = spawn.y;
    entity.hp = PLAYER_HP;
    entity.hpMax = PLAYER_HP;
    entity.elo = 1000;
    entity.flags = 0;
    const id = String(this.nextEntityId++);
    const view = new StateView();
    client.view = view;
    const player: Player = {
      client,
      id,
      entity,
      view,
      action: 0,
      inView: new Set(),
      held: new Set(),
      chunk: -1,
      bucket: this.bucketOf(spawn.x, spawn.y),
    };
    this.state.entities.set(id, entity);
    this.players.set(client.sessionId, player);
    this.buckets[player.bucket].add(player);
    roomStats.clients = this.players.size;
    this.updateView(player);
    this.sendChunks(player);
  }

  override onLeave(client: Client): void {
    const player = this.players.get(client.sessionId);
    if (!player) return;
    this.players.delete(client.sessionId);
    this.buckets[player.bucket].delete(player);
    for (const other of this.players.values()) {
      if (other.inView.delete(player)) other.view.remove(player.entity);
    }
    this.state.entities.delete(player.id);
    roomStats.clients = this.players.size;
  }

  override broadcastPatch(): boolean {
    const start = performance.now();
    const sent = super.broadcastPatch();
    roomStats.patchMs.push(performance.now() - start);
    roomStats.patches++;
    return sent;
  }

  private bucketOf(x: number, y: number): number {
    const w = world!;
    return Math.floor(y / CHUNK_SIZE) * w.chunksX + Math.floor(x / CHUNK_SIZE);
  }

  /** One 24 Hz tick: the movement window's steps on every 4th, the views before every patch (12 Hz). */
  private tick(): void {
    const start = performance.now();
    const tick = ++roomStats.ticks;
    if (executesWindow(tick)) this.moveAll();
    if (tick % BROADCAST_EVERY_TICKS === 0) for (const player of this.players.values()) this.updateView(player);
    roomStats.tickMs.push(performance.now() - start);
  }

  private moveAll(): void {
    const grid = world!.grid;
    for (const player of this.players.values()) {
      const action = player.action;
      if (action === 0) continue;
      const entity = player.entity;
      if (!grid.stepAllowed(entity.x, entity.y, action)) continue;
      entity.x += ACTION_DX[action];
      entity.y += ACTION_DY[action];
      const bucket = this.bucketOf(entity.x, entity.y);
      if (bucket !== player.bucket) {
        this.buckets[player.bucket].delete(player);
        this.buckets[bucket].add(player);
        player.bucket = bucket;
      }
      this.sendChunks(player);
    }
  }

  /** The client's StateView made to hold exactly the entities within VIEW_RADIUS (Chebyshev) of it. */
  private updateView(player: Player): void {
    const w = world!;
    const x = player.entity.x;
    const y = player.entity.y;
    for (const other of player.inView) {
      if (Math.abs(other.entity.x - x) > VIEW_RADIUS || Math.abs(other.entity.y - y) > VIEW_RADIUS) {
        player.inView.delete(other);
        player.view.remove(other.entity);
      }
    }
    const cx0 = Math.max(0, Math.floor((x - VIEW_RADIUS) / CHUNK_SIZE));
    const cx1 = Math.min(w.chunksX - 1, Math.floor((x + VIEW_RADIUS) / CHUNK_SIZE));
    const cy0 = Math.max(0, Math.floor((y - VIEW_RADIUS) / CHUNK_SIZE));
    const cy1 = Math.min(w.chunksY - 1, Math.floor((y + VIEW_RADIUS) / CHUNK_SIZE));
    for (let cy = cy0; cy <= cy1; cy++) {
      for (let cx = cx0; cx <= cx1; cx++) {
        for (const other of this.buckets[cy * w.chunksX + cx]) {
          if (player.inView.has(other)) continue;
          if (Math.abs(other.entity.x - x) > VIEW_RADIUS || Math.abs(other.entity.y - y) > VIEW_RADIUS) continue;
          player.inView.add(other);
          player.view.add(other.entity);
        }
      }
    }
  }

  /** On entering a chunk: the 3×3 chunks around it that the client does not hold, as ChunkPacket bytes. */
  private sendChunks(player: Player): void {
    const w = world!;
    const ccx = Math.floor(player.entity.x / CHUNK_SIZE);
    const ccy = Math.floor(player.entity.y / CHUNK_SIZE);
    const chunk = ccy * w.chunksX + ccx;
    if (chunk === player.chunk) return;
    player.chunk = chunk;
    for (let cy = ccy - 1; cy <= ccy + 1; cy++) {
      for (let cx = ccx - 1; cx <= ccx + 1; cx++) {
        if (cx < 0 || cy < 0 || cx >= w.chunksX || cy >= w.chunksY) continue;
        const index = cy * w.chunksX + cx;
        if (player.held.has(index)) continue;
        player.held.add(index);
        player.client.sendBytes(MESSAGE_CHUNK, w.chunkBytes[index]);
        roomStats.chunksSent++;
      }
    }
    // The bots keep 32 chunks, then forget those outside their 3×3 (bench/server/bots.ts HELD_CHUNKS_MAX).
    if (player.held.size > HELD_CHUNKS_MAX) {
      for (const index of player.held) {
        const cx = index % w.chunksX;
        const cy = Math.floor(index / w.chunksX);
        if (Math.abs(cx - ccx) > 1 || Math.abs(cy - ccy) > 1) player.held.delete(index);
      }
    }
  }
}
