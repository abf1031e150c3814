// Entity interpolation (roadmap 09): server updates place entities on whole
// tiles, 6 steps per second; drawing them there makes everything hop. Each
// entity gets a track — where its glide started, the tile it is gliding to,
// and when — and is drawn along a straight line over one movement interval
// (TICKS_PER_MOVE ticks at the server's tick rate, 166.7 ms at 24 Hz), so a
// walker moves continuously and arrives just as its next step is due. The rate
// is the server's (WorldInfo.tickHz, as GameClient.tickHz), the same the
// client's clock and scheduler run on, so the glide cannot drift from the steps.
//
// Purely cosmetic: game logic keeps using the authoritative tiles.
// - A step of more than one tile (Chebyshev) is a teleport or a burst of lost
//   updates, not a walk: the entity snaps instead of sliding through walls.
// - A new step that arrives while the previous glide is still running (jitter)
//   starts from where the entity is drawn, not from its old tile, so it never jumps back.
// - An entity missing from an update has left the view (or the world) and is dropped.
import { CELL_SIZE_PX } from "./assets/sheets.js";
import type { PixelPoint } from "./camera.js";

/** An entity's authoritative position, in world tiles, as decoded from an EntityPacket. */
export interface EntityTile {
  readonly id: number;
  readonly x: number;
  readonly y: number;
}

interface Track {
  fromXPx: number;
  fromYPx: number;
  tileX: number;
  tileY: number;
  startMs: number;
  /** startMs + interval, kept so that positionAt(startMs + interval) is exactly at rest. */
  endMs: number;
  /** The update generation that last mentioned this entity. */
  seenIn: number;
}

export class EntityInterpolation {
  private readonly tracks = new Map<number, Track>();
  private generation = 0;

  /** `intervalMs`: one movement window at the server's tick rate (windowPeriodMs(client.tickHz), ts/window.ts). */
  constructor(
    private readonly intervalMs: number,
    private readonly tileSizePx: number = CELL_SIZE_PX,
  ) {}

  /**
   * Replaces the entity set with a complete update (all EntityPackets of one tick, joined):
   * listed entities glide or snap to their tiles, unlisted ones are dropped.
   */
  applySnapshot(entities: Iterable<EntityTile>, nowMs: number): void {
    this.beginUpdate();
    for (const entity of entities) this.setTile(entity.id, entity.x, entity.y, nowMs);
    this.endUpdate();
  }

  /** Starts a complete update fed entity by entity with setTile; endUpdate drops whoever was not set. */
  beginUpdate(): void {
    this.generation++;
  }

  /** Records that entity `id` is on tile (tileX, tileY) as of `nowMs`. */
  setTile(id: number, tileX: number, tileY: number, nowMs: number): void {
    const track = this.tracks.get(id);
    if (track === undefined) {
      // First sight: already at rest on its tile.
      this.tracks.set(id, {
        fromXPx: tileX * this.tileSizePx,
        fromYPx: tileY * this.tileSizePx,
        tileX,
        tileY,
        startMs: -Infinity,
        endMs: -Infinity,
        seenIn: this.generation,
      });
      return;
    }
    track.seenIn = this.generation;
    if (track.tileX === tileX && track.tileY === tileY) return;
    const stepTiles = Math.max(Math.abs(tileX - track.tileX), Math.abs(tileY - track.tileY));
    if (stepTiles > 1) {
      track.fromXPx = tileX * this.tileSizePx;
      track.fromYPx = tileY * this.tileSizePx;
      track.startMs = -Infinity;
      track.endMs = -Infinity;
    } else {
      const drawn = this.positionAt(id, nowMs)!;
      track.fromXPx = drawn.x;
      track.fromYPx = drawn.y;
      track.startMs = nowMs;
      track.endMs = nowMs + this.intervalMs;
    }
    track.tileX = tileX;
    track.tileY = tileY;
  }

  /** Ends a complete update: entities not set since beginUpdate are removed. */
  endUpdate(): void {
    for (const [id, track] of this.tracks) if (track.seenIn !== this.generation) this.tracks.delete(id);
  }

  /** Removes one entity now (e.g. a despawn notice). */
  remove(id: number): void {
    this.tracks.delete(id);
  }

  /**
   * Where to draw entity `id` at `nowMs`, in float world pixels (round at render time, like the camera),
   * or undefined for an unknown id. Writes into `out` when given, to spare an allocation per entity per frame.
   */
  positionAt(id: number, nowMs: number, out: PixelPoint = { x: 0, y: 0 }): PixelPoint | undefined {
    const track = this.tracks.get(id);
    if (track === undefined) return undefined;
    const toXPx = track.tileX * this.tileSizePx;
    const toYPx = track.tileY * this.tileSizePx;
    if (nowMs >= track.endMs) {
      // At rest exactly on the tile, free of rounding residue from a glide that began mid-way.
      out.x = toXPx;
      out.y = toYPx;
    } else {
      const progress = Math.max(0, (nowMs - track.startMs) / this.intervalMs);
      out.x = track.fromXPx + (toXPx - track.fromXPx) * progress;
      out.y = track.fromYPx + (toYPx - track.fromYPx) * progress;
    }
    return out;
  }

  /** The authoritative tile of entity `id`, or undefined. */
  tileOf(id: number): { x: number; y: number } | undefined {
    const track = this.tracks.get(id);
    return track === undefined ? undefined : { x: track.tileX, y: track.tileY };
  }

  has(id: number): boolean {
    return this.tracks.has(id);
  }

  get size(): number {
    return this.tracks.size;
  }

  ids(): IterableIterator<number> {
    return this.tracks.keys();
  }
}
