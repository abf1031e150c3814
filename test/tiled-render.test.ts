// The project's own maps open in Tiled with their art (issue 42): Tiled reads images through Qt, whose
// readers take no TGA of the kind the game's sheets are, so the bundled map and the levels `npm run -s
// dungeon` writes name a PNG copy of the tile sheet (tiles-tiled.png, one cell earlier: caves-tmj.ts).
// Checked with Tiled itself: Debian's `tiled` package's tmxrasterizer renders maps/caves.tmj and a written
// level, and every cell of the picture must show, pixel for pixel, the game's art for that cell's tile
// (tiles.tga) — not Tiled's red "missing image" squares (what it drew before), nor a shifted sheet.
// And the other way round: Tiled's sticker-knight examples, scenes of scaled tile objects over a background
// colour, drawn by the game's atlas as tmxrasterizer draws them (cell by cell, mean colours).
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decode } from "fast-png";
import { afterAll, describe, expect, it } from "vitest";
import { rgb24FromRgb332, toTiles } from "../ts/client/assets/image.js";
import { CELL_SIZE_PX, TILES_FILE } from "../ts/client/assets/sheets.js";
import { decodeTga } from "../ts/client/assets/tga.js";
import { loadMap, readRawMap } from "../ts/server/map/load-map.js";
import { buildMapArt } from "../ts/server/map/map-atlas.js";
import { main as dungeonCli } from "../ts/tools/dungeon.js";
import { worldPicture } from "./support/map-picture.js";
import { STICKER_KNIGHT } from "./support/maps-real.js";
import { detachedCopy } from "./support/tiled-detach.js";

const TMXRASTERIZER = "/usr/bin/tmxrasterizer";
let skip: string | null = null;
try {
  execFileSync(TMXRASTERIZER, ["--version"], {
    env: { ...process.env, QT_QPA_PLATFORM: "offscreen" },
    stdio: "ignore",
  });
} catch {
  skip = `${TMXRASTERIZER} is missing (Debian's tiled package; .ci/run installs it)`;
}
if (skip !== null) process.stderr.write(`test/tiled-render.test.ts skipped: ${skip}\n`);

const dir = mkdtempSync(join(tmpdir(), "tiled-render-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const art = toTiles(
  decodeTga(new Uint8Array(readFileSync(new URL(`../ts/client/assets/${TILES_FILE}`, import.meta.url)))),
  CELL_SIZE_PX,
  CELL_SIZE_PX,
);

/** Renders `map`'s tile layer(s) (none named: every visible layer) with Tiled's tmxrasterizer at its own scale; the picture as RGBA. */
function rasterize(map: string, layers: readonly string[]): { width: number; height: number; data: Uint8Array } {
  const out = join(dir, `${layers.join("-") || "all"}-${Math.random().toString(36).slice(2)}.png`);
  execFileSync(TMXRASTERIZER, [...layers.flatMap((layer) => ["--show-layer", layer]), map, out], {
    env: { ...process.env, QT_QPA_PLATFORM: "offscreen", XDG_RUNTIME_DIR: dir },
    stdio: "ignore",
    timeout: 60_000,
  });
  const png = decode(readFileSync(out));
  expect(png.channels).toBe(4);
  return { width: png.width, height: png.height, data: png.data as Uint8Array };
}

/** Cells whose rendered pixels differ from the game's art of their tile, and how many cells were drawn. */
function mismatches(map: string, layer: string): { cells: number; wrong: string[] } {
  const tmj = JSON.parse(readFileSync(map, "utf8")) as {
    width: number;
    height: number;
    layers: { name: string; data?: number[] }[];
  };
  const data = tmj.layers.find((each) => each.name === layer)!.data!;
  const picture = rasterize(map, [layer]);
  expect({ width: picture.width, height: picture.height }).toEqual({
    width: tmj.width * CELL_SIZE_PX,
    height: tmj.height * CELL_SIZE_PX,
  });
  const wrong: string[] = [];
  let wrongCount = 0;
  let cells = 0;
  for (let cy = 0; cy < tmj.height; cy++) {
    for (let cx = 0; cx < tmj.width; cx++) {
      const gid = data[cy * tmj.width + cx];
      if (gid === 0) continue;
      cells++;
      const cell = art[gid];
      let same = true;
      for (let y = 0; y < CELL_SIZE_PX && same; y++) {
        for (let x = 0; x < CELL_SIZE_PX; x++) {
          const colour = cell.pixels[y * CELL_SIZE_PX + x];
          const at = ((cy * CELL_SIZE_PX + y) * picture.width + cx * CELL_SIZE_PX + x) * 4;
          const shown = (picture.data[at] << 16) | (picture.data[at + 1] << 8) | picture.data[at + 2];
          const expected = colour === 0 ? null : rgb24FromRgb332(colour);
          if (expected === null ? picture.data[at + 3] !== 0 : picture.data[at + 3] !== 255 || shown !== expected) {
            same = false;
            break;
          }
        }
      }
      if (!same) wrongCount++;
      if (!same && wrong.length < 5) wrong.push(`cell ${cx},${cy} (tile ${gid})`);
    }
  }
  if (wrongCount > wrong.length) wrong.push(`and ${wrongCount - wrong.length} more`);
  return { cells, wrong };
}

describe.skipIf(skip !== null)("the project's maps in Tiled (tmxrasterizer)", () => {
  it("maps/caves.tmj: every cell shows its tile's art", () => {
    const { cells, wrong } = mismatches(new URL("../maps/caves.tmj", import.meta.url).pathname, "ground");
    expect(cells).toBeGreaterThan(10_000);
    expect(wrong).toEqual([]);
  }, 60_000);

  it("a level written by npm run -s dungeon: every cell shows its tile's art", () => {
    const out = join(dir, "level.tmj");
    expect(dungeonCli(["--seed", "7", "--depth", "2", "--out", out])).toBe(0);
    const layer = (JSON.parse(readFileSync(out, "utf8")) as { layers: { name: string; type: string }[] }).layers.find(
      (each) => each.type === "tilelayer",
    )!.name;
    const { cells, wrong } = mismatches(out, layer);
    expect(cells).toBeGreaterThan(1000);
    expect(wrong).toEqual([]);
  }, 60_000);
});

/**
 * Per map cell, the largest difference of one channel's mean over the cell between the game's picture and
 * Tiled's (composited over the map's background colour: this tmxrasterizer, Tiled 1.8's, leaves it
 * transparent where the editor paints it); and the same over the whole map.
 */
function meanDifferences(
  ours: { width: number; height: number; data: Uint8Array },
  tiled: { width: number; height: number; data: Uint8Array },
  cellPx: number,
  background: number,
): { cells: number[]; whole: number } {
  const back = [(background >>> 16) & 0xff, (background >>> 8) & 0xff, background & 0xff];
  const cells: number[] = [];
  const sumOurs = [0, 0, 0];
  const sumTiled = [0, 0, 0];
  for (let top = 0; top < ours.height; top += cellPx) {
    for (let left = 0; left < ours.width; left += cellPx) {
      const mine = [0, 0, 0];
      const theirs = [0, 0, 0];
      for (let y = top; y < top + cellPx; y++) {
        for (let x = left; x < left + cellPx; x++) {
          const at = (y * ours.width + x) * 4;
          const alpha = tiled.data[at + 3] / 255;
          for (let channel = 0; channel < 3; channel++) {
            mine[channel] += ours.data[at + channel];
            theirs[channel] += tiled.data[at + channel] * alpha + back[channel] * (1 - alpha);
          }
        }
      }
      cells.push(Math.max(...[0, 1, 2].map((channel) => Math.abs(mine[channel] - theirs[channel]) / cellPx ** 2)));
      for (let channel = 0; channel < 3; channel++) {
        sumOurs[channel] += mine[channel];
        sumTiled[channel] += theirs[channel];
      }
    }
  }
  const pixels = ours.width * ours.height;
  return {
    cells,
    whole: Math.max(...[0, 1, 2].map((channel) => Math.abs(sumOurs[channel] - sumTiled[channel]) / pixels)),
  };
}

describe.skipIf(skip !== null)("Tiled's sticker-knight examples as Tiled draws them (tmxrasterizer)", () => {
  // Tolerances: RGB332 with 4 × 4 Bayer dithering keeps a 32 × 32 cell's mean colour within a few levels of
  // the full colour (measured: the median cell within 0.8 and 1.6 per channel, 99 % within 3); what is left is
  // Tiled's smooth sampling against the atlas's nearest pixel along the stickers' edges. Tiled's picture is of
  // the map with its templates detached (support/tiled-detach.ts: this tmxrasterizer reads no template). Before the
  // objects were drawn free, most of either map was the darkness and no cell of sky had its colour.
  for (const name of ["sandbox", "sandbox2"]) {
    it(`${name}.tmx: every cell drawn, within 8 levels of Tiled's mean colour in 99 % of cells`, () => {
      const file = join(STICKER_KNIGHT, "map", `${name}.tmx`);
      const map = loadMap(file);
      const art = buildMapArt({ ...map.art!, tiles: map.tiles, tileData: map.tileData })!;
      expect(art.problems).toEqual([]);
      expect(map.art!.backgroundColor).toBeDefined();
      // Every cell shows something: the background at least, never the darkness.
      expect([...map.tiles].filter((id) => !art.looks.has(id))).toEqual([]);
      const ours = worldPicture(map, art);
      const detachedFile = detachedCopy(file, `${name}-whole`);
      let tiled: ReturnType<typeof rasterize>;
      try {
        tiled = rasterize(detachedFile, []);
      } finally {
        rmSync(detachedFile, { force: true });
      }
      expect([tiled.width, tiled.height]).toEqual([ours.width, ours.height]);
      const { cells, whole } = meanDifferences(ours, tiled, art.tileWidthPx, map.art!.backgroundColor!);
      const close = cells.filter((difference) => difference <= 8).length;
      process.stderr.write(
        `${name}: ${((100 * close) / cells.length).toFixed(2)} % of ${cells.length} cells within 8, whole ${whole.toFixed(2)}\n`,
      );
      expect(close / cells.length).toBeGreaterThanOrEqual(0.99);
      expect(whole).toBeLessThanOrEqual(2);
    }, 60_000);
  }

  // The hero, blocks and gems are placed through templates (templates/*.tx); Tiled's picture is of the map
  // with them detached (support/tiled-detach.ts: this tmxrasterizer reads no template). Where they stand, the game's picture of the templated map must be
  // that picture as closely as elsewhere; and the map with its templates taken away (what was drawn before
  // templates were read: nothing there) must be far from it, so the check can fail.
  for (const [name, ids] of Object.entries(TEMPLATED)) {
    it(`${name}.tmx: the cells its templated objects cover are Tiled's picture of them detached`, () => {
      const file = join(STICKER_KNIGHT, "map", `${name}.tmx`);
      const detachedFile = detachedCopy(file, name);
      const bare = join(STICKER_KNIGHT, "map", `${name}-untemplated-${process.pid}.tmx`);
      writeFileSync(bare, readFileSync(file, "utf8").replace(/ template="[^"]*"/g, ""));
      try {
        const tiled = rasterize(detachedFile, []);
        const covered = coveredCells(detachedFile, ids);
        const differences = (path: string): number[] => {
          const map = loadMap(path);
          const art = buildMapArt({ ...map.art!, tiles: map.tiles, tileData: map.tileData })!;
          const { cells } = meanDifferences(worldPicture(map, art), tiled, art.tileWidthPx, map.art!.backgroundColor!);
          return covered(map.width).map((cell) => cells[cell]);
        };
        const templated = differences(file);
        const without = differences(bare);
        const median = (values: number[]): number => [...values].sort((a, b) => a - b)[values.length >> 1];
        const close = (values: number[]): number =>
          values.filter((difference) => difference <= 8).length / values.length;
        process.stderr.write(
          `${name}: ${templated.length} cells under templated objects: median ${median(templated).toFixed(1)}, ` +
            `${(100 * close(templated)).toFixed(0)} % within 8; without the templates median ${median(without).toFixed(1)}, ` +
            `${(100 * close(without)).toFixed(0)} % within 8\n`,
        );
        expect(templated.length).toBeGreaterThan(20);
        expect(median(templated)).toBeLessThanOrEqual(3);
        expect(close(templated)).toBeGreaterThanOrEqual(0.95);
        expect(median(without)).toBeGreaterThan(20);
      } finally {
        rmSync(detachedFile, { force: true });
        rmSync(bare, { force: true });
      }
    }, 60_000);
  }
});

/** The objects sticker-knight's maps place through templates/hero.tx, block.tx and diamond.tx (by id). */
const TEMPLATED: Record<string, number[]> = {
  sandbox: [58, 111, 182, 190, 191, 192, 200, 201, 202],
  sandbox2: [58, 111, 231],
};

/**
 * The map cells (row-major indexes, for a map `width` cells wide) that the tile objects `ids` of `file` cover,
 * each anchored at its bottom-left (none of them is rotated), as Tiled places a tile object.
 */
function coveredCells(file: string, ids: readonly number[]): (width: number) => number[] {
  const raw = readRawMap(file);
  return (width) => {
    const cells = new Set<number>();
    for (const object of raw.objects.filter((each) => ids.includes(each.id))) {
      const left = Math.floor(object.pixelX / raw.tileWidthPx);
      const right = Math.ceil((object.pixelX + object.widthPx) / raw.tileWidthPx);
      const top = Math.floor((object.pixelY - object.heightPx) / raw.tileHeightPx);
      const bottom = Math.ceil(object.pixelY / raw.tileHeightPx);
      for (let y = Math.max(0, top); y < bottom; y++)
        for (let x = Math.max(0, left); x < right; x++) cells.add(y * width + x);
    }
    return [...cells].sort((a, b) => a - b);
  };
}
