// Content scripts' cost (issue 38; docs/scripting.md): a real ScriptRoom on a real Game with the bundled
// world's scripts and `--contexts` extra files, each a talk handler of its own. Prints the cost of one
// talk event (a query answered by a handler that opens a dialog), the memory one script state holds, how
// long a file takes to load, and what a hostile handler (an endless loop, a memory bomb) costs before it is
// stopped — with the machine's load, as every figure here.
// Run: taskset -c 0 npx tsx bench/micro/scripting.ts [--events N] [--contexts N]
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { Game } from "../../ts/server/game-server.js";
import { readContentFiles } from "../../ts/server/content/content-files.js";
import { Logger } from "../../ts/server/ops/log.js";
import { LuaRuntime } from "../../ts/server/scripting/lua-sandbox.js";
import { readWorldMap } from "../../ts/server/world/world-map.js";
import { loadCore } from "../../ts/wasm/node.js";
import { joinAndBind } from "../../test/support/game-without-network.js";

const { values } = parseArgs({
  options: { events: { type: "string", default: "20000" }, contexts: { type: "string", default: "200" } },
});
const events = Number(values.events);
const contexts = Number(values.contexts);
const load = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
const mapPath = fileURLToPath(new URL("../../maps/caves.tmj", import.meta.url));

const extra = Array.from({ length: contexts }, (_, index) => ({
  name: `extra-${String(index).padStart(4, "0")}.lua`,
  path: "",
  source: `local said = 0\non.talk("hall guard", function(npc, player) said = said + 1 end)\n`,
}));
const hostile = [
  { name: "zz-loop.lua", path: "", source: `on.kill("cave rat", function() while true do end end)` },
  {
    name: "zz-bomb.lua",
    path: "",
    source: `on.kill("glow beetle", function() local t = {} while true do t[#t + 1] = ("x"):rep(256) end end)`,
  },
];
const runtime = await LuaRuntime.load();
const files = [...readContentFiles(mapPath), ...extra, ...hostile];
const loadStart = performance.now();
const game = new Game(await loadCore(), readWorldMap(mapPath), { content: { runtime, files } }, new Logger("silent"));
const loadMs = performance.now() - loadStart;
const scripts = game.scripts!;
const status = scripts.status() as { files: { name: string; memoryBytes: number }[] };
const memory = status.files.filter((file) => file.name.startsWith("extra-")).map((file) => file.memoryBytes);

const session = joinAndBind(game, "Bench", {
  key: "bench:1",
  address: "127.0.0.1",
  transport: "udp",
  send: () => {},
});
const tom = [...game.npcs.values()].find((npc) => npc.kind.name === "Old Tom")!.entity;
game.warps.teleport(session.entity, tom.x + 1, tom.y);
// Old Tom's handler: reads quest states, counts items, opens a dialog (the key keeps it one dialog).
for (let i = 0; i < 200; i++) scripts.onQuery(session, tom);
let start = performance.now();
for (let i = 0; i < events; i++) scripts.onQuery(session, tom);
const tomMicros = ((performance.now() - start) * 1000) / events;

const guard = [...game.npcs.values()].find((npc) => npc.kind.name === "hall guard")!.entity;
game.warps.teleport(session.entity, guard.x + 1, guard.y);
const guardEvents = Math.max(1, Math.floor(events / Math.max(1, contexts / 10)));
start = performance.now();
for (let i = 0; i < guardEvents; i++) scripts.onQuery(session, guard);
const perHandler = ((performance.now() - start) * 1000) / guardEvents / (contexts + 1);

const rat = [...game.npcs.values()].find((npc) => npc.kind.name === "cave rat")!.entity;
const beetle = [...game.npcs.values()].find((npc) => npc.kind.name === "glow beetle")!.entity;
start = performance.now();
scripts.onKill(session.entity, rat);
const loopMs = performance.now() - start;
start = performance.now();
scripts.onKill(session.entity, beetle);
const bombMs = performance.now() - start;

process.stdout.write(
  [
    `scripting (load ${load()}):`,
    `  ${files.length} files loaded with the world in ${loadMs.toFixed(0)} ms (${((loadMs * 1000) / files.length).toFixed(0)} µs a file, the world's own making included)`,
    `  memory per script state: median ${median(memory)} bytes (a one-handler file, ${contexts} of them)`,
    `  one talk to Old Tom (quest states, item counts, a dialog): ${tomMicros.toFixed(1)} µs (${events} events)`,
    `  one talk handler among ${contexts + 1} for the hall guard: ${perHandler.toFixed(2)} µs a handler`,
    `  a hostile endless loop stopped after ${loopMs.toFixed(1)} ms; a memory bomb after ${bombMs.toFixed(1)} ms (stops: budget ${scripts.stats.budgetStops}, memory ${scripts.stats.memoryStops})`,
  ].join("\n") + "\n",
);
game.shutdown();

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}
