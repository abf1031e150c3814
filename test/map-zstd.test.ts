// zstd layer data (issue 16): decoded with fzstd, because Node 20 has no zstd.
// The compressed layers are made here with the zstd command-line tool (the
// reference implementation), so the maps are real zstd as Tiled writes it; a
// frame that does not state its size, or states another, is refused by name,
// and no header can make the loader allocate more than the layer's own bytes.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadMap, MapError } from "../ts/server/map/load-map.js";
import { zstdFrameHeader } from "../ts/server/map/zstd-layer.js";

const zstdFrameContentSize = (bytes: Uint8Array) => zstdFrameHeader(bytes)?.contentSize ?? null;

const dir = mkdtempSync(join(tmpdir(), "map-zstd-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Whether the zstd tool runs here; without it the tests that need it fail with the reason. */
function zstdTool(): boolean {
  try {
    execFileSync("zstd", ["--version"], { stdio: "pipe", timeout: 5_000 });
    return true;
  } catch {
    return false;
  }
}
const HAVE_ZSTD = zstdTool();
let counter = 0;

/**
 * `bytes` compressed by the zstd tool, from a file (so the frame states its content size, as Tiled's
 * does; from a pipe the tool cannot know it); `extra` are its options (e.g. --no-content-size).
 */
function zstdCompress(bytes: Uint8Array, extra: string[] = []): Buffer {
  if (!HAVE_ZSTD) throw new Error("the zstd command-line tool is not installed: cannot make a zstd map to test");
  const input = join(dir, `${counter++}.raw`);
  writeFileSync(input, bytes);
  return execFileSync("zstd", ["-q", "-c", ...extra, input], { timeout: 10_000, maxBuffer: 1 << 24 });
}

function gidBytes(gids: number[]): Buffer {
  const bytes = Buffer.alloc(gids.length * 4);
  gids.forEach((gid, i) => bytes.writeUInt32LE(gid >>> 0, i * 4));
  return bytes;
}

function tmx(width: number, height: number, data: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<map version="1.10" orientation="orthogonal" width="${width}" height="${height}" tilewidth="8" tileheight="8" infinite="0">
 <tileset firstgid="1" name="t" tilewidth="8" tileheight="8" tilecount="16" columns="4"><image source="t.png" width="32" height="32"/></tileset>
 <layer id="1" name="ground" width="${width}" height="${height}"><data encoding="base64" compression="zstd">${data}</data></layer>
</map>`;
}

function write(name: string, text: string): string {
  const path = join(dir, `${counter++}-${name}`);
  writeFileSync(path, text);
  return path;
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

describe("zstd layer data", () => {
  const width = 40;
  const height = 35;
  const gids = Array.from({ length: width * height }, (_, i) => 1 + ((i * 7 + (i >> 5)) % 16));

  it("a TMX and a TMJ map with zstd layers load to the same tiles as the uncompressed layer", () => {
    const packed = zstdCompress(gidBytes(gids));
    expect(zstdFrameContentSize(packed)).toBe(width * height * 4);
    const fromTmx = loadMap(write("z.tmx", tmx(width, height, packed.toString("base64"))));
    expect([...fromTmx.tiles]).toEqual(gids);
    const tmj = {
      type: "map",
      orientation: "orthogonal",
      width,
      height,
      tilewidth: 8,
      tileheight: 8,
      tilesets: [
        { firstgid: 1, name: "t", tilecount: 16, columns: 4, image: "t.png", imagewidth: 32, imageheight: 32 },
      ],
      layers: [
        {
          type: "tilelayer",
          name: "g",
          width,
          height,
          encoding: "base64",
          compression: "zstd",
          data: packed.toString("base64"),
        },
      ],
    };
    expect([...loadMap(write("z.tmj", JSON.stringify(tmj))).tiles]).toEqual(gids);
  });

  it("the highest compression level and a long-distance window decode alike", () => {
    for (const options of [["-19"], ["--ultra", "-22", "--long=27"]]) {
      const packed = zstdCompress(gidBytes(gids), options);
      expect([...loadMap(write("z.tmx", tmx(width, height, packed.toString("base64")))).tiles]).toEqual(gids);
    }
  });

  it("a frame without its content size, a frame of the wrong size and junk are refused by name", () => {
    const unsized = zstdCompress(gidBytes(gids), ["--no-content-size"]);
    expect(zstdFrameContentSize(unsized)).toBeNull();
    expect(loadError(write("u.tmx", tmx(width, height, unsized.toString("base64")))).reason).toContain(
      "bad zstd data (frame 1 does not state its content size)",
    );
    const short = zstdCompress(gidBytes(gids.slice(1)));
    expect(loadError(write("s.tmx", tmx(width, height, short.toString("base64")))).reason).toBe(
      `layer "ground": bad zstd data (frames hold ${(width * height - 1) * 4} bytes, expected ${width * height * 4})`,
    );
    const junk = Buffer.from("not zstd at all, just text").toString("base64");
    expect(loadError(write("j.tmx", tmx(width, height, junk))).reason).toContain("bad zstd data");
  });

  it("a 14-byte frame that claims a 2 GB window, or more frames than the layer holds, is refused before decoding", () => {
    // Magic, a single-segment descriptor with an 8-byte content size, then 2^31 bytes stated: fzstd alone would
    // allocate that window; the frame walk compares it with the layer first.
    const header = Buffer.alloc(14);
    header.writeUInt32LE(0xfd2fb528, 0);
    header[4] = 0xe0; // single segment, 8-byte content size
    header.writeUInt32LE(0x80000000, 5);
    expect(zstdFrameContentSize(header)).toBe(0x80000000);
    expect(loadError(write("big.tmx", tmx(2, 2, header.toString("base64")))).reason).toBe(
      'layer "ground": bad zstd data (frame 1 asks for a 2147483648-byte window, more than 1048576)',
    );
    const twice = Buffer.concat([zstdCompress(gidBytes(gids)), zstdCompress(gidBytes(gids))]);
    expect(loadError(write("two.tmx", tmx(width, height, twice.toString("base64")))).reason).toBe(
      `layer "ground": bad zstd data (frames hold more than the layer's ${width * height * 4} bytes)`,
    );
    const halves = Buffer.concat([zstdCompress(gidBytes(gids.slice(0, 700))), zstdCompress(gidBytes(gids.slice(700)))]);
    expect([...loadMap(write("halves.tmx", tmx(width, height, halves.toString("base64")))).tiles]).toEqual(gids);
  });
});
