// Where ../shared/maps-real (the real Tiled maps, see its README) is: beside
// the clone, as on CI and the development machine, or two levels up for a
// git worktree kept in a folder beside the main clone.
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const CANDIDATES = [resolve(ROOT, "../shared/maps-real"), resolve(ROOT, "../../shared/maps-real")];

/** The maps-real folder: the first candidate that exists, else the first (so a missing folder fails by name). */
export const MAPS_REAL = CANDIDATES.find((path) => existsSync(path)) ?? CANDIDATES[0];
