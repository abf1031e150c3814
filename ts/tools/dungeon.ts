// Dungeon levels for map makers (issue 15, docs/dungeons.md):
//   npm run -s dungeon -- --seed 42 --depth 3 --out level.tmj
// generates a level and writes it as a Tiled map beside its data files (the
// bundled tile data, creature kinds and item catalogue, so the level plays on
// its own: `npm start -- --map level.tmj`), then prints what it made. Exit
// status: 0 written, 1 could not write, 2 bad usage.
import { mkdirSync, writeFileSync } from "node:fs";
import { basename, dirname, extname, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { cavesItemsJson } from "../server/map/caves-items.js";
import { cavesNpcKindsJson } from "../server/map/caves-npcs.js";
import { cavesTileDataJson } from "../server/map/caves-tmj.js";
import { dungeonTmj } from "../server/dungeon/dungeon-tmj.js";
import {
  DUNGEON_DEFAULT_SIZE,
  DUNGEON_MAX_DEPTH,
  DUNGEON_MAX_SIZE,
  DUNGEON_MIN_SIZE,
  DungeonError,
  generateDungeon,
} from "../server/dungeon/generate-dungeon.js";

const USAGE = `Usage: dungeon --seed N --depth D --out PATH.tmj [--width W] [--height H]

Generates a dungeon level (rooms and corridors by BSP, caves by cellular automata, loops, stairs,
doors, chests and creatures by depth) and writes it as a Tiled map with its data files beside it:
PATH.tmj, PATH.tiles.json, PATH.npcs.json, PATH.items.json. The same seed and depth give the same level.

  --seed N     0..4294967295
  --depth D    1..${DUNGEON_MAX_DEPTH} (deeper: more caves, creatures and treasure)
  --out PATH   where to write the map (.tmj)
  --width W    ${DUNGEON_MIN_SIZE}..${DUNGEON_MAX_SIZE} tiles (default ${DUNGEON_DEFAULT_SIZE})
  --height H   ${DUNGEON_MIN_SIZE}..${DUNGEON_MAX_SIZE} tiles (default ${DUNGEON_DEFAULT_SIZE})

Exit status: 0 written, 1 could not write, 2 bad usage.`;

/** The client's tile sheet: the tileset image the written map points Tiled at. */
const TILES_FOR_TILED = fileURLToPath(new URL("../client/assets/tiles-tiled.png", import.meta.url));

class UsageError extends Error {}

function integer(value: string | undefined, name: string, fallback?: number): number {
  if (value === undefined) {
    if (fallback !== undefined) return fallback;
    throw new UsageError(`--${name} is required`);
  }
  if (!/^\d+$/.test(value)) throw new UsageError(`--${name} must be a whole number, got ${JSON.stringify(value)}`);
  return Number(value);
}

export function main(args: string[]): number {
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({
      args,
      options: {
        seed: { type: "string" },
        depth: { type: "string" },
        out: { type: "string" },
        width: { type: "string" },
        height: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    }).values;
  } catch (error) {
    process.stderr.write(`dungeon: ${(error as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  let level;
  let out: string;
  try {
    if (typeof values.out !== "string" || extname(values.out) !== ".tmj") {
      throw new UsageError("--out must name a .tmj file");
    }
    out = resolve(values.out);
    level = generateDungeon({
      seed: integer(values.seed as string | undefined, "seed"),
      depth: integer(values.depth as string | undefined, "depth"),
      width: integer(values.width as string | undefined, "width", DUNGEON_DEFAULT_SIZE),
      height: integer(values.height as string | undefined, "height", DUNGEON_DEFAULT_SIZE),
    });
  } catch (error) {
    if (error instanceof UsageError || error instanceof DungeonError) {
      process.stderr.write(`dungeon: ${error.message}\n${USAGE}\n`);
      return 2;
    }
    throw error;
  }
  const dir = dirname(out);
  const stem = basename(out, ".tmj");
  const image = relative(dir, TILES_FOR_TILED).split("\\").join("/");
  try {
    mkdirSync(dir, { recursive: true });
    writeFileSync(out, dungeonTmj(level, image));
    writeFileSync(join(dir, `${stem}.tiles.json`), cavesTileDataJson());
    writeFileSync(join(dir, `${stem}.npcs.json`), cavesNpcKindsJson());
    writeFileSync(join(dir, `${stem}.items.json`), cavesItemsJson());
  } catch (error) {
    process.stderr.write(`dungeon: cannot write ${out}: ${(error as Error).message}\n`);
    return 1;
  }
  const caves = level.rooms.filter((room) => room.cave).length;
  process.stdout.write(
    [
      `wrote ${out} (${level.width}×${level.height}, seed ${level.seed}, depth ${level.depth})`,
      `  rooms ${level.rooms.length} (${caves} caves), loops ${level.loops}`,
      `  stairs up (${level.entry.x}, ${level.entry.y}), stairs down (${level.exit.x}, ${level.exit.y})`,
      `  doors ${level.doors.length} (closed, at room entrances)`,
      `  chests ${level.chests.length}: ${level.chests.map((chest) => chest.items).join(" | ")}`,
      `  creatures: ${creatureSummary(level.spawns)}`,
      `  beside it: ${stem}.tiles.json, ${stem}.npcs.json, ${stem}.items.json`,
      `  play it: npm start -- --map ${values.out}`,
      "",
    ].join("\n"),
  );
  return 0;
}

/** "12 cave spider, 7 skeleton in 9 rooms". */
function creatureSummary(spawns: readonly { kind: string; count: number }[]): string {
  if (spawns.length === 0) return "none";
  const byKind = new Map<string, number>();
  for (const spawn of spawns) byKind.set(spawn.kind, (byKind.get(spawn.kind) ?? 0) + spawn.count);
  const kinds = [...byKind].map(([kind, count]) => `${count} ${kind}`).join(", ");
  return `${kinds} in ${spawns.length} rooms`;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = main(process.argv.slice(2));
}
