// The server's and the cluster's import graphs: services are handed narrow ports
// by the composition root, so no module of ts/server/ may reach back into the
// Game (only server.ts, which composes a running server, and replay-world.ts,
// which composes a replayed one from a flight recording, import game-server.ts,
// and in ts/cluster only region.ts, which builds a region's Game and holds it
// through its port, region-game.ts), and no import cycle may form. The world's
// data (content/) is a layer below both the map loader (map/) and the rooms:
// content/ imports nothing else of the server, map/ only content/, and nothing
// in ts/server imports the cluster above it. Type-only imports count: a cycle of
// types is a cycle of knowledge, and it is how the hub grew in the first place.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const SERVER = join(ROOT, "ts/server");
const CLUSTER = join(ROOT, "ts/cluster");
/** The one module allowed to import the Game: it builds the Game and its transports. */
const COMPOSITION_ROOT = "ts/server/server.ts";
/** The other: it builds a Game from a flight recording and feeds it the recorded inputs (docs/recording.md). */
const REPLAY_ROOT = "ts/server/replay-world.ts";

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

/** The import graph of the modules under `dir`: repository path → the modules under `prefix` it imports. */
function graphOf(dir: string, prefix: string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(dir)) {
    graph.set(
      relative(ROOT, file),
      importsOf(file).filter((path) => path.startsWith(prefix)),
    );
  }
  return graph;
}

const serverGraph = () => graphOf(SERVER, "ts/server/");

/**
 * The layers of ts/server that may import only what lies below them: a folder, and the folders of
 * ts/server its modules may import besides their own.
 */
const LAYERS: [string, string[]][] = [
  ["ts/server/content/", []],
  ["ts/server/map/", ["ts/server/content/"]],
];

/** The room a module of ts/server lies in, as a reader sees it: its folder, or the file itself at the root. */
function roomOf(path: string): string {
  const rest = path.slice("ts/server/".length);
  const slash = rest.indexOf("/");
  return slash < 0 ? path : `ts/server/${rest.slice(0, slash + 1)}`;
}

/** The graph of rooms: room → the other rooms its modules import. */
function roomGraph(graph: Map<string, string[]>): Map<string, string[]> {
  const rooms = new Map<string, Set<string>>();
  for (const [file, imports] of graph) {
    const from = roomOf(file);
    const to = rooms.get(from) ?? new Set<string>();
    rooms.set(from, to);
    for (const path of imports) if (roomOf(path) !== from) to.add(roomOf(path));
  }
  return new Map([...rooms].map(([room, to]) => [room, [...to].sort()]));
}

/** The imports that break a layer rule: "file → import". */
function layerBreaks(graph: Map<string, string[]>, layers: [string, string[]][]): string[] {
  const breaks: string[] = [];
  for (const [file, imports] of graph) {
    const layer = layers.find(([folder]) => file.startsWith(folder));
    if (layer === undefined) continue;
    const [folder, below] = layer;
    for (const path of imports) {
      if (!path.startsWith(folder) && !below.some((allowed) => path.startsWith(allowed)))
        breaks.push(`${file} → ${path}`);
    }
  }
  return breaks.sort();
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
    expect(importers.sort()).toEqual([REPLAY_ROOT, COMPOSITION_ROOT]);
  });

  it("keeps the world's data below the map loader, and the loader below the rooms", () => {
    // Guards the rule itself: an arrow from content/ up into a room is a break.
    expect(
      layerBreaks(
        new Map([
          ["ts/server/content/npc-kinds.ts", ["ts/server/content/data-file.ts", "ts/server/npc/npc-room.ts"]],
          ["ts/server/map/load-map.ts", ["ts/server/content/npc-kinds.ts"]],
        ]),
        LAYERS,
      ),
    ).toEqual(["ts/server/content/npc-kinds.ts → ts/server/npc/npc-room.ts"]);
    expect([...graph.keys()].filter((file) => file.startsWith("ts/server/content/")).length).toBeGreaterThan(5);
    expect(layerBreaks(graph, LAYERS)).toEqual([]);
  });

  it("has rooms (its folders, and the files at its root) that import one another one way only", () => {
    const rooms = roomGraph(graph);
    // Guards the walk: the rooms are there, and a folder that imported one importing it back would be found.
    expect(rooms.size).toBeGreaterThan(20);
    expect(rooms.get("ts/server/game-server.ts")).toContain("ts/server/npc/");
    expect(
      cycles(
        roomGraph(
          new Map([
            ["ts/server/talk/chat.ts", ["ts/server/sessions/session.ts"]],
            ["ts/server/sessions/session.ts", ["ts/server/talk/chat-channel.ts"]],
          ]),
        ),
      ),
    ).toEqual([["ts/server/sessions/", "ts/server/talk/", "ts/server/sessions/"]]);
    expect(cycles(rooms).map((cycle) => cycle.join(" → "))).toEqual([]);
  });

  it("never imports the cluster above it", () => {
    const upward = [...graphOf(SERVER, "ts/cluster/")].filter(([, imports]) => imports.length > 0);
    expect(upward.map(([file, imports]) => `${file} → ${imports.join(", ")}`)).toEqual([]);
  });
});

describe("ts/cluster import graph", () => {
  const graph = graphOf(CLUSTER, "ts/");

  it("sees the cluster's modules and their imports", () => {
    expect(graph.size).toBeGreaterThan(15);
    expect(graph.get("ts/cluster/region.ts")).toContain("ts/cluster/region-game.ts");
  });

  it("has no import cycle", () => {
    expect(cycles(graph).map((cycle) => cycle.join(" → "))).toEqual([]);
  });

  it("reaches the Game only in region.ts, which builds it and holds it through its port", () => {
    const importers = [...graph].filter(([, imports]) => imports.includes("ts/server/game-server.ts")).map(([f]) => f);
    expect(importers).toEqual(["ts/cluster/region.ts"]);
  });
});
