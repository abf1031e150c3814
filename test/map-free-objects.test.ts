// Tile objects drawn free (issue 42, tile-objects.ts): scaled, flipped, turned by any angle or off the grid,
// each is drawn into the cells it touches at its own place and size, as Tiled draws it — checked pixel by
// pixel on the atlas the client draws (test/support/map-picture.ts), against positions worked out by hand
// here — over the map's background colour; and what collides stays what the grid says.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadMap, tileFlagsTable } from "../ts/server/map/load-map.js";
import { buildMapArt } from "../ts/server/map/map-atlas.js";
import { type RgbaImage, TilesetImages } from "../ts/server/map/tileset-images.js";
import { worldPicture } from "./support/map-picture.js";

const dir = mkdtempSync(join(tmpdir(), "map-free-objects-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let counter = 0;

/** The eight red levels of RGB332 as the client expands them: colours that survive the quantisation exactly. */
const RED_LEVELS = [0, 36, 73, 109, 146, 182, 219, 255];
const BLUE = 255;

/** A 32 × 32 sheet of 8 px tiles; tile 1 (GID 2) has column x in red level x, blue, opaque; the rest transparent. */
function sheet(): RgbaImage {
  const data = new Uint8Array(32 * 32 * 4);
  for (let y = 0; y < 8; y++) {
    for (let x = 0; x < 8; x++) data.set([RED_LEVELS[x], 0, BLUE, 255], (y * 32 + 8 + x) * 4);
  }
  return { width: 32, height: 32, data };
}

/**
 * A 6 × 6 map of 8 px tiles, its ground GID 1 (transparent; tile 4, GID 5, collides) everywhere or in cell
 * (0, 0) alone (somewhere to stand), and objects.
 */
function writeMap(objects: string, options: { ground?: boolean; background?: string } = {}): string {
  const cells = Array.from({ length: 36 }, (_, cell) => (options.ground === true || cell === 0 ? 1 : 0));
  const ground = `<layer id="1" name="ground" width="6" height="6"><data encoding="csv">${cells.join(",")}</data></layer>`;
  const path = join(dir, `${counter++}.tmx`);
  writeFileSync(
    path,
    `<?xml version="1.0" encoding="UTF-8"?>
<map version="1.10" orientation="orthogonal" width="6" height="6" tilewidth="8" tileheight="8" infinite="0"${
      options.background ? ` backgroundcolor="${options.background}"` : ""
    }>
 <tileset firstgid="1" name="t" tilewidth="8" tileheight="8" tilecount="16" columns="4"><image source="t.png" width="32" height="32"/>
  <tile id="4"><properties><property name="collides" type="bool" value="true"/></properties></tile>
 </tileset>
 ${ground}
 <objectgroup id="2" name="things">${objects}</objectgroup>
</map>`,
  );
  return path;
}

function picture(path: string): { map: ReturnType<typeof loadMap>; at: (x: number, y: number) => number[] } {
  const map = loadMap(path);
  const art = buildMapArt({
    ...map.art!,
    tiles: map.tiles,
    tileData: map.tileData,
    images: new TilesetImages(() => sheet()),
  })!;
  expect(art.problems).toEqual([]);
  const drawn = worldPicture(map, art);
  return {
    map,
    at: (x, y) => [...drawn.data.subarray((y * drawn.width + x) * 4, (y * drawn.width + x) * 4 + 3)],
  };
}

describe("tile objects drawn free", () => {
  it("scaled and flipped, off the grid: every pixel where Tiled puts it, over the background colour", () => {
    const flippedH = (0x80000000 | 2) >>> 0;
    const { at } = picture(
      writeMap(`<object id="1" gid="${flippedH}" x="5" y="30" width="16" height="8"/>`, { background: "#2449aa" }),
    );
    // Bottom-left at (5, 30), 16 × 8: x 5..20, y 22..29; each tile column two pixels wide, mirrored.
    for (let y = 16; y < 36; y++) {
      for (let x = 0; x < 28; x++) {
        const inside = x >= 5 && x < 21 && y >= 22 && y < 30;
        const expected = inside ? [RED_LEVELS[7 - ((x - 5) >> 1)], 0, BLUE] : [0x24, 0x49, 0xaa];
        expect(at(x, y), `pixel ${x},${y}`).toEqual(expected);
      }
    }
    // Cells no object touches (id 0) show the background too.
    expect(at(45, 2)).toEqual([0x24, 0x49, 0xaa]);
  });

  it("turned 90° and stretched: the tile's columns run down the world", () => {
    const { at } = picture(writeMap(`<object id="1" gid="2" x="40" y="8" width="8" height="16" rotation="90"/>`));
    // Anchored at (40, 8) and turned clockwise: the 8 × 16 box lies over x 40..56 (cut at the map's 48), y 8..15,
    // its width (the tile's columns) along y, its height along x.
    for (let y = 8; y < 16; y++) {
      for (let x = 40; x < 48; x++) expect(at(x, y), `pixel ${x},${y}`).toEqual([RED_LEVELS[y - 8], 0, BLUE]);
    }
    // No background colour: around it the darkness, black.
    expect(at(39, 12)).toEqual([0, 0, 0]);
    expect(at(44, 16)).toEqual([0, 0, 0]);
  });

  it("block nothing when scaled or rotated, and an off-grid one keeps its cell: collision as the grid says", () => {
    const free = `<object id="1" gid="5" x="0" y="24" width="24" height="16"/>
      <object id="2" gid="5" x="24" y="40" width="8" height="8" rotation="30"/>`;
    const offGrid = `<object id="3" gid="5" x="33" y="14" width="8" height="8"/>`;
    const flagsOf = (path: string): number[] => {
      const map = loadMap(path);
      const flags = tileFlagsTable(map.tileData);
      return [...map.tiles].map((id) => flags[id]);
    };
    const withAll = flagsOf(writeMap(free + offGrid, { ground: true }));
    const withoutFree = flagsOf(writeMap(offGrid, { ground: true }));
    expect(withAll).toEqual(withoutFree);
    // The off-grid one (bottom-left (33, 14), nearest cell (4, 1)) blocks that cell alone.
    expect(withAll.flatMap((flags, cell) => (flags & 1 ? [cell] : []))).toEqual([1 * 6 + 4]);
  });
});
