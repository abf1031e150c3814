// The seed's map format: one tile layer exported from Tiled as CSV — one row
// of comma-separated GIDs per line. There is no header; the size comes from
// the content (values in a row, non-empty lines), and every row must agree.
import { basename, extname } from "node:path";
import { parseGid } from "./layer-data.js";
import { MapError } from "../content/map-error.js";
import type { RawMap } from "./raw-map.js";

/** Parses a CSV grid; a trailing comma per row and blank lines are allowed. */
export function parseCsvMap(text: string, file: string): RawMap {
  const rows: number[][] = [];
  const lines = text.split(/\r?\n/);
  for (let lineIndex = 0; lineIndex < lines.length; lineIndex++) {
    const line = lines[lineIndex].trim();
    if (line === "") continue;
    const tokens = line.split(",");
    if (tokens[tokens.length - 1].trim() === "") tokens.pop();
    const site = { file, where: `line ${lineIndex + 1}` };
    const row = tokens.map((token, column) => parseGid(token.trim(), column, site));
    if (rows.length > 0 && row.length !== rows[0].length) {
      throw new MapError(file, `line ${lineIndex + 1} has ${row.length} values, the first row has ${rows[0].length}`);
    }
    rows.push(row);
  }
  if (rows.length === 0 || rows[0].length === 0) throw new MapError(file, "the CSV map has no tiles");
  const width = rows[0].length;
  const height = rows.length;
  const gids = new Uint32Array(width * height);
  rows.forEach((row, y) => gids.set(row, y * width));
  const name = basename(file, extname(file));
  return {
    file,
    format: "csv",
    orientation: "orthogonal",
    width,
    height,
    tileWidthPx: 1,
    tileHeightPx: 1,
    infinite: false,
    properties: {},
    tilesets: [],
    tileLayers: [{ name, path: name, visible: true, properties: {}, chunks: [{ x: 0, y: 0, width, height, gids }] }],
    objects: [],
    objectLayers: [],
    objectLayerCount: 0,
    groupLayerCount: 0,
    warnings: [],
  };
}
