// Entity interpolation: glide over one movement interval, snap on jumps, drop on absence.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { TICK_HZ } from "../ts/constants.js";
import { EntityInterpolation } from "../ts/client/interpolation.js";
import { windowPeriodMs } from "../ts/window.js";

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
