// Map tool for map makers: `npm run -s map -- check PATH` prints what the
// server will do with a map — its size, its layers and what each is used for,
// the ids in every 32×32 chunk and which chunk encoding (ChunkPacket or
// ChunkWidePacket parts) each needs, the spawn points, the objects by type,
// the collision sources — by running the server's own loader and World on it
// (docs/maps.md § Checking a map). Exit status: 0 when the server would start
// on the map (notes are not errors), 1 when it would refuse it, 2 for bad usage.
import { pathToFileURL } from "node:url";
import { CHUNK_SIZE, CHUNK_TILE_COUNT, PALETTE_MAX } from "../constants.js";
import { type LoadedMap, loadMap, MapError, type RawMap, readRawMap } from "../server/map/load-map.js";
import { World, WorldError } from "../server/world/world.js";
import { worldMapOf } from "../server/world/world-map.js";
import { type ComposedWorld, readWorld, WorldAreasError } from "../server/world/world-areas.js";
import { buildMapArt, type MapArt } from "../server/map/map-atlas.js";
import { MAX_FRAMES_PER_STACK } from "../server/map/stack-animation.js";
import type { Core } from "../wasm/core.js";
import { loadCore } from "../wasm/node.js";

const USAGE = `Usage:
  map check PATH     what the server will do with the map at PATH (.tmx, .tmj, .json, .csv)
  map --help         this text

Exit status: 0 if the server would start on the map, 1 if it would refuse it, 2 on bad usage.`;

export interface MapCheck {
  /** The report, one line per entry. */
  lines: string[];
  /** Why the server would refuse the map; empty when it would start. */
  errors: string[];
}

/** Per chunk: its coordinates, distinct ids, and the datagrams the server sends for it. */
interface ChunkLine {
  cx: number;
  cy: number;
  ids: number;
  datagrams: number;
  bytes: number;
}

function chunkLines(world: World): ChunkLine[] {
  const tiles = new Uint16Array(CHUNK_TILE_COUNT);
  const distinct = new Set<number>();
  const lines: ChunkLine[] = [];
  for (let cy = 0; cy < world.chunksY; cy++) {
    for (let cx = 0; cx < world.chunksX; cx++) {
      world.copyChunkTiles(cx, cy, tiles);
      distinct.clear();
      for (const tile of tiles) distinct.add(tile);
      const datagrams = world.chunkDatagrams(cx, cy);
      const bytes = datagrams.reduce((sum, datagram) => sum + datagram.length, 0);
      lines.push({ cx, cy, ids: distinct.size, datagrams: datagrams.length, bytes });
    }
  }
  return lines;
}

/** Each tile layer and what the server makes of it. */
function layerLines(map: LoadedMap, raw: RawMap): string[] {
  const source = map.source;
  const lines = [`layers: ${source.layers} tile, ${source.objectLayers} object, ${source.groupLayers} group`];
  const collision = new Set(source.collisionLayers);
  for (const layer of raw.tileLayers) {
    const use = collision.has(layer.path) ? "collision only" : layer.visible ? "drawn" : "hidden: ignored";
    lines.push(`  ${layer.path}: ${use}`);
  }
  lines.push(
    map.art
      ? "  (the drawn layers are drawn in order: each distinct stack of tiles and flips in a cell gets its own id)"
      : "  (the built-in art: each cell shows its top-most tile)",
  );
  return lines;
}

/** The collision drawn as shapes: objects of collision layers, shapes inside tiles (a cell blocks when one covers its centre). */
function collisionShapeLines(map: LoadedMap): string[] {
  const source = map.source;
  const lines: string[] = [];
  const layers = source.collisionObjectLayers;
  if (source.collisionObjects > 0 || layers.length > 0 || source.collisionNotes.length > 0) {
    lines.push(
      `  collision objects: ${source.collisionObjects} shapes` +
        (layers.length > 0 ? ` (layers ${layers.map((path) => `"${path}"`).join(", ")})` : "") +
        ` block ${source.collisionObjectCells} cells (a cell blocks when a shape covers its centre or a polyline passes through it)`,
    );
  }
  for (const note of source.collisionNotes) lines.push(`  note: ${note}`);
  if (source.collisionShapeTiles > 0) {
    lines.push(
      `  tile collision shapes: ${source.collisionShapeTiles} tiles with shapes drawn inside block ${source.collisionShapeCells} cells`,
    );
  }
  return lines;
}

/** Tile objects (objects with a gid): their cells' tiles (snapped or not), drawn free, or not drawn and why. */
function tileObjectLines(map: LoadedMap): string[] {
  const report = map.source.tileObjects;
  const lines: string[] = [];
  if (report.stamped > 0 || report.free > 0 || report.notDrawn.length > 0) {
    lines.push(
      `tile objects: ${report.stamped} are their cells' tiles (collision, drawn id) at their object layer's place in the stack` +
        (report.snapped > 0
          ? ` (${report.snapped} off the grid stand in the nearest cell, at most ${report.maxSnapPx} px away)`
          : ""),
    );
  }
  if (report.free > 0) {
    lines.push(
      `  ${report.free} drawn free at their own place, size and rotation (${report.scaled} scaled; the scaled, rotated and outside ones block nothing)`,
    );
  }
  for (const reason of report.notDrawn) lines.push(`  not drawn: ${reason}`);
  if (map.art?.backgroundColor !== undefined) {
    lines.push(`background colour: #${map.art.backgroundColor.toString(16).padStart(6, "0")}, behind every layer`);
  }
  return lines;
}

/**
 * The warps, teleports and stairs as the server follows them (world-areas.ts): where each leads, or why it
 * is not followed; and the other maps of the folder they bring into the world. `error`: the world the
 * server would refuse (a linked map that does not load, maps that disagree on tile ids).
 */
function warpLines(path: string): { lines: string[]; error: string | null } {
  let world: ComposedWorld;
  try {
    world = readWorld(path);
  } catch (error) {
    if (error instanceof MapError || error instanceof WorldAreasError) return { lines: [], error: error.message };
    throw error;
  }
  const followed = world.reports.filter((report) => report.unfollowed === null).length;
  const lines = [`warps: ${world.reports.length} (${followed} followed, ${world.reports.length - followed} not)`];
  for (const { file, warp, arrival, unfollowed } of world.reports) {
    const what = `  ${warp.kind} ${warp.id}${warp.name ? ` "${warp.name}"` : ""} at (${warp.x}, ${warp.y})`;
    const where = file === path ? "" : ` in ${file}`;
    if (unfollowed !== null) lines.push(`${what}${where}: not followed: ${unfollowed}`);
    else if (warp.kind === "stairs") lines.push(`${what}${where}: followed, ${warp.direction} to a dungeon level`);
    else
      lines.push(
        `${what}${where}: followed to world (${arrival!.x}, ${arrival!.y})${warp.map ? ` in ${warp.map}` : ""}`,
      );
  }
  if (world.files.length > 1) {
    lines.push(`world: ${world.files.length} maps through the warps, each its own area (P-24):`);
    world.files.forEach((file, index) => {
      const area = world.areas[index];
      lines.push(`  ${file}: at world (${area.x}, ${area.y}), ${area.width} × ${area.height}`);
    });
    const art = world.map.art;
    if (art) {
      // world-art.ts: the maps' own art as one atlas, their ids renumbered apart.
      lines.push(
        `  one atlas for the world: ${art.tileCount - 1} tiles of ${art.tileWidthPx} px, ${art.pixels.length} bytes; ` +
          `${world.map.tileInfo.length} world ids`,
      );
    }
  }
  return { lines, error: null };
}

/**
 * The tilesets' tile animations and what the client plays of them: each animated stack's frames are atlas
 * tiles the client picks by the clock (stack-animation.ts); with the built-in art (or no atlas) none play.
 */
function animationLines(raw: RawMap, art: MapArt | null): string[] {
  const animated = raw.tilesets.filter((tileset) => tileset.animations.size > 0);
  if (animated.length === 0) return [];
  const total = animated.reduce((sum, tileset) => sum + tileset.animations.size, 0);
  const lines = [
    art
      ? `animations: ${total} animated tiles; ${art.frames.size} ids animate, ` +
        `${[...art.frames.values()].reduce((sum, frames) => sum + frames.length, 0)} frames in all ` +
        `(at most ${MAX_FRAMES_PER_STACK} per stack)` +
        (art.frames.size === 0 ? "; none changes the picture (a missing image draws every frame alike)" : "")
      : `animations: ${total} animated tiles, not played (only a map with its own art plays them)`,
  ];
  for (const tileset of animated) {
    const frames = [...tileset.animations.values()];
    const longest = Math.max(...frames.map((list) => list.reduce((sum, frame) => sum + frame.durationMs, 0)));
    lines.push(
      `  tileset "${tileset.name}": ${tileset.animations.size} tiles, ${Math.min(...frames.map((list) => list.length))}` +
        `..${Math.max(...frames.map((list) => list.length))} frames, cycles up to ${longest} ms`,
    );
  }
  if (art && art.reducedStacks > 0) {
    lines.push(
      `  warning: ${art.reducedStacks} stacks combine animations into more than ${MAX_FRAMES_PER_STACK} frames: ` +
        "their lower animated layers stay on their first frame",
    );
  }
  return lines;
}

/** The doors (docs/maps.md § Doors) and chests as the server places them: where, open or closed, locked with which key. */
function doorLines(map: LoadedMap): string[] {
  const lines: string[] = [];
  const locked = map.doors.filter((door) => door.locked);
  const open = map.doors.filter((door) => door.open).length;
  const keys = [...new Set(locked.map((door) => door.key!))];
  lines.push(
    `doors: ${map.doors.length}` +
      (map.doors.length > 0
        ? ` (${open} open, ${map.doors.length - open} closed, ${locked.length} locked` +
          (keys.length > 0 ? `; keys: ${keys.map((key) => `"${key}"`).join(", ")}` : "") +
          ")"
        : ""),
  );
  for (const door of map.doors) {
    const name = door.name ? ` "${door.name}"` : "";
    const state = door.locked ? `locked (key "${door.key}")` : door.open ? "open" : "closed";
    lines.push(
      `  door ${door.id}${name} at (${door.x}, ${door.y}): ${state}, tiles ${door.closedTile} closed / ${door.openTile} open`,
    );
  }
  const items = map.chests.reduce((sum, chest) => sum + chest.items.length, 0);
  lines.push(`chests: ${map.chests.length}${map.chests.length > 0 ? ` holding ${items} stacks` : ""}`);
  return lines;
}

/** Checks the map at `path` with the server's loader and World on `core`. Never throws for a bad map. */
export function checkMap(path: string, core: Core): MapCheck {
  const lines: string[] = [`map: ${path}`];
  let map: LoadedMap;
  let raw: RawMap;
  try {
    map = loadMap(path);
    raw = readRawMap(path);
  } catch (error) {
    if (error instanceof MapError) return { lines, errors: [error.message] };
    throw error;
  }
  const source = map.source;
  lines.push(
    `  "${map.name}": ${source.format}, ${source.orientation}, ${map.width} × ${map.height} tiles of ` +
      `${source.tileWidthPx} × ${source.tileHeightPx} px${source.infinite ? `, infinite (origin ${source.originX}, ${source.originY})` : ""}`,
  );
  lines.push(...layerLines(map, raw));
  // What the loader left out where Tiled would: warnings, not errors (the map plays).
  for (const warning of map.warnings) lines.push(`  warning: ${warning}`);
  lines.push(
    `tiles: ${map.tileData.size} ids with tile data, ${source.tilesets} tilesets` +
      (source.tileDataFile ? `, tile data file ${source.tileDataFile}` : "") +
      (source.twinCount > source.stackCount ? `, ${source.twinCount - source.stackCount} collision twins` : "") +
      (source.stackCount > 0 ? `, ${source.stackCount} stack ids` : ""),
  );
  const collides = [...map.tileData.values()].filter((info) => info.collides).length;
  lines.push(`collision: ${collides} tile ids collide (tile properties, collision layers, twins); id 0 = no tile`);
  lines.push(...collisionShapeLines(map));
  if (source.spawnFallback) {
    const [spawn] = map.spawns;
    lines.push(`spawns: none in the map; players start on the free cell nearest the centre, (${spawn.x}, ${spawn.y})`);
  } else {
    const from = source.spawnsFromStartLayer ? " (the free cells of the start layer)" : "";
    lines.push(`spawns: ${map.spawns.length}${from}: ${map.spawns.map(({ x, y }) => `(${x}, ${y})`).join(" ")}`);
  }
  const byType = new Map<string, number>();
  for (const object of map.objects) byType.set(object.type, (byType.get(object.type) ?? 0) + 1);
  const types = [...byType].sort((a, b) => b[1] - a[1]);
  lines.push(`objects: ${map.objects.length}${types.length > 0 ? ", by type:" : ""}`);
  for (const [type, count] of types) lines.push(`  ${type === "" ? "(no type)" : type}: ${count}`);
  lines.push(
    `  used: ${source.spawnFallback ? 0 : map.spawns.length} spawn points, ${map.interactables.length} interactables, ` +
      `${map.npcSpawns.length} creature spawns (${map.npcKinds.length} kinds), the warps below; other objects are not used yet`,
  );
  lines.push(...doorLines(map));
  const warps = warpLines(path);
  lines.push(...warps.lines);
  if (warps.error !== null) return { lines, errors: [warps.error] };

  lines.push(...tileObjectLines(map));

  const art = map.art ? buildMapArt({ ...map.art, tiles: map.tiles, tileData: map.tileData }) : null;
  if (!art) {
    lines.push("art: the client's built-in tiles (the map's ids are its tile sheet's cells)");
  } else {
    lines.push(
      `art: the map's own, ${art.tileCount - 1} atlas tiles of ${art.tileWidthPx} px from ${source.stackCount} stacks ` +
        `and the single tiles, ${art.pixels.length} bytes`,
    );
    for (const problem of art.problems) lines.push(`  warning: ${problem} (drawn as a placeholder)`);
    if (source.overLayers.length > 0) {
      lines.push(
        `  over the entities: layers ${source.overLayers.map((path) => `"${path}"`).join(", ")}, ` +
          `${source.overCount} stack ids with an over look (${art.overLooks.size} drawn)`,
      );
    }
  }
  lines.push(...animationLines(raw, art));

  let world: World;
  try {
    world = new World(core, worldMapOf(map, art));
  } catch (error) {
    if (error instanceof WorldError) return { lines, errors: [error.message] };
    throw error;
  }
  const chunks = chunkLines(world);
  const narrow = chunks.filter((chunk) => chunk.ids <= PALETTE_MAX);
  const wide = chunks.filter((chunk) => chunk.ids > PALETTE_MAX);
  const most = Math.max(...chunks.map((chunk) => chunk.ids));
  const sum = (list: ChunkLine[], key: "datagrams" | "bytes") => list.reduce((total, chunk) => total + chunk[key], 0);
  lines.push(
    `chunks: ${world.chunksX} × ${world.chunksY} of ${CHUNK_SIZE} × ${CHUNK_SIZE}; at most ${most} ids in one chunk`,
    `  ChunkPacket (≤ ${PALETTE_MAX} ids): ${narrow.length} chunks, ${sum(narrow, "bytes")} bytes`,
    `  ChunkWidePacket (> ${PALETTE_MAX} ids): ${wide.length} chunks, ${sum(wide, "datagrams")} datagrams, ${sum(wide, "bytes")} bytes`,
  );
  for (const chunk of wide) {
    lines.push(
      `    (${chunk.cx}, ${chunk.cy}): ${chunk.ids} ids → ${chunk.datagrams} part${chunk.datagrams > 1 ? "s" : ""}, ${chunk.bytes} bytes`,
    );
  }
  return { lines, errors: [] };
}

async function main(args: string[]): Promise<number> {
  if (args.length === 0 || args.includes("--help") || args.includes("-h")) {
    (args.length === 0 ? process.stderr : process.stdout).write(`${USAGE}\n`);
    return args.length === 0 ? 2 : 0;
  }
  const [command, path, ...extra] = args;
  if (command !== "check" || path === undefined || extra.length > 0) {
    process.stderr.write(`map: expected "check PATH", got ${JSON.stringify(args.join(" "))}\n${USAGE}\n`);
    return 2;
  }
  const result = checkMap(path, await loadCore());
  process.stdout.write(`${result.lines.join("\n")}\n`);
  for (const error of result.errors) process.stderr.write(`error: ${error}\n`);
  if (result.errors.length > 0) {
    process.stderr.write("the server would refuse this map\n");
    return 1;
  }
  process.stdout.write("ok: the server would start on this map\n");
  return 0;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main(process.argv.slice(2));
}
