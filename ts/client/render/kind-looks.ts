// Creatures drawn with the host's own art (docs/art.md § Creatures in the map's art): a kinds file may
// name a tile of the map's tilesets for a kind, and /api/world then gives the kind a `look` — the block of
// map cells the tile covers around the creature's cell (a 16 × 32 character covers its cell and the one
// above), each an atlas tile cut transparent, per frame of its Tiled animation. This picks what a kind
// shows at a moment, on the wall clock as the map's own animated tiles are (tile-animation.ts), so a
// town's rats are drawn as the town's rats, at the map's tile size, rather than as 8-px specks.
import type { KindLook, NpcKind } from "../core/kinds.js";

/** What a creature shows now: a `width`-wide block of atlas tiles (0: none) whose top-left is (dx, dy) cells from its own. */
export interface MapLook {
  readonly dx: number;
  readonly dy: number;
  readonly width: number;
  readonly looks: readonly number[];
}

interface Timeline {
  readonly look: KindLook;
  /** Each frame's end within the period, ms. */
  readonly ends: readonly number[];
  readonly periodMs: number;
  /** The frames as MapLooks, made once. */
  readonly shown: readonly MapLook[];
}

export class KindLooks {
  private readonly byType = new Map<number, Timeline>();

  /** The looks of `kinds` whose every tile is one of an atlas of `tileCount` tiles; the others keep their sprites. */
  constructor(kinds: readonly NpcKind[], tileCount: number) {
    for (const kind of kinds) {
      const look = kind.look;
      if (look === undefined) continue;
      if (!look.frames.every((frame) => frame.looks.every((cell) => cell < tileCount))) continue;
      let end = 0;
      const ends = look.frames.map((frame) => (end += frame.durationMs));
      const shown = look.frames.map((frame) => ({ dx: look.dx, dy: look.dy, width: look.width, looks: frame.looks }));
      this.byType.set(kind.typeId, { look, ends, periodMs: end, shown });
    }
  }

  /** How many kinds are drawn with the map's art. */
  get size(): number {
    return this.byType.size;
  }

  /** What kind `typeId` shows at wall-clock `nowMs`, or null: it is drawn with its sprite. */
  at(typeId: number, nowMs: number): MapLook | null {
    const timeline = this.byType.get(typeId);
    if (timeline === undefined) return null;
    if (timeline.periodMs <= 0) return timeline.shown[0];
    const phase = ((nowMs % timeline.periodMs) + timeline.periodMs) % timeline.periodMs;
    let frame = 0;
    while (frame < timeline.ends.length - 1 && phase >= timeline.ends[frame]) frame++;
    return timeline.shown[frame];
  }
}
