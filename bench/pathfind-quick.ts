// Paths per second of the A* searches: wasm bucket queue (default), wasm binary
// heap, and the JS reference. 256 × 256 grids with 20% and 35% random walls
// (seeded), 200 start/goal pairs drawn from the largest connected region, so
// every search finds a path. Run: npx tsx bench/pathfind-quick.ts [--wall]
// (CORE_WASM=<file> measures another build of the core module.)
//
// Time is this process's CPU time by default, so other work on the machine
// (parallel builds and tests) does not count against the searches; on an idle
// machine it equals wall time. --wall measures wall-clock time instead.
import { cpus, loadavg } from "node:os";
import { Bench } from "tinybench";
import { TILE_FLAG_COLLIDES } from "../ts/constants.js";
import { ACTION_DX, ACTION_DY, RefGrid } from "../ts/ref/sim.js";
import { loadCore } from "../ts/wasm/node.js";
import { WasmSim, type AstarQueue } from "../ts/wasm/sim.js";

const SIZE = 256;
const PAIRS = 200;
const FLOOR = 1;
const WALL = 5;
const UNLIMITED = 0x7fffffff;

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function wallGrid(seed: number, density: number): RefGrid {
  const random = mulberry32(seed);
  const grid = new RefGrid(SIZE, SIZE, 0, 0);
  grid.flags[WALL] = TILE_FLAG_COLLIDES;
  for (let i = 0; i < grid.tiles.length; i++) grid.tiles[i] = random() < density ? WALL : FLOOR;
  return grid;
}

/** Cells of the largest region connected under the movement rule (it is symmetric, so regions are well defined). */
function largestRegion(grid: RefGrid): number[] {
  const region = new Int32Array(SIZE * SIZE).fill(-1);
  let best: number[] = [];
  for (let seed = 0; seed < SIZE * SIZE; seed++) {
    if (region[seed] !== -1 || !grid.isFree(seed % SIZE, Math.floor(seed / SIZE))) continue;
    const cells = [seed];
    region[seed] = seed;
    for (let head = 0; head < cells.length; head++) {
      const x = cells[head] % SIZE;
      const y = Math.floor(cells[head] / SIZE);
      for (let action = 1; action <= 8; action++) {
        if (!grid.stepAllowed(x, y, action)) continue;
        const next = (y + ACTION_DY[action]) * SIZE + x + ACTION_DX[action];
        if (region[next] !== -1) continue;
        region[next] = seed;
        cells.push(next);
      }
    }
    if (cells.length > best.length) best = cells;
  }
  return best;
}

const wallClock = process.argv.includes("--wall");
/** Milliseconds of CPU time used by this process (user + system). */
function cpuNowMs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

const core = await loadCore();
const sim = new WasmSim(core);
const rows: Record<string, string | number>[] = [];

for (const density of [0.2, 0.35]) {
  const grid = wallGrid(density === 0.2 ? 20 : 35, density);
  const region = largestRegion(grid);
  const random = mulberry32(4711);
  const pairs: number[][] = [];
  while (pairs.length < PAIRS) {
    const a = region[Math.floor(random() * region.length)];
    const b = region[Math.floor(random() * region.length)];
    if (a !== b) pairs.push([a % SIZE, Math.floor(a / SIZE), b % SIZE, Math.floor(b / SIZE)]);
  }
  if (!sim.initGrid(SIZE, SIZE, 0, 0)) throw new Error("grid_init failed");
  sim.tiles.set(grid.tiles);
  sim.setFlags(grid.flags);

  // Same answers before measuring anything: all three must return the same lengths.
  let totalLength = 0;
  const expanded: Record<AstarQueue, number> = { bucket: 0, heap: 0 };
  for (const [sx, sy, gx, gy] of pairs) {
    const length = grid.astar(sx, sy, gx, gy, UNLIMITED).status;
    for (const queue of ["bucket", "heap"] as const) {
      const status = sim.astarStatus(sx, sy, gx, gy, UNLIMITED, queue);
      if (status !== length) throw new Error(`${queue} found ${status}, reference ${length}`);
      expanded[queue] += sim.lastExpanded;
    }
    totalLength += length;
  }

  const bench = new Bench({ time: 1500, warmup: true, ...(wallClock ? {} : { now: cpuNowMs }) });
  const runWasm = (queue: AstarQueue) => () => {
    for (const [sx, sy, gx, gy] of pairs) sim.astarStatus(sx, sy, gx, gy, UNLIMITED, queue);
  };
  bench.add("wasm bucket (astar)", runWasm("bucket"));
  bench.add("wasm heap (astar_heap)", runWasm("heap"));
  bench.add("JS reference", () => {
    for (const [sx, sy, gx, gy] of pairs) grid.astar(sx, sy, gx, gy, UNLIMITED);
  });
  await bench.run();

  const label = `${Math.round(density * 100)}% walls`;
  console.log(
    `${label}: region ${region.length} cells, mean path ${(totalLength / PAIRS).toFixed(1)} steps, ` +
      `mean expanded bucket ${(expanded.bucket / PAIRS).toFixed(0)}, heap ${(expanded.heap / PAIRS).toFixed(0)}`,
  );
  const reference = bench.tasks[2].result;
  const referencePeriod = "period" in reference ? reference.period : NaN;
  for (const task of bench.tasks) {
    const result = task.result;
    if (!("period" in result)) throw new Error(`${task.name}: ${result.state}`);
    rows.push({
      grid: label,
      search: task.name,
      "paths/s": Math.round((PAIRS * 1000) / result.period),
      "paths/s (median)": Math.round((PAIRS * 1000) / result.latency.p50),
      "± %": Number(((result.latency.moe / result.latency.mean) * 100).toFixed(1)),
      "x JS ref": Number((referencePeriod / result.period).toFixed(2)),
    });
  }
}
console.table(rows);
const load = loadavg()
  .map((average) => average.toFixed(1))
  .join(" ");
console.log(`${wallClock ? "wall-clock" : "process CPU"} time; load average ${load} on ${cpus().length} CPUs`);
