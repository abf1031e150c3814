// Tile animations of a map with its own art (docs/art.md § Animations): the
// server's atlas holds every frame of an animated stack and /api/world names
// them per id (tiles[].frames: atlas tile and duration, looping from time 0).
// Each frame the host picks the segment of the wall-clock time (so every
// client shows the same frame, as Tiled's editor plays all tiles on one
// clock) and, only when it changed, writes that atlas tile into the id's
// TILE_LOOK entry: the wasm blitter draws whatever TILE_LOOK says, so the
// cost is one look-up per animated id per frame and no pixel work in JS.
import type { WasmBlitter } from "../../wasm/blit.js";

/** One segment of an animated id's timeline. */
export interface TileFrame {
  look: number;
  durationMs: number;
}

/** Most segments the client takes for one id (the server makes at most 32: stack-animation.ts). */
export const MAX_CLIENT_FRAMES = 256;

/** Why an id's frames cannot be played, or null when they can: each look an atlas tile, each duration positive. */
export function tileFramesProblem(frames: readonly TileFrame[], tileCount: number): string | null {
  if (frames.length < 2 || frames.length > MAX_CLIENT_FRAMES) return `${frames.length} frames`;
  for (const { look, durationMs } of frames) {
    if (!Number.isInteger(look) || look <= 0 || look >= tileCount) return `look ${look} is not an atlas tile`;
    if (!Number.isInteger(durationMs) || durationMs <= 0) return `duration ${durationMs} ms`;
  }
  return null;
}

export class TileAnimations {
  private readonly ids: Uint16Array;
  /** Where each id's segments start in `looks` / `ends` (ids.length + 1 entries). */
  private readonly starts: Uint32Array;
  private readonly looks: Uint16Array;
  /** Each segment's end within its id's period, ms. */
  private readonly ends: Float64Array;
  private readonly periodsMs: Float64Array;
  /** The look written last per id (0: none yet), so TILE_LOOK is written only on a change. */
  private readonly shown: Uint16Array;

  /** `animated`: id → frames, each already checked (tileFramesProblem). */
  constructor(animated: ReadonlyMap<number, readonly TileFrame[]>) {
    const count = animated.size;
    this.ids = new Uint16Array(count);
    this.starts = new Uint32Array(count + 1);
    this.periodsMs = new Float64Array(count);
    this.shown = new Uint16Array(count);
    const total = [...animated.values()].reduce((sum, frames) => sum + frames.length, 0);
    this.looks = new Uint16Array(total);
    this.ends = new Float64Array(total);
    let index = 0;
    let at = 0;
    for (const [id, frames] of animated) {
      this.ids[index] = id;
      this.starts[index] = at;
      let end = 0;
      for (const frame of frames) {
        end += frame.durationMs;
        this.looks[at] = frame.look;
        this.ends[at] = end;
        at++;
      }
      this.periodsMs[index] = end;
      index++;
    }
    this.starts[count] = at;
  }

  /** How many ids animate. */
  get size(): number {
    return this.ids.length;
  }

  /** The atlas tile id `index` (in constructor order) shows at wall-clock `nowMs`. */
  lookAt(index: number, nowMs: number): number {
    const period = this.periodsMs[index];
    const phase = ((nowMs % period) + period) % period;
    const last = this.starts[index + 1] - 1;
    let at = this.starts[index];
    while (at < last && phase >= this.ends[at]) at++;
    return this.looks[at];
  }

  /** Writes into TILE_LOOK each animated id's tile at `nowMs`, where it changed since the last call. */
  show(blitter: WasmBlitter, nowMs: number): void {
    for (let index = 0; index < this.ids.length; index++) {
      const look = this.lookAt(index, nowMs);
      if (look === this.shown[index]) continue;
      this.shown[index] = look;
      blitter.setTileLook(this.ids[index], look);
    }
  }
}
