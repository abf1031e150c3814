// Decompression bombs and oversized inputs in a map file (issue 16, security): a few hundred
// kilobytes of map must not make the loader allocate without bound, at start or on a --watch
// reload. Each decoder a map file reaches is tried with a real file: zlib and gzip layer data
// that inflate far past the layer's width × height × 4 bytes, a layer that declares more cells
// than a map may have, base64 longer than the layer, map and tileset files over the size cap,
// and tileset PNGs whose header claims a huge image or whose compressed chunks (IDAT, iCCP)
// inflate past what the header allows. The memory checks run the loader in a child process and
// read its peak resident set (the kernel's count, not a timing), so a bomb that is refused only
// after it was inflated fails the test.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import * as zlib from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { loadMap, MapError } from "../ts/server/map/load-map.js";
import { readPng } from "../ts/server/map/tileset-images.js";

const dir = mkdtempSync(join(tmpdir(), "map-bombs-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let counter = 0;
function write(name: string, content: string | Uint8Array): string {
  const path = join(dir, `${counter++}-${name}`);
  writeFileSync(path, content);
  return path;
}

/** What the bombs inflate to: far more than any layer or image here may hold. */
const BOMB_BYTES = 96 << 20;
/** Peak memory the loader may gain on every bomb together (the legal sizes here are a few kilobytes). */
const GROWTH_LIMIT_KIB = 24 << 10;

/** `BOMB_BYTES` of zeros, compressed (about 1,000 : 1). */
function bomb(kind: "zlib" | "gzip"): Buffer {
  const zeros = Buffer.alloc(BOMB_BYTES);
  return kind === "zlib" ? zlib.deflateSync(zeros, { level: 9 }) : zlib.gzipSync(zeros, { level: 9 });
}
const zlibBomb = bomb("zlib");
const gzipBomb = bomb("gzip");

function tmx(width: number, height: number, data: string, compression = "zlib"): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<map version="1.10" orientation="orthogonal" width="${width}" height="${height}" tilewidth="8" tileheight="8" infinite="0">
 <tileset firstgid="1" name="t" tilewidth="8" tileheight="8" tilecount="16" columns="4"><image source="t.png" width="32" height="32"/></tileset>
 <layer id="1" name="ground" width="${width}" height="${height}"><data encoding="base64" compression="${compression}">${data}</data></layer>
</map>`;
}

function tmj(width: number, height: number, data: string, compression: string): string {
  return JSON.stringify({
    type: "map",
    orientation: "orthogonal",
    width,
    height,
    tilewidth: 8,
    tileheight: 8,
    tilesets: [{ firstgid: 1, name: "t", tilecount: 16, columns: 4, image: "t.png", imagewidth: 32, imageheight: 32 }],
    layers: [{ type: "tilelayer", name: "top", width, height, encoding: "base64", compression, data }],
  });
}

/** A PNG from chunks, each with its real CRC. */
function png(chunks: [string, Uint8Array][]): Buffer {
  const parts: Buffer[] = [Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])];
  for (const [type, data] of chunks) {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(data.length, 0);
    head.write(type, 4, "latin1");
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(Buffer.concat([head.subarray(4), data])), 0);
    parts.push(head, Buffer.from(data), crc);
  }
  return Buffer.concat(parts);
}
function ihdr(width: number, height: number): Buffer {
  const data = Buffer.alloc(13);
  data.writeUInt32BE(width, 0);
  data.writeUInt32BE(height, 4);
  data[8] = 8; // depth
  data[9] = 6; // RGBA
  return data;
}
/** A 16×16 RGBA image, every row filter 0, with a red-to-blue gradient. */
function pixels16(): Buffer {
  const rows: number[] = [];
  for (let y = 0; y < 16; y++) {
    rows.push(0);
    for (let x = 0; x < 16; x++) rows.push(x * 16, 0, y * 16, 255);
  }
  return Buffer.from(rows);
}

interface ChildReport {
  results: string[];
  grewKiB: number;
}

/**
 * Runs `loadMap` (kind "map") or `readPng` (kind "png") on each file in a fresh Node process and
 * returns each outcome ("loaded" or the error's message) and how much the peak RSS grew over them.
 */
function inChild(jobs: ["map" | "png", string][]): ChildReport {
  const root = resolve(import.meta.dirname, "..");
  const script = write(
    "child.ts",
    `import { loadMap } from ${JSON.stringify(join(root, "ts/server/map/load-map.ts"))};
import { readPng } from ${JSON.stringify(join(root, "ts/server/map/tileset-images.ts"))};
const jobs = JSON.parse(process.argv[2]);
const run = ([kind, path]) => {
  try { if (kind === "map") loadMap(path); else readPng(path); return "loaded"; }
  catch (error) { return error.name + ": " + error.message; }
};
run(jobs[0]); // warm the code paths before measuring
const before = process.resourceUsage().maxRSS;
const results = jobs.map(run);
console.log(JSON.stringify({ results, grewKiB: process.resourceUsage().maxRSS - before }));
`,
  );
  const out = execFileSync(process.execPath, ["--import", "tsx", script, JSON.stringify(jobs)], {
    cwd: root,
    timeout: 30_000,
    encoding: "utf8",
  });
  return JSON.parse(out.trim().split("\n").pop()!) as ChildReport;
}

function loadError(path: string): MapError {
  try {
    loadMap(path);
  } catch (error) {
    expect(error).toBeInstanceOf(MapError);
    return error as MapError;
  }
  throw new Error(`${path} loaded, expected a MapError`);
}

describe("decompression bombs in a map file", () => {
  const ones = Buffer.alloc(400);
  for (let i = 0; i < 100; i++) ones.writeUInt32LE(1, i * 4);
  const small = write("small.tmx", tmx(10, 10, zlib.deflateSync(ones).toString("base64")));
  const zlibMap = write("zlib.tmx", tmx(10, 10, zlibBomb.toString("base64")));
  const gzipMap = write("gzip.tmj", tmj(10, 10, gzipBomb.toString("base64"), "gzip"));
  // A layer that declares a huge size would make its own size legal: the declaration is bounded first.
  const hugeMap = write("huge.tmx", tmx(60000, 60000, zlibBomb.toString("base64")));
  const pngBomb = write(
    "idat.png",
    png([
      ["IHDR", ihdr(16, 16)],
      ["IDAT", zlibBomb],
      ["IEND", Buffer.alloc(0)],
    ]),
  );
  const iccpBomb = write(
    "iccp.png",
    png([
      ["IHDR", ihdr(16, 16)],
      ["iCCP", Buffer.concat([Buffer.from("bomb\0\0", "latin1"), zlibBomb])],
      ["IDAT", zlib.deflateSync(pixels16())],
      ["IEND", Buffer.alloc(0)],
    ]),
  );

  it("zlib and gzip layers, a huge declared layer and PNG chunks are refused or skipped without inflating the bomb", () => {
    const report = inChild([
      ["map", small],
      ["map", zlibMap],
      ["map", gzipMap],
      ["map", hugeMap],
      ["png", pngBomb],
      ["png", iccpBomb],
    ]);
    // Memory first: before the fix the bombs were refused too, but only after they were inflated.
    expect(report.grewKiB).toBeLessThan(GROWTH_LIMIT_KIB);
    expect(report.results).toEqual([
      "loaded",
      `MapError: ${zlibMap}: layer "ground": bad zlib data (inflates to more than the layer's 400 bytes: 10×10 cells × 4)`,
      `MapError: ${gzipMap}: layer "top": bad gzip data (inflates to more than the layer's 400 bytes: 10×10 cells × 4)`,
      `MapError: ${hugeMap}: layer "ground" is 60000×60000 cells, more than the ${1 << 26} a map's tile layers may hold together`,
      "Error: the image data inflates to more than the 1040 bytes its 16×16 header allows",
      "loaded",
    ]);
  });

  it("the skipped iCCP chunk leaves the image itself intact", () => {
    const image = readPng(iccpBomb);
    expect([image.width, image.height]).toEqual([16, 16]);
    expect([...image.data.subarray(4 * (16 * 3 + 5), 4 * (16 * 3 + 5) + 4)]).toEqual([80, 0, 48, 255]);
  });

  it("the legal size still loads: a 10×10 zlib layer of exactly 400 bytes", () => {
    expect(loadMap(small).width).toBe(10);
  });
});

describe("sizes stated before anything is decoded", () => {
  it("base64 longer than the layer is refused before it is decoded", () => {
    const long = Buffer.alloc(4000).toString("base64");
    expect(loadError(write("long.tmx", tmx(10, 10, long, ""))).reason).toBe(
      `layer "ground": base64 data is ${long.length} characters, a 10×10 layer is 536 (400 bytes)`,
    );
  });

  it("infinite chunks together may not declare more cells than a map holds", () => {
    const chunk = (x: number) =>
      `<chunk x="${x}" y="0" width="4096" height="4096">${zlib.deflateSync(Buffer.alloc(16)).toString("base64")}</chunk>`;
    const chunks = Array.from({ length: 5 }, (_, i) => chunk(i * 4096)).join("");
    const text = `<map orientation="orthogonal" width="8" height="8" tilewidth="8" tileheight="8" infinite="1">
 <tileset firstgid="1" name="t" tilewidth="8" tileheight="8" tilecount="16" columns="4"><image source="t.png" width="32" height="32"/></tileset>
 <layer id="1" name="ground" width="8" height="8"><data encoding="base64" compression="zlib">${chunks}</data></layer></map>`;
    expect(loadError(write("chunks.tmx", text)).reason).toBe(
      `layer "ground" chunk (16384, 0) is 4096×4096 cells, more than the ${1 << 26} a map's tile layers may hold together`,
    );
  });

  it("a map file or an external tileset over the size cap is refused before it is read", () => {
    const big = write("big.tmx", "");
    truncateSync(big, (64 << 20) + 1);
    expect(loadError(big).reason).toBe(`cannot read map file (it is ${(64 << 20) + 1} bytes, more than ${64 << 20})`);
    const tsx = write("big.tsx", "");
    truncateSync(tsx, (64 << 20) + 1);
    const map = write(
      "ext.tmx",
      `<map orientation="orthogonal" width="2" height="2" tilewidth="8" tileheight="8"><tileset firstgid="1" source="${tsx}"/><layer name="g" width="2" height="2"><data encoding="csv">1,1,1,1</data></layer></map>`,
    );
    expect(loadError(map).reason).toBe(
      `external tileset "${tsx}" cannot be read (it is ${(64 << 20) + 1} bytes, more than ${64 << 20})`,
    );
  });

  it("XML nested deeper than the parser allows is a MapError, not a crash", () => {
    const deep = `<map orientation="orthogonal" width="2" height="2" tilewidth="8" tileheight="8">${"<group>".repeat(5000)}${"</group>".repeat(5000)}</map>`;
    expect(loadError(write("deep.tmx", deep)).reason).toBe("bad XML: Maximum nested tags exceeded");
  });

  it("a PNG whose header claims a huge image is refused before decoding", () => {
    const path = write(
      "huge.png",
      png([
        ["IHDR", ihdr(100000, 100000)],
        ["IDAT", zlib.deflateSync(Buffer.alloc(16))],
        ["IEND", Buffer.alloc(0)],
      ]),
    );
    expect(() => readPng(path)).toThrow(`image is 100000×100000 pixels, more than ${1 << 24}`);
  });
});
