// The charting library the console's page draws its graphs with: uPlot (https://github.com/leeoniya/uPlot,
// MIT; small, fast on thousands of points, no dependencies), served as its own prebuilt files — no build
// step — from the console's routes, behind the token like the rest of it. The files are found beside this
// module as the repository lays them out (the single file's bundle maps that onto its unpacked tree, as for
// wasmoon's glue.wasm: scripts/package.mjs places them), else where npm resolves the package.
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The files served, by the console's path for them. */
export const UPLOT_FILES = {
  "/admin/uplot.js": { file: "uPlot.iife.min.js", contentType: "text/javascript; charset=utf-8" },
  "/admin/uplot.css": { file: "uPlot.min.css", contentType: "text/css; charset=utf-8" },
} as const;

function distDirectory(): string {
  const beside = fileURLToPath(new URL("../../../node_modules/uplot/dist", import.meta.url));
  if (existsSync(beside)) return beside;
  return join(dirname(createRequire(import.meta.url).resolve("uplot/package.json")), "dist");
}

const loaded = new Map<string, Buffer>();

/** One of uPlot's files, read once. */
export function uplotFile(file: string): Buffer {
  let bytes = loaded.get(file);
  if (bytes === undefined) {
    bytes = readFileSync(join(distDirectory(), file));
    loaded.set(file, bytes);
  }
  return bytes;
}
