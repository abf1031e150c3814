// Tile animations played (issue 16, docs/art.md § Animations), the server's
// half: a stack's timeline combines its layers' animations on one clock
// (stack-animation.ts), bounded per stack; the atlas carries a tile per frame
// and the world's tile data names them with their durations. Checked on
// synthetic tilesets and on the real forest.tmx, whose squirrel (a 25 px tile
// object in an image-collection tileset over a 16 px grid) animates in the 4
// cells it covers, its images present.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readRawMap } from "../ts/server/map/load-map.js";
import { MAX_FRAMES_PER_STACK, stackTimeline } from "../ts/server/map/stack-animation.js";
import { Footprints, NO_TINT, STACK_ENTRY_LENGTH } from "../ts/server/map/tile-stacks.js";
import { readPng } from "../ts/server/map/tileset-images.js";
import { readWorldMap } from "../ts/server/world/world-map.js";
import { MAPS_REAL } from "./support/maps-real.js";

const dir = mkdtempSync(join(tmpdir(), "map-animation-atlas-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A 2 × 1 map of 8 px tiles over a 4-column tileset whose tiles 0 and 1 animate as given. */
function footprintsOf(animations: string): Footprints {
  const path = join(dir, `${Math.random().toString(36).slice(2)}.tmx`);
  writeFileSync(
    path,
    `<map orientation="orthogonal" width="2" height="1" tilewidth="8" tileheight="8">
 <tileset firstgid="1" name="t" tilewidth="8" tileheight="8" tilecount="8" columns="4"><image source="t.png" width="32" height="16"/>${animations}</tileset>
 <layer name="g" width="2" height="1"><data encoding="csv">1,2</data></layer></map>`,
  );
  const raw = readRawMap(path);
  return new Footprints(raw.tilesets, 8, 8);
}

const frames = (...pairs: [number, number][]): string =>
  pairs.map(([tile, ms]) => `<frame tileid="${tile}" duration="${ms}"/>`).join("");

describe("a stack's timeline", () => {
  const footprints = footprintsOf(
    `<tile id="0"><animation>${frames([4, 150], [5, 150])}</animation></tile>` +
      `<tile id="1"><animation>${frames([6, 100], [7, 100])}</animation></tile>`,
  );

  it("is null for a stack with no animated tile", () => {
    expect(stackTimeline([3, 0, 0, 255, NO_TINT, 4, 0, 0, 255, NO_TINT], footprints)).toBeNull();
  });

  it("follows one animation: its frames, their durations, the flips kept", () => {
    const flipped = (0x80000000 | 1) >>> 0;
    const timeline = stackTimeline([3, 0, 0, 255, NO_TINT, flipped, 0, 0, 255, NO_TINT], footprints)!;
    expect(timeline.stillEntries).toBe(0);
    expect(timeline.frames).toEqual([
      { stack: [3, 0, 0, 255, NO_TINT, (0x80000000 | 5) >>> 0, 0, 0, 255, NO_TINT], durationMs: 150 },
      { stack: [3, 0, 0, 255, NO_TINT, (0x80000000 | 6) >>> 0, 0, 0, 255, NO_TINT], durationMs: 150 },
    ]);
  });

  it("combines two layers' animations over their common period (300 and 200 ms: 600 ms, 8 segments)", () => {
    const timeline = stackTimeline([1, 0, 0, 255, NO_TINT, 2, 0, 0, 255, NO_TINT], footprints)!;
    // Changes at 0, 100, 150, 200, 300, 400, 450, 500 ms (tile 1 every 150, tile 2 every 100).
    expect(timeline.frames.map((frame) => frame.durationMs)).toEqual([100, 50, 50, 100, 100, 50, 50, 100]);
    expect(timeline.frames.map((frame) => [frame.stack[0], frame.stack[STACK_ENTRY_LENGTH]])).toEqual([
      [5, 7],
      [5, 8],
      [6, 8],
      [6, 7],
      [5, 8],
      [5, 7],
      [6, 7],
      [6, 8],
    ]);
    expect(timeline.frames.reduce((sum, frame) => sum + frame.durationMs, 0)).toBe(600);
  });

  it("past the cap keeps the top-most animation and the lower one still", () => {
    const timeline = stackTimeline([1, 0, 0, 255, NO_TINT, 2, 0, 0, 255, NO_TINT], footprints, 4)!;
    expect(timeline.stillEntries).toBe(1);
    expect(timeline.frames).toEqual([
      { stack: [1, 0, 0, 255, NO_TINT, 7, 0, 0, 255, NO_TINT], durationMs: 100 },
      { stack: [1, 0, 0, 255, NO_TINT, 8, 0, 0, 255, NO_TINT], durationMs: 100 },
    ]);
    expect(MAX_FRAMES_PER_STACK).toBeGreaterThanOrEqual(8);
  });
});

describe("forest.tmx's squirrel in the atlas and the world's tile data", () => {
  const file = resolve(MAPS_REAL, "mapeditor-tiled/forest/forest.tmx");

  it("animates the cells the squirrel covers, one atlas tile per frame, 150 ms each, from its present images", () => {
    const world = readWorldMap(file);
    const art = world.art!;
    expect(art.problems).toEqual([]);
    const squirrelGid = 14; // tile 13 of the forest tileset (firstgid 1): frames tiles 10 and 11
    const withSquirrel = world.tileInfo.filter((tile) =>
      (tile.stack ?? []).some(
        (value, at) => at % STACK_ENTRY_LENGTH === 0 && ((value >>> 0) & 0x0fffffff) === squirrelGid,
      ),
    );
    // The 25 × 25 px squirrel covers 2 × 2 cells of 16 px, each cell's stack its own id.
    expect(withSquirrel.length).toBe(4);
    const animated = world.tileInfo.filter((tile) => tile.frames !== undefined);
    // Three of them change: the fourth holds a piece whose pixels are the same in both frames (it does not animate).
    expect(animated.length).toBe(3);
    for (const tile of animated) {
      expect(withSquirrel).toContain(tile);
      expect(tile.frames!.map((frame) => frame.durationMs)).toEqual([150, 150]);
      expect(tile.look).toBe(tile.frames![0].look);
      expect(tile.frames![0].look).not.toBe(tile.frames![1].look);
      expect(world.tiles.includes(tile.id)).toBe(true);
    }
    // The two frames differ on screen where the squirrel's two images (cut here from squirrel.png) differ.
    const image = readPng(resolve(MAPS_REAL, "mapeditor-tiled/forest/squirrel.png"));
    let imageDiffers = 0;
    for (let y = 0; y < 25; y++) {
      for (let x = 0; x < 25; x++) {
        const a = ((824 + y) * image.width + 116 + x) * 4;
        const b = ((850 + y) * image.width + 116 + x) * 4;
        if ([0, 1, 2, 3].some((c) => image.data[a + c] !== image.data[b + c])) imageDiffers++;
      }
    }
    expect(imageDiffers).toBeGreaterThan(20);
    const tileBytes = art.tileWidthPx * art.tileHeightPx;
    const atlasTile = (look: number): Uint8Array => {
      const out = new Uint8Array(tileBytes);
      const stride = art.columns * art.tileWidthPx;
      const left = (look % art.columns) * art.tileWidthPx;
      const top = Math.floor(look / art.columns) * art.tileHeightPx;
      for (let y = 0; y < art.tileHeightPx; y++) {
        out.set(art.pixels.subarray((top + y) * stride + left, (top + y) * stride + left + art.tileWidthPx), y * 16);
      }
      return out;
    };
    const changed = animated.map((tile) => {
      const [a, b] = tile.frames!.map((frame) => atlasTile(frame.look));
      return a.reduce((sum, value, index) => sum + (value !== b[index] ? 1 : 0), 0);
    });
    expect(changed.reduce((sum, count) => sum + count, 0)).toBeGreaterThan(20);
    // No still id's tile is one of the frames of another: the animated ids own their frames.
    const still = new Set(world.tileInfo.filter((tile) => !tile.frames).map((tile) => tile.look));
    for (const tile of animated) expect(still.has(tile.frames![1].look)).toBe(false);
  });

  it("map check says what plays", async () => {
    const { checkMap } = await import("../ts/tools/map.js");
    const { loadCore } = await import("../ts/wasm/node.js");
    const { lines, errors } = checkMap(file, await loadCore());
    expect(errors).toEqual([]);
    expect(lines).toContain(
      `animations: 1 animated tiles; 3 ids animate, 6 frames in all (at most ${MAX_FRAMES_PER_STACK} per stack)`,
    );
  });
});
