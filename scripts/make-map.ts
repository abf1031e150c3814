// Regenerates the bundled map: maps/caves.tmj, maps/caves.tiles.json, maps/caves.npcs.json and maps/caves.items.json.
//   npx tsx scripts/make-map.ts          write the files
//   npx tsx scripts/make-map.ts --check  exit 1 if the committed files differ from what the generator makes
// Deterministic: the seed is fixed (DEFAULT_CAVE_SEED), so the output only changes when the generator does.
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { cavesNpcKindsJson } from "../ts/server/map/caves-npcs.js";
import { cavesItemsJson } from "../ts/server/map/caves-items.js";
import { cavesTileDataJson, cavesTmj } from "../ts/server/map/caves-tmj.js";
import { generateCaves } from "../ts/server/map/generate-caves.js";
import { loadMap } from "../ts/server/map/load-map.js";

const mapPath = fileURLToPath(new URL("../maps/caves.tmj", import.meta.url));
const tileDataPath = fileURLToPath(new URL("../maps/caves.tiles.json", import.meta.url));
const npcKindsPath = fileURLToPath(new URL("../maps/caves.npcs.json", import.meta.url));
const itemsPath = fileURLToPath(new URL("../maps/caves.items.json", import.meta.url));

const caves = generateCaves();
const outputs: [string, string][] = [
  [mapPath, cavesTmj(caves)],
  [tileDataPath, cavesTileDataJson()],
  [npcKindsPath, cavesNpcKindsJson()],
  [itemsPath, cavesItemsJson()],
];

if (process.argv.includes("--check")) {
  let stale = false;
  for (const [path, text] of outputs) {
    let committed = "";
    try {
      committed = readFileSync(path, "utf8");
    } catch {
      // missing counts as different
    }
    if (committed !== text) {
      console.error(`${path} differs from the generator's output; run npx tsx scripts/make-map.ts`);
      stale = true;
    }
  }
  process.exit(stale ? 1 : 0);
}

for (const [path, text] of outputs) writeFileSync(path, text);
const loaded = loadMap(mapPath);
const counts = new Map<number, number>();
for (const id of loaded.tiles) counts.set(id, (counts.get(id) ?? 0) + 1);
console.log(`wrote ${mapPath} (${loaded.width}×${loaded.height} tiles, seed 0x${caves.seed.toString(16)})`);
console.log(`  halls ${caves.halls.length}, pools ${caves.poolCount}, connecting tunnels ${caves.tunnelCount}`);
console.log(
  `  spawns ${loaded.spawns.length}, interactables ${loaded.interactables.map((item) => item.kind).join(", ")}`,
);
console.log(
  "  tiles: " +
    [...counts]
      .sort((a, b) => a[0] - b[0])
      .map(([id, count]) => `${loaded.tileData.get(id)?.name ?? id} ${count}`)
      .join(", "),
);
console.log(`wrote ${tileDataPath}`);
console.log(
  `wrote ${npcKindsPath} (${loaded.npcKinds.length} kinds; ${loaded.npcSpawns.length} spawns keeping ` +
    `${loaded.npcSpawns.reduce((total, spawn) => total + spawn.count, 0)} creatures alive)`,
);
console.log(
  `wrote ${itemsPath} (${loaded.items.length} items; chests: ${loaded.chests.map((chest) => chest.name).join(", ")})`,
);
