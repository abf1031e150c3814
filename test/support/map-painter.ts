// A reference render of a Tiled map for tests, written independently of the
// server's per-cell stacks (ts/server/map/map-atlas.ts): it paints the whole
// map region as Tiled does — every visible, non-collision tile layer bottom to
// top, as opaque as its layer's opacity, cells in right-down order, each tile anchored at the bottom-left of its
// cell plus its tileset's offset, flipped by transforming the tile image
// forwards (diagonal = transpose, then horizontal, then vertical mirror) — in
// full colour. Tests compare what a client shows against it, allowing for the
// RGB332 quantisation.
import { isCollisionLayer } from "../../ts/server/map/flatten.js";
import type { RawMap } from "../../ts/server/map/raw-map.js";
import { readPng, type RgbaImage } from "../../ts/server/map/tileset-images.js";
import type { Tileset } from "../../ts/server/map/tileset.js";

/** A region of world pixels painted as straight-alpha RGBA floats. */
export interface Painting {
  width: number;
  height: number;
  rgba: Float32Array;
}

/** The colour of painted pixel (x, y) over black, 0..255 per channel. */
export function paintedColour(painting: Painting, x: number, y: number): [number, number, number] {
  const at = (y * painting.width + x) * 4;
  const a = painting.rgba[at + 3] / 255;
  return [painting.rgba[at] * a, painting.rgba[at + 1] * a, painting.rgba[at + 2] * a];
}

/** One tile of a grid tileset as its own RGBA image, the colour key applied. */
function cutTile(tileset: Tileset, image: RgbaImage, localId: number): RgbaImage {
  const art = tileset.art;
  const left = art.marginPx + (localId % art.columns) * (art.tileWidthPx + art.spacingPx);
  const top = art.marginPx + Math.floor(localId / art.columns) * (art.tileHeightPx + art.spacingPx);
  const data = new Uint8Array(art.tileWidthPx * art.tileHeightPx * 4);
  const key = art.image!.transparentColour;
  for (let y = 0; y < art.tileHeightPx; y++) {
    for (let x = 0; x < art.tileWidthPx; x++) {
      const from = ((top + y) * image.width + left + x) * 4;
      const to = (y * art.tileWidthPx + x) * 4;
      if (left + x >= image.width || top + y >= image.height) continue;
      data.set(image.data.subarray(from, from + 4), to);
      const rgb = (image.data[from] << 16) | (image.data[from + 1] << 8) | image.data[from + 2];
      if (key !== null && rgb === key) data[to + 3] = 0;
    }
  }
  return { width: art.tileWidthPx, height: art.tileHeightPx, data };
}

/** The tile image transformed as the GID's flip bits say (forwards, whole image at a time). */
export function flipTile(tile: RgbaImage, rawGid: number): RgbaImage {
  let image = tile;
  const transform = (width: number, height: number, from: (x: number, y: number) => [number, number]): RgbaImage => {
    const data = new Uint8Array(width * height * 4);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const [sx, sy] = from(x, y);
        data.set(
          image.data.subarray((sy * image.width + sx) * 4, (sy * image.width + sx) * 4 + 4),
          (y * width + x) * 4,
        );
      }
    }
    return { width, height, data };
  };
  if (rawGid & 0x20000000) image = transform(image.height, image.width, (x, y) => [y, x]);
  if (rawGid & 0x80000000) image = transform(image.width, image.height, (x, y) => [image.width - 1 - x, y]);
  if (rawGid & 0x40000000) image = transform(image.width, image.height, (x, y) => [x, image.height - 1 - y]);
  return image;
}

/**
 * Paints world pixels [leftPx, leftPx + width) × [topPx, topPx + height) of a finite orthogonal map whose
 * tilesets are grid tilesets. A tileset whose image is missing paints nothing.
 */
export function paintRegion(map: RawMap, leftPx: number, topPx: number, width: number, height: number): Painting {
  const rgba = new Float32Array(width * height * 4);
  const cellW = map.tileWidthPx;
  const cellH = map.tileHeightPx;
  const images = new Map<string, RgbaImage | null>();
  const imageOf = (tileset: Tileset): RgbaImage | null => {
    const path = tileset.art.image?.path;
    if (path === undefined) return null;
    if (!images.has(path)) {
      try {
        images.set(path, readPng(path));
      } catch {
        images.set(path, null);
      }
    }
    return images.get(path)!;
  };
  const descending = [...map.tilesets].sort((a, b) => b.firstGid - a.firstGid);
  // Tiles reach at most this many cells up and right of their anchor cell.
  const reach = Math.max(
    ...map.tilesets.map((t) => Math.ceil(Math.max(t.art.tileWidthPx, t.art.tileHeightPx) / cellW)),
  );
  const firstX = Math.floor(leftPx / cellW) - reach;
  const lastX = Math.floor((leftPx + width) / cellW) + 1;
  const firstY = Math.floor(topPx / cellH) - 1;
  const lastY = Math.floor((topPx + height) / cellH) + reach;
  for (const layer of map.tileLayers) {
    // A layer is drawn as opaque as its `opacity` (times its groups'), as Tiled draws it.
    const opacity = layer.opacity ?? 1;
    // And its colours multiplied by its `tintcolor` (times its groups'), channel by channel.
    const tint = layer.tint ?? 0xffffff;
    const tintOf = [(tint >>> 16) & 0xff, (tint >>> 8) & 0xff, tint & 0xff].map((channel) => channel / 255);
    if (!layer.visible || isCollisionLayer(layer) || opacity === 0) continue;
    const { gids, width: layerWidth } = layer.chunks[0];
    for (let cy = Math.max(0, firstY); cy <= Math.min(map.height - 1, lastY); cy++) {
      for (let cx = Math.max(0, firstX); cx <= Math.min(map.width - 1, lastX); cx++) {
        const raw = gids[cy * layerWidth + cx] >>> 0;
        const gid = raw & 0x0fffffff;
        if (gid === 0) continue;
        const tileset = descending.find((t) => t.firstGid <= gid)!;
        const image = imageOf(tileset);
        if (!image) continue;
        const tile = flipTile(cutTile(tileset, image, gid - tileset.firstGid), raw);
        const left = cx * cellW + tileset.art.offsetXPx - leftPx;
        const top = (cy + 1) * cellH + tileset.art.offsetYPx - tile.height - topPx;
        for (let y = 0; y < tile.height; y++) {
          for (let x = 0; x < tile.width; x++) {
            const px = left + x;
            const py = top + y;
            if (px < 0 || py < 0 || px >= width || py >= height) continue;
            const from = (y * tile.width + x) * 4;
            const a = (tile.data[from + 3] / 255) * opacity;
            if (a === 0) continue;
            const to = (py * width + px) * 4;
            const below = (rgba[to + 3] / 255) * (1 - a);
            const out = a + below;
            for (let c = 0; c < 3; c++)
              rgba[to + c] = (tile.data[from + c] * tintOf[c] * a + rgba[to + c] * below) / out;
            rgba[to + 3] = out * 255;
          }
        }
      }
    }
  }
  return { width, height, rgba };
}

/** How a client's canvas compares with a painting: pixels compared, within the quantisation, mean error, colours seen. */
export interface PaintingMatch {
  compared: number;
  /** Pixels whose every channel is less than one RGB332 step off (ordered dithering picks a level beside it). */
  within: number;
  /** Mean absolute error per channel, 0..255. */
  meanError: number;
  colours: number;
}

/**
 * Compares canvas pixels (0xRRGGBB, row-major, `painting.width` wide) with the painting, pixel (x, y) of
 * one with (x, y) of the other; `skip(x, y)` leaves out what is not map art (the player, labels).
 */
export function matchPainting(
  painting: Painting,
  shown: readonly number[],
  skip: (x: number, y: number) => boolean = () => false,
): PaintingMatch {
  let compared = 0;
  let within = 0;
  let errorSum = 0;
  const colours = new Set<number>();
  for (let y = 0; y < painting.height; y++) {
    for (let x = 0; x < painting.width; x++) {
      if (skip(x, y)) continue;
      const [r, g, b] = paintedColour(painting, x, y);
      const pixel = shown[y * painting.width + x];
      const [sr, sg, sb] = [(pixel >> 16) & 0xff, (pixel >> 8) & 0xff, pixel & 0xff];
      colours.add(pixel);
      compared++;
      // RGB332 steps: 36 or 37 for red and green, 85 for blue.
      if (Math.abs(sr - r) <= 37 && Math.abs(sg - g) <= 37 && Math.abs(sb - b) <= 86) within++;
      errorSum += Math.abs(sr - r) + Math.abs(sg - g) + Math.abs(sb - b);
    }
  }
  return { compared, within, meanError: compared > 0 ? errorSum / compared / 3 : 0, colours: colours.size };
}
