// Decoding of Tiled tile layer data into raw GIDs (orientation flags still
// set): CSV text, base64 (little-endian u32 per cell) optionally compressed
// with zlib, gzip or zstd (zstd-layer.ts), and JSON arrays. Decoders are strict and total: any
// malformed input is a MapError that names the file and the place in it, never
// a silently short or garbled layer.
import * as zlib from "node:zlib";
import { MapError } from "./map-error.js";
import { decodeZstdLayer } from "./zstd-layer.js";

/** Where decoded data goes, for error messages: file plus a description such as `layer "Ground"`. */
export interface DataSite {
  file: string;
  where: string;
}

const MAX_GID = 0xffffffff;

function fail(site: DataSite, reason: string): never {
  throw new MapError(site.file, `${site.where}: ${reason}`);
}

/** Parses comma-separated GIDs; whitespace and one trailing comma (Tiled writes one per row) are allowed. */
export function decodeCsvGids(text: string, cellCount: number, site: DataSite): Uint32Array {
  const tokens = text.split(",");
  if (tokens.length > 0 && tokens[tokens.length - 1].trim() === "") tokens.pop();
  if (tokens.length !== cellCount) fail(site, `CSV has ${tokens.length} values, expected ${cellCount}`);
  const gids = new Uint32Array(cellCount);
  for (let i = 0; i < cellCount; i++) gids[i] = parseGid(tokens[i].trim(), i, site);
  return gids;
}

/** One decimal GID token; `index` is its position in the layer, for the message. */
export function parseGid(token: string, index: number, site: DataSite): number {
  if (!/^\d{1,10}$/.test(token)) fail(site, `value ${index} ("${token}") is not a tile id`);
  const gid = Number(token);
  if (gid > MAX_GID) fail(site, `value ${index} (${token}) is larger than 32 bits`);
  return gid;
}

/**
 * Decodes base64 layer data, decompresses it and reads `cellCount` little-endian u32 GIDs.
 * `compression` is Tiled's attribute: "" / undefined (none), "zlib", "gzip" or "zstd".
 */
export function decodeBase64Gids(
  text: string,
  compression: string | undefined,
  cellCount: number,
  site: DataSite,
): Uint32Array {
  const compact = text.replace(/\s+/g, "");
  // Buffer.from(…, "base64") skips characters it does not know, so a corrupt
  // layer would decode to the wrong length or wrong tiles; check first.
  if (compact.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(compact)) {
    fail(site, "bad base64 data");
  }
  const packed = Buffer.from(compact, "base64");
  const bytes = decompress(packed, compression ?? "", cellCount * 4, site);
  if (bytes.length !== cellCount * 4) {
    fail(site, `decoded ${bytes.length} bytes, expected ${cellCount * 4} (${cellCount} cells × 4)`);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const gids = new Uint32Array(cellCount);
  for (let i = 0; i < cellCount; i++) gids[i] = view.getUint32(i * 4, true);
  return gids;
}

function decompress(packed: Buffer, compression: string, expectedBytes: number, site: DataSite): Uint8Array {
  try {
    switch (compression) {
      case "":
        return packed;
      case "zlib":
        return zlib.inflateSync(packed);
      case "gzip":
        return zlib.gunzipSync(packed);
      case "zstd":
        return decodeZstdLayer(packed, expectedBytes);
      default:
        fail(site, `unsupported compression: ${compression}`);
    }
  } catch (error) {
    if (error instanceof MapError) throw error;
    fail(site, `bad ${compression} data (${(error as Error).message})`);
  }
}

/** Validates a TMJ `data` array: exactly `cellCount` integers in 0..2^32-1. */
export function gidsFromJsonArray(data: unknown[], cellCount: number, site: DataSite): Uint32Array {
  if (data.length !== cellCount) fail(site, `data has ${data.length} values, expected ${cellCount}`);
  const gids = new Uint32Array(cellCount);
  for (let i = 0; i < cellCount; i++) {
    const value = data[i];
    if (typeof value !== "number" || !Number.isInteger(value) || value < 0 || value > MAX_GID) {
      fail(site, `data[${i}] (${JSON.stringify(value)}) is not a tile id`);
    }
    gids[i] = value;
  }
  return gids;
}

/**
 * Decodes layer data given as text (TMX <data>/<chunk>, TMJ base64 string) by its
 * encoding: "csv" or "base64". Unknown encodings are rejected by name.
 */
export function decodeEncodedGids(
  text: string,
  encoding: string,
  compression: string | undefined,
  cellCount: number,
  site: DataSite,
): Uint32Array {
  switch (encoding) {
    case "csv":
      if (compression) fail(site, `compression "${compression}" is not allowed with CSV encoding`);
      return decodeCsvGids(text, cellCount, site);
    case "base64":
      return decodeBase64Gids(text, compression, cellCount, site);
    default:
      fail(site, `unknown encoding: ${encoding}`);
  }
}
