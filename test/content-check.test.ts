// `npm run -s content -- check <map>`: the bundled world's scripts pass; a copy with a kind that does not
// exist, an item misspelt inside a handler, a syntax error and a quest named twice fails with each problem's
// file and line, exit 1; a bad command line is exit 2.
import { execFile } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const TSX = fileURLToPath(new URL("../node_modules/.bin/tsx", import.meta.url));
const MAPS = join(ROOT, "maps");
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function runTool(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    execFile(TSX, ["ts/tools/content.ts", ...args], { cwd: ROOT, timeout: 60_000 }, (error, stdout, stderr) => {
      if (error && typeof error.code !== "number") fail(error);
      else done({ code: error ? (error.code as number) : 0, stdout, stderr });
    });
  });
}

/** A copy of the bundled map and its content in a folder of its own. */
function copyOfCaves(): string {
  const dir = mkdtempSync(join(tmpdir(), "caves-content-"));
  dirs.push(dir);
  for (const name of readdirSync(MAPS)) {
    if (/^caves\.(tmj|[a-z]+\.json)$/.test(name)) copyFileSync(join(MAPS, name), join(dir, name));
  }
  mkdirSync(join(dir, "caves.content"));
  for (const name of readdirSync(join(MAPS, "caves.content"))) {
    copyFileSync(join(MAPS, "caves.content", name), join(dir, "caves.content", name));
  }
  return dir;
}

describe("content check", () => {
  it("passes the bundled world's scripts", async () => {
    const { code, stdout } = await runTool(["check", "maps/caves.tmj"]);
    expect(stdout).toContain("content: 3 scripts, no problem (guard.lua, merchant.lua, old-tom.lua)");
    expect(code).toBe(0);
  });

  it("names every problem with its file and line, and exits 1", async () => {
    const dir = copyOfCaves();
    const tom = join(dir, "caves.content", "old-tom.lua");
    writeFileSync(
      tom,
      readFileSync(tom, "utf8").replace('items.count(player, "rusty key")', 'items.count(player, "rusty keys")'),
    );
    writeFileSync(join(dir, "caves.content", "x-dragon.lua"), 'on.talk("dragon", function() end)\n');
    writeFileSync(join(dir, "caves.content", "y-broken.lua"), "-- a typo on line 2\nlocal = 1\n");
    writeFileSync(join(dir, "caves.content", "z-twice.lua"), 'quest.define{ id = "rat_cull" }\n');
    writeFileSync(
      join(dir, "caves.content", "v-names.lua"),
      'on.talk("hall guard", function()\n  spawn("dragon", 1, 1)\nend)\non.quest("no_such", function() end)\n',
    );
    writeFileSync(
      join(dir, "caves.content", "u-grants.lua"),
      'on.talk("hall guard", function(guard, player)\n  give_xp(player, 25)\n  give_xp(player, 5000)\nend)\n',
    );
    writeFileSync(join(dir, "caves.content", "w-zone.lua"), 'on.enter("nowhere", function() end)\n');
    const { code, stdout } = await runTool(["check", join(dir, "caves.tmj")]);
    expect(stdout).toMatch(/^x-dragon\.lua:1: on\.talk: no creature kind named "dragon"$/m);
    expect(stdout).toMatch(/^y-broken\.lua:2: /m);
    expect(stdout).toMatch(/^old-tom\.lua:\d+: no item named "rusty keys"$/m);
    expect(stdout).toMatch(/z-twice\.lua: quest "rat_cull" is defined by two files/);
    expect(stdout).toMatch(/^v-names\.lua:2: no creature kind named "dragon"$/m);
    expect(stdout).toMatch(/^v-names\.lua:4: no quest named "no_such"$/m);
    expect(stdout).toMatch(/^w-zone\.lua:1: on\.enter: no zone named "nowhere"$/m);
    expect(stdout).toMatch(/^u-grants\.lua:3: give_xp grants 1 … 2000, not 5000$/m);
    expect(stdout).not.toMatch(/u-grants\.lua:2:/);
    expect(stdout).toContain("content: 8 problems in 9 scripts");
    expect(code).toBe(1);
  });

  it("refuses a bad command line with one line and exit 2", async () => {
    const { code, stderr } = await runTool(["chekc", "maps/caves.tmj"]);
    expect(stderr).toContain('content: unknown command "chekc"');
    expect(code).toBe(2);
  });
});
