// The server's import graph: services are handed narrow ports by the
// composition root, so no module of ts/server/ may reach back into the Game
// (only server.ts, which composes a running server, imports game-server.ts),
// and no import cycle may form among them. Type-only imports count: a cycle
// of types is a cycle of knowledge, and it is how the hub grew in the first place.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const SERVER = join(ROOT, "ts/server");
/** The one module allowed to import the Game: it builds the Game and its transports. */
const COMPOSITION_ROOT = "ts/server/server.ts";

function sourceFiles(dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...sourceFiles(path));
    else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts")) files.push(path);
  }
  return files;
}

/** Every relative import and re-export of `file` (value and type alike), as repository paths. */
function importsOf(file: string): string[] {
  const info = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
  return info.importedFiles
    .map((imported) => imported.fileName)
    .filter((specifier) => specifier.startsWith("."))
    .map((specifier) => relative(ROOT, resolve(dirname(file), specifier.replace(/\.js$/, ".ts"))));
}

/** The server's import graph: repository path → the server modules it imports. */
function serverGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(SERVER)) {
    graph.set(
      relative(ROOT, file),
      importsOf(file).filter((path) => path.startsWith("ts/server/")),
    );
  }
  return graph;
}

/** Each cycle once, as the path that closes it (depth-first, three colours). */
function cycles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (node: string): void => {
    state.set(node, "open");
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === "open") found.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, "done");
  };
  for (const node of [...graph.keys()].sort()) if (!state.has(node)) visit(node);
  return found;
}

describe("ts/server import graph", () => {
  const graph = serverGraph();

  it("sees the server's modules and their imports", () => {
    // Guards the walk itself: a graph without edges would pass every check below.
    expect(graph.size).toBeGreaterThan(40);
    expect(graph.get(COMPOSITION_ROOT)).toContain("ts/server/game-server.ts");
    expect(
      cycles(
        new Map([
          ["a", ["b"]],
          ["b", ["c"]],
          ["c", ["a"]],
        ]),
      ),
    ).toEqual([["a", "b", "c", "a"]]);
  });

  it("has no import cycle", () => {
    expect(cycles(graph).map((cycle) => cycle.join(" → "))).toEqual([]);
  });

  it("lets only the composition root import game-server.ts", () => {
    const importers = [...graph].filter(([, imports]) => imports.includes("ts/server/game-server.ts")).map(([f]) => f);
    expect(importers).toEqual([COMPOSITION_ROOT]);
  });
});
