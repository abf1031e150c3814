// Truevision TGA codec (TGA 2.0 file format specification) producing indexed
// RGB332 images. Decoding is a total function: every input either yields an
// image or throws a TgaError naming what is wrong; no read ever goes past the
// end of the buffer, and sizes are checked against the bytes actually present
// before any pixel buffer is allocated, so a tiny file cannot claim a huge one.
//
// Supported: image types 1 (colour-mapped, 8/16-bit indices, 15/16/24/32-bit
// map entries), 2 (true-colour 15/16/24/32 bit), 3 (greyscale 8 bit, or 16 bit
// grey + alpha) and their RLE forms 9, 10, 11; the ID field, a colour map in
// any type (skipped unless the image uses it), the colour map's first entry
// index, and both origin bits (bottom/top, left/right). Not supported: the
// obsolete interleaving bits (descriptor bits 6-7). Trailing data (extension
// area, footer) is ignored.
//
// Alpha: a 32-bit pixel or map entry uses its alpha byte (< 128 is transparent);
// a 16-bit one uses its top bit only when the descriptor declares alpha bits,
// since many writers leave that bit 0 in opaque files; 15/24-bit and 8-bit
// grey are opaque. Opaque black becomes 0x01 (see image.ts).
import { rgb332FromRgba, rgb24FromRgb332, type Rgb332Image } from "./image.js";

export type TgaErrorCode =
  | "truncated" // the file ends before the header, ID, colour map or pixel data it declares
  | "unsupported" // an image type, bit depth or descriptor bit this decoder does not handle
  | "bad-dimensions" // zero width or height
  | "too-large" // more pixels than the caller allows
  | "rle-overrun" // an RLE packet reaches past the last pixel
  | "bad-colour-index"; // a colour-mapped pixel names an entry outside the map

/** Why a TGA file could not be decoded (or an image could not be encoded). */
export class TgaError extends Error {
  override readonly name = "TgaError";
  constructor(
    readonly code: TgaErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export interface TgaDecodeOptions {
  /** Refuse images with more pixels than this (default TGA_DEFAULT_MAX_PIXELS). */
  maxPixels?: number;
}

/** 4096 × 4096: far above any sheet we ship, far below what hurts a browser tab. */
export const TGA_DEFAULT_MAX_PIXELS = 4096 * 4096;

const HEADER_BYTES = 18;
const RLE_PACKET_MAX_PIXELS = 128;
const DESCRIPTOR_ALPHA_BITS = 0x0f;
const DESCRIPTOR_RIGHT_TO_LEFT = 0x10;
const DESCRIPTOR_TOP_TO_BOTTOM = 0x20;
const DESCRIPTOR_INTERLEAVE = 0xc0;

const TYPE_COLOUR_MAPPED = 1;
const TYPE_TRUE_COLOUR = 2;
const TYPE_GREYSCALE = 3;
const TYPE_RLE_FLAG = 8;

/** Reads one pixel (or colour-map entry) starting at byte `at` and returns its RGB332 byte. */
type PixelReader = (bytes: Uint8Array, at: number) => number;

function readU16(bytes: Uint8Array, at: number): number {
  return bytes[at] | (bytes[at + 1] << 8);
}

function expand5(level5: number): number {
  return (level5 << 3) | (level5 >> 2);
}

/** A reader for a true-colour pixel or colour-map entry of the given bit depth. */
function trueColourReader(bits: number, alphaBits: number, what: string): PixelReader {
  switch (bits) {
    case 15:
    case 16: {
      const alphaInTopBit = bits === 16 && alphaBits > 0;
      return (bytes, at) => {
        const value = readU16(bytes, at);
        const alpha = alphaInTopBit && (value & 0x8000) === 0 ? 0 : 255;
        return rgb332FromRgba(expand5((value >> 10) & 31), expand5((value >> 5) & 31), expand5(value & 31), alpha);
      };
    }
    case 24:
      return (bytes, at) => rgb332FromRgba(bytes[at + 2], bytes[at + 1], bytes[at], 255);
    case 32:
      return (bytes, at) => rgb332FromRgba(bytes[at + 2], bytes[at + 1], bytes[at], bytes[at + 3]);
    default:
      throw new TgaError("unsupported", `${what} depth ${bits} bits (expected 15, 16, 24 or 32)`);
  }
}

function greyscaleReader(bits: number): PixelReader {
  switch (bits) {
    case 8:
      return (bytes, at) => rgb332FromRgba(bytes[at], bytes[at], bytes[at], 255);
    case 16:
      return (bytes, at) => rgb332FromRgba(bytes[at], bytes[at], bytes[at], bytes[at + 1]);
    default:
      throw new TgaError("unsupported", `greyscale pixel depth ${bits} bits (expected 8 or 16)`);
  }
}

function colourMappedReader(bits: number, palette: Uint8Array, firstEntry: number): PixelReader {
  const outOfMap = (index: number): never => {
    throw new TgaError(
      "bad-colour-index",
      `pixel uses colour index ${index}, but the map holds entries ${firstEntry}..${firstEntry + palette.length - 1}`,
    );
  };
  switch (bits) {
    case 8:
      return (bytes, at) => {
        const entry = bytes[at] - firstEntry;
        return entry >= 0 && entry < palette.length ? palette[entry] : outOfMap(bytes[at]);
      };
    case 16:
      return (bytes, at) => {
        const index = readU16(bytes, at);
        const entry = index - firstEntry;
        return entry >= 0 && entry < palette.length ? palette[entry] : outOfMap(index);
      };
    default:
      throw new TgaError("unsupported", `colour index depth ${bits} bits (expected 8 or 16)`);
  }
}

/** Decodes a TGA file into an RGB332 image with its origin at the top-left. */
export function decodeTga(bytes: Uint8Array, options: TgaDecodeOptions = {}): Rgb332Image {
  const maxPixels = options.maxPixels ?? TGA_DEFAULT_MAX_PIXELS;
  const fileBytes = bytes.length;
  if (fileBytes < HEADER_BYTES) {
    throw new TgaError("truncated", `file has ${fileBytes} bytes, the header alone needs ${HEADER_BYTES}`);
  }
  const idBytes = bytes[0];
  const colourMapType = bytes[1];
  const imageType = bytes[2];
  const mapFirstEntry = readU16(bytes, 3);
  const mapLength = readU16(bytes, 5);
  const mapEntryBits = bytes[7];
  const width = readU16(bytes, 12);
  const height = readU16(bytes, 14);
  const pixelBits = bytes[16];
  const descriptor = bytes[17];

  if (colourMapType > 1) throw new TgaError("unsupported", `colour map type ${colourMapType} (expected 0 or 1)`);
  const kind = imageType & ~TYPE_RLE_FLAG;
  const rle = (imageType & TYPE_RLE_FLAG) !== 0;
  if (imageType > 11 || kind < TYPE_COLOUR_MAPPED || kind > TYPE_GREYSCALE) {
    const detail = imageType === 0 ? " (no image data)" : "";
    throw new TgaError("unsupported", `image type ${imageType}${detail}; supported: 1, 2, 3, 9, 10, 11`);
  }
  if ((descriptor & DESCRIPTOR_INTERLEAVE) !== 0) {
    throw new TgaError("unsupported", `interleaved rows (descriptor 0x${descriptor.toString(16)})`);
  }
  if (width === 0 || height === 0) throw new TgaError("bad-dimensions", `image is ${width}x${height}`);
  const pixelCount = width * height;
  if (pixelCount > maxPixels) {
    throw new TgaError("too-large", `image is ${width}x${height} = ${pixelCount} pixels, the limit is ${maxPixels}`);
  }
  const alphaBits = descriptor & DESCRIPTOR_ALPHA_BITS;

  let at = HEADER_BYTES + idBytes;
  if (at > fileBytes) throw new TgaError("truncated", `file ends inside the ${idBytes}-byte ID field`);

  let readPixel: PixelReader;
  const mapEntryBytes = (mapEntryBits + 7) >> 3;
  const mapBytes = colourMapType === 1 ? mapLength * mapEntryBytes : 0;
  if (at + mapBytes > fileBytes) {
    throw new TgaError("truncated", `file ends inside the ${mapLength}-entry colour map`);
  }
  if (kind === TYPE_COLOUR_MAPPED) {
    if (colourMapType !== 1 || mapLength === 0) {
      throw new TgaError("unsupported", "colour-mapped image without a colour map");
    }
    const readEntry = trueColourReader(mapEntryBits, alphaBits, "colour map entry");
    const palette = new Uint8Array(mapLength);
    for (let entry = 0; entry < mapLength; entry++) palette[entry] = readEntry(bytes, at + entry * mapEntryBytes);
    readPixel = colourMappedReader(pixelBits, palette, mapFirstEntry);
  } else if (kind === TYPE_TRUE_COLOUR) {
    readPixel = trueColourReader(pixelBits, alphaBits, "pixel");
  } else {
    readPixel = greyscaleReader(pixelBits);
  }
  at += mapBytes;

  const pixelBytes = (pixelBits + 7) >> 3;
  const available = fileBytes - at;
  // The fewest bytes that could describe pixelCount pixels: checked before allocating.
  const needed = rle ? Math.ceil(pixelCount / RLE_PACKET_MAX_PIXELS) * (1 + pixelBytes) : pixelCount * pixelBytes;
  if (available < needed) {
    throw new TgaError(
      "truncated",
      `${width}x${height} pixel data needs ${rle ? "at least " : ""}${needed} bytes, file has ${available}`,
    );
  }

  const stream = new Uint8Array(pixelCount);
  if (rle) {
    decodeRle(bytes, at, stream, pixelBytes, readPixel);
  } else {
    for (let index = 0; index < pixelCount; index++, at += pixelBytes) stream[index] = readPixel(bytes, at);
  }
  return {
    width,
    height,
    pixels: toTopLeftOrigin(
      stream,
      width,
      height,
      (descriptor & DESCRIPTOR_TOP_TO_BOTTOM) !== 0,
      (descriptor & DESCRIPTOR_RIGHT_TO_LEFT) !== 0,
    ),
  };
}

/** Expands RLE packets into `out`; packets may cross rows (common in the wild) but not the image end. */
function decodeRle(bytes: Uint8Array, start: number, out: Uint8Array, pixelBytes: number, readPixel: PixelReader) {
  const fileBytes = bytes.length;
  const pixelCount = out.length;
  let at = start;
  let index = 0;
  while (index < pixelCount) {
    if (at >= fileBytes) throw new TgaError("truncated", `RLE data ends after ${index} of ${pixelCount} pixels`);
    const packet = bytes[at++];
    const count = (packet & 0x7f) + 1;
    if (index + count > pixelCount) {
      throw new TgaError(
        "rle-overrun",
        `RLE packet of ${count} pixels at pixel ${index} passes the end (${pixelCount})`,
      );
    }
    const isRun = (packet & 0x80) !== 0;
    const packetBytes = isRun ? pixelBytes : count * pixelBytes;
    if (at + packetBytes > fileBytes) {
      throw new TgaError("truncated", `RLE ${isRun ? "run" : "raw"} packet at pixel ${index} is cut off`);
    }
    if (isRun) {
      out.fill(readPixel(bytes, at), index, index + count);
      at += pixelBytes;
      index += count;
    } else {
      for (const end = index + count; index < end; index++, at += pixelBytes) out[index] = readPixel(bytes, at);
    }
  }
}

function toTopLeftOrigin(
  stream: Uint8Array,
  width: number,
  height: number,
  topToBottom: boolean,
  rightToLeft: boolean,
): Uint8Array {
  if (topToBottom && !rightToLeft) return stream;
  const out = new Uint8Array(stream.length);
  for (let row = 0; row < height; row++) {
    const from = row * width;
    const to = (topToBottom ? row : height - 1 - row) * width;
    if (!rightToLeft) {
      out.set(stream.subarray(from, from + width), to);
    } else {
      for (let x = 0; x < width; x++) out[to + width - 1 - x] = stream[from + x];
    }
  }
  return out;
}

export interface TgaEncodeOptions {
  /** Run-length encode (image type 10) instead of storing raw pixels (type 2). */
  rle: boolean;
  /** Optional ASCII text for the ID field (at most 255 bytes). */
  id?: string;
}

const ENCODED_PIXEL_BYTES = 4;

/**
 * Encodes an RGB332 image as a 32-bit true-colour TGA with top-left origin: index 0 becomes
 * alpha 0, every other byte its full-range RGB with alpha 255, so decodeTga gives the image back.
 * RLE packets stay within one row, as the specification recommends.
 */
export function encodeTga(image: Rgb332Image, options: TgaEncodeOptions): Uint8Array {
  const { width, height, pixels } = image;
  if (width < 1 || height < 1 || width > 0xffff || height > 0xffff || pixels.length !== width * height) {
    throw new TgaError("bad-dimensions", `cannot encode a ${width}x${height} image of ${pixels.length} pixels`);
  }
  const id = new TextEncoder().encode(options.id ?? "");
  if (id.length > 255 || /[^\x20-\x7e]/.test(options.id ?? "")) {
    throw new TgaError("unsupported", "the ID field holds at most 255 printable ASCII characters");
  }
  const header = new Uint8Array(HEADER_BYTES);
  header[0] = id.length;
  header[2] = options.rle ? TYPE_TRUE_COLOUR | TYPE_RLE_FLAG : TYPE_TRUE_COLOUR;
  header[12] = width & 0xff;
  header[13] = width >> 8;
  header[14] = height & 0xff;
  header[15] = height >> 8;
  header[16] = 32;
  header[17] = DESCRIPTOR_TOP_TO_BOTTOM | 8;

  // Worst case for RLE: one header byte per pixel on top of the raw size.
  const body = new Uint8Array(pixels.length * (ENCODED_PIXEL_BYTES + (options.rle ? 1 : 0)));
  let at = 0;
  const writePixel = (colour: number): void => {
    const rgb = rgb24FromRgb332(colour);
    body[at] = rgb & 0xff;
    body[at + 1] = (rgb >> 8) & 0xff;
    body[at + 2] = rgb >> 16;
    body[at + 3] = colour === 0 ? 0 : 255;
    at += ENCODED_PIXEL_BYTES;
  };
  if (!options.rle) {
    for (let index = 0; index < pixels.length; index++) writePixel(pixels[index]);
  } else {
    for (let row = 0; row < height; row++) {
      const rowEnd = (row + 1) * width;
      let index = row * width;
      while (index < rowEnd) {
        let run = 1;
        while (index + run < rowEnd && run < RLE_PACKET_MAX_PIXELS && pixels[index + run] === pixels[index]) run++;
        if (run >= 2) {
          body[at++] = 0x80 | (run - 1);
          writePixel(pixels[index]);
          index += run;
          continue;
        }
        // A raw packet extends until the next pair of equal pixels, which is cheaper as a run.
        let count = 1;
        while (
          index + count < rowEnd &&
          count < RLE_PACKET_MAX_PIXELS &&
          !(index + count + 1 < rowEnd && pixels[index + count] === pixels[index + count + 1])
        ) {
          count++;
        }
        body[at++] = count - 1;
        for (let k = 0; k < count; k++) writePixel(pixels[index + k]);
        index += count;
      }
    }
  }
  const out = new Uint8Array(HEADER_BYTES + id.length + at);
  out.set(header, 0);
  out.set(id, HEADER_BYTES);
  out.set(body.subarray(0, at), HEADER_BYTES + id.length);
  return out;
}
