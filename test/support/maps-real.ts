// Where ../shared/maps-real (the real Tiled maps, see its README) is: beside
// the clone, as on CI and the development machine, or two levels up for a
// git worktree kept in a folder beside the main clone; and the walk the tests of those maps take.
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const CANDIDATES = [resolve(ROOT, "../shared/maps-real"), resolve(ROOT, "../../shared/maps-real")];

/** The maps-real folder: the first candidate that exists, else the first (so a missing folder fails by name). */
export const MAPS_REAL = CANDIDATES.find((path) => existsSync(path)) ?? CANDIDATES[0];

/**
 * Tiled's own examples as Debian's `tiled` package installs them (CI installs it for tmxrasterizer): more
 * maps nobody here made — a Mana World desert tileset with margin and spacing, the sewers of Tiled's
 * automapping example, and walls in perspective (64-px tiles offset over a 31-px grid, their tileset's
 * image named without its size). Debian compresses the larger ones (orthogonal-outside.tmx.gz); of those,
 * the sticker-knight maps are played from an unpacked copy (STICKER_KNIGHT).
 */
export const TILED_EXAMPLES = "/usr/share/doc/tiled/examples";

/**
 * Tiled's sticker-knight example (public domain, by ponywolf) unpacked: Debian gzips its maps and tileset
 * (`sandbox.tmx.gz`, `objs.tsx.gz`), so they are written, with the images and templates beside them, to one
 * folder of the temporary directory (`<folder>/map/sandbox.tmx`). Every file goes in by rename, so test
 * workers doing this at once never read half a file. Side-view scenes of free-placed tile objects scaled to
 * any size over a background colour, and no tile layer at all.
 */
export function unpackStickerKnight(): string {
  const from = resolve(TILED_EXAMPLES, "sticker-knight");
  const to = join(tmpdir(), `forgotten-caves-sticker-knight-${userInfo().uid}`);
  const copy = (relative: string): void => {
    const source = join(from, relative);
    const target = join(to, relative.replace(/\.gz$/, ""));
    const temporary = `${target}.${process.pid}.part`;
    if (relative.endsWith(".gz")) writeFileSync(temporary, gunzipSync(readFileSync(source)));
    else copyFileSync(source, temporary);
    renameSync(temporary, target);
  };
  for (const folder of ["map", "map/templates"]) {
    mkdirSync(join(to, folder), { recursive: true });
    for (const entry of readdirSync(join(from, folder), { withFileTypes: true })) {
      if (entry.isFile()) copy(`${folder}/${entry.name}`);
    }
  }
  return to;
}

/** The unpacked sticker-knight folder (unpackStickerKnight), or where it would be when Tiled's examples are missing. */
export const STICKER_KNIGHT = existsSync(resolve(TILED_EXAMPLES, "sticker-knight"))
  ? unpackStickerKnight()
  : resolve(TILED_EXAMPLES, "sticker-knight");

/**
 * Every orthogonal map of maps-real (the two non-orthogonal ones are refused by design: map-real.test.ts), and
 * whether it has chunks of more than 64 tile ids (sent as ChunkWidePackets to a client that reads them), and
 * `walks: false` where its spawn has no free cell to walk to.
 */
export const ORTHOGONAL_MAPS: readonly {
  readonly file: string;
  /** For test names: `file` relative to maps-real, or to Tiled's examples (`tiled-examples/…`, `sticker-knight/…`), never a temporary path. */
  readonly name: string;
  readonly wide: boolean;
  readonly walks?: false;
}[] = (
  [
    { file: "mapeditor-tiled/rpg/island.tmx", wide: true },
    { file: "workadventure-map-starter-kit/office.tmj", wide: true },
    { file: "sourceoftales/maps/goldenfields/main.tmx", wide: true },
    // Wide since issue 16's tile objects are drawn: its 13 trees and squirrel are stamped into the stack (184 ids).
    { file: "mapeditor-tiled/forest/forest.tmx", wide: true },
    { file: "rs-tiled/tiled_base64.tmx", wide: false },
    { file: "rs-tiled/tiled_base64_gzip.tmx", wide: false },
    { file: "rs-tiled/tiled_base64_zstandard.tmx", wide: false },
    { file: "rs-tiled/tiled_base64_zlib_infinite.tmx", wide: false },
    // A few isolated cells.
    { file: "rs-tiled/tiled_flipped.tmx", wide: false, walks: false },
    // Absolute: resolve(MAPS_REAL, file) is the path itself.
    { file: resolve(TILED_EXAMPLES, "desert.tmx"), wide: false },
    { file: resolve(TILED_EXAMPLES, "sewers.tmx"), wide: false },
    { file: resolve(TILED_EXAMPLES, "perspective_walls.tmx"), wide: true },
    // Side-view scenes of tile objects, most scaled, over a background colour (issue 42). Nothing to walk on:
    // only the cell a sticker at its tile's size stands in is its tile (walkable); the other cells it covers,
    // and everything scaled, are art over empty cells, which are solid. So the player stands on one sticker.
    { file: resolve(STICKER_KNIGHT, "map/sandbox.tmx"), wide: true, walks: false },
    { file: resolve(STICKER_KNIGHT, "map/sandbox2.tmx"), wide: true, walks: false },
  ] as const
).map((entry) => ({ ...entry, name: stableName(entry.file) }));

/** A map's name that is the same on every machine and run: the sticker-knight copy's folder is per user. */
function stableName(file: string): string {
  if (file.startsWith(`${STICKER_KNIGHT}/`)) return `sticker-knight/${relative(STICKER_KNIGHT, file)}`;
  if (file.startsWith(`${TILED_EXAMPLES}/`)) return `tiled-examples/${relative(TILED_EXAMPLES, file)}`;
  return file;
}

/**
 * The free cell farthest (in orthogonal steps, at most `limit`) from `start`
 * that the server's own rule reaches; orthogonal steps never cut corners.
 */
export function reachableGoal(
  running: { readonly game: { readonly world: { walkable(x: number, y: number): boolean } } },
  start: { x: number; y: number },
  limit: number,
): { x: number; y: number } {
  const world = running.game.world;
  const seen = new Set([`${start.x},${start.y}`]);
  let frontier = [start];
  let farthest = start;
  for (let distance = 0; distance < limit && frontier.length > 0; distance++) {
    const next: { x: number; y: number }[] = [];
    for (const cell of frontier) {
      for (const [dx, dy] of [
        [1, 0],
        [-1, 0],
        [0, 1],
        [0, -1],
      ]) {
        const step = { x: cell.x + dx, y: cell.y + dy };
        const key = `${step.x},${step.y}`;
        if (seen.has(key) || !world.walkable(step.x, step.y)) continue;
        seen.add(key);
        next.push(step);
      }
    }
    if (next.length > 0) farthest = next[next.length - 1];
    frontier = next;
  }
  return farthest;
}
