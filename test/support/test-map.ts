// A small, fully known map for server tests, written as CSV + tile data into a
// temp directory. 80×70 tiles: 3×3 chunks, the last row/column partial, so the
// invisible border and out-of-world chunks are exercised too.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const FLOOR = 1;
export const WALL = 5;
export const TEST_MAP_WIDTH = 80;
export const TEST_MAP_HEIGHT = 70;

/** Tile id at (x, y) of the test map: a walled rim, a wall segment and some floor variety. */
export function testMapTile(x: number, y: number): number {
  if (x === 0 || y === 0 || x === TEST_MAP_WIDTH - 1 || y === TEST_MAP_HEIGHT - 1) return WALL;
  if (x === 40 && y >= 10 && y < 30) return WALL; // a north-south wall east of the spawn
  if ((x * 7 + y * 3) % 11 === 0) return 2; // gravel: a second floor id in every chunk
  return FLOOR;
}

export interface TestMap {
  path: string;
  dispose(): void;
}

export function writeTestMap(): TestMap {
  const dir = mkdtempSync(join(tmpdir(), "caves-test-map-"));
  const rows: string[] = [];
  for (let y = 0; y < TEST_MAP_HEIGHT; y++) {
    const row: number[] = [];
    for (let x = 0; x < TEST_MAP_WIDTH; x++) row.push(testMapTile(x, y));
    rows.push(row.join(","));
  }
  const path = join(dir, "test.csv");
  writeFileSync(path, rows.join("\n") + "\n");
  writeFileSync(
    join(dir, "test.tiles.json"),
    JSON.stringify({
      version: 1,
      tiles: [
        { id: FLOOR, name: "floor" },
        { id: 2, name: "gravel" },
        { id: WALL, name: "wall", collides: true, opaque: true },
      ],
    }),
  );
  return { path, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}
