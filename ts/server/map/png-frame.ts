// A tileset PNG checked and re-framed before fast-png decodes it. fast-png
// allocates what the header claims (width × height × channels) and inflates
// IDAT and iCCP chunks without any output cap, so a small file could claim a
// 100000×100000 image or carry a zlib bomb in either chunk. Here the chunks
// are walked first (PNG spec § 5.3: length, type, data, CRC): the header must
// state a size within the cap, the image data is inflated once with an output
// cap of exactly the bytes that size needs (§ 7, § 8: one filter byte per
// scanline, Adam7 passes), and only the chunks the art uses (IHDR, PLTE,
// tRNS, IDAT, IEND) are handed on — colour profiles, text and the rest are
// dropped, never inflated (docs/security.md § Map files).
import { closeSync, openSync, readSync } from "node:fs";
import * as zlib from "node:zlib";

const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const KEPT = new Set(["IHDR", "PLTE", "tRNS", "IDAT", "IEND"]);
/** Samples per pixel for each colour type (§ 11.2.1). */
const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };
/** Adam7 passes (§ 8.2): start x, start y, step x, step y. */
const ADAM7 = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
];

export interface PngHeader {
  width: number;
  height: number;
  depth: number;
  colourType: number;
  interlaced: boolean;
}

/** Bytes of the filtered image data (before compression) of an image with this header. */
export function filteredImageBytes(header: PngHeader): number {
  const bitsPerPixel = header.depth * CHANNELS[header.colourType];
  const pass = (width: number, height: number) =>
    width === 0 || height === 0 ? 0 : height * (1 + Math.ceil((width * bitsPerPixel) / 8));
  if (!header.interlaced) return pass(header.width, header.height);
  let total = 0;
  for (const [x0, y0, dx, dy] of ADAM7) {
    total += pass(Math.ceil((header.width - x0) / dx), Math.ceil((header.height - y0) / dy));
  }
  return total;
}

/**
 * Checks a PNG file's structure, header size and image data against `maxPixels`, and returns the
 * file with only the chunks the art needs. Throws an Error whose message says what is wrong.
 */
export function checkedPng(bytes: Uint8Array, maxPixels: number): Uint8Array {
  if (bytes.length < 8 || SIGNATURE.some((byte, i) => bytes[i] !== byte)) throw new Error("not a PNG file");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const kept: Uint8Array[] = [bytes.subarray(0, 8)];
  const imageData: Uint8Array[] = [];
  let header: PngHeader | null = null;
  let at = 8;
  for (;;) {
    if (at + 12 > bytes.length) throw new Error("the file ends inside a chunk header (no IEND)");
    const length = view.getUint32(at);
    const type = String.fromCharCode(...bytes.subarray(at + 4, at + 8));
    const end = at + 12 + length;
    if (end > bytes.length) throw new Error(`chunk ${JSON.stringify(type)} runs past the end of the file`);
    const data = bytes.subarray(at + 8, at + 8 + length);
    if (header === null) {
      if (type !== "IHDR" || length !== 13) throw new Error("the first chunk is not a 13-byte IHDR");
      header = readHeader(data, maxPixels);
    }
    if (type === "IDAT") imageData.push(data);
    if (KEPT.has(type)) kept.push(bytes.subarray(at, end));
    at = end;
    if (type === "IEND") break;
  }
  const expected = filteredImageBytes(header);
  let inflated: Buffer;
  try {
    inflated = zlib.inflateSync(Buffer.concat(imageData), { maxOutputLength: Math.max(1, expected) });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE") {
      throw new Error(
        `the image data inflates to more than the ${expected} bytes its ${header.width}×${header.height} header allows`,
      );
    }
    throw new Error(`bad image data (${(error as Error).message})`);
  }
  if (inflated.length !== expected) {
    throw new Error(
      `the image data is ${inflated.length} bytes, its ${header.width}×${header.height} header needs ${expected}`,
    );
  }
  return Buffer.concat(kept);
}

function readHeader(data: Uint8Array, maxPixels: number): PngHeader {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const header: PngHeader = {
    width: view.getUint32(0),
    height: view.getUint32(4),
    depth: data[8],
    colourType: data[9],
    interlaced: data[12] === 1,
  };
  const { width, height, depth, colourType } = header;
  if (width === 0 || height === 0 || width * height > maxPixels) {
    throw new Error(`image is ${width}×${height} pixels, more than ${maxPixels}`);
  }
  const depths: Record<number, number[]> = { 0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16] };
  if (!(depths[colourType] ?? []).includes(depth))
    throw new Error(`colour type ${colourType} at depth ${depth} is not PNG`);
  if (data[10] !== 0 || data[11] !== 0 || data[12] > 1)
    throw new Error("unknown compression, filter or interlace method");
  return header;
}

/**
 * The width and height a PNG file's header states, reading only its first 24 bytes (signature, IHDR's
 * length, type, width and height); null if the file cannot be read or is not a PNG. For tilesets that
 * name an image without its size, which Tiled reads from the image (its own examples do).
 */
export function pngSize(path: string): { width: number; height: number } | null {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return null;
  }
  try {
    const head = new Uint8Array(24);
    if (readSync(fd, head, 0, 24, 0) < 24 || SIGNATURE.some((byte, i) => head[i] !== byte)) return null;
    const view = new DataView(head.buffer);
    if (String.fromCharCode(...head.subarray(12, 16)) !== "IHDR") return null;
    const width = view.getUint32(16);
    const height = view.getUint32(20);
    return width > 0 && height > 0 ? { width, height } : null;
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}
