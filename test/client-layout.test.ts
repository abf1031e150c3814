// The page layout (render/layout.ts pageLayout) and the d-pad's sectors
// (ui/touch-controls.ts dpadKeyAt): pure functions, checked on the screens of
// issue 18 items 4 and 5 and on every size of a sweep.
import { describe, expect, it } from "vitest";
import { FB_HEIGHT, FB_WIDTH } from "../ts/constants.js";
import { MIN_VIEW_COLUMNS, PANEL, pageLayout, STACKED_CONTROLS_CSS_PX, VIEWPORT } from "../ts/client/render/layout.js";
import { dpadKeyAt } from "../ts/client/ui/touch-controls.js";
import { HUD_LAYOUT } from "../ts/client/render/hud.js";
import { DEFAULT_SCREEN, screenForTileSize } from "../ts/client/render/layout.js";
import {
  clearOf,
  DOCK_MIN_HEIGHT_PX,
  DOCK_MIN_WIDTH_PX,
  type DockInput,
  intersect,
  logDock,
  type PageBox,
  viewBox,
} from "../ts/client/ui/log-dock.js";

const STATUS = 26;

describe("pageLayout", () => {
  it("keeps the whole framebuffer at 3× in a 1000 × 760 window, the status line in its row", () => {
    expect(pageLayout(1000, 760, STATUS, 1)).toMatchObject({ mode: "side", scale: 3, statusOverlay: false });
  });

  it("gives 800 × 500 2× by laying the status line over the view (its row would leave 474 px: 1×)", () => {
    expect(pageLayout(800, 500, STATUS, 1)).toMatchObject({ mode: "side", scale: 2, statusOverlay: true });
  });

  it("stacks a 390 × 844 phone: the view cropped to fill the width, the panel under it", () => {
    for (const ratio of [1, 2, 3]) {
      const layout = pageLayout(390, 844, STATUS, ratio);
      expect(layout.mode).toBe("stacked");
      // The view's shown columns fill the width to within one framebuffer pixel.
      expect(layout.viewColumns * layout.scale).toBeLessThanOrEqual(390 * ratio);
      expect((layout.viewColumns + 1) * layout.scale).toBeGreaterThan(390 * ratio);
      // Centred: the player (the view's middle) stays in the middle.
      expect(layout.viewLeft - VIEWPORT.x).toBe(Math.floor((VIEWPORT.w - layout.viewColumns) / 2));
      expect((VIEWPORT.h * layout.scale + PANEL.h * layout.panelScale) / ratio + STATUS).toBeLessThanOrEqual(844);
    }
    expect(pageLayout(390, 844, STATUS, 1)).toMatchObject({ scale: 2, panelScale: 1 });
    expect(pageLayout(390, 844, STATUS, 3)).toMatchObject({ scale: 6, panelScale: 4 });
  });

  it("holds an 844 × 390 phone sideways at 4× (ratio 3) with the whole framebuffer", () => {
    expect(pageLayout(844, 390, STATUS, 3)).toMatchObject({ mode: "side", scale: 4, viewColumns: VIEWPORT.w });
  });

  it("always fits the page at whole scales, never crops below 24 tiles, never scales below the plain fit", () => {
    for (let width = 200; width <= 2000; width += 37) {
      for (let height = 200; height <= 1400; height += 41) {
        for (const ratio of [1, 1.5, 2, 3]) {
          const layout = pageLayout(width, height, STATUS, ratio);
          expect(Number.isInteger(layout.scale) && Number.isInteger(layout.panelScale)).toBe(true);
          expect(layout.cssPerPixel).toBeCloseTo(layout.scale / ratio, 9);
          const plain = Math.max(
            1,
            Math.floor(Math.min((width * ratio) / FB_WIDTH, ((height - STATUS) * ratio) / FB_HEIGHT)),
          );
          expect(layout.scale).toBeGreaterThanOrEqual(plain);
          if (layout.mode === "side") {
            // The whole view, or — at 1×, where it does not fit, with the HUD as the bar — what fits, centred.
            const fits = Math.min(VIEWPORT.w, Math.floor((width * ratio) / layout.scale));
            if (layout.hud === "panel") expect(layout.viewColumns).toBe(VIEWPORT.w);
            else expect(layout.viewColumns).toBeLessThanOrEqual(fits);
            expect(layout.viewLeft).toBe(Math.floor((VIEWPORT.w - layout.viewColumns) / 2));
            if (layout.viewColumns < VIEWPORT.w) expect(layout.scale).toBe(1);
            if (layout.scale > 1) {
              const usable = layout.statusOverlay ? height : height - STATUS;
              expect(FB_WIDTH * layout.scale).toBeLessThanOrEqual(Math.floor(width * ratio));
              expect(FB_HEIGHT * layout.scale).toBeLessThanOrEqual(Math.floor(usable * ratio));
            }
          } else if (layout.viewRows < VIEWPORT.h) {
            // Upright where no panel fits under the whole view: the view cropped to the page's width and to
            // what leaves the controls their room below, the HUD the bar, never less than a third of the rows.
            expect(height).toBeGreaterThan(width);
            expect(layout.hud).toBe("bar");
            expect(layout.viewColumns * layout.scale).toBeLessThanOrEqual(Math.floor(width * ratio));
            const below = Math.floor(height * ratio) - Math.ceil(STATUS * ratio) - layout.viewRows * layout.scale;
            expect(below).toBeGreaterThanOrEqual(STACKED_CONTROLS_CSS_PX * ratio - 1);
            expect(layout.viewRows).toBeGreaterThanOrEqual(VIEWPORT.h / 3);
            expect(layout.viewTop).toBe(Math.floor((VIEWPORT.h - layout.viewRows) / 2));
          } else {
            expect(height).toBeGreaterThan(width);
            expect(layout.viewColumns).toBeGreaterThanOrEqual(MIN_VIEW_COLUMNS);
            expect(layout.panelScale).toBeGreaterThanOrEqual(1);
            expect(layout.panelScale).toBeLessThanOrEqual(layout.scale);
            const used = VIEWPORT.h * layout.scale + PANEL.h * layout.panelScale;
            expect(used).toBeLessThanOrEqual(Math.floor(height * ratio) - Math.ceil(STATUS * ratio));
          }
        }
      }
    }
  });
});

/** A desktop page as the browser lays it out: the canvas centred above the status row, the Bag and Sound buttons. */
function desktopDock(width: number, height: number): DockInput {
  const layout = pageLayout(width, height, STATUS, 1);
  const px = layout.cssPerPixel;
  const canvasWidth = FB_WIDTH * px;
  const canvasHeight = FB_HEIGHT * px;
  const stageHeight = layout.statusOverlay ? height : height - STATUS;
  const canvas = {
    left: (width - canvasWidth) / 2,
    top: (stageHeight - canvasHeight) / 2,
    width: canvasWidth,
    height: canvasHeight,
  };
  return {
    page: { width, height },
    canvas,
    shown: canvas,
    screen: DEFAULT_SCREEN,
    panelShown: layout.hud === "panel",
    hudDepthPx: HUD_LAYOUT.depthPx,
    obstacles: [
      { left: 0, top: height - STATUS, width: layout.statusOverlay ? 240 * px : width, height: STATUS },
      { left: width - 8 - 62, top: height - STATUS - 8 - 36, width: 62, height: 36 },
      { left: width - 8 - 90, top: height - STATUS - 48 - 26, width: 90, height: 26 },
    ],
  };
}

describe("pageLayout for a map of large tiles", () => {
  it("crops a 1040 × 960 framebuffer (32 px tiles) to what a 1000 × 760 window holds at 1×, the HUD as the bar", () => {
    const screen = screenForTileSize(32);
    const layout = pageLayout(1000, 760, STATUS, 1, screen);
    // 24 of the 30 tiles across (768 px), leaving 232 px for the log; down, the 734 px above the status row.
    expect(layout).toMatchObject({
      mode: "side",
      scale: 1,
      hud: "bar",
      viewColumns: 768,
      viewRows: 734,
      logRoom: true,
    });
    // Around the view's middle, where the player stands.
    expect(layout.viewTop).toBe(Math.floor((960 - 734) / 2));
    expect(layout.viewLeft).toBe((960 - 768) / 2);
  });

  it("shows a 16 px map's 560 × 480 whole at 1× in 1000 × 760, the HUD as the bar (its panel would be specks)", () => {
    expect(pageLayout(1000, 760, STATUS, 1, screenForTileSize(16))).toMatchObject({
      scale: 1,
      hud: "bar",
      viewColumns: 480,
      viewRows: 480,
      logRoom: false,
    });
  });

  it("stacks a 32 or 64 px map on an upright phone (ratio 2 or 3) at 1×: the view on top, not in the page's middle", () => {
    // The side layout gave it the same scale and put the view in the middle of the page, the log over it
    // and the touch controls over each other (the map gallery's pictures of Source of Tales showed it).
    for (const tile of [32, 64]) {
      for (const ratio of [2, 3]) {
        const screen = screenForTileSize(tile);
        const layout = pageLayout(390, 844, STATUS, ratio, screen);
        expect(layout, `${tile} px at ${ratio}`).toMatchObject({ mode: "stacked", scale: 1, viewTop: 0, hud: "bar" });
        // The view's height leaves the lower part of the page to the log and the touch controls.
        expect(layout.viewRows * layout.cssPerPixel).toBeLessThanOrEqual(844 / 2 + 100);
      }
    }
  });

  it("stacks a 32 px map on an upright phone of real pixels (ratio 1) too, cropped around the player, the controls below", () => {
    // No scale keeps 24 of its tiles across 390 px, so it was "side": the log and the touch controls over the view.
    const layout = pageLayout(390, 844, STATUS, 1, screenForTileSize(32));
    expect(layout).toMatchObject({ mode: "stacked", scale: 1, hud: "bar", viewColumns: 390, logRoom: false });
    expect(layout.viewRows).toBe(844 - STATUS - STACKED_CONTROLS_CSS_PX);
    expect(layout.viewLeft).toBe(Math.floor((960 - 390) / 2));
    expect(layout.viewTop).toBe(Math.floor((960 - layout.viewRows) / 2));
  });

  it("keeps the whole view and the panel where a larger window shows it at 2×", () => {
    expect(pageLayout(2200, 2000, STATUS, 1, screenForTileSize(32))).toMatchObject({
      scale: 2,
      hud: "panel",
      viewColumns: 960,
      viewRows: 960,
      viewTop: 0,
    });
  });
});

describe("logDock", () => {
  it("docks in the HUD column under the HUD's rows in the 1000 × 760 and 1280 × 800 windows", () => {
    for (const [width, height] of [
      [1000, 760],
      [1280, 800],
    ]) {
      const input = desktopDock(width, height);
      const dock = logDock(input);
      expect(dock.place).toBe("column");
      const px = input.canvas.width / FB_WIDTH;
      expect(dock.box.left).toBeGreaterThanOrEqual(input.canvas.left + PANEL.x * px);
      expect(dock.box.top).toBeGreaterThanOrEqual(input.canvas.top + HUD_LAYOUT.depthPx * px);
      expect(dock.box.height).toBeGreaterThanOrEqual(DOCK_MIN_HEIGHT_PX);
    }
  });

  it("takes a wide margin beside the canvas in a 1920 × 1080 window, the whole height", () => {
    const input = desktopDock(1920, 1080);
    const dock = logDock(input);
    expect(["left", "right"]).toContain(dock.place);
    expect(intersect(dock.box, input.canvas)).toBeNull();
    expect(dock.box.width).toBeGreaterThan(250);
    expect(dock.box.height).toBeGreaterThan(input.canvas.height * 0.9);
  });

  it("falls back to the bottom of the view only when no place beside it has room", () => {
    const input: DockInput = { ...desktopDock(1000, 760), panelShown: false, page: { width: 960, height: 720 } };
    const dock = logDock({
      ...input,
      canvas: { ...input.canvas, left: 0, top: 0 },
      shown: { ...input.shown, left: 0, top: 0 },
    });
    expect(dock.place).toBe("over");
    expect(dock.box).toEqual({
      left: 0,
      top: 720 - Math.round(720 * 0.27),
      width: 720,
      height: Math.round(720 * 0.27),
    });
  });

  it("cuts each obstacle away, keeping the largest side", () => {
    const box = { left: 0, top: 0, width: 300, height: 200 };
    // A corner: what lies left of it (246 × 200) is more than what lies above it (300 × 146).
    expect(clearOf(box, [{ left: 250, top: 150, width: 100, height: 100 }])).toEqual({ ...box, width: 246 });
    expect(clearOf(box, [{ left: 50, top: 150, width: 100, height: 100 }])).toEqual({ ...box, height: 146 });
    expect(clearOf(box, [{ left: 280, top: -10, width: 40, height: 300 }])).toEqual({ ...box, width: 276 });
    expect(clearOf(box, [{ left: -5, top: -5, width: 400, height: 400 }])).toBeNull();
    // Left of the first obstacle is the larger part, but too narrow: above both is taken.
    const row = { left: 0, top: 0, width: 390, height: 330 };
    const buttons = { left: 148, top: 114, width: 64, height: 164 };
    const pad = { left: 224, top: 124, width: 154, height: 154 };
    expect(clearOf(row, [buttons, pad])).toEqual({ ...row, height: 110 });
  });

  it("never covers the view, the page's controls or the page's edges, over a sweep of windows", () => {
    for (let width = 500; width <= 2200; width += 53) {
      for (let height = 400; height <= 1400; height += 59) {
        const input = desktopDock(width, height);
        const dock = logDock(input);
        const page: PageBox = { left: 0, top: 0, width, height };
        if (dock.place === "over") continue;
        expect(intersect(dock.box, viewBox(input)), `${width}×${height} ${dock.place}`).toBeNull();
        for (const obstacle of input.obstacles) expect(intersect(dock.box, obstacle)).toBeNull();
        expect(intersect(dock.box, page)).toEqual(dock.box);
        expect(dock.box.width).toBeGreaterThanOrEqual(DOCK_MIN_WIDTH_PX);
      }
    }
  });
});

describe("dpadKeyAt", () => {
  it("names the nearest of the eight directions, y down, and nothing in the dead centre", () => {
    const r = 75;
    expect(dpadKeyAt(60, 0, r)).toBe("Numpad6");
    expect(dpadKeyAt(-60, 0, r)).toBe("Numpad4");
    expect(dpadKeyAt(0, 60, r)).toBe("Numpad2");
    expect(dpadKeyAt(0, -60, r)).toBe("Numpad8");
    expect(dpadKeyAt(40, -40, r)).toBe("Numpad9");
    expect(dpadKeyAt(-40, -40, r)).toBe("Numpad7");
    expect(dpadKeyAt(40, 40, r)).toBe("Numpad3");
    expect(dpadKeyAt(-40, 40, r)).toBe("Numpad1");
    // 20° off east is still east (each sector spans 22.5° either side of its direction).
    expect(dpadKeyAt(60 * Math.cos(0.35), 60 * Math.sin(0.35), r)).toBe("Numpad6");
    expect(dpadKeyAt(5, 5, r)).toBeNull();
    expect(dpadKeyAt(50, 0, 0)).toBeNull();
  });
});
