// Entity interpolation: glide over one movement interval, snap on jumps, drop on absence.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { TICK_HZ } from "../ts/constants.js";
import { EntityInterpolation, MEASURED_GLIDE } from "../ts/client/interpolation.js";
import { GlideTiming } from "../ts/client/glide-timing.js";
import { actionIntervalMs, PLAYER_SPEED } from "../ts/action-points.js";
import { windowPeriodMs } from "../ts/window.js";
import { BEETLE, CAVE_KINDS, GUARD, RAT, SPIDER } from "./client-npc-support.js";

/** One movement window at the nominal server rate (the browser passes the server's own). */
const MOVE_INTERVAL_MS = windowPeriodMs(TICK_HZ);

describe("EntityInterpolation", () => {
  it("uses one movement window (4 ticks at 24 Hz) as its interval", () => {
    expect(MOVE_INTERVAL_MS).toBeCloseTo(166.667, 3);
  });

  it("shows a new entity at rest on its tile", () => {
    const lerp = new EntityInterpolation(MOVE_INTERVAL_MS);
    lerp.applySnapshot([{ id: 7, x: 5, y: -3 }], 1000);
    expect(lerp.positionAt(7, 1000)).toEqual({ x: 40, y: -24 });
    expect(lerp.tileOf(7)).toEqual({ x: 5, y: -3 });
  });

  it("glides one step linearly over the interval: half-way at half the interval", () => {
    const lerp = new EntityInterpolation(MOVE_INTERVAL_MS);
    lerp.applySnapshot([{ id: 1, x: 5, y: 5 }], 0);
    lerp.applySnapshot([{ id: 1, x: 6, y: 4 }], 1000);
    expect(lerp.positionAt(1, 1000)).toEqual({ x: 40, y: 40 });
    const half = lerp.positionAt(1, 1000 + MOVE_INTERVAL_MS / 2)!;
    expect(half.x).toBeCloseTo(44, 9);
    expect(half.y).toBeCloseTo(36, 9);
    const quarter = lerp.positionAt(1, 1000 + MOVE_INTERVAL_MS / 4)!;
    expect(quarter.x).toBeCloseTo(42, 9);
    expect(lerp.positionAt(1, 1000 + MOVE_INTERVAL_MS)).toEqual({ x: 48, y: 32 });
    expect(lerp.positionAt(1, 5000)).toEqual({ x: 48, y: 32 });
    // A clock read before the step started shows the start, never an extrapolation.
    expect(lerp.positionAt(1, 900)).toEqual({ x: 40, y: 40 });
  });

  it("snaps on a jump of more than one tile (Chebyshev)", () => {
    const lerp = new EntityInterpolation(MOVE_INTERVAL_MS);
    lerp.applySnapshot([{ id: 1, x: 0, y: 0 }], 0);
    lerp.applySnapshot([{ id: 1, x: 2, y: 1 }], 1000);
    expect(lerp.positionAt(1, 1000)).toEqual({ x: 16, y: 8 });
    lerp.applySnapshot([{ id: 1, x: 3, y: 2 }], 2000);
    expect(lerp.positionAt(1, 2000)).toEqual({ x: 16, y: 8 });
    lerp.applySnapshot([{ id: 1, x: 3, y: 40 }], 3000);
    expect(lerp.positionAt(1, 3000)).toEqual({ x: 24, y: 320 });
  });

  it("drops entities that are absent from an update", () => {
    const lerp = new EntityInterpolation(MOVE_INTERVAL_MS);
    lerp.applySnapshot(
      [
        { id: 1, x: 0, y: 0 },
        { id: 2, x: 1, y: 1 },
        { id: 3, x: 2, y: 2 },
      ],
      0,
    );
    lerp.applySnapshot([{ id: 2, x: 1, y: 2 }], 100);
    expect([...lerp.ids()]).toEqual([2]);
    expect(lerp.size).toBe(1);
    expect(lerp.has(1)).toBe(false);
    expect(lerp.positionAt(1, 100)).toBeUndefined();
    expect(lerp.tileOf(3)).toBeUndefined();
    lerp.applySnapshot([], 200);
    expect(lerp.size).toBe(0);
  });

  it("takes an update entity by entity", () => {
    const lerp = new EntityInterpolation(MOVE_INTERVAL_MS);
    lerp.beginUpdate();
    lerp.setTile(10, 0, 0, 0);
    lerp.setTile(11, 4, 4, 0);
    lerp.endUpdate();
    lerp.beginUpdate();
    lerp.setTile(11, 5, 4, 50);
    lerp.endUpdate();
    expect(lerp.has(10)).toBe(false);
    expect(lerp.positionAt(11, 50 + MOVE_INTERVAL_MS)).toEqual({ x: 40, y: 32 });
    lerp.remove(11);
    expect(lerp.size).toBe(0);
  });

  it("a repeated tile does not restart the glide", () => {
    const lerp = new EntityInterpolation(MOVE_INTERVAL_MS);
    lerp.applySnapshot([{ id: 1, x: 0, y: 0 }], 0);
    lerp.applySnapshot([{ id: 1, x: 1, y: 0 }], 1000);
    lerp.applySnapshot([{ id: 1, x: 1, y: 0 }], 1080); // the 12 Hz update between two 6 Hz steps
    expect(lerp.positionAt(1, 1000 + MOVE_INTERVAL_MS)).toEqual({ x: 8, y: 0 });
  });

  it("a step arriving mid-glide continues from where the entity is drawn", () => {
    const lerp = new EntityInterpolation(MOVE_INTERVAL_MS);
    lerp.applySnapshot([{ id: 1, x: 0, y: 0 }], 0);
    lerp.applySnapshot([{ id: 1, x: 1, y: 0 }], 1000);
    const drawn = lerp.positionAt(1, 1100)!;
    lerp.applySnapshot([{ id: 1, x: 2, y: 0 }], 1100);
    expect(lerp.positionAt(1, 1100)!.x).toBeCloseTo(drawn.x, 9);
    expect(lerp.positionAt(1, 1100 + MOVE_INTERVAL_MS)).toEqual({ x: 16, y: 0 });
  });

  it("walking with jittery updates: no jumps at updates, glides stay between start and target, then settle", () => {
    const steps = fc.array(
      fc.tuple(fc.integer({ min: -1, max: 1 }), fc.integer({ min: -1, max: 1 }), fc.integer({ min: 20, max: 400 })),
      { minLength: 1, maxLength: 30 },
    );
    fc.assert(
      fc.property(steps, (walk) => {
        const lerp = new EntityInterpolation(MOVE_INTERVAL_MS);
        let tileX = 0;
        let tileY = 0;
        let nowMs = 0;
        lerp.applySnapshot([{ id: 9, x: tileX, y: tileY }], nowMs);
        for (const [dx, dy, gapMs] of walk) {
          nowMs += gapMs;
          const before = { ...lerp.positionAt(9, nowMs)! };
          tileX += dx;
          tileY += dy;
          lerp.applySnapshot([{ id: 9, x: tileX, y: tileY }], nowMs);
          const after = lerp.positionAt(9, nowMs)!;
          expect(after.x).toBeCloseTo(before.x, 9);
          expect(after.y).toBeCloseTo(before.y, 9);
          for (let t = 0; t <= MOVE_INTERVAL_MS; t += 10) {
            const position = lerp.positionAt(9, nowMs + t)!;
            expect(position.x).toBeGreaterThanOrEqual(Math.min(before.x, tileX * 8) - 1e-9);
            expect(position.x).toBeLessThanOrEqual(Math.max(before.x, tileX * 8) + 1e-9);
            expect(position.y).toBeGreaterThanOrEqual(Math.min(before.y, tileY * 8) - 1e-9);
            expect(position.y).toBeLessThanOrEqual(Math.max(before.y, tileY * 8) + 1e-9);
          }
        }
        expect(lerp.positionAt(9, nowMs + MOVE_INTERVAL_MS)).toEqual({ x: tileX * 8, y: tileY * 8 });
      }),
      { seed: 0x1e7, numRuns: 200 },
    );
  });

  it("writes into a caller's point when given one", () => {
    const lerp = new EntityInterpolation(MOVE_INTERVAL_MS);
    lerp.applySnapshot([{ id: 1, x: 2, y: 3 }], 0);
    const out = { x: -1, y: -1 };
    expect(lerp.positionAt(1, 0, out)).toBe(out);
    expect(out).toEqual({ x: 16, y: 24 });
  });
});

/** Positions of entity `id` every frame over [fromMs, toMs): the drawn path at 60 fps. */
function path(lerp: EntityInterpolation, id: number, fromMs: number, toMs: number): { x: number; y: number }[] {
  const out: { x: number; y: number }[] = [];
  for (let t = fromMs; t < toMs; t += 1000 / 60) out.push({ ...lerp.positionAt(id, t)! });
  return out;
}

/**
 * Walks entity `id` east one tile every `stepMs` for `steps` steps, each glide lasting `glideMs`,
 * and returns the drawn x at 60 fps and the authoritative tile x at the same instants.
 */
function walkEast(glideMs: number, stepMs: number, steps: number): { drawnX: number[]; tileX: number[] } {
  const lerp = new EntityInterpolation(MOVE_INTERVAL_MS);
  lerp.applySnapshot([{ id: 1, x: 0, y: 0 }], 0);
  const drawnX: number[] = [];
  const tileX: number[] = [];
  let next = 1;
  for (let t = 0; t < steps * stepMs + glideMs; t += 1000 / 60) {
    while (next <= steps && next * stepMs <= t) {
      lerp.beginUpdate();
      lerp.setTile(1, next, 0, next * stepMs, glideMs);
      lerp.endUpdate();
      next++;
    }
    drawnX.push(lerp.positionAt(1, t)!.x);
    tileX.push(lerp.tileOf(1)!.x);
  }
  return { drawnX, tileX };
}

describe("glides of any speed", () => {
  const timing = new GlideTiming(TICK_HZ, CAVE_KINDS);

  it("times players by the window and each NPC kind by its action interval", () => {
    expect(timing.glideFor(0)).toBeCloseTo(MOVE_INTERVAL_MS, 9);
    // One source for the rule: a player-speed NPC glides exactly a window.
    expect(actionIntervalMs(PLAYER_SPEED, TICK_HZ)).toBeCloseTo(MOVE_INTERVAL_MS, 9);
    expect(timing.glideFor(GUARD)).toBeCloseTo(MOVE_INTERVAL_MS, 9);
    expect(timing.glideFor(RAT)).toBeCloseTo(333.333, 3); // speed 25: 3 steps a second
    expect(timing.glideFor(BEETLE)).toBeCloseTo(actionIntervalMs(17, TICK_HZ), 9);
    expect(timing.glideFor(SPIDER)).toBeCloseTo(actionIntervalMs(34, TICK_HZ), 9);
    expect(timing.glideFor(2)).toBeCloseTo(MOVE_INTERVAL_MS, 9); // a chest: built-in types as before
    expect(timing.glideFor(99)).toBe(MEASURED_GLIDE); // a kind the world did not list
  });

  it("a slow entity (glow beetle, ~490 ms a step) glides the whole way, with no pause and no hop", () => {
    const glideMs = timing.glideFor(BEETLE) as number;
    const { drawnX } = walkEast(glideMs, glideMs, 6);
    const perFramePx = (8 * (1000 / 60)) / glideMs;
    for (let index = 1; index < drawnX.length; index++) {
      const moved = drawnX[index] - drawnX[index - 1];
      expect(moved).toBeGreaterThanOrEqual(-1e-9); // never back
      expect(moved).toBeLessThanOrEqual(perFramePx + 1e-6); // never faster than its pace: no hop
    }
    // Half-way through a step it is half a tile along, not already there (which a window's glide would do).
    const lerp = new EntityInterpolation(MOVE_INTERVAL_MS);
    lerp.applySnapshot([{ id: 1, x: 0, y: 0 }], 0);
    lerp.beginUpdate();
    lerp.setTile(1, 1, 0, 1000, glideMs);
    lerp.endUpdate();
    expect(lerp.positionAt(1, 1000 + glideMs / 2)!.x).toBeCloseTo(4, 9);
    expect(lerp.positionAt(1, 1000 + glideMs)).toEqual({ x: 8, y: 0 });
    // ... and it keeps moving across the frames of a step rather than standing still most of it.
    const frames = path(lerp, 1, 1000, 1000 + glideMs);
    expect(new Set(frames.map((point) => Math.round(point.x))).size).toBeGreaterThanOrEqual(8);
  });

  it("a fast entity (speed 100, one step every entity tick) keeps up: it is on each tile as the next step lands", () => {
    const fast = new GlideTiming(TICK_HZ, [
      { typeId: 30, name: "bat", sprite: "bat", behaviour: "wander", speed: 100 },
    ]);
    const glideMs = fast.glideFor(30) as number;
    expect(glideMs).toBeCloseTo(MOVE_INTERVAL_MS / 2, 9);
    const { drawnX, tileX } = walkEast(glideMs, glideMs, 40);
    // Never more than one tile behind, and at rest on the last tile at the end: no lag builds up.
    drawnX.forEach((x, index) => expect(tileX[index] * 8 - x).toBeLessThanOrEqual(8 + 1e-6));
    expect(drawnX[drawnX.length - 1]).toBeCloseTo(40 * 8, 6);
  });

  it("steps faster than the glide assumed: the lag stays bounded instead of building up", () => {
    // Steps every half glide (a kind listed too slow, or updates bunched by jitter) for 10 s.
    const glideMs = MOVE_INTERVAL_MS;
    const { drawnX, tileX } = walkEast(glideMs, glideMs / 2, 60);
    const lagPx = drawnX.map((x, index) => tileX[index] * 8 - x);
    // At most the tile just stepped onto plus one behind it: the fixed point of a glide restarted every half glide.
    expect(Math.max(...lagPx)).toBeLessThanOrEqual(2 * 8 + 1e-6);
    // The last 20 steps lag no more than the first 20: bounded, not growing.
    const third = Math.floor(lagPx.length / 3);
    expect(Math.max(...lagPx.slice(2 * third))).toBeLessThanOrEqual(Math.max(...lagPx.slice(0, third)) + 1e-3);
  });

  it("an unlisted kind glides over its measured pace, clamped; one window before anything is measured", () => {
    const lerp = new EntityInterpolation(MOVE_INTERVAL_MS, 8, timing.measuredBounds);
    lerp.applySnapshot([{ id: 5, x: 0, y: 0 }], 0);
    const step = (x: number, atMs: number): void => {
      lerp.beginUpdate();
      lerp.setTile(5, x, 0, atMs, MEASURED_GLIDE);
      lerp.endUpdate();
    };
    step(1, 1000); // nothing measured yet: one window
    expect(lerp.positionAt(5, 1000 + MOVE_INTERVAL_MS / 2)!.x).toBeCloseTo(4, 9);
    step(2, 1400); // 400 ms after the last change
    expect(lerp.positionAt(5, 1600)!.x).toBeCloseTo(12, 9);
    expect(lerp.positionAt(5, 1800)).toEqual({ x: 16, y: 0 });
    step(3, 9000); // after a long pause: the glide is clamped to four windows, not 7.6 s
    expect(lerp.positionAt(5, 9000 + 4 * MOVE_INTERVAL_MS)).toEqual({ x: 24, y: 0 });
    expect(lerp.positionAt(5, 9000 + 2 * MOVE_INTERVAL_MS)!.x).toBeCloseTo(20, 9);
    step(4, 9010); // two updates bunched: no faster than the fastest pace the model allows
    expect(lerp.positionAt(5, 9010 + timing.measuredBounds.minMs)).toEqual({ x: 32, y: 0 });
    expect(timing.measuredBounds.minMs).toBeCloseTo(actionIntervalMs(100, TICK_HZ), 9);
  });
});
