// The page layout (render/layout.ts pageLayout) and the d-pad's sectors
// (ui/touch-controls.ts dpadKeyAt): pure functions, checked on the screens of
// issue 18 items 4 and 5 and on every size of a sweep.
import { describe, expect, it } from "vitest";
import { FB_HEIGHT, FB_WIDTH } from "../ts/constants.js";
import { MIN_VIEW_COLUMNS, PANEL, pageLayout, VIEWPORT } from "../ts/client/render/layout.js";
import { dpadKeyAt } from "../ts/client/ui/touch-controls.js";

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
            expect(layout.viewColumns).toBe(VIEWPORT.w);
            if (layout.scale > 1) {
              const usable = layout.statusOverlay ? height : height - STATUS;
              expect(FB_WIDTH * layout.scale).toBeLessThanOrEqual(Math.floor(width * ratio));
              expect(FB_HEIGHT * layout.scale).toBeLessThanOrEqual(Math.floor(usable * ratio));
            }
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
