// Camera follow: speed, convergence without overshoot, snapping on teleports,
// keeping up with a walker in every direction, and viewport placement.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  Camera,
  DEFAULT_CAMERA_OPTIONS,
  DEFAULT_VIEWPORT,
  followTarget,
  placeViewport,
  type PixelPoint,
  viewportForTileSize,
} from "../ts/client/render/camera.js";
import { DEFAULT_SCREEN, PANEL, pageLayout, screenForTileSize, VIEWPORT } from "../ts/client/render/layout.js";
import { worldTileAt } from "../ts/client/render/picking.js";
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
      widthPx: 240,
      heightPx: 240,
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

describe("the 30 × 30 tile view at every tile size (issue 16)", () => {
  it("8 px keeps the 320 × 240 framebuffer, its 240 × 240 view and the panel exactly", () => {
    expect(screenForTileSize(8)).toEqual({ width: 320, height: 240, view: VIEWPORT, panel: PANEL });
    expect(DEFAULT_SCREEN).toEqual({
      width: 320,
      height: 240,
      view: { x: 0, y: 0, w: 240, h: 240 },
      panel: { x: 240, y: 0, w: 80, h: 240 },
    });
    expect(viewportForTileSize(8)).toBe(DEFAULT_VIEWPORT);
  });

  it("16 and 32 px tiles get a 480 and a 960 px view, 30 tiles across, with the panel beside it", () => {
    for (const [tile, view, width] of [
      [16, 480, 560],
      [32, 960, 1040],
    ]) {
      const screen = screenForTileSize(tile);
      expect(screen).toEqual({
        width,
        height: view,
        view: { x: 0, y: 0, w: view, h: view },
        panel: { x: view, y: 0, w: 80, h: 240 },
      });
      const viewport = viewportForTileSize(tile);
      expect(viewport).toEqual({ widthPx: view, heightPx: view, tileSizePx: tile });
      // The pass covers the view at any sub-tile offset: 30 whole tiles, one more for the partial ones.
      const placement = placeViewport({ x: 0, y: 0 }, viewport);
      expect([placement.tilesWide, placement.tilesHigh]).toEqual([31, 31]);
      // The camera's tile is centred: tile (0, 0) spans the middle tile of the view.
      expect(worldTileAt({ x: view / 2, y: view / 2 }, placement)).toEqual({ x: 0, y: 0 });
      // 30 tiles' worth of pixels: tiles -15 … 15, the two at the edges cut in half (as at 8 px).
      expect(worldTileAt({ x: 0, y: 0 }, placement)).toEqual({ x: -15, y: -15 });
      expect(worldTileAt({ x: view - 1, y: view - 1 }, placement)).toEqual({ x: 15, y: 15 });
      expect([placement.offsetXPx, placement.offsetYPx]).toEqual([tile / 2, tile / 2]);
      // The panel is not the view: a click there steers nothing.
      expect(worldTileAt({ x: view + 10, y: 10 }, placement)).toBeNull();
    }
  });

  it("tile sizes between fit too, and a larger one shows fewer tiles rather than overflow the framebuffer", () => {
    expect(screenForTileSize(12)).toMatchObject({ width: 448, height: 360, view: { w: 360, h: 360 } });
    const huge = screenForTileSize(48);
    expect(huge.width).toBeLessThanOrEqual(1040);
    expect(huge.height).toBeLessThanOrEqual(960);
    expect(huge.view.w).toBe(960);
    for (const tile of [8, 12, 15, 16, 24, 32, 48, 64])
      expect((screenForTileSize(tile).width * screenForTileSize(tile).height) % 16).toBe(0);
  });

  it("the page fits the larger framebuffer at a whole scale, as it does the default", () => {
    const screen = screenForTileSize(16);
    const layout = pageLayout(1920, 1080, 24, 1, screen);
    expect(layout).toMatchObject({ mode: "side", scale: 2, viewColumns: 480 });
    expect(pageLayout(1920, 1080, 24, 1)).toMatchObject({ mode: "side", scale: 4, viewColumns: 240 });
  });
});
