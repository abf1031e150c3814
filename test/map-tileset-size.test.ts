// A tileset whose image is named without its size and without a tile count:
// Tiled sizes it from the image (its own example perspective_walls.tsx, which
// Debian installs with the `tiled` package, does exactly this), so the server
// does too, from the PNG's header. Before, the map was refused: "has no
// tilecount and no image size to derive it from".
import { copyFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadMap, MapError, readRawMap } from "../ts/server/map/load-map.js";
import { pngSize } from "../ts/server/map/png-frame.js";
import { TILED_EXAMPLES } from "./support/maps-real.js";

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function folderWith(tileset: string, image?: string): string {
  const folder = mkdtempSync(join(tmpdir(), "caves-tileset-size-"));
  folders.push(folder);
  writeFileSync(join(folder, "walls.tsx"), tileset);
  if (image !== undefined) copyFileSync(image, join(folder, "walls.png"));
  writeFileSync(
    join(folder, "map.tmx"),
    `<?xml version="1.0" encoding="UTF-8"?>
<map version="1.0" orientation="orthogonal" width="2" height="1" tilewidth="64" tileheight="64">
 <tileset firstgid="1" source="walls.tsx"/>
 <layer name="Walls" width="2" height="1"><data encoding="csv">1,16</data></layer>
</map>`,
  );
  return join(folder, "map.tmx");
}

const NAMED_WITHOUT_SIZE = `<?xml version="1.0" encoding="UTF-8"?>
<tileset name="walls" tilewidth="64" tileheight="64"><image source="walls.png"/></tileset>`;

describe("a tileset image named without its size", () => {
  it("is sized from the PNG's header, as Tiled does: Tiled's perspective_walls example loads", () => {
    const image = resolve(TILED_EXAMPLES, "perspective_walls.png");
    expect(
      existsSync(image),
      `${image}: install Debian's tiled package (.ci/run does), which brings Tiled's examples`,
    ).toBe(true);
    expect(pngSize(image)).toEqual({ width: 256, height: 256 });
    const raw = readRawMap(resolve(TILED_EXAMPLES, "perspective_walls.tmx"));
    // 256 × 256 of 64-px tiles: 4 columns, 16 tiles.
    expect(raw.tilesets[0].localIdSpan).toBe(16);
    expect(raw.tilesets[0].art.columns).toBe(4);
    const map = loadMap(resolve(TILED_EXAMPLES, "perspective_walls.tmx"));
    expect(map.width).toBe(32);
    expect(map.warnings).toEqual([]);
  });

  it("uses the header's size for a map of its own, tile 16 the last of the grid", () => {
    const path = folderWith(NAMED_WITHOUT_SIZE, resolve(TILED_EXAMPLES, "perspective_walls.png"));
    const raw = readRawMap(path);
    expect(raw.tilesets[0].localIdSpan).toBe(16);
    expect(loadMap(path).warnings).toEqual([]);
  });

  it("is refused by name when the image is not there to be read, and when it is not a PNG", () => {
    const missing = folderWith(NAMED_WITHOUT_SIZE);
    expect(() => readRawMap(missing)).toThrow(MapError);
    expect(() => readRawMap(missing)).toThrow(/tileset "walls" has no tilecount, and no image size to derive it from/);
    const notPng = folderWith(NAMED_WITHOUT_SIZE);
    writeFileSync(join(notPng, "..", "walls.png"), "GIF89a not a png at all");
    expect(pngSize(join(notPng, "..", "walls.png"))).toBeNull();
    expect(() => readRawMap(notPng)).toThrow(/its image is not a PNG that can be read/);
  });
});
