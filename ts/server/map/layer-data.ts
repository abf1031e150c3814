// Decoding of Tiled tile layer data into raw GIDs (orientation flags still
// set): CSV text, base64 (little-endian u32 per cell) optionally compressed
// with zlib, gzip or zstd (zstd-layer.ts), and JSON arrays. Decoders are strict and total: any
// malformed input is a MapError that names the file and the place in it, never
// a silently short or garbled layer.
//
// A layer's width × height × 4 bytes is the only size its data may have, and
// nothing may make the loader allocate more (docs/security.md § Map files):
// the sizes every layer and chunk declare are added up before any of them is
// decoded (LayerDecodes), base64 text is measured before it is decoded, and
// zlib and gzip inflate with an output cap, so a few kilobytes of bomb stop
// after the layer's bytes instead of inflating to gigabytes.
import * as zlib from "node:zlib";
import { MapError } from "../content/map-error.js";
import { decodeZstdLayer } from "./zstd-layer.js";

/** Most cells a map's tile layers and chunks may declare together (256 MiB of decoded GIDs). */
export const MAX_LAYER_CELLS = 1 << 26;

/** Where decoded data goes, for error messages: file plus a description such as `layer "Ground"`. */
export interface DataSite {
  file: string;
  where: string;
  /** The declared size, "width×height", for messages about sizes. */
  size?: string;
}

/**
 * The tile layers and chunks of one map file, queued while the file is walked and decoded only
 * once every declared size is known and the total is within MAX_LAYER_CELLS — so a file that
 * declares a huge layer is refused before anything is allocated for it.
 */
export class LayerDecodes {
  private cells = 0;
  private readonly queue: { chunk: GidArea; site: DataSite; decode: DecodeCells }[] = [];

  /**
   * Queues one layer or chunk: run() fills `chunk.gids` with `decode(width × height, site)`.
   * Throws MapError at once for a negative size or one that takes the map past MAX_LAYER_CELLS.
   */
  add(chunk: GidArea, site: DataSite, decode: DecodeCells): void {
    const size = `${chunk.width}×${chunk.height}`;
    if (chunk.width < 0 || chunk.height < 0) fail(site, `size ${size} is negative`);
    this.cells += chunk.width * chunk.height;
    if (this.cells > MAX_LAYER_CELLS) {
      throw new MapError(
        site.file,
        `${site.where} is ${size} cells, more than the ${MAX_LAYER_CELLS} a map's tile layers may hold together`,
      );
    }
    this.queue.push({ chunk, site: { ...site, size }, decode });
  }

  /** Decodes every queued layer and chunk, in the order they were added. */
  run(): void {
    for (const { chunk, site, decode } of this.queue) chunk.gids = decode(chunk.width * chunk.height, site);
    this.queue.length = 0;
  }
}

/** A rectangle of cells whose GIDs are decoded later. */
interface GidArea {
  width: number;
  height: number;
  gids: Uint32Array;
}

/** Decodes `cellCount` GIDs; `site` names the place and its size. */
export type DecodeCells = (cellCount: number, site: DataSite) => Uint32Array;

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
  // Uncompressed, the text has one length only: measured before it is decoded.
  const plainLength = 4 * Math.ceil((cellCount * 4) / 3);
  if ((compression ?? "") === "" && compact.length !== plainLength) {
    fail(
      site,
      `base64 data is ${compact.length} characters, a ${sizeOf(site, cellCount)} layer is ${plainLength} (${cellCount * 4} bytes)`,
    );
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
  // Node stops inflating past maxOutputLength (after at most one more 16 KiB chunk) and throws
  // ERR_BUFFER_TOO_LARGE; it must be at least 1.
  const limit = { maxOutputLength: Math.max(1, expectedBytes) };
  try {
    switch (compression) {
      case "":
        return packed;
      case "zlib":
        return zlib.inflateSync(packed, limit);
      case "gzip":
        return zlib.gunzipSync(packed, limit);
      case "zstd":
        return decodeZstdLayer(packed, expectedBytes);
      default:
        fail(site, `unsupported compression: ${compression}`);
    }
  } catch (error) {
    if (error instanceof MapError) throw error;
    const reason =
      (error as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE"
        ? `inflates to more than the layer's ${expectedBytes} bytes: ${sizeOf(site, expectedBytes / 4)} cells × 4`
        : (error as Error).message;
    fail(site, `bad ${compression} data (${reason})`);
  }
}

/** "10×10" for a site that knows its size, else the cell count. */
function sizeOf(site: DataSite, cellCount: number): string {
  return site.size ?? `${cellCount}`;
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
