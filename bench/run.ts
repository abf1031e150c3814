// `npm run bench [-- --quick] [-- --only codec,pathfind,blit,server,npcs,combat,levels,content,recording,client,consoles,social]`: runs the
// benchmark suites, writes bench/results/<suite>.json and regenerates
// bench/REPORT.md with its SVG charts. docs/benchmarks.md explains the output.
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { log } from "./lib/harness.js";
import type { RunOptions } from "./lib/harness.js";
import type { SuiteResult } from "./lib/results.js";
import type { ContentScriptSet } from "./server/world.js";
import { RESULTS_DIR, writeReport } from "./report.js";
import { runBlit } from "./suites/blit.js";
import { runCapacity } from "./suites/capacity.js";
import { runClient } from "./suites/client.js";
import { runCodec } from "./suites/codec.js";
import { parseContentRows, runServerContent } from "./suites/content.js";
import { runServerLevels } from "./suites/levels.js";
import { runRecording } from "./suites/recording.js";
import { runConsoles } from "./suites/console.js";
import { runSocial } from "./suites/social.js";
import { runPathfind } from "./suites/pathfind.js";
import {
  type NpcRowSpec,
  parseNpcRows,
  runServer,
  runServer5000,
  runServerCombat,
  runServerNpcs,
} from "./suites/server.js";

type SuiteOptions = RunOptions & {
  npcRows?: NpcRowSpec[];
  npcBots?: number;
  colyseusCounts?: number[];
  bigBots?: number[];
  botCores?: number[];
  cpuProfileDir?: string;
  contentRows?: ContentScriptSet[];
  repeat?: number;
};

const SUITES: Record<string, (options: SuiteOptions) => Promise<SuiteResult>> = {
  codec: runCodec,
  pathfind: runPathfind,
  blit: runBlit,
  server: runServer,
  npcs: runServerNpcs,
  combat: runServerCombat,
  server5000: runServer5000,
  capacity: runCapacity,
  levels: runServerLevels,
  content: runServerContent,
  recording: runRecording,
  client: runClient,
  consoles: runConsoles,
  social: runSocial,
};
/**
 * Suites `npm run bench` runs without --only (server5000 takes two cores' worth of bots and minutes of joins; capacity
 * sweeps both servers up to where they stop holding, ~15 minutes).
 */
const DEFAULT_SUITES = [
  "codec",
  "pathfind",
  "blit",
  "server",
  "npcs",
  "combat",
  "levels",
  "content",
  "recording",
  "client",
  "consoles",
  "social",
];

const HELP = `usage: npm run bench -- [--quick] [--only SUITE[,SUITE...]] [--bots N[,N...]]

  --quick        short smoke run: small time budgets, fewer pairs, server at N=100 for a few seconds
  --only LIST    run only these suites (${Object.keys(SUITES).join(", ")}); the others keep their last results
  --bots LIST    server suite: the bot counts to try (default 100,250,500,750,1000,1500,2000)
  --colyseus LIST  server suite: the bot counts of the Colyseus 0.17 rows (default 500,1000, stopping after the
                 first that does not keep up; 100 with --quick; "none" to skip them). Colyseus is installed into
                 bench/colyseus/node_modules on first use (npm ci --prefix bench/colyseus)
  --npcs LIST    npcs suite: the rows, each COUNT or COUNT@BUDGET (COUNT NPCs in the world; BUDGET the
                 server's --npc-budget), "+deltas" after either for bots that ask for entity deltas (P-21), "+compact" for compact ones (P-25);
                 0 is the row without NPCs the others are compared with (default 0,20000,100000,
                 20000@20000000,0+deltas,20000+deltas,100000+deltas; with --quick 0,20000 at 100 bots)
  --npc-bots N   npcs, combat, levels, content, recording, consoles and social suites: bots in every row (default 2000)
  --content LIST content suite: the rows, of none (no scripts: the comparison), realistic (a dialog per talk) and
                 hostile (every talk runs into the instruction budget and the memory cap); default all three, in
                 that order. 2000 talking bots (100 with --quick), 20,000 NPCs of which 2,000 are talked to
  --big-bots LIST  server5000 suite (only with --only): the bot counts (default 5000), each with seed packets and deltas;
                 capacity suite: our sweep's steps (default 1000,2000,...,8000, stopping at the first that does not hold)
  --colyseus LIST  (capacity suite) Colyseus's sweep's steps (default 250,500,...,2000, stopping the same way)
  --bot-cores LIST server5000 and capacity suites: one bot process per entry, pinned to that core (default 1,1)
  --repeat N     consoles suite: the pairs of rows (without, with ten consoles) to run, the verdict on their median
                 (default 3; 1 with --quick)
  --cpu-prof DIR server5000, npcs, content and consoles suites: run the server under node --cpu-prof, one .cpuprofile per
                 row in DIR (npx tsx bench/server/profile-summary.ts FILE says where the time went)
`;

const { values } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    only: { type: "string" },
    bots: { type: "string" },
    colyseus: { type: "string" },
    npcs: { type: "string" },
    "npc-bots": { type: "string" },
    "big-bots": { type: "string" },
    "bot-cores": { type: "string" },
    "cpu-prof": { type: "string" },
    content: { type: "string" },
    repeat: { type: "string" },
    help: { type: "boolean", short: "h", default: false },
  },
});
if (values.help) {
  process.stdout.write(HELP);
  process.exit(0);
}
const names = values.only ? values.only.split(",").map((s) => s.trim()) : DEFAULT_SUITES;
for (const name of names) {
  if (!(name in SUITES)) {
    process.stderr.write(`unknown suite "${name}"\n${HELP}`);
    process.exit(2);
  }
}
const serverCounts = values.bots?.split(",").map(Number);
if (serverCounts?.some((n) => !Number.isInteger(n) || n < 1)) {
  process.stderr.write(`--bots takes positive integers, got "${values.bots}"\n`);
  process.exit(2);
}
const colyseusCounts =
  values.colyseus === undefined ? undefined : values.colyseus === "none" ? [] : values.colyseus.split(",").map(Number);
if (colyseusCounts?.some((n) => !Number.isInteger(n) || n < 1)) {
  process.stderr.write(`--colyseus takes positive integers or "none", got "${values.colyseus}"\n`);
  process.exit(2);
}
let npcRows: NpcRowSpec[] | undefined;
try {
  npcRows = values.npcs === undefined ? undefined : parseNpcRows(values.npcs);
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exit(2);
}
let contentRows: ContentScriptSet[] | undefined;
try {
  contentRows = values.content === undefined ? undefined : parseContentRows(values.content);
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exit(2);
}
const npcBots = values["npc-bots"] === undefined ? undefined : Number(values["npc-bots"]);
if (npcBots !== undefined && (!Number.isInteger(npcBots) || npcBots < 1)) {
  process.stderr.write(`--npc-bots takes a positive integer, got "${values["npc-bots"]}"\n`);
  process.exit(2);
}

const positiveList = (text: string | undefined, flag: string, min: number): number[] | undefined => {
  if (text === undefined) return undefined;
  const list = text.split(",").map(Number);
  if (list.some((n) => !Number.isInteger(n) || n < min)) {
    process.stderr.write(`${flag} takes integers ≥ ${min}, got "${text}"\n`);
    process.exit(2);
  }
  return list;
};
const bigBots = positiveList(values["big-bots"], "--big-bots", 1);
const botCores = positiveList(values["bot-cores"], "--bot-cores", 0);
const repeat = positiveList(values.repeat, "--repeat", 1)?.[0];
const cpuProfileDir = values["cpu-prof"] === undefined ? undefined : resolve(values["cpu-prof"]);
if (cpuProfileDir) mkdirSync(cpuProfileDir, { recursive: true });

mkdirSync(RESULTS_DIR, { recursive: true });
for (const name of names) {
  log(`== suite ${name}`);
  const result = await SUITES[name]({
    quick: values.quick,
    serverCounts,
    npcRows,
    npcBots,
    colyseusCounts,
    bigBots,
    botCores,
    cpuProfileDir,
    contentRows,
    repeat,
  });
  writeFileSync(join(RESULTS_DIR, `${name}.json`), JSON.stringify(result, null, 1) + "\n");
  log(`   wrote bench/results/${name}.json`);
  for (const target of result.targets) {
    log(`   ${target.met === null ? "?" : target.met ? "✓" : "✗"} ${target.target}: ${target.measured}`);
  }
}
writeReport();
log("wrote bench/REPORT.md");
