// Run-time tile changes reach the clients that hold the chunk
// (docs/protocol.md § TileUpdatePacket). Game code changes tiles through
// Game.setTile, which is `set` here; the changes of one tick are collected per chunk and sent at
// the end of the tick as one TileUpdate per chunk to every session whose 3×3
// neighbourhood contains it. The chunk's version is bumped either way, so a
// client that misses the update converges through the manifest and the cache
// diff, like for any stale chunk.
import { CHUNK_SIZE, TILE_UNKNOWN } from "../../constants.js";
import { chunkId } from "../../protocol/chunk-id.js";
import {
  encodeTileUpdate,
  TILE_UPDATE_MAX_CHANGES,
  TILE_UPDATE_HEADER_BYTES,
  TILE_CHANGE_BYTES,
} from "../../protocol/tile-update.js";
import type { Egress } from "../edge/egress.js";
import type { SessionRegistry } from "../sessions/session.js";
import { holdsInView } from "./chunk-stream.js";
import type { World } from "./world.js";

/** The tiles a change reads and writes, and the chunk versions it bumps. */
export type TileWorld = Pick<World, "hasChunk" | "tileAt" | "setTile" | "chunkVersion">;

interface PendingChunk {
  readonly cx: number;
  readonly cy: number;
  /** Version before the tick's first change; the update applies to it. */
  readonly fromVersion: number;
  toVersion: number;
  /** Local tile index → new tile id; a tile changed twice keeps its last id. */
  readonly changes: Map<number, number>;
}

export class TileUpdates {
  private readonly pending = new Map<number, PendingChunk>();
  readonly stats = { updates: 0, datagrams: 0, tooLarge: 0 };

  constructor(
    private readonly world: TileWorld,
    /** Who is told: the sessions whose 3×3 neighbourhood holds a changed chunk. */
    private readonly sessions: Pick<SessionRegistry, "values">,
    private readonly egress: Egress,
  ) {}

  /**
   * Changes one tile at run time. Clients holding its chunk get a TileUpdate at
   * the end of the tick; the chunk version goes up, so every other cache
   * converges through the manifest. False outside every chunk that exists (the map's, a dungeon
   * level's in its slot: P-24 puts those beside the map, so the map's edge is no bound); setting a tile to
   * the id it has changes nothing. Throws RangeError for an id no chunk can
   * hold (TILE_UNKNOWN is never sent).
   */
  set(x: number, y: number, tileId: number): boolean {
    if (!Number.isInteger(tileId) || tileId < 0 || tileId >= TILE_UNKNOWN) {
      throw new RangeError(`tile id must be 0..0xFFFE, got ${tileId}`);
    }
    const world = this.world;
    if (!Number.isInteger(x) || !Number.isInteger(y)) return false;
    const cx = Math.floor(x / CHUNK_SIZE);
    const cy = Math.floor(y / CHUNK_SIZE);
    if (!world.hasChunk(cx, cy)) return false;
    if (world.tileAt(x, y) === tileId) return true;
    const fromVersion = world.chunkVersion(cx, cy);
    if (!world.setTile(x, y, tileId)) return false;
    this.record(x, y, tileId, fromVersion, world.chunkVersion(cx, cy));
    return true;
  }

  /** Notes that tile (x, y) became `tileId`, taking its chunk from `fromVersion` to `toVersion`. */
  private record(x: number, y: number, tileId: number, fromVersion: number, toVersion: number): void {
    const cx = Math.floor(x / CHUNK_SIZE);
    const cy = Math.floor(y / CHUNK_SIZE);
    const id = chunkId(cx, cy);
    let chunk = this.pending.get(id);
    if (!chunk) {
      chunk = { cx, cy, fromVersion, toVersion, changes: new Map() };
      this.pending.set(id, chunk);
    }
    chunk.toVersion = toVersion;
    chunk.changes.set((y - cy * CHUNK_SIZE) * CHUNK_SIZE + (x - cx * CHUNK_SIZE), tileId);
  }

  /** Sends the tick's updates. Chunks with more changes than one update carries are left to the cache diff. */
  flush(): void {
    if (this.pending.size === 0) return;
    for (const [id, chunk] of this.pending) {
      if (chunk.changes.size > TILE_UPDATE_MAX_CHANGES) {
        this.stats.tooLarge++;
        continue;
      }
      const changes = [...chunk.changes].map(([tileIndex, tileId]) => ({ tileIndex, tileId }));
      const out = new Uint8Array(TILE_UPDATE_HEADER_BYTES + changes.length * TILE_CHANGE_BYTES);
      encodeTileUpdate(
        {
          type: "tile_update",
          clientType: 0,
          chunkId: id,
          fromVersion: chunk.fromVersion,
          toVersion: chunk.toVersion,
          changes,
        },
        out,
      );
      this.stats.updates++;
      for (const session of this.sessions.values()) {
        if (!session.peer) continue;
        if (!holdsInView(session.entity.x, session.entity.y, chunk.cx, chunk.cy)) continue;
        this.stats.datagrams++;
        this.egress.send(session, out);
      }
    }
    this.pending.clear();
  }
}
