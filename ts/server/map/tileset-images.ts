// The pixels of a map's tiles: reads the tilesets' PNG images (fast-png) once
// each, normalises them to 8-bit RGBA, and cuts one tile out of them honouring
// margin, spacing, columns, the colour key (`trans`), per-tileset tile sizes
// and image-collection tiles (with Tiled 1.9 sub-rectangles). An image that
// cannot be read is not an error: the map still plays, its tiles are drawn as
// a placeholder, and the problem is reported once (docs/art.md § Map art).
import { decode, type DecodedPng } from "fast-png";
import { readBoundedFile } from "../content/bounded-file.js";
import { checkedPng } from "./png-frame.js";
import type { Tileset, TilesetImageRef } from "./tileset.js";

/** An 8-bit RGBA image, row-major, straight (not premultiplied) alpha. */
export interface RgbaImage {
  width: number;
  height: number;
  data: Uint8Array;
}

/** Where one tile's pixels are: a rectangle of an image, and how the tileset shifts it on the map. */
export interface TilePicture {
  /** null: the image is missing or unreadable; draw the placeholder over the rectangle's size. */
  image: RgbaImage | null;
  x: number;
  y: number;
  width: number;
  height: number;
  offsetXPx: number;
  offsetYPx: number;
}

/** Largest image accepted, in pixels (a 4096×4096 sheet): a bigger one is reported and drawn as the placeholder. */
export const MAX_IMAGE_PIXELS = 1 << 24;

/**
 * Decodes a PNG file into RGBA; throws an Error whose message says why not. The file's size, its
 * header's image size and its image data are checked before fast-png sees it (png-frame.ts).
 */
export function readPng(path: string): RgbaImage {
  const png = decode(checkedPng(readBoundedFile(path), MAX_IMAGE_PIXELS));
  return { width: png.width, height: png.height, data: rgbaOf(png) };
}

/** One sample of a packed row (depth 1, 2, 4 or 8 bits; 16-bit data comes as a Uint16Array). */
function sampleAt(data: DecodedPng["data"], rowStart: number, index: number, depth: number): number {
  if (depth >= 8) return data[rowStart + index];
  const bit = index * depth;
  const byte = data[rowStart + (bit >> 3)];
  return (byte >> (8 - depth - (bit & 7))) & ((1 << depth) - 1);
}

/** Any PNG colour type and depth as 8-bit RGBA (tRNS honoured for indexed, grey and RGB images). */
function rgbaOf(png: DecodedPng): Uint8Array {
  const { width, height, depth, channels, data, palette, transparency } = png;
  const out = new Uint8Array(width * height * 4);
  const samplesPerRow = width * channels;
  // Packed rows are padded to whole bytes; 8- and 16-bit rows are plain arrays of samples.
  const rowLength = depth >= 8 ? samplesPerRow : Math.ceil((samplesPerRow * depth) / 8);
  const maxSample = (1 << depth) - 1;
  const to8 = (value: number): number => (depth === 16 ? value >> 8 : Math.round((value * 255) / maxSample));
  for (let y = 0; y < height; y++) {
    const rowStart = y * rowLength;
    for (let x = 0; x < width; x++) {
      const at = (y * width + x) * 4;
      if (palette) {
        const index = sampleAt(data, rowStart, x, depth);
        const colour = palette[index] ?? [0, 0, 0, 0];
        out[at] = colour[0];
        out[at + 1] = colour[1];
        out[at + 2] = colour[2];
        out[at + 3] =
          colour.length > 3 ? colour[3] : transparency && index < transparency.length ? transparency[index] : 255;
        continue;
      }
      const first = x * channels;
      const samples = [0, 0, 0, 0].slice(0, channels).map((_, c) => sampleAt(data, rowStart, first + c, depth));
      const keyed =
        transparency !== undefined &&
        (channels === 1 || channels === 3) &&
        samples.every((sample, c) => sample === transparency[c]);
      const grey = channels <= 2;
      out[at] = to8(samples[0]);
      out[at + 1] = to8(grey ? samples[0] : samples[1]);
      out[at + 2] = to8(grey ? samples[0] : samples[2]);
      out[at + 3] = keyed ? 0 : channels === 2 ? to8(samples[1]) : channels === 4 ? to8(samples[3]) : 255;
    }
  }
  return out;
}

/**
 * The images of a map's tilesets, each read at most once. `problems` collects one message per image
 * that could not be used ("tileset "beach": image ../beach.png cannot be read (ENOENT)").
 */
export class TilesetImages {
  private readonly cache = new Map<string, RgbaImage | null>();
  readonly problems: string[] = [];

  /** `read` is readPng; tests pass another decoder to count reads. */
  constructor(private readonly read: (path: string) => RgbaImage = readPng) {}

  /** The image with its colour key applied, or null (and a problem noted) when it cannot be used. */
  image(tileset: Tileset, ref: TilesetImageRef): RgbaImage | null {
    const key = `${ref.path}\u0000${ref.transparentColour ?? ""}`;
    if (this.cache.has(key)) return this.cache.get(key)!;
    let image: RgbaImage | null;
    try {
      image = this.read(ref.path);
      if (ref.transparentColour !== null) image = withColourKey(image, ref.transparentColour);
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      this.problems.push(`tileset "${tileset.name}": image ${ref.source} cannot be used (${reason})`);
      image = null;
    }
    this.cache.set(key, image);
    return image;
  }

  /** An image file named by `what` (a creature's image), or null (and a problem noted) when it cannot be used. */
  file(path: string, what: string): RgbaImage | null {
    const key = `${path}\u0000`;
    if (this.cache.has(key)) return this.cache.get(key)!;
    let image: RgbaImage | null;
    try {
      image = this.read(path);
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      this.problems.push(`${what} cannot be used (${reason})`);
      image = null;
    }
    this.cache.set(key, image);
    return image;
  }

  /** Where the pixels of local tile `localId` of `tileset` are; null when the tileset has no picture for it. */
  picture(tileset: Tileset, localId: number): TilePicture | null {
    const art = tileset.art;
    if (art.image) {
      if (art.columns <= 0 || art.tileWidthPx <= 0 || art.tileHeightPx <= 0) return null;
      const column = localId % art.columns;
      const row = Math.floor(localId / art.columns);
      return {
        image: this.image(tileset, art.image),
        x: art.marginPx + column * (art.tileWidthPx + art.spacingPx),
        y: art.marginPx + row * (art.tileHeightPx + art.spacingPx),
        width: art.tileWidthPx,
        height: art.tileHeightPx,
        offsetXPx: art.offsetXPx,
        offsetYPx: art.offsetYPx,
      };
    }
    const ref = art.tileImages.get(localId);
    if (!ref) return null;
    const image = this.image(tileset, ref);
    const rect = ref.rect ?? {
      x: 0,
      y: 0,
      width: image?.width ?? art.tileWidthPx,
      height: image?.height ?? art.tileHeightPx,
    };
    return { image, ...rect, offsetXPx: art.offsetXPx, offsetYPx: art.offsetYPx };
  }
}

/** A copy of `image` whose pixels of colour 0xRRGGBB are fully transparent (Tiled's `trans`). */
function withColourKey(image: RgbaImage, colour: number): RgbaImage {
  const data = new Uint8Array(image.data);
  const r = (colour >> 16) & 0xff;
  const g = (colour >> 8) & 0xff;
  const b = colour & 0xff;
  for (let at = 0; at < data.length; at += 4) {
    if (data[at] === r && data[at + 1] === g && data[at + 2] === b) data[at + 3] = 0;
  }
  return { width: image.width, height: image.height, data };
}
