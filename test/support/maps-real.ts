// Where ../shared/maps-real (the real Tiled maps, see its README) is: beside
// the clone, as on CI and the development machine, or two levels up for a
// git worktree kept in a folder beside the main clone; and the walk the tests of those maps take.
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const CANDIDATES = [resolve(ROOT, "../shared/maps-real"), resolve(ROOT, "../../shared/maps-real")];

/** The maps-real folder: the first candidate that exists, else the first (so a missing folder fails by name). */
export const MAPS_REAL = CANDIDATES.find((path) => existsSync(path)) ?? CANDIDATES[0];

/**
 * Tiled's own examples as Debian's `tiled` package installs them (CI installs it for tmxrasterizer): more
 * maps nobody here made — a Mana World desert tileset with margin and spacing, the sewers of Tiled's
 * automapping example, and walls in perspective (64-px tiles offset over a 31-px grid, their tileset's
 * image named without its size). Debian compresses the larger ones (orthogonal-outside.tmx.gz): those are
 * not used here.
 */
export const TILED_EXAMPLES = "/usr/share/doc/tiled/examples";

/**
 * Every orthogonal map of maps-real (the two non-orthogonal ones are refused by design: map-real.test.ts), and
 * whether it has chunks of more than 64 tile ids (sent as ChunkWidePackets to a client that reads them).
 */
export const ORTHOGONAL_MAPS: readonly { readonly file: string; readonly wide: boolean }[] = [
  { file: "mapeditor-tiled/rpg/island.tmx", wide: true },
  { file: "workadventure-map-starter-kit/office.tmj", wide: true },
  { file: "sourceoftales/maps/goldenfields/main.tmx", wide: true },
  // Wide since issue 16's tile objects are drawn: its 13 trees and squirrel are stamped into the stack (184 ids).
  { file: "mapeditor-tiled/forest/forest.tmx", wide: true },
  { file: "rs-tiled/tiled_base64.tmx", wide: false },
  { file: "rs-tiled/tiled_base64_gzip.tmx", wide: false },
  { file: "rs-tiled/tiled_base64_zstandard.tmx", wide: false },
  { file: "rs-tiled/tiled_base64_zlib_infinite.tmx", wide: false },
  { file: "rs-tiled/tiled_flipped.tmx", wide: false },
  // Absolute: resolve(MAPS_REAL, file) is the path itself.
  { file: resolve(TILED_EXAMPLES, "desert.tmx"), wide: false },
  { file: resolve(TILED_EXAMPLES, "sewers.tmx"), wide: false },
  { file: resolve(TILED_EXAMPLES, "perspective_walls.tmx"), wide: true },
];

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
