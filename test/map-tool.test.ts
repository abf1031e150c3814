// The map tool (`npm run -s map -- check PATH`): its report comes from the
// server's own loader and World, so the encodings it names are the ones the
// server sends; refused maps exit 1 naming the reason, bad usage exits 2.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { checkMap } from "../ts/tools/map.js";
import type { Core } from "../ts/wasm/core.js";
import { loadCore } from "../ts/wasm/node.js";
import { MAPS_REAL } from "./support/maps-real.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const TSX = fileURLToPath(new URL("../node_modules/.bin/tsx", import.meta.url));
const real = (file: string) => resolve(MAPS_REAL, file);

let core: Core;
beforeAll(async () => {
  core = await loadCore();
});

function runTool(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    execFile(TSX, ["ts/tools/map.ts", ...args], { cwd: ROOT, timeout: 60_000 }, (error, stdout, stderr) => {
      if (error && typeof error.code !== "number") fail(error);
      else done({ code: error ? (error.code as number) : 0, stdout, stderr });
    });
  });
}

describe("map check", () => {
  it("names each chunk's encoding: sourceoftales has 30 wide chunks, its 949-id chunk in 3 parts", () => {
    const { lines, errors } = checkMap(real("sourceoftales/maps/goldenfields/main.tmx"), core);
    expect(errors).toEqual([]);
    const text = lines.join("\n");
    expect(text).toContain("200 × 200 tiles of 32 × 32 px");
    // Issue 16: every distinct stack of its 12 drawn layers (and of its 96 px trees' pieces) is an id.
    expect(text).toContain("at most 949 ids in one chunk");
    expect(text).toMatch(/ChunkPacket \(≤ 64 ids\): 19 chunks/);
    expect(text).toMatch(/ChunkWidePacket \(> 64 ids\): 30 chunks, 66 datagrams/);
    expect(text).toContain("(1, 3): 949 ids → 3 parts");
    // Its Over layers are drawn over the entities (docs/maps.md § Over layers): a cell whose only tile is
    // over is a stack id too (8208 → 8221), and under and over parts share atlas tiles apart (8139 → 4367).
    expect(text).toContain("102 collision twins, 8221 stack ids");
    expect(text).toMatch(/art: the map's own, 4367 atlas tiles of 32 px/);
    expect(text).toContain("Collision: collision only");
    expect(text).toContain("set_fence: hidden: ignored");
    expect(text).toContain("WARP: 35");
    // Warps are followed now (issue 16): the two same-map ladders; the others lead to maps not in the folder.
    expect(text).toContain("warps: 35 (2 followed, 33 not)");
    expect(text).toMatch(/"mountain ladder down" at \(153, 11\): followed to world \(153, 14\)/);
    expect(text).toMatch(/"to Pub" at \(118, 73\): not followed: .*"goldenfields\/pub" is not in the folder/);
    expect(text).toMatch(/spawns: none in the map; players start on the free cell nearest the centre/);
  }, 60_000); // it builds the 4367-tile atlas as the server does: seconds on a busy machine

  it("reports the tilesets' tile animations and what plays (island's beach tileset, its image missing; forest)", () => {
    const island = checkMap(real("mapeditor-tiled/rpg/island.tmx"), core);
    expect(island.errors).toEqual([]);
    // beach_tileset.png is not redistributable: every frame is the placeholder, so nothing animates.
    expect(island.lines).toContain(
      "animations: 33 animated tiles; 0 ids animate, 0 frames in all (at most 32 per stack); " +
        "none changes the picture (a missing image draws every frame alike)",
    );
    expect(island.lines).toContain('  tileset "beach_tileset": 33 tiles, 3..4 frames, cycles up to 1000 ms');
    const forest = checkMap(real("mapeditor-tiled/forest/forest.tmx"), core);
    expect(forest.lines).toContain('  tileset "forest": 1 tiles, 2..2 frames, cycles up to 300 ms');
    expect(checkMap(real("rs-tiled/tiled_base64.tmx"), core).lines.join("\n")).not.toContain("animations:");
  });

  it("a map of narrow chunks only: no wide chunk", () => {
    const { lines, errors } = checkMap(real("rs-tiled/tiled_base64.tmx"), core);
    expect(errors).toEqual([]);
    expect(lines.join("\n")).toMatch(/ChunkWidePacket \(> 64 ids\): 0 chunks, 0 datagrams/);
  });

  it("reports collision objects, tile collision shapes and tile objects (issue 16)", () => {
    const dir = mkdtempSync(join(tmpdir(), "map-tool-"));
    try {
      const path = join(dir, "shapes.tmx");
      const ground = Array.from({ length: 64 }, () => 1).join(",");
      writeFileSync(
        path,
        `<map orientation="orthogonal" width="8" height="8" tilewidth="8" tileheight="8">
 <tileset firstgid="1" name="t" tilewidth="8" tileheight="8" tilecount="4" columns="2"><image source="t.png" width="16" height="16"/>
  <tile id="2"><objectgroup><object id="1" x="0" y="0" width="8" height="8"/></objectgroup></tile>
 </tileset>
 <layer name="ground" width="8" height="8"><data encoding="csv">${ground}</data></layer>
 <objectgroup name="Collisions"><object id="1" x="0" y="0" width="16" height="8"/><object id="2" x="0" y="0"><polyline points="0,0 8,8"/></object></objectgroup>
 <objectgroup name="things"><object id="3" gid="3" x="32" y="32"/><object id="4" gid="2" x="41" y="40"/><object id="5" gid="2" x="8" y="64" rotation="30"/></objectgroup>
</map>`,
      );
      const { lines, errors } = checkMap(path, core);
      expect(errors).toEqual([]);
      // The polyline from (0, 0) to (8, 8) passes through cell (0, 0) only, which the rectangle blocks too.
      expect(lines).toContain(
        '  collision objects: 2 shapes (layers "Collisions") block 2 cells (a cell blocks when a shape covers its centre or a polyline passes through it)',
      );
      expect(lines.join("\n")).not.toContain("without an area");
      expect(lines).toContain("  tile collision shapes: 1 tiles with shapes drawn inside block 1 cells");
      expect(lines).toContain(
        "tile objects: 2 are their cells' tiles (collision, drawn id) at their object layer's place in the stack (1 off the grid stand in the nearest cell, at most 1 px away)",
      );
      expect(lines).toContain(
        "  2 drawn free at their own place, size and rotation (0 scaled; the scaled, rotated and outside ones block nothing)",
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("warns of cells whose tile id is in no tileset (left empty, as Tiled shows them) and does not refuse the map", () => {
    const dir = mkdtempSync(join(tmpdir(), "map-tool-"));
    try {
      const path = join(dir, "gap.tmx");
      // Tileset "t" ends at 4 and "u" starts at 10: GID 7 lies in the gap (a tileset image that shrank).
      const cells = Array.from({ length: 64 }, (_, index) => (index === 9 ? 7 : 1)).join(",");
      writeFileSync(
        path,
        `<map orientation="orthogonal" width="8" height="8" tilewidth="8" tileheight="8">
 <tileset firstgid="1" name="t" tilewidth="8" tileheight="8" tilecount="4" columns="2"><image source="t.png" width="16" height="16"/></tileset>
 <tileset firstgid="10" name="u" tilewidth="8" tileheight="8" tilecount="4" columns="2"><image source="u.png" width="16" height="16"/></tileset>
 <layer name="ground" width="8" height="8"><data encoding="csv">${cells}</data></layer>
</map>`,
      );
      const { lines, errors } = checkMap(path, core);
      expect(errors).toEqual([]);
      expect(lines).toContain(
        '  warning: layer "ground": tile id 7 is not in any tileset: the cell at (1, 1) left empty, as Tiled shows it',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("reports the doors and chests as the server places them (the bundled caves)", () => {
    const { lines, errors } = checkMap(resolve(ROOT, "maps/caves.tmj"), core);
    expect(errors).toEqual([]);
    const text = lines.join("\n");
    expect(text).toMatch(/^doors: 5 \(1 open, 4 closed, 1 locked; keys: "rusty key"\)$/m);
    expect(text).toMatch(
      /^ {2}door \d+ "vault door" at \(\d+, \d+\): locked \(key "rusty key"\), tiles 17 closed \/ 18 open$/m,
    );
    expect(lines.filter((line) => line.startsWith("  door ")).length).toBe(5);
    expect(text).toMatch(/^chests: 5 holding \d+ stacks$/m);
  });

  it("reports what the server refuses as an error, not a crash", () => {
    expect(checkMap(real("mapeditor-tiled/isometric_grass_and_water.tmx"), core).errors).toEqual([
      `${real("mapeditor-tiled/isometric_grass_and_water.tmx")}: unsupported orientation: isometric`,
    ]);
    expect(checkMap(real("no/such/map.tmx"), core).errors[0]).toMatch(/cannot read map file \(ENOENT\)/);
  });

  it("the CLI exits 0 for a map the server starts on, 1 for one it refuses, 2 for bad usage", async () => {
    const [good, bad, usage] = await Promise.all([
      runTool(["check", real("mapeditor-tiled/rpg/island.tmx")]),
      runTool(["check", real("mapeditor-tiled/hexagonal-mini.tmx")]),
      runTool(["inspect"]),
    ]);
    expect(good.code).toBe(0);
    expect(good.stdout).toContain("ChunkWidePacket (> 64 ids): 2 chunks");
    expect(good.stdout).toContain("ok: the server would start on this map");
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("unsupported orientation: hexagonal");
    expect(usage.code).toBe(2);
  }, 90_000);
});
