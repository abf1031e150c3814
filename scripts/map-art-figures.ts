// Writes docs/art.md's before/after figures of the map-art quantisation: a
// region of sourceoftales goldenfields painted in full colour from its tileset
// images (the tests' reference painter), then the same in RGB332 by nearest
// level ("before") and by the 4×4 Bayer ordered dithering the server's atlas
// uses ("after"), as the client shows them. Run: npx tsx scripts/map-art-figures.ts
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { encode } from "fast-png";
import { readRawMap } from "../ts/server/map/load-map.js";
import { ditherRgb332, expandRgb332, nearestRgb332 } from "../ts/server/map/rgb332-dither.js";
import { paintedColour, paintRegion } from "../test/support/map-painter.js";
import { MAPS_REAL } from "../test/support/maps-real.js";

const MAP = resolve(MAPS_REAL, "sourceoftales/maps/goldenfields/main.tmx");
/** Tiles (92..101, 92..99), near the spawn: a slate roof in shades of grey-blue, brick, grass. */
const LEFT_PX = 92 * 32;
const TOP_PX = 92 * 32;
const WIDTH = 320;
const HEIGHT = 256;

const painting = paintRegion(readRawMap(MAP), LEFT_PX, TOP_PX, WIDTH, HEIGHT);
const images = {
  truecolour: new Uint8Array(WIDTH * HEIGHT * 3),
  nearest: new Uint8Array(WIDTH * HEIGHT * 3),
  bayer: new Uint8Array(WIDTH * HEIGHT * 3),
};
for (let y = 0; y < HEIGHT; y++) {
  for (let x = 0; x < WIDTH; x++) {
    const [r, g, b] = paintedColour(painting, x, y).map((value) => Math.round(value));
    const at = (y * WIDTH + x) * 3;
    images.truecolour.set([r, g, b], at);
    images.nearest.set(expandRgb332(nearestRgb332(r, g, b)), at);
    images.bayer.set(expandRgb332(ditherRgb332(r, g, b, x, y)), at);
  }
}
for (const [name, data] of Object.entries(images)) {
  const path = resolve(import.meta.dirname, `../docs/img/map-art-${name}.png`);
  writeFileSync(path, encode({ width: WIDTH, height: HEIGHT, data, channels: 3, depth: 8 }));
  console.log(`wrote ${path}`);
}
