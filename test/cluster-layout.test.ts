// The layout's pure rules (ts/cluster/layout.ts): a layout covers the map exactly once, the handoff
// waits for the hysteresis margin on either side, and the ghost band reaches one view past a border.
import { describe, expect, it } from "vitest";
import {
  GHOST_RADIUS_TILES,
  gridLayout,
  HANDOFF_MARGIN_TILES,
  handoffTarget,
  LayoutError,
  layoutJson,
  neighboursOf,
  parseLayout,
  regionOfTile,
} from "../ts/cluster/layout.js";
import { VIEW_RADIUS } from "../ts/server/entities/view.js";

const TWO = '{"regions":[{"region":0,"chunks":[0,0,1,3]},{"region":1,"chunks":[1,0,3,3]}]}';

describe("cluster layout", () => {
  it("refuses a layout that misses or doubles a chunk, or skips a region id", () => {
    expect(() => parseLayout('{"regions":[{"region":0,"chunks":[0,0,1,3]}]}', 3, 3)).toThrow(/has no region/);
    expect(() =>
      parseLayout('{"regions":[{"region":0,"chunks":[0,0,3,3]},{"region":1,"chunks":[2,2,3,3]}]}', 3, 3),
    ).toThrow(/owned twice/);
    expect(() =>
      parseLayout('{"regions":[{"region":0,"chunks":[0,0,1,3]},{"region":2,"chunks":[1,0,3,3]}]}', 3, 3),
    ).toThrow(/region 1 owns no chunk/);
    expect(() => parseLayout("not json", 3, 3)).toThrow(LayoutError);
    expect(() => parseLayout('{"regions":[{"region":0,"chunks":[0,0,4,3]}]}', 3, 3)).toThrow(/outside/);
  });

  it("cuts a map into a near-square grid and reads back what it writes", () => {
    const grid = gridLayout(32, 32, 4);
    expect(grid.regionCount).toBe(4);
    expect(grid.rects.map((r) => [r.cx0, r.cy0, r.cx1, r.cy1])).toEqual([
      [0, 0, 16, 16],
      [16, 0, 32, 16],
      [0, 16, 16, 32],
      [16, 16, 32, 32],
    ]);
    expect(parseLayout(layoutJson(grid), 32, 32)).toEqual(grid);
    expect(neighboursOf(grid, 0)).toEqual([1, 2, 3]); // the diagonal one too: it touches at a corner
  });

  it("hands off only past the margin, on both sides, so a walk on the line never moves authority", () => {
    const layout = parseLayout(TWO, 3, 3);
    expect(regionOfTile(layout, 31, 5)).toBe(0);
    expect(regionOfTile(layout, 32, 5)).toBe(1);
    // Owned by 0: stays until more than the margin past its last column (31).
    for (let x = 32; x <= 31 + HANDOFF_MARGIN_TILES; x++) expect(handoffTarget(layout, 0, x, 5)).toBe(-1);
    expect(handoffTarget(layout, 0, 32 + HANDOFF_MARGIN_TILES, 5)).toBe(1);
    // Owned by 1: the mirror image.
    for (let x = 31; x >= 32 - HANDOFF_MARGIN_TILES; x--) expect(handoffTarget(layout, 1, x, 5)).toBe(-1);
    expect(handoffTarget(layout, 1, 31 - HANDOFF_MARGIN_TILES, 5)).toBe(0);
    expect(GHOST_RADIUS_TILES).toBeGreaterThan(VIEW_RADIUS + HANDOFF_MARGIN_TILES);
  });
});
