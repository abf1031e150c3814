// Indexed RGB332 images: the one pixel format of the client (tilesets, sprites,
// font, framebuffer). A byte is rrrgggbb; byte 0 means "transparent" in every
// sheet, so an opaque pure black can never be 0 — it is stored as 0x01, the
// darkest non-zero colour (blue carries the least luminance), see docs/art.md.

/** A width × height image, one RGB332 byte per pixel, row-major from the top-left. */
export interface Rgb332Image {
  readonly width: number;
  readonly height: number;
  readonly pixels: Uint8Array;
}

/** The transparent index in sprites, tiles and font glyphs. */
export const RGB332_TRANSPARENT = 0x00;
/** What an opaque pure black becomes, so that it stays distinct from transparent. */
export const RGB332_OPAQUE_BLACK = 0x01;
/** Alpha values below this are transparent; the rest are opaque (no partial alpha in RGB332). */
export const ALPHA_OPAQUE_MIN = 128;

/** Quantises an 8-bit-per-channel colour to RGB332 (truncation: r>>5, g>>5, b>>6). */
export function rgb332FromRgba(red: number, green: number, blue: number, alpha: number): number {
  if (alpha < ALPHA_OPAQUE_MIN) return RGB332_TRANSPARENT;
  const colour = (red & 0xe0) | ((green >> 5) << 2) | (blue >> 6);
  return colour === RGB332_TRANSPARENT ? RGB332_OPAQUE_BLACK : colour;
}

/** Builds an RGB332 byte from its channel levels (red 0..7, green 0..7, blue 0..3). */
export function rgb332(red3: number, green3: number, blue2: number): number {
  return ((red3 & 7) << 5) | ((green3 & 7) << 2) | (blue2 & 3);
}

/**
 * Expands an RGB332 byte to 0xRRGGBB with full range (level 7 -> 255, blue 3 -> 255),
 * so that `rgb332FromRgba` of the expansion gives the byte back for every non-zero colour.
 */
export function rgb24FromRgb332(colour: number): number {
  const red3 = (colour >> 5) & 7;
  const green3 = (colour >> 2) & 7;
  const blue2 = colour & 3;
  const red = (red3 << 5) | (red3 << 2) | (red3 >> 1);
  const green = (green3 << 5) | (green3 << 2) | (green3 >> 1);
  const blue = blue2 * 0x55;
  return (red << 16) | (green << 8) | blue;
}

/** A blank (all transparent) image. */
export function createImage(width: number, height: number): Rgb332Image {
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 0 || height < 0) {
    throw new RangeError(`image size must be whole and non-negative, got ${width}x${height}`);
  }
  return { width, height, pixels: new Uint8Array(width * height) };
}

function checkTileSize(image: Rgb332Image, tileWidth: number, tileHeight: number): void {
  if (!Number.isInteger(tileWidth) || !Number.isInteger(tileHeight) || tileWidth < 1 || tileHeight < 1) {
    throw new RangeError(`tile size must be whole and positive, got ${tileWidth}x${tileHeight}`);
  }
  if (image.pixels.length !== image.width * image.height) {
    throw new RangeError(`image has ${image.pixels.length} pixels, expected ${image.width}x${image.height}`);
  }
}

/**
 * Cuts a sheet into tiles in reading order (left to right, then down): tile i is at
 * column i % columns, row floor(i / columns), with columns = floor(width / tileWidth).
 * A partial column or row at the right or bottom edge is ignored, as in the seed's to_tileset.
 */
export function toTiles(image: Rgb332Image, tileWidth: number, tileHeight: number): Rgb332Image[] {
  const bytes = toTileMajor(image, tileWidth, tileHeight);
  const tileBytes = tileWidth * tileHeight;
  const tiles: Rgb332Image[] = [];
  for (let offset = 0; offset < bytes.length; offset += tileBytes) {
    tiles.push({ width: tileWidth, height: tileHeight, pixels: bytes.subarray(offset, offset + tileBytes) });
  }
  return tiles;
}

/**
 * The same tiles as `toTiles`, concatenated into one buffer (tile i at byte i * tileWidth * tileHeight,
 * each tile row-major): the shape a blitter wants in its atlas, one contiguous block per tile.
 */
export function toTileMajor(image: Rgb332Image, tileWidth: number, tileHeight: number): Uint8Array {
  checkTileSize(image, tileWidth, tileHeight);
  const columns = Math.floor(image.width / tileWidth);
  const rows = Math.floor(image.height / tileHeight);
  const out = new Uint8Array(columns * rows * tileWidth * tileHeight);
  let at = 0;
  for (let row = 0; row < rows; row++) {
    for (let column = 0; column < columns; column++) {
      for (let y = 0; y < tileHeight; y++) {
        const from = (row * tileHeight + y) * image.width + column * tileWidth;
        out.set(image.pixels.subarray(from, from + tileWidth), at);
        at += tileWidth;
      }
    }
  }
  return out;
}
