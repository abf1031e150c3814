// Dungeon level rows (issue 15, docs/dungeons.md): generation time per 256 × 256 level by depth (the
// worker's work, generateDungeon), and what the tick pays to put a finished level into a world slot
// (World.fillSlot: 64 chunks into the wasm grid). The levels suite's first table (bench/suites/levels.ts),
// made on the bench's own thread before its servers start.
import { generateDungeon } from "../../ts/server/dungeon/generate-dungeon.js";
import { World } from "../../ts/server/world/world.js";
import { loadCore } from "../../ts/wasm/node.js";
import { fmt, loadNow } from "../lib/harness.js";
import type { Table } from "../lib/results.js";

const SIZE = 256;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1];
}

/** Generation ms per 256 × 256 level at depths 1, 3 and 6 over `seeds` seeds, and fillSlot ms. */
export async function dungeonLevelTable(quick: boolean): Promise<Table> {
  const seeds = quick ? 5 : 20;
  const rows: (string | number)[][] = [];
  let last = generateDungeon({ seed: 1, depth: 1, width: SIZE, height: SIZE });
  for (const depth of [1, 3, 6]) {
    const times: number[] = [];
    for (let seed = 1; seed <= seeds; seed++) {
      const start = performance.now();
      last = generateDungeon({ seed, depth, width: SIZE, height: SIZE });
      times.push(performance.now() - start);
    }
    rows.push([
      `generate ${SIZE}×${SIZE}, depth ${depth}`,
      seeds,
      fmt(median(times)),
      fmt(Math.max(...times)),
      loadNow(),
    ]);
  }
  const core = await loadCore();
  const flags = new Uint8Array(65536);
  const tiles = new Uint16Array(64 * 64).fill(1);
  const world = new World(
    core,
    { name: "bench", width: 64, height: 64, tiles, flags, spawns: [{ x: 1, y: 1 }], tileInfo: [] },
    { levelSlots: 1, levelSize: SIZE },
  );
  const installs: number[] = [];
  for (let round = 0; round < seeds; round++) {
    world.clearSlot(0);
    const start = performance.now();
    world.fillSlot(0, last.tiles, last.width, last.height);
    installs.push(performance.now() - start);
  }
  rows.push([
    `World.fillSlot ${SIZE}×${SIZE} (on the tick)`,
    seeds,
    fmt(median(installs)),
    fmt(Math.max(...installs)),
    loadNow(),
  ]);
  return {
    title: "Dungeon levels: generation per 256×256 level (in the worker) and putting one into a slot (on the tick)",
    columns: ["work", "levels", "median ms", "max ms", "load (1 min)"],
    rows,
    note:
      "Wall time on the bench thread. The generator runs in a worker_thread in the server " +
      "(ts/server/dungeon/level-generator.ts), so only the fillSlot row is tick time; the NPC spawns and chests " +
      "a level brings are added on the tick too (installMs in /api/status covers all of it).",
  };
}
