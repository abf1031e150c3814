// The content API a script gets (every `sandbox.expose("…")` of ts/server/scripting/) and the one an
// editor completes (maps/content-api.meta.lua, for the Lua language server) are the same list: a function
// added to one and not the other fails here, naming it. Names starting "__" are the sandbox's own.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const SCRIPTING = join(ROOT, "ts/server/scripting");

function exposed(): Set<string> {
  const names = new Set<string>();
  for (const file of readdirSync(SCRIPTING).filter((name) => name.endsWith(".ts") && !name.endsWith(".test.ts"))) {
    const source = readFileSync(join(SCRIPTING, file), "utf8");
    for (const match of source.matchAll(/\.expose\(\s*"([^"]+)"/g)) if (!match[1].startsWith("__")) names.add(match[1]);
  }
  return names;
}

function declared(): Set<string> {
  const source = readFileSync(join(ROOT, "maps/content-api.meta.lua"), "utf8");
  return new Set([...source.matchAll(/^function ([\w.]+)\(/gm)].map((match) => match[1]));
}

describe("the content API's declaration (maps/content-api.meta.lua)", () => {
  it("declares every function the scripts are given, and nothing else", () => {
    const given = exposed();
    expect(given.size).toBeGreaterThan(30);
    expect([...declared()].sort()).toEqual([...given].sort());
  });
});
