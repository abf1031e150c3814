// Tile animations of a map with its own art (docs/art.md § Animations). A
// cell's stack (tile-stacks.ts) animates when any of its tiles has a Tiled
// <animation>: every layer's animation runs on one clock from time 0 and loops
// (Tiled's semantics, durations in ms), so the stack's picture changes
// whenever any of them changes frame. Its timeline is those change points over
// one common period (the least common multiple of the layers' cycles); each
// segment is the stack with every animated tile replaced by its frame then.
// The atlas holds one tile per segment (map-atlas.ts) and the client shows the
// segment of the wall-clock time (ts/client/render/tile-animation.ts).
import { GID_TILE_MASK } from "./gid.js";
import { type Footprints, STACK_ENTRY_LENGTH } from "./tile-stacks.js";
import type { AnimationFrame } from "./tileset.js";

/**
 * Most segments one stack's timeline may have. Two layers of coprime cycles multiply: a stack whose
 * combination needs more keeps only its top-most animations that fit (the others stay on their first
 * frame) and `map check` says so. 32 keeps the atlas within its budget for real maps (a 2-frame water
 * under a 4-frame torch is 5 segments) and the client's per-frame work small.
 */
export const MAX_FRAMES_PER_STACK = 32;

/** One segment of a stack's timeline: what it shows, for how long. */
export interface StackFrame {
  stack: number[];
  durationMs: number;
}

export interface StackTimeline {
  frames: StackFrame[];
  /** Animated entries kept still because the combination would exceed MAX_FRAMES_PER_STACK. */
  stillEntries: number;
}

function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}

/** The frame change points of one animation within [0, periodMs), added to `points`; false past `limit`. */
function addChangePoints(
  frames: readonly AnimationFrame[],
  periodMs: number,
  points: Set<number>,
  limit: number,
): boolean {
  const cycle = frames.reduce((sum, frame) => sum + frame.durationMs, 0);
  for (let start = 0; start < periodMs; start += cycle) {
    let at = start;
    for (const frame of frames) {
      points.add(at);
      if (points.size > limit) return false;
      at += frame.durationMs;
    }
  }
  return true;
}

/** The frame an animation shows at `timeMs` (from its start, looping). */
function frameAt(frames: readonly AnimationFrame[], timeMs: number): AnimationFrame {
  const cycle = frames.reduce((sum, frame) => sum + frame.durationMs, 0);
  let phase = timeMs % cycle;
  for (const frame of frames) {
    if (phase < frame.durationMs) return frame;
    phase -= frame.durationMs;
  }
  return frames[frames.length - 1];
}

/** The stack's timeline, or null when none of its tiles is animated. */
export function stackTimeline(
  stack: readonly number[],
  footprints: Footprints,
  maxFrames: number = MAX_FRAMES_PER_STACK,
): StackTimeline | null {
  const animated: { at: number; firstGid: number; frames: readonly AnimationFrame[] }[] = [];
  for (let at = 0; at < stack.length; at += STACK_ENTRY_LENGTH) {
    const gid = (stack[at] >>> 0) & GID_TILE_MASK;
    const tileset = footprints.owner(gid);
    const frames = tileset?.animations.get(gid - tileset.firstGid);
    if (tileset && frames && frames.length > 0) animated.push({ at, firstGid: tileset.firstGid, frames });
  }
  if (animated.length === 0) return null;
  // Top-most first: what is drawn last is what shows, so it keeps its animation when not all fit.
  const kept: typeof animated = [];
  let periodMs = 1;
  let points = new Set<number>();
  for (const entry of animated.reverse()) {
    const cycle = entry.frames.reduce((sum, frame) => sum + frame.durationMs, 0);
    const period = (periodMs / gcd(periodMs, cycle)) * cycle;
    if (!Number.isSafeInteger(period)) continue;
    const trial = new Set<number>();
    const fits = [...kept, entry].every((one) => addChangePoints(one.frames, period, trial, maxFrames));
    if (!fits) continue;
    kept.push(entry);
    periodMs = period;
    points = trial;
  }
  const starts = [...points].sort((a, b) => a - b);
  const frames = starts.map((startMs, index): StackFrame => {
    const frameStack = [...stack];
    for (const entry of kept) {
      const raw = stack[entry.at] >>> 0;
      const flips = raw & ~GID_TILE_MASK;
      const value = (flips | (entry.firstGid + frameAt(entry.frames, startMs).localId)) >>> 0;
      // In the number form the stack has (a flipped GID may be stored signed), so equal stacks join alike.
      frameStack[entry.at] = stack[entry.at] < 0 ? value | 0 : value;
    }
    const endMs = index + 1 < starts.length ? starts[index + 1] : periodMs;
    return { stack: frameStack, durationMs: endMs - startMs };
  });
  return { frames, stillEntries: animated.length - kept.length };
}
