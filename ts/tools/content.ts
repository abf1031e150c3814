// `npm run -s content -- check <map>` (docs/content.md § Checking and reloading): loads a map's content
// scripts into a world made from the map — its kinds, its item catalogue — exactly as the server does,
// then checks the names the scripts use inside their handlers (quests, shops, items, creature kinds),
// which only a player's action would otherwise reach, and the experience a `give_xp` with a written
// amount grants. (Zones, the items of on.pickup / on.use / on.equip and a quest's `xp` are checked as
// the scripts load: a wrong one is a load error.) Every problem is printed with its file and line; exit 1 on any.
import { readFileSync } from "node:fs";
import { runProgram, UsageError } from "../cli/command-line.js";
import { contentDirFor, readContentFiles } from "../server/content/content-files.js";
import { MapError } from "../server/content/map-error.js";
import { Game } from "../server/game-server.js";
import { Logger } from "../server/ops/log.js";
import { LuaRuntime } from "../server/scripting/lua-sandbox.js";
import { MAX_XP_GRANT } from "../server/scripting/script-room.js";
import { readWorldMap } from "../server/world/world-map.js";
import { loadCore } from "../wasm/node.js";

const USAGE = `content — check a map's content scripts (<map>.content/*.lua).

Usage: npm run -s content -- check <map file>

Loads every script into a world made from the map (its creature kinds and item catalogue), as the server
would, and checks the quests, shops, items and creature kinds the scripts name and the experience they grant.
Prints each problem with its file and line.
Exit status: 0 no problem, 1 a problem, 2 a bad command line.
`;

interface Options {
  mapPath: string;
}

function parse(argv: readonly string[]): { kind: "help" } | { kind: "run"; options: Options } {
  if (argv.includes("-h") || argv.includes("--help")) return { kind: "help" };
  const [command, mapPath, ...rest] = argv;
  if (command !== "check")
    throw new UsageError(command === undefined ? "say what to do: check <map file>" : `unknown command "${command}"`);
  if (mapPath === undefined) throw new UsageError("check needs a map file");
  if (rest.length > 0) throw new UsageError(`unexpected argument "${rest[0]}"`);
  return { kind: "run", options: { mapPath } };
}

/** A name a script uses in a call, found in its text: which call, the name, and its line. */
interface NameUse {
  readonly file: string;
  readonly line: number;
  readonly what: "quest" | "shop" | "item" | "creature kind";
  readonly name: string;
}

/** The literal names the scripts pass to the API calls that take a quest, a shop or an item. */
export function namesUsed(file: string, source: string): NameUse[] {
  const uses: NameUse[] = [];
  const patterns: [RegExp, NameUse["what"]][] = [
    [/quest\.(?:state|offered|start|progress|complete)\s*\([^,()]+,\s*"([^"]+)"/g, "quest"],
    [/shop\.open\s*\([^,()]+,\s*"([^"]+)"/g, "shop"],
    [/shop\.stock\s*\(\s*"([^"]+)"/g, "shop"],
    [/items\.count\s*\([^,()]+,\s*"([^"]+)"/g, "item"],
    [/on\.quest\s*\(\s*"([^"*]+)"/g, "quest"],
    [/(?<![.\w])spawn\s*\(\s*"([^"]+)"/g, "creature kind"],
  ];
  const lines = source.split("\n");
  lines.forEach((text, index) => {
    if (text.trimStart().startsWith("--")) return;
    for (const [pattern, what] of patterns) {
      for (const match of text.matchAll(pattern)) uses.push({ file, line: index + 1, what, name: match[1] });
    }
  });
  return uses;
}

/** The experience `give_xp(player, n)` grants where the script writes `n` as a number: each with its line. */
export function grantsUsed(file: string, source: string): { file: string; line: number; amount: number }[] {
  const grants: { file: string; line: number; amount: number }[] = [];
  source.split("\n").forEach((text, index) => {
    if (text.trimStart().startsWith("--")) return;
    for (const match of text.matchAll(/(?<![.\w])give_xp\s*\([^,()]+,\s*(-?[\d.]+)\s*\)/g)) {
      grants.push({ file, line: index + 1, amount: Number(match[1]) });
    }
  });
  return grants;
}

async function run(options: Options): Promise<number> {
  const files = readContentFiles(options.mapPath);
  if (files.length === 0) {
    process.stdout.write(`content: no scripts in ${contentDirFor(options.mapPath)}\n`);
    return 0;
  }
  const map = readWorldMap(options.mapPath);
  const game = new Game(
    await loadCore(),
    map,
    { content: { runtime: await LuaRuntime.load(), files } },
    new Logger("silent"),
  );
  const problems: string[] = [];
  try {
    const status = game.scripts!.status() as {
      files: { name: string; loadError: string | null; lastError: string | null }[];
    };
    for (const file of status.files) {
      if (file.loadError !== null) problems.push(file.loadError);
      else if (file.lastError !== null) problems.push(`${file.name}: ${file.lastError}`);
    }
    const quests = new Set(game.scripts!.catalogue().quests.map((quest) => quest.id));
    const items = new Set(map.items?.map((item) => item.name) ?? []);
    const kinds = new Set(map.npcKinds?.map((kind) => kind.name) ?? []);
    for (const file of files) {
      for (const use of namesUsed(file.name, readFileSync(file.path, "utf8"))) {
        const known =
          use.what === "quest"
            ? quests.has(use.name)
            : use.what === "shop"
              ? game.scripts!.shops.has(use.name)
              : use.what === "creature kind"
                ? kinds.has(use.name)
                : items.has(use.name);
        if (!known) problems.push(`${use.file}:${use.line}: no ${use.what} named "${use.name}"`);
      }
      for (const grant of grantsUsed(file.name, readFileSync(file.path, "utf8"))) {
        if (!Number.isInteger(grant.amount) || grant.amount < 1 || grant.amount > MAX_XP_GRANT) {
          problems.push(`${grant.file}:${grant.line}: give_xp grants 1 … ${MAX_XP_GRANT}, not ${grant.amount}`);
        }
      }
    }
  } finally {
    game.shutdown();
  }
  for (const problem of problems) process.stdout.write(`${problem}\n`);
  process.stdout.write(
    problems.length === 0
      ? `content: ${files.length} scripts, no problem (${files.map((file) => file.name).join(", ")})\n`
      : `content: ${problems.length} problem${problems.length === 1 ? "" : "s"} in ${files.length} scripts\n`,
  );
  return problems.length === 0 ? 0 : 1;
}

runProgram({
  name: "content",
  usage: USAGE,
  parse,
  run: async (options) => {
    try {
      return await run(options);
    } catch (error) {
      if (!(error instanceof MapError)) throw error;
      process.stderr.write(`content: ${error.message}\n`);
      return 1;
    }
  },
});
