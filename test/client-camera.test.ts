// Camera follow: speed, convergence without overshoot, snapping on teleports,
// keeping up with a walker in every direction, and viewport placement.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { Camera, DEFAULT_CAMERA_OPTIONS, followTarget, placeViewport, type PixelPoint } from "../ts/client/camera.js";
import { windowPeriodMs } from "../ts/window.js";
import { TICK_HZ } from "../ts/constants.js";

const MOVE_INTERVAL_MS = windowPeriodMs(TICK_HZ);

describe("followTarget", () => {
  it("moves at 64 px/s by default", () => {
    expect(followTarget({ x: 0, y: 0 }, { x: 16, y: 0 }, 125)).toEqual({ x: 8, y: 0 });
    expect(followTarget({ x: 0, y: 0 }, { x: 0, y: -16 }, 62.5)).toEqual({ x: 0, y: -4 });
  });

  it("moves each axis at full speed, so diagonals take as long as cardinals", () => {
    expect(followTarget({ x: 0, y: 0 }, { x: 10, y: -10 }, 100)).toEqual({ x: 6.4, y: -6.4 });
    expect(followTarget({ x: 0, y: 0 }, { x: 10, y: 2 }, 100)).toEqual({ x: 6.4, y: 2 });
  });

  it("arrives exactly and never overshoots", () => {
    expect(followTarget({ x: 0, y: 0 }, { x: 3, y: 5 }, 1000)).toEqual({ x: 3, y: 5 });
    let camera: PixelPoint = { x: 0.5, y: 0 };
    for (let frame = 0; frame < 30; frame++) {
      camera = followTarget(camera, { x: 16, y: 0 }, 16.7);
      expect(camera.x).toBeLessThanOrEqual(16);
    }
    expect(camera).toEqual({ x: 16, y: 0 });
  });

  it("snaps to a target more than two tiles away (Chebyshev) and follows one exactly two away", () => {
    expect(followTarget({ x: 0, y: 0 }, { x: 17, y: 0 }, 1)).toEqual({ x: 17, y: 0 });
    expect(followTarget({ x: 0, y: 0 }, { x: 3, y: -17 }, 1)).toEqual({ x: 3, y: -17 });
    expect(followTarget({ x: 0, y: 0 }, { x: 16, y: 16 }, 125)).toEqual({ x: 8, y: 8 });
  });

  it("honours its options and ignores a negative frame time", () => {
    const options = { speedPxPerSecond: 32, snapDistancePx: 100 };
    expect(followTarget({ x: 0, y: 0 }, { x: 50, y: 0 }, 500, options)).toEqual({ x: 16, y: 0 });
    expect(followTarget({ x: 0, y: 0 }, { x: 50, y: 0 }, -100, options)).toEqual({ x: 0, y: 0 });
  });

  it("keeps up with a walker in any of the 8 directions without ever snapping, then settles on it", () => {
    const directions = [-1, 0, 1].flatMap((dx) => [-1, 0, 1].map((dy) => [dx, dy])).filter(([dx, dy]) => dx || dy);
    const frameMs = fc.integer({ min: 5, max: 50 });
    fc.assert(
      fc.property(fc.constantFrom(...directions), frameMs, fc.integer({ min: 1, max: 60 }), ([dx, dy], dt, steps) => {
        const target = { x: 80, y: 80 };
        let camera: PixelPoint = { ...target };
        let nowMs = 0;
        let nextStepMs = 0;
        let taken = 0;
        while (taken < steps || nowMs < nextStepMs + 500) {
          if (taken < steps && nowMs >= nextStepMs) {
            target.x += dx * 8;
            target.y += dy * 8;
            taken++;
            nextStepMs += MOVE_INTERVAL_MS;
          }
          const before = camera;
          camera = followTarget(camera, target, dt);
          // Following, not snapping: no single frame moves further than the speed allows.
          const moved = Math.max(Math.abs(camera.x - before.x), Math.abs(camera.y - before.y));
          expect(moved).toBeLessThanOrEqual((DEFAULT_CAMERA_OPTIONS.speedPxPerSecond * dt) / 1000 + 1e-9);
          nowMs += dt;
        }
        expect(camera).toEqual(target);
      }),
      { seed: 0xca3, numRuns: 200 },
    );
  });
});

describe("Camera", () => {
  it("starts on its first target, then follows, and can be snapped", () => {
    const camera = new Camera();
    expect(camera.current).toBeUndefined();
    expect(camera.update(16, { x: 400, y: 800 })).toEqual({ x: 400, y: 800 });
    expect(camera.update(125, { x: 408, y: 800 })).toEqual({ x: 408, y: 800 });
    expect(camera.update(62.5, { x: 416, y: 808 })).toEqual({ x: 412, y: 804 });
    camera.snapTo({ x: 0, y: 0 });
    expect(camera.current).toEqual({ x: 0, y: 0 });
  });
});

describe("placeViewport", () => {
  it("centres the camera's tile in the 240x240 view with a 31x31 tile pass", () => {
    const placement = placeViewport({ x: 0, y: 0 });
    // Tile (0,0) spans screen 116..123: centred on 120.
    expect(placement).toEqual({
      originXPx: -116,
      originYPx: -116,
      firstTileX: -15,
      firstTileY: -15,
      offsetXPx: 4,
      offsetYPx: 4,
      tilesWide: 31,
      tilesHigh: 31,
      tileSizePx: 8,
    });
  });

  it("rounds the camera to whole pixels", () => {
    expect(placeViewport({ x: 100.4, y: 100.6 })).toMatchObject({ originXPx: -16, originYPx: -15 });
  });

  it("covers the whole view at every camera position, and the camera tile lands in the centre", () => {
    fc.assert(
      fc.property(
        fc.double({ min: -5000, max: 5000, noNaN: true }),
        fc.double({ min: -5000, max: 5000, noNaN: true }),
        (x, y) => {
          const placement = placeViewport({ x, y });
          for (const [offset, tiles, first, origin] of [
            [placement.offsetXPx, placement.tilesWide, placement.firstTileX, placement.originXPx],
            [placement.offsetYPx, placement.tilesHigh, placement.firstTileY, placement.originYPx],
          ]) {
            expect(Number.isInteger(origin) && offset >= 0 && offset < 8).toBe(true);
            expect(first * 8 + offset).toBe(origin);
            // The last tile's right (bottom) edge reaches the far side of the view.
            expect(tiles * 8 - offset).toBeGreaterThanOrEqual(240);
          }
          expect(Math.round(x) - placement.originXPx).toBe(116);
          expect(Math.round(y) - placement.originYPx).toBe(116);
        },
      ),
      { seed: 0xca4, numRuns: 500 },
    );
  });
});
