// Tile objects (objects with a gid, issue 16) drawn as static things: stamped
// at load into a drawn layer at their object layer's place, in the cell whose
// bottom-left corner is nearest their anchor; off-grid ones stand in that cell
// (counted) but are drawn free at their own place, as are scaled and rotated
// ones (issue 42: tile-objects.ts; their pixels: map-free-objects.test.ts);
// ones turned by a multiple of 90° are their tile with the flips of that turn,
// anchored where the turned tile lands. The real forest example's 13 are all
// on its grid.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadMap } from "../ts/server/map/load-map.js";
import { FREE_OBJECT_GID_BASE } from "../ts/server/map/gid.js";
import { rotatedFlips } from "../ts/server/map/tile-objects.js";
import { OPAQUE, plainEntry, STACK_ENTRY_LENGTH } from "../ts/server/map/tile-stacks.js";
import type { RgbaImage } from "../ts/server/map/tileset-images.js";
import { flipTile } from "./support/map-painter.js";
import { MAPS_REAL } from "./support/maps-real.js";

const dir = mkdtempSync(join(tmpdir(), "map-tile-objects-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let counter = 0;
function write(text: string): string {
  const path = join(dir, `${counter++}-objects.tmx`);
  writeFileSync(path, text);
  return path;
}

const SIZE = 6;
/** A 6×6 map of 8 px tiles: GID 1 ground, `before` object layers under the "top" tile layer, `after` above it. */
function tmx(before: string, after: string, topCells: Record<number, number> = {}): string {
  const ground = Array.from({ length: SIZE * SIZE }, () => 1).join(",");
  const top = Array.from({ length: SIZE * SIZE }, (_, cell) => topCells[cell] ?? 0).join(",");
  return `<?xml version="1.0" encoding="UTF-8"?>
<map version="1.10" orientation="orthogonal" width="${SIZE}" height="${SIZE}" tilewidth="8" tileheight="8" infinite="0">
 <tileset firstgid="1" name="t" tilewidth="8" tileheight="8" tilecount="16" columns="4"><image source="t.png" width="32" height="32"/>
  <tile id="4"><properties><property name="collides" type="bool" value="true"/></properties></tile>
 </tileset>
 <layer id="1" name="ground" width="${SIZE}" height="${SIZE}"><data encoding="csv">${ground}</data></layer>
 ${before}
 <layer id="2" name="top" width="${SIZE}" height="${SIZE}"><data encoding="csv">${top}</data></layer>
 ${after}
</map>`;
}

/** The stack of cell (x, y) as [gid, dx, dy] triples (every entry opaque), or its own GID alone for a plain cell. */
function stackAt(map: ReturnType<typeof loadMap>, x: number, y: number): number[] {
  const id = map.tiles[y * SIZE + x];
  const stack = map.tileData.get(id)?.stack ?? plainEntry(id);
  const triples: number[] = [];
  for (let at = 0; at < stack.length; at += STACK_ENTRY_LENGTH) {
    expect(stack[at + 3]).toBe(OPAQUE); // no layer of these maps has an opacity
    triples.push(stack[at], stack[at + 1], stack[at + 2]);
  }
  return triples;
}

describe("tile objects", () => {
  it("are stamped at their object layer's place in the layer order, with their tile's flags", () => {
    const map = loadMap(
      write(
        tmx(
          `<objectgroup id="3" name="under"><object id="1" gid="3" x="8" y="16" width="8" height="8"/></objectgroup>`,
          `<objectgroup id="4" name="over"><object id="2" gid="5" x="8" y="16" width="8" height="8"/>
           <object id="3" gid="2" x="24" y="24"/></objectgroup>`,
          { [1 * SIZE + 1]: 4 },
        ),
      ),
    );
    // Cell (1, 1): ground 1, the "under" object's 3, the top layer's 4, the "over" object's 5 (which collides).
    expect(stackAt(map, 1, 1)).toEqual([1, 0, 0, 3, 0, 0, 4, 0, 0, 5, 0, 0]);
    expect(map.tileData.get(map.tiles[1 * SIZE + 1])!.collides).toBe(true);
    // Cell (3, 2): ground and the object without a size (it takes its tile's).
    expect(stackAt(map, 3, 2)).toEqual([1, 0, 0, 2, 0, 0]);
    expect(map.source.tileObjects).toEqual({ stamped: 3, snapped: 0, maxSnapPx: 0, free: 0, scaled: 0, notDrawn: [] });
  });

  it("off the grid stand in the nearest cell but are drawn free, as rotated and scaled ones are; hidden ones are not drawn", () => {
    const map = loadMap(
      write(
        tmx(
          "",
          `<objectgroup id="4" name="things">
            <object id="1" gid="5" x="11" y="21" width="8" height="8"/>
            <object id="2" gid="2" x="32" y="32" width="8" height="8" rotation="45"/>
            <object id="3" name="big" gid="2" x="32" y="40" width="16" height="16"/>
            <object id="4" gid="2" x="0" y="8" width="8" height="8" visible="0"/>
            <object id="5" gid="99" x="0" y="8"/>
           </objectgroup>`,
        ),
      ),
    );
    // Object 1 at (11, 21) spans x 11..19, y 13..21: cells (1..2, 1..2) each get a piece of free object 0,
    // anchored at world cell (0, 0); its bottom-left (11, 21) is nearest cell (1, 2)'s, 3 px away: that cell is
    // its tile 5 (which collides) but draws only the ground and the piece.
    const piece = FREE_OBJECT_GID_BASE;
    expect(stackAt(map, 1, 2)).toEqual([1, 0, 0, piece, -1, -2]);
    expect(stackAt(map, 2, 1)).toEqual([1, 0, 0, piece, -2, -1]);
    const stood = map.tileData.get(map.tiles[2 * SIZE + 1])!;
    expect([stood.twinOf, stood.collides]).toEqual([5, true]);
    // The pieces of the free ones do not collide: cell (2, 1) is ground as ever.
    expect(map.tileData.get(map.tiles[1 * SIZE + 2])!.collides).toBe(false);
    expect(stackAt(map, 0, 0)).toEqual([1, 0, 0]);
    // Object 2 turned 45° about (32, 32) reaches x 32..43.3, y 26.3..37.7: its box touches cells (4..5, 3..4);
    // object 3, 16 × 16 from (32, 24) to (48, 40), cells (4..5, 3..4) too, over it (top-down: lower y first).
    expect(stackAt(map, 5, 4)).toEqual([1, 0, 0, piece + 1, -5, -4, piece + 2, -5, -4]);
    expect(map.source.tileObjects).toEqual({
      stamped: 1,
      snapped: 1,
      maxSnapPx: 3,
      free: 3,
      scaled: 1,
      notDrawn: ['tile object 5 in "things": tile id 99 is in no tileset'],
    });
  });

  it("a quarter turn is a set of flips: the flips' picture turned equals the picture of the flips given", () => {
    // A 2 × 3 image of distinct pixels, turned here by moving pixels (independent of the flip matrices).
    const image: RgbaImage = { width: 2, height: 3, data: new Uint8Array(24).map((_, index) => index) };
    const turnClockwise = (from: RgbaImage): RgbaImage => {
      const out = { width: from.height, height: from.width, data: new Uint8Array(from.data.length) };
      for (let y = 0; y < from.height; y++) {
        for (let x = 0; x < from.width; x++) {
          // Clockwise on screen: (x, y) → (height − 1 − y, x).
          const to = (x * out.width + (from.height - 1 - y)) * 4;
          out.data.set(from.data.subarray((y * from.width + x) * 4, (y * from.width + x) * 4 + 4), to);
        }
      }
      return out;
    };
    const H = 0x80000000;
    const V = 0x40000000;
    const D = 0x20000000;
    expect([1, 2, 3].map((turns) => rotatedFlips(0, turns))).toEqual([(D | H) >>> 0, (H | V) >>> 0, (D | V) >>> 0]);
    for (const flips of [0, H, V, (H | V) >>> 0]) {
      let turned = flipTile(image, flips);
      for (let turns = 0; turns < 4; turns++) {
        const expected = flipTile(image, rotatedFlips(flips, turns));
        expect([turned.width, turned.height, [...turned.data]]).toEqual([
          expected.width,
          expected.height,
          [...expected.data],
        ]);
        turned = turnClockwise(turned);
      }
    }
  });

  it("turned by 90°, 180° and 270° are drawn with those flips where the turned tile lands", () => {
    const map = loadMap(
      write(
        tmx(
          "",
          `<objectgroup id="4" name="turned">
            <object id="1" gid="2" x="8" y="16" width="8" height="8" rotation="90"/>
            <object id="2" gid="2" x="24" y="16" width="8" height="8" rotation="180"/>
            <object id="3" gid="2" x="40" y="16" width="8" height="8" rotation="-90"/>
            <object id="4" gid="${(0x80000000 | 3) >>> 0}" x="8" y="40" width="8" height="8" rotation="450"/>
           </objectgroup>`,
        ),
      ),
    );
    const H = 0x80000000;
    const V = 0x40000000;
    const D = 0x20000000;
    // 90° about (8, 16): the tile spans x 8..16, y 16..24, cell (1, 2).
    expect(stackAt(map, 1, 2)).toEqual([1, 0, 0, (D | H | 2) >>> 0, 0, 0]);
    // 180° about (24, 16): x 16..24, y 16..24, cell (2, 2).
    expect(stackAt(map, 2, 2)).toEqual([1, 0, 0, (H | V | 2) >>> 0, 0, 0]);
    // −90° (270°) about (40, 16): x 32..40, y 8..16, cell (4, 1).
    expect(stackAt(map, 4, 1)).toEqual([1, 0, 0, (D | V | 2) >>> 0, 0, 0]);
    // Flipped horizontally, then 450° (a quarter turn) about (8, 40): x 8..16, y 40..48, cell (1, 5).
    expect(stackAt(map, 1, 5)).toEqual([1, 0, 0, (D | H | V | 3) >>> 0, 0, 0]);
    expect(map.source.tileObjects).toMatchObject({ stamped: 4, snapped: 0, notDrawn: [] });
  });

  it("the forest example's trees and squirrel are all stamped, none snapped", () => {
    const map = loadMap(resolve(MAPS_REAL, "mapeditor-tiled/forest/forest.tmx"));
    expect(map.source.tileObjects).toEqual({ stamped: 13, snapped: 0, maxSnapPx: 0, free: 0, scaled: 0, notDrawn: [] });
  });
});
