// Entity interpolation (roadmap 09): server updates place entities on whole
// tiles; drawing them there makes everything hop. Each entity gets a track —
// where its glide started, the tile it is gliding to, and when — and is drawn
// along a straight line over its own glide duration, so a walker moves
// continuously and arrives just as its next step is due. The duration is set per
// step by the caller (glide-timing.ts): one movement window for players, the
// action interval of its kind for an NPC (ts/action-points.ts), or — for an
// entity whose pace is not known — the measured time between its last two tile
// changes, clamped.
//
// Purely cosmetic: game logic keeps using the authoritative tiles.
// - A step of more than one tile (Chebyshev) is a teleport or a burst of lost
//   updates, not a walk: the entity snaps instead of sliding through walls.
// - A new step that arrives while the previous glide is still running (jitter,
//   or a pace faster than the glide assumed) starts from where the entity is
//   drawn, not from its old tile, so it never jumps back; the new glide covers
//   the remaining distance in one duration, so a lag shrinks instead of building up.
// - An entity missing from an update has left the view (or the world) and is dropped.
import { CELL_SIZE_PX } from "./assets/sheets.js";
import type { PixelPoint } from "./render/camera.js";

/** An entity's authoritative position, in world tiles, as decoded from an EntityPacket. */
export interface EntityTile {
  readonly id: number;
  readonly x: number;
  readonly y: number;
}

/** How long one step's glide lasts: milliseconds, or MEASURED_GLIDE for the entity's own measured pace. */
export type GlideMs = number | typeof MEASURED_GLIDE;
export const MEASURED_GLIDE = "measured";

/** Bounds on a measured glide: a pause between steps is not a slow pace. */
export interface MeasuredGlideBounds {
  readonly minMs: number;
  readonly maxMs: number;
}

interface Track {
  fromXPx: number;
  fromYPx: number;
  tileX: number;
  tileY: number;
  startMs: number;
  /** startMs + the glide's duration, kept so that positionAt(endMs) is exactly at rest. */
  endMs: number;
  /** When the tile last changed (for a measured glide); -Infinity before the first change. */
  changedAtMs: number;
  /** The update generation that last mentioned this entity. */
  seenIn: number;
}

export class EntityInterpolation {
  private readonly tracks = new Map<number, Track>();
  private generation = 0;

  /**
   * `intervalMs`: the glide of a step given no duration of its own, and of a measured glide with nothing
   * measured yet: one movement window at the server's tick rate (windowPeriodMs(client.tickHz), ts/window.ts).
   * `measuredBounds` clamp measured glides (default: the interval itself, i.e. no measuring).
   */
  constructor(
    private readonly intervalMs: number,
    private readonly tileSizePx: number = CELL_SIZE_PX,
    private readonly measuredBounds: MeasuredGlideBounds = { minMs: intervalMs, maxMs: intervalMs },
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

  /** Records that entity `id` is on tile (tileX, tileY) as of `nowMs`; a step to it glides over `glideMs`. */
  setTile(id: number, tileX: number, tileY: number, nowMs: number, glideMs: GlideMs = this.intervalMs): void {
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
        changedAtMs: -Infinity,
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
      track.endMs = nowMs + this.durationOf(glideMs, track, nowMs);
    }
    track.changedAtMs = nowMs;
    track.tileX = tileX;
    track.tileY = tileY;
  }

  private durationOf(glideMs: GlideMs, track: Track, nowMs: number): number {
    if (glideMs !== MEASURED_GLIDE) return glideMs;
    if (track.changedAtMs === -Infinity) return this.intervalMs;
    const { minMs, maxMs } = this.measuredBounds;
    return Math.min(maxMs, Math.max(minMs, nowMs - track.changedAtMs));
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
      const progress = Math.max(0, (nowMs - track.startMs) / (track.endMs - track.startMs));
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
